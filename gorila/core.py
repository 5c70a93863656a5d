"""The interfaces of Gorila's components, and nothing else: who may ask what of whom.

Two kinds of protocol. The in-process ones are what an actor or a learner is built with:

    actor = actor_for(config, info, index, params, writer)      # a ParameterSource, a TransitionSink
    learner = learner_for(config, info, index, params, replay)  # a ParameterSource, a MinibatchSource

(`gorila.system.agent_builders` reads the config and hands `Actor` and `Learner` their settings.)

The call contracts hold every method called across a process boundary (`ShardServer`, `ReplayServer`,
`EvaluatorServer`, `ActorWorker`, `LearnerWorker`, `BundleWorker`): a caller names the method by the
contract's function, never by a string, and the Ray runtime gives a placed component exactly its
role's contract methods (and `node_id` and `process`, which say where it runs):

    future = calls.call(shard, ShardServer.pull)          # the same line on both runtimes
    theta, version, target_version = calls.get([future])[0]

Inside one process a bundle holds its actor, replay and learner directly. `Saveable` is what every
part that a checkpoint or a restart carries over implements. The data they exchange is in
`gorila.messages`. `Algorithm` is the learning rule the components run (DQN, PQN: `gorila.algorithms`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol

import numpy as np

from gorila.messages import Minibatch, ReplayMass, Report

if TYPE_CHECKING:  # the interfaces stay importable without torch (the Ray hosts import them)
    import torch


class Saveable(Protocol):
    """What a checkpoint or a restart carries over: its state, as a dict of numbers, arrays and tensors,
    and back. One pair of names for every part that keeps state (a shard and its update rule, a
    replay's storage and sampler, the scheduler, the stop rule):

        saved = scheduler.state()       # into the checkpoint
        scheduler.restore(saved)        # a resumed run continues from it
    """

    def state(self) -> dict:
        """Everything needed to continue, detached from this object (safe to pickle and keep)."""

    def restore(self, state: dict) -> None:
        """Continue from `state` (what `state()` of an object of the same kind and size returned)."""


class ParameterSource(Protocol):
    """theta+ as seen by actors and learners (a `ParameterClient` over the shards): vectors are tensors
    on the caller's device; gradients go in as tensors there."""

    versions: np.ndarray
    synchronous: bool  # a refresh waits for the theta+ that includes this caller's last push

    def pull(self, prefetch: bool = False) -> tuple[torch.Tensor, bool]: ...
    def pull_target(self) -> torch.Tensor: ...
    def push(self, gradients: torch.Tensor, base_versions: np.ndarray) -> None: ...
    def push_and_pull(self, gradients: torch.Tensor, base_versions: np.ndarray) -> tuple[torch.Tensor, bool]: ...
    def forget(self) -> None: ...
    def drain(self) -> None: ...


class TransitionSink(Protocol):
    """Where an actor writes one entry per environment copy and step (a `ReplayWriter`)."""

    def add(self, frames, actions, rewards, terminals, lasts) -> None: ...
    def flush(self) -> None: ...


class MinibatchSource(Protocol):
    """Where a learner draws minibatches (a `ReplayMemory`, or a `ReplaySampler` over several)."""

    def sample(self, batch_size: int) -> Minibatch | None: ...
    def update_priorities(self, streams, indices, td_errors) -> None:
        """New |delta| of entries a prioritised minibatch drew (its `streams` and `indices`)."""


class Algorithm(Protocol):
    """A learning rule Gorila's components run, registered by name in `gorila.algorithms`: what the
    config reads of it (its presets, its checks, the fields its presets share among actors), its budget
    rule, and what it builds from a worker's `Parts` (`gorila.system.builders`): its Q-network and its
    bundle (and outside bundles, an `ActorLearnerAlgorithm`'s actor and learner).

        algorithm = algorithm_of(config)              # gorila.algorithms: ALGORITHMS[config.algorithm]
        problem = algorithm.check(config)             # None, or one line naming the key
        bundle = algorithm.bundle(parts, index, saved_replay)

    Its module imports the components it builds inside the building methods: the config reads an
    algorithm without importing torch.
    """

    name: str
    presets: dict[str, dict]  # its ready sets of config values by preset name, each with its reasons
    learns_from_replay: bool  # its learners sample replay memories (warm-up, learning start); else none
    bundle_shape: tuple[str, str]  # one bundle's name and parts, in the launch line
    kept_in_rounds: tuple[str, ...]  # fields its N learners keep whole in synchronous rounds

    def shared_by_actors(self, preset: str) -> tuple[str, ...]:
        """The fields `preset` gives for its whole run, which N actors (bundles) share 1/N each."""

    def shared_in_rounds(self, preset: str) -> tuple[str, ...]:
        """The fields of `preset`'s one update that N learners in synchronous rounds share besides."""

    def check(self, config) -> str | None:
        """What this algorithm cannot run in `config`, in one line naming the key; None when it can."""

    def gradients(self, config, steps: int) -> int:
        """Gradients its learners compute, all together, over `steps` agent steps of all actors."""

    def learning(self, config, updates: int) -> str:
        """How its learners learn, in the launch's schedule line (`updates`: the run's server updates)."""

    def network(self, config, info) -> torch.nn.Module:
        """Its Q-network (torso and head) for the environment `info` (an `EnvInfo`) describes."""

    def bundle(self, parts, index: int, saved_replay: str | None = None) -> ActorWorker:
        """Bundle `index`: its actor and learner (and replay memory, started from `saved_replay`), called
        as an actor; one that holds a replay memory is a `BundleWorker`."""


class ActorLearnerAlgorithm(Algorithm, Protocol):
    """An algorithm that also runs outside bundles, in any mix of actors, replay memories and learners
    (DQN; PQN's check refuses it: each actor's rollouts go to its own learner)."""

    def actor(self, parts, index: int, writer: TransitionSink) -> ActorWorker:
        """Actor `index`, writing its steps to `writer`."""

    def learner(self, parts, index: int, replay: MinibatchSource) -> LearnerWorker:
        """Learner `index`, sampling `replay`."""


# ---- call contracts: every method called across a process boundary --------------------------------


class ShardServer(Protocol):
    """A parameter shard (`ParameterShard`), called by every `ParameterClient` and by the driver."""

    def apply_batch(self, gradients: np.ndarray, base_version: int) -> int:
        """Apply each row of `gradients` as one update of the slice; how many were not stale."""

    def apply_and_pull(self, gradients: np.ndarray, base_version: int) -> tuple[np.ndarray, int, int]:
        """`apply_batch`, then `pull`, in one round trip."""

    def pull(self) -> tuple[np.ndarray, int, int]:
        """(theta+ slice, version, target_version)."""

    def pull_target(self) -> np.ndarray:
        """The theta- slice."""

    def stats(self) -> dict:
        """Versions, applied and discarded gradients, mean staleness: for metrics."""

    def state(self) -> dict:
        """Everything the shard knows, for checkpoints and shard backups."""

    def restore(self, state: dict) -> None:
        """Continue from `state` (what `state` returned): a restarted shard's last state, from the driver."""


class ReplayHolder(Protocol):
    """What holds a replay memory (a stand-alone one, or a bundle): its contents can be saved, and
    counted (what a resumed run says it restored)."""

    def save_replay(self, path: str) -> int:
        """Write the replay's contents to `path`; the bytes written."""

    def replay_size(self) -> int:
        """Transitions the replay holds now: entries that can be drawn as a state s_t (what its warm-up
        counts; an episode's last frame is held but is no transition)."""


class ReplayServer(ReplayHolder, Protocol):
    """A stand-alone replay memory (`ReplayMemory`): written by `ReplayWriter`s, sampled by
    `ReplaySampler`s, read by the driver."""

    def add(self, stream_ids, frames, actions, rewards, terminals, lasts) -> None:
        """Append one entry per listed stream."""

    def add_steps(self, stream_ids, frames, actions, rewards, terminals, lasts) -> None:
        """Append T steps at once (arrays [T, len(stream_ids), ...]), oldest first."""

    def sampleable(self) -> int:
        """Entries that can currently be drawn as a state s_t."""

    def mass(self) -> ReplayMass:
        """Sampleable entries and their priority mass: how a sampler over several memories weighs this one."""

    def sample_share(self, batch_size: int) -> tuple[Minibatch | None, ReplayMass]:
        """This memory's share of a minibatch (None while warming up; prioritised: with priorities and
        ids, but no weights: those need every memory's mass) and its `mass()` at the draw."""

    def update_priorities(self, streams, indices, td_errors) -> None:
        """New |delta| of entries it gave out; those overwritten since are ignored."""

    def stats(self) -> dict:
        """Size, capacity, entries ever added and bytes held: for metrics."""


class EvaluatorServer(Protocol):
    """The evaluator (`Evaluator`), called by the driver."""

    def evaluate(self, flat_parameters: np.ndarray, episodes: int | None = None) -> dict:
        """Returns of `episodes` greedy episodes (default eval_episodes) played with theta+."""


class Worker(Protocol):
    """An actor, a learner or a bundle: the driver hands it a budget, it reports what it did."""

    def run(self, budget: int) -> Report:
        """Spend `budget` (agent steps, or learner updates); what was done."""


class LearnerWorker(Worker, Protocol):
    """A stand-alone learner (`Learner`): its budget is updates; it has no step count to restore."""


class ActorWorker(Worker, Protocol):
    """An actor (`Actor`): its budget is agent steps."""

    def continue_from(self, steps: int) -> None:
        """Carry on from `steps` agent steps already taken (epsilon continues its schedule)."""


class BundleWorker(ActorWorker, ReplayHolder, Protocol):
    """A bundle (`Bundle`): an actor's contract, and it holds its own replay memory."""


def contract_methods(contract: type) -> dict[str, Callable]:
    """Every method of a contract, its own and those of the contracts it extends, by name."""
    methods: dict[str, Callable] = {}
    for cls in reversed(contract.__mro__):
        if Protocol in cls.__bases__:  # a contract (not `object`, `Protocol` or `Generic`)
            methods.update(
                {name: value for name, value in vars(cls).items() if callable(value) and not name.startswith("_")}
            )
    return methods
