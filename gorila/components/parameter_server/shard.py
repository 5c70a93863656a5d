"""One shard of the parameter server: a contiguous slice of theta+, its optimizer and its version.

Each shard applies asynchronous SGD to its own slice only (Nair et al. 2015, section 4): it never
sees the other slices. With `decay_updates` its learning rate falls linearly to 0 over that many of
its updates (PQN's schedule). With `staleness_momentum` it takes out of Adam's momentum what the
staleness of its gradients already adds (`momentum_for_staleness`). It also keeps its slice of theta-,
refreshed every `target_update_every` of its own updates, and discards gradients computed on
parameters too many of its versions old, and those computed on a version it no longer has: a shard
restarted mid-run goes on from the driver's last copy of its state, behind the versions its learners
had read, and a gradient from one of those lost versions has no staleness to weigh it by. With a
`round_size` above 1 it applies the mean of one gradient from each of that many learners as one update
(synchronous SGD, `gorila.components.parameter_server.rounds`).

A shard keeps its slice and its optimizer's moments on a `device`: a shard beside a learner keeps them
where that learner computes (its GPU), so that the learner's gradient and theta+ never leave it. The
contract's methods take and give numpy arrays (what travels between processes); a caller in the same
process uses `snapshot` and `target_snapshot` and passes tensors. One lock makes every method safe to
call from two threads (a host that serves other processes' calls beside its own work).
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
import torch

from gorila.components.parameter_server.optimizers import make_optimizer
from gorila.components.parameter_server.rounds import Rounds

# torch warns when it wraps a read-only array because writing through it would be undefined; shards
# only read gradients, so the warning says nothing here.
warnings.filterwarnings("ignore", message="The given NumPy array is not writable", category=UserWarning)

STALENESS_BINS = 1024  # a histogram of the staleness of applied gradients: 0 .. 1022 versions, then 1023 or more
STALENESS_SMOOTHING = 0.01  # the running mean of staleness that sets the momentum weighs the last ~100 updates most


def momentum_for_staleness(beta1: float, staleness: float) -> float:
    """Adam's first-moment decay for gradients `staleness` versions late on average.

    Asynchrony is momentum of its own: gradients that land s versions late on average move theta+ as
    SGD with momentum 1 - 1/(1 + s) would (Mitliagkas et al. 2016, "Asynchrony begets momentum", with
    1 + s learners in flight). Keeping the product of the two memories' complements at one synchronous
    learner's, (1 - beta1_s) / (1 + s) = 1 - beta1, gives beta1_s = max(0, 1 - (1 + s)(1 - beta1)): with
    0.9, 0.8 at s = 1, 0.5 at 4 and 0 from 9.
    """
    return max(0.0, 1.0 - (1.0 + max(staleness, 0.0)) * (1.0 - beta1))


class ParameterShard:
    """Owns theta+[start:stop], applies gradient slices to it, and counts what it applied or discarded."""

    def __init__(
        self,
        index: int,
        initial: np.ndarray,
        *,
        optimizer: str = "adam",
        learning_rate: float = 1e-3,
        optimizer_eps: float = 1e-8,
        rmsprop_alpha: float = 0.95,
        adam_beta1: float = 0.9,
        staleness_momentum: bool = False,
        max_staleness: int = 0,
        target_update_every: int = 1000,
        decay_updates: int = 0,
        round_size: int = 1,
        round_timeout: float = 10.0,
        device: str = "cpu",
    ):
        self.index, self.device = index, torch.device(device)
        self.theta = torch.tensor(np.asarray(initial, dtype=np.float32), device=self.device)  # our own copy
        self.target = self.theta.clone()
        self.optimizer = make_optimizer(
            optimizer, self.theta.numel(), learning_rate, optimizer_eps, rmsprop_alpha, self.device, adam_beta1
        )
        self.adam_beta1 = adam_beta1
        self.staleness_momentum = staleness_momentum and hasattr(self.optimizer, "beta1")  # rules with momentum
        self.recent_staleness = 0.0  # running mean of the applied gradients' staleness (STALENESS_SMOOTHING)
        self._lock = threading.RLock()
        self.rounds = Rounds(round_size, round_timeout, self._lock) if round_size > 1 else None
        self.max_staleness = max_staleness
        self.target_update_every = target_update_every
        self.learning_rate, self.decay_updates = learning_rate, decay_updates
        self.version = 0  # updates applied so far
        self.target_version = 0  # theta- refreshes so far
        self.discarded = 0
        self.staleness_sum = 0
        self.staleness_counts = np.zeros(STALENESS_BINS, np.int64)  # applied gradients by staleness, the last bin open

    def apply(self, gradient: np.ndarray, base_version: int) -> bool:
        """Apply one gradient slice computed on this shard's parameters at `base_version`.

        Returns False (and counts it) when the gradient is older than `max_staleness` versions, or was
        computed on a version this shard no longer has (one lost with a restart).
        """
        with self._lock:
            return self._apply(self._on_device(gradient), base_version)

    def _on_device(self, gradient) -> torch.Tensor:
        """The gradient as a float32 tensor on this shard's device: a tensor already there as it is, an
        array as a view where the device is the CPU (on Ray it is read-only: the message's own buffer;
        the update rules never write their gradient)."""
        if not torch.is_tensor(gradient):
            gradient = torch.from_numpy(np.asarray(gradient, dtype=np.float32))
        return gradient.to(self.device, torch.float32)

    def _apply(self, gradient: torch.Tensor, base_version: int) -> bool:
        staleness = self.version - base_version
        if staleness < 0 or (self.max_staleness and staleness > self.max_staleness):
            self.discarded += 1
            return False
        if self.staleness_momentum:  # the running mean serves only this
            self.recent_staleness += STALENESS_SMOOTHING * (staleness - self.recent_staleness)
            self.optimizer.beta1 = momentum_for_staleness(self.adam_beta1, self.recent_staleness)
        self.staleness_sum += staleness
        self.staleness_counts[min(staleness, STALENESS_BINS - 1)] += 1
        if self.rounds is not None:
            return self.rounds.join(gradient, staleness > 0, self._step)
        self._step(gradient)
        return True

    def _step(self, gradient: torch.Tensor) -> None:
        """One update of theta+ (a new version), and of theta- every `target_update_every` of them."""
        if self.decay_updates:  # linearly to 0 at the run's last update, as optax's linear_schedule
            self.optimizer.lr = self.learning_rate * max(0.0, 1.0 - self.version / self.decay_updates)
        self.optimizer.step(self.theta, gradient)
        self.version += 1
        if self.version % self.target_update_every == 0:
            self.target = self.theta.clone()
            self.target_version += 1

    def apply_batch(self, gradients: np.ndarray, base_version: int) -> int:
        """Apply the rows of `gradients` ([T, slice]) one by one, each as its own update.

        A learner sends several gradients in one message to cut per-message cost; each one is still
        checked for staleness and applied as a separate asynchronous SGD step.
        """
        with self._lock:
            rows = self._on_device(gradients)
            return sum(self._apply(row, base_version) for row in rows)

    def apply_and_pull(self, gradients: np.ndarray, base_version: int) -> tuple[np.ndarray, int, int]:
        """`apply_batch`, then `pull` in the same call: one round trip instead of two."""
        theta, version, target_version = self.apply_and_snapshot(gradients, base_version)
        return theta.cpu().numpy(), version, target_version

    def apply_and_snapshot(self, gradients, base_version: int) -> tuple[torch.Tensor, int, int]:
        """`apply_and_pull` for a caller in this process: no other call's update lands in between."""
        with self._lock:
            self.apply_batch(gradients, base_version)
            return self.snapshot()

    def pull(self) -> tuple[np.ndarray, int, int]:
        """(theta+ slice, version, target_version)."""
        theta, version, target_version = self.snapshot()
        return theta.cpu().numpy(), version, target_version

    def pull_target(self) -> np.ndarray:
        """The theta- slice."""
        return self.target_snapshot().cpu().numpy()

    def snapshot(self) -> tuple[torch.Tensor, int, int]:
        """`pull` for a caller in this process: (a copy of the theta+ slice on this shard's device,
        version, target_version)."""
        with self._lock:
            return self.theta.clone(), self.version, self.target_version

    def target_snapshot(self) -> torch.Tensor:
        """`pull_target` for a caller in this process: a copy of the theta- slice on this shard's device."""
        with self._lock:
            return self.target.clone()

    def stats(self) -> dict:
        # the gradients applied: one per version, or in rounds several at once
        applied = self.version if self.rounds is None else int(self.staleness_counts.sum())
        return {
            "shard": self.index,
            "version": self.version,
            "target_version": self.target_version,
            "applied": applied,
            "discarded": self.discarded,
            "mean_staleness": self.staleness_sum / applied if applied else 0.0,
            "staleness_counts": self.staleness_counts.tolist(),
            "adam_beta1": getattr(self.optimizer, "beta1", None),
        }

    def state(self) -> dict:
        """Everything this shard knows (theta+, theta-, optimizer moments, versions, counts), for
        checkpoints and for restoring a restarted shard: CPU tensors and plain data only, wherever the
        shard keeps them."""
        with self._lock:
            return {
                "theta": self.theta.cpu().clone(),
                "target": self.target.cpu().clone(),
                "version": self.version,
                "target_version": self.target_version,
                "discarded": self.discarded,
                "staleness_sum": self.staleness_sum,
                "staleness_counts": torch.from_numpy(self.staleness_counts.copy()),  # checkpoints hold tensors only
                "recent_staleness": self.recent_staleness,
                "optimizer": self.optimizer.state(),
            }

    def restore(self, state: dict) -> None:
        """Continue exactly where `state()` left off."""
        if state["theta"].numel() != self.theta.numel():
            raise ValueError(
                f"shard {self.index}: saved slice has {state['theta'].numel()} parameters, "
                f"this one {self.theta.numel()}"
            )
        with self._lock:
            self.theta, self.target = state["theta"].to(self.device).clone(), state["target"].to(self.device).clone()
            self.version, self.target_version = state["version"], state["target_version"]
            self.discarded, self.staleness_sum = state["discarded"], state["staleness_sum"]
            counts = state.get("staleness_counts")  # none in checkpoints before it
            self.staleness_counts = (
                np.zeros(STALENESS_BINS, np.int64) if counts is None else counts.numpy().astype(np.int64)
            )
            self.recent_staleness = state.get("recent_staleness", 0.0)  # none in checkpoints before it
            self.optimizer.restore(state["optimizer"])
            if self.rounds is not None:
                self.rounds.drop()  # its gradients were computed on the parameters replaced
