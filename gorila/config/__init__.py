"""The one source of truth for an experiment: a typed dataclass with a docstring per field.

The CLI flags, their help text, the saved `config.yaml` of a run and the TensorBoard hparams are all
derived from `Config`. Presets are plain dictionaries of overrides; a YAML file and command-line flags
are applied on top, then `validate` checks every value and names the key that is wrong.
"""
from __future__ import annotations

import ast
import dataclasses
import inspect
import typing
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Literal

import yaml


class ConfigError(ValueError):
    """A user-supplied configuration value is unknown or out of range; the message names the key."""


@dataclass
class Config:
    # --- experiment ---------------------------------------------------------------------------
    env: str = "CartPole-v1"
    """Environment: a Gymnasium id with discrete actions (CartPole-v1) or an Atari game (Pong, ALE/Pong-v5)."""
    seed: int = 0
    """Random seed of networks, replay sampling and environments; at most 2**30 - 1, since the seeds of environment copies and evaluations are derived by adding to it and must stay 32-bit."""
    total_frames: int = 200_000
    """Training budget in environment frames, summed over all actors (Atari: 4 frames per agent step)."""
    run_dir: str = ""
    """Run directory (config, metrics, checkpoints), created at launch and refused if it is not empty; default runs/<env>-<date>-<time>, with -2, -3, ... added when a launch in the same second took that name."""
    stop_at_return: float = 0.0
    """Stop as soon as a greedy evaluation mean reaches this return (0 = train for the whole budget)."""

    # --- runtime and topology -------------------------------------------------------------------
    runtime: Literal["ray", "local"] = "ray"
    """Where components live: `ray` (one process per component, asynchronous) or `local` (one process, deterministic order)."""
    address: str = ""
    """Ray cluster to join (HOST:PORT or `auto`); empty starts an embedded single-machine Ray."""
    actors: int = 1
    """N_act: number of actors, each stepping its own environment copies."""
    learners: int = 1
    """N_learn: number of learners computing gradients."""
    param_shards: int = 1
    """N_param: parameter-server shards, each owning one contiguous slice of theta+."""
    replay: Literal["local", "global"] = "local"
    """Replay memory: `local` (one per actor) or `global` (N_replay shards shared by all actors)."""
    replay_shards: int = 1
    """N_replay: shards of the global replay (ignored for local replay)."""
    bundled: bool = True
    """Bundled mode (the paper's experiments): each bundle is one actor, its local replay and one learner; needs actors == learners and local replay."""
    envs_per_actor: int = 1
    """Environment copies each actor steps at once with one batched forward pass."""

    # --- network --------------------------------------------------------------------------------
    network: Literal["auto", "mlp", "nature_cnn", "minatar_cnn"] = "auto"
    """Q-network: `auto` picks the Nature CNN for Atari, MinAtar's one-convolution CNN for MinAtar's 10x10 frames and an MLP otherwise."""
    hidden_sizes: tuple[int, ...] = (128, 128)
    """Hidden layer widths of the MLP."""
    dueling: bool = False
    """Dueling head (Wang et al. 2016): separate value and advantage streams."""

    # --- DQN ------------------------------------------------------------------------------------
    gamma: float = 0.99
    """Discount factor."""
    n_step: int = 1
    """Length of the multi-step return (1 = DQN's one-step target)."""
    double_dqn: bool = False
    """Pick the bootstrap action with the online network (double DQN)."""
    batch_size: int = 32
    """Minibatch size of each learner update."""
    replay_capacity: int = 100_000
    """Transitions (agent steps) held by one local replay (M per actor) or by the whole global replay."""
    learning_starts: int = 1_000
    """Agent steps (transitions) of experience before learning starts, as DQN's reference code counts its 50,000 (Atari: 4 frames each): each bundle's replay must hold this many (outside bundles, all replay memories together); capped at a quarter of total_frames' agent steps so that short runs still learn."""
    update_every: int = 4
    """Agent steps per learner update in a bundle (DQN: one update per 4 steps); non-bundled learners keep the same ratio to frames collected."""
    huber_delta: float = 1.0
    """Huber loss threshold (DQN's error clipping)."""
    loss_reduction: Literal["mean", "sum"] = "mean"
    """How a minibatch's Huber losses combine into the loss a gradient is taken of: `sum` as in DQN's reference code (a gradient batch_size times the mean's; RMSProp's eps floor and the learning rate were tuned with it), or `mean`. The logged loss is always the mean per transition."""
    clip_rewards: bool = False
    """Clip rewards to [-1, 1] for learning (Atari); logged returns stay raw."""
    fire_reset: bool = False
    """Atari: press FIRE after every reset, in games that have it (DQN did not: its agent learns to press FIRE itself)."""
    max_grad_norm: float = 10.0
    """Clip each gradient to this global norm before it is sent (0 = no clipping)."""

    # --- exploration ----------------------------------------------------------------------------
    epsilon_start: float = 1.0
    """Initial exploration rate of every actor."""
    epsilon_end: float = 0.05
    """Final exploration rate of every actor; with epsilon_ladder and several actors the ladder sets each actor's instead."""
    epsilon_decay_steps: int = 10_000
    """Agent steps (per actor, summed over its environment copies) over which epsilon anneals linearly to its final value, as DQN's reference code counts its 1M (Atari: 4 frames each)."""
    epsilon_ladder: bool = True
    """Give each actor its own final epsilon, base ** (1 + alpha * i / (N - 1)) as in Ape-X, so actors behave differently."""
    ladder_base: float = 0.4
    """Base of the epsilon ladder (Ape-X: 0.4)."""
    ladder_alpha: float = 7.0
    """Exponent spread of the epsilon ladder (Ape-X: 7)."""

    # --- parameter server -----------------------------------------------------------------------
    optimizer: Literal["adagrad", "rmsprop", "adam", "sgd"] = "adam"
    """Optimizer each parameter shard applies to its slice (Gorila: AdaGrad; DQN: RMSProp)."""
    learning_rate: float = 5e-4
    """Learning rate of the shard optimizers."""
    optimizer_eps: float = 1e-8
    """Epsilon of the shard optimizer's denominator."""
    rmsprop_alpha: float = 0.95
    """Smoothing constant of RMSProp's squared-gradient average."""
    target_update_every: int = 200
    """theta- <- theta+ every this many parameter-server updates (DQN: 10,000; Gorila: 60,000)."""
    max_staleness: int = 0
    """A shard discards a gradient computed on parameters more than this many of its versions old. 0 = auto: max(100, 2 * N_learn * (2 * learner_sync_every + max_inflight_pushes * push_every)), twice the versions the other learners add while a gradient is on its way (it is computed on parameters fetched one refresh ahead and queues behind up to max_inflight_pushes messages of push_every gradients); -1 = keep every gradient."""
    outlier_k: float = 5.0
    """A learner drops a gradient whose loss is more than k running standard deviations above its running mean (0 = off)."""
    outlier_warmup: int = 100
    """Updates a learner makes before the outlier test applies."""
    actor_sync_every: int = 100
    """Agent steps between an actor's parameter refreshes from the parameter server."""
    learner_sync_every: int = 1
    """Learner updates between a learner's parameter refreshes from the parameter server."""
    push_every: int = 1
    """Learner updates whose gradients travel to the shards in one message (each is still applied as its own update)."""
    max_inflight_pushes: int = 4
    """Gradients a learner may have in flight to the shards before it waits (keeps the server off the critical path)."""

    # --- evaluation, logging, checkpoints -------------------------------------------------------
    eval_every_frames: int = 10_000
    """Frames between greedy evaluations (0 = only at the end)."""
    eval_episodes: int = 20
    """Episodes per evaluation."""
    confirm_episodes: int = 100
    """Episodes of the independent confirmation of an evaluation that reached stop_at_return (as many as `gorila evaluate RUN --episodes 100` plays afterwards)."""
    eval_epsilon: float = 0.0
    """Exploration rate during evaluation (Atari protocol: 0.05)."""
    eval_max_frames: int = 18_000
    """Frame cap of an Atari evaluation episode (5 minutes)."""
    checkpoint_every_frames: int = 50_000
    """Frames between checkpoints (a final one is always written)."""
    log_every_seconds: float = 2.0
    """Seconds between progress lines and metrics records."""
    keep_checkpoints: int = 3
    """Training checkpoints kept in the run directory (older ones are deleted; best.pt is always kept)."""
    save_replay: bool = False
    """Save every replay memory with each checkpoint (compressed .npz, written atomically), so that --resume continues with its experience instead of refilling it."""
    shard_backup_every_seconds: float = 10.0
    """Seconds between copies of the parameter shards' states in the run directory, which a restarted shard restores (Ray)."""

    # --- fault tolerance (Ray) ------------------------------------------------------------------
    max_failures: int = 10
    """Component failures (a process died or stopped answering) the run recovers from before it gives up with a final checkpoint."""
    call_timeout_seconds: float = 300.0
    """A worker whose call has not returned after this long is treated as failed and restarted."""

    # --- resources ------------------------------------------------------------------------------
    worker_cpus: float = 1.0
    """CPUs Ray reserves for each actor, learner or bundle."""
    server_cpus: float = 0.0
    """CPUs Ray reserves for each parameter or replay shard."""
    device: Literal["auto", "cpu", "cuda"] = "auto"
    """Where learners compute: `auto` uses a GPU when torch sees one, `cuda` insists on it, `cpu` never uses one (actors and evaluation stay on the CPU)."""
    learner_gpus: float = 0.0
    """GPUs Ray reserves for each learner or bundle (0 with a GPU device: the learners share one GPU)."""
    torch_threads: int = 1
    """PyTorch threads in each component."""

    def to_dict(self) -> dict:
        data = dataclasses.asdict(self)
        data["hidden_sizes"] = list(self.hidden_sizes)
        return data


PRESETS: dict[str, dict] = {
    # Tuned on 2 CPU cores (benchmarks/time_to_solve.py, seeds 0-4): four CartPole copies per actor
    # share each batched forward pass; one update of 64 per 4 agent steps; a high Adam rate and a
    # 64x64 network, whose updates cost a third of a 128x128 one's.
    "cartpole": dict(
        env="CartPole-v1", total_frames=250_000, stop_at_return=475.0, envs_per_actor=4,
        hidden_sizes=(64, 64), gamma=0.99, n_step=3, double_dqn=True, batch_size=64,
        replay_capacity=50_000, learning_starts=1_000, update_every=4,
        epsilon_start=1.0, epsilon_end=0.04, epsilon_decay_steps=8_000, ladder_base=0.05, ladder_alpha=1.0,
        optimizer="adam", learning_rate=4e-3, target_update_every=128,
        push_every=1, learner_sync_every=1,
        eval_every_frames=5_000, eval_episodes=20, eval_epsilon=0.0,
    ),
    # DQN (Mnih et al. 2015) per learner, Gorila's parameter server around it. Replay capacity, learning
    # start and the epsilon schedule are in agent steps (4 frames each), as DQN's reference code has them.
    "atari": dict(
        env="Pong", total_frames=50_000_000, network="nature_cnn", gamma=0.99, n_step=1,
        batch_size=32, replay_capacity=1_000_000, learning_starts=50_000, update_every=4,
        loss_reduction="sum", clip_rewards=True, max_grad_norm=0.0,
        epsilon_start=1.0, epsilon_end=0.1, epsilon_decay_steps=1_000_000, epsilon_ladder=False,
        optimizer="rmsprop", learning_rate=2.5e-4, rmsprop_alpha=0.95, optimizer_eps=0.01,
        target_update_every=10_000, actor_sync_every=400, learner_sync_every=1,
        eval_every_frames=1_000_000, eval_episodes=30, eval_epsilon=0.05, eval_max_frames=18_000,
        checkpoint_every_frames=1_000_000, outlier_k=5.0,
    ),
    # MinAtar's DQN (Young & Tian 2019): its one-convolution network on 10x10 boolean frames, replay of
    # 100k, gamma 0.99, epsilon down to 0.1, RMSProp 2.5e-4 with squared-gradient momentum 0.95, the full
    # action set (v0) of the paper's curves. Its floor on the RMSProp denominator is 0.01 outside the
    # square root (torch's centred RMSprop); gorila's RMSProp adds optimizer_eps inside the root, so 1e-4
    # is the same floor. Scaled for minutes on 2 CPU cores (benchmarks/minatar.py): four copies per actor
    # share each forward pass, one update of 64 per 2 frames instead of one of 32 per frame (the same 32
    # sampled transitions a frame, at half the updates), epsilon annealed over 25k frames instead of
    # 100k, learning after 2,000 frames instead of 5,000, theta- refreshed every 250 updates.
    "minatar": dict(
        env="MinAtar/Breakout-v0", total_frames=100_000, network="minatar_cnn", gamma=0.99, n_step=1,
        envs_per_actor=4, batch_size=64, replay_capacity=100_000, learning_starts=2_000, update_every=2,
        clip_rewards=False, max_grad_norm=0.0,
        epsilon_start=1.0, epsilon_end=0.1, epsilon_decay_steps=25_000, epsilon_ladder=False,
        optimizer="rmsprop", learning_rate=2.5e-4, rmsprop_alpha=0.95, optimizer_eps=1e-4,
        target_update_every=250, actor_sync_every=4, learner_sync_every=1,
        eval_every_frames=25_000, eval_episodes=20, eval_epsilon=0.0, checkpoint_every_frames=50_000,
    ),
}
# Gorila as Nair et al. (2015) ran it: 100 bundles, each DQN's actor, 1M-transition replay and learner;
# 31 parameter shards applying AdaGrad; theta- every 60,000 parameter-server updates. The paper gives no
# learning rate. AdaGrad is blind to the gradient's scale (summed or averaged clipped errors step alike):
# its first step moves each parameter by about the rate itself, later ones by rate / sqrt(updates). On
# the Nature CNN learning from a replay of random Breakout play (400 updates from theta_0, 2026-11), the
# mean loss of the first ten updates was 14 at 1e-2 and 0.12 at 3e-3, against 0.005 at 1e-3 and 1e-4 (and
# 0.004 for DQN's RMSProp); 1e-3 and 1e-4 stayed calm (loss 0.003 and 0.002, |Q| < 0.15), 1e-3 moving the
# parameters ten times as far: the largest calm rate, which AdaGrad's decay needs over millions of updates.
PRESETS["gorila-paper"] = dict(
    PRESETS["atari"], actors=100, learners=100, param_shards=31, optimizer="adagrad", learning_rate=1e-3,
    optimizer_eps=1e-8, target_update_every=60_000,
)

MAX_SEED = 2**30 - 1
AUTO_STALENESS_FLOOR = 100      # the auto threshold for few learners: the constant of earlier versions

# (check, message) per key; the message completes "KEY must ...".
_RULES: dict[str, tuple[typing.Callable, str]] = {
    "seed": (lambda v: 0 <= v <= MAX_SEED, f"lie in [0, {MAX_SEED}] (seeds derived from it must stay 32-bit)"),
    "total_frames": (lambda v: v > 0, "be > 0"),
    "actors": (lambda v: v >= 1, "be >= 1 (at least one actor)"),
    "learners": (lambda v: v >= 1, "be >= 1 (at least one learner)"),
    "param_shards": (lambda v: v >= 1, "be >= 1"),
    "replay_shards": (lambda v: v >= 1, "be >= 1 (a global replay needs at least one shard)"),
    "envs_per_actor": (lambda v: v >= 1, "be >= 1"),
    "hidden_sizes": (lambda v: len(v) >= 1 and all(h > 0 for h in v), "be positive widths"),
    "gamma": (lambda v: 0.0 <= v <= 1.0, "lie in [0, 1]"),
    "n_step": (lambda v: v >= 1, "be >= 1"),
    "batch_size": (lambda v: v >= 1, "be >= 1"),
    "replay_capacity": (lambda v: v >= 100, "be >= 100"),
    "learning_starts": (lambda v: v >= 0, "be >= 0"),
    "update_every": (lambda v: v >= 1, "be >= 1"),
    "huber_delta": (lambda v: v > 0, "be > 0"),
    "max_grad_norm": (lambda v: v >= 0, "be >= 0"),
    "epsilon_start": (lambda v: 0.0 <= v <= 1.0, "lie in [0, 1]"),
    "epsilon_end": (lambda v: 0.0 <= v <= 1.0, "lie in [0, 1]"),
    "epsilon_decay_steps": (lambda v: v >= 0, "be >= 0"),
    "ladder_base": (lambda v: 0.0 < v <= 1.0, "lie in (0, 1]"),
    "ladder_alpha": (lambda v: v >= 0, "be >= 0"),
    "learning_rate": (lambda v: v > 0, "be > 0"),
    "optimizer_eps": (lambda v: v > 0, "be > 0"),
    "rmsprop_alpha": (lambda v: 0.0 < v < 1.0, "lie in (0, 1)"),
    "target_update_every": (lambda v: v >= 1, "be >= 1"),
    "max_staleness": (lambda v: v >= -1, "be >= 1, 0 (auto) or -1 (keep every gradient)"),
    "outlier_k": (lambda v: v >= 0, "be >= 0"),
    "outlier_warmup": (lambda v: v >= 2, "be >= 2"),
    "actor_sync_every": (lambda v: v >= 1, "be >= 1"),
    "learner_sync_every": (lambda v: v >= 1, "be >= 1"),
    "push_every": (lambda v: v >= 1, "be >= 1"),
    "max_inflight_pushes": (lambda v: v >= 1, "be >= 1"),
    "eval_every_frames": (lambda v: v >= 0, "be >= 0"),
    "eval_episodes": (lambda v: v >= 1, "be >= 1"),
    "confirm_episodes": (lambda v: v >= 1, "be >= 1"),
    "eval_epsilon": (lambda v: 0.0 <= v <= 1.0, "lie in [0, 1]"),
    "eval_max_frames": (lambda v: v >= 1, "be >= 1"),
    "checkpoint_every_frames": (lambda v: v >= 0, "be >= 0"),
    "log_every_seconds": (lambda v: v > 0, "be > 0"),
    "keep_checkpoints": (lambda v: v >= 1, "be >= 1"),
    "shard_backup_every_seconds": (lambda v: v > 0, "be > 0"),
    "max_failures": (lambda v: v >= 0, "be >= 0"),
    "call_timeout_seconds": (lambda v: v > 0, "be > 0"),
    "worker_cpus": (lambda v: v >= 0, "be >= 0"),
    "server_cpus": (lambda v: v >= 0, "be >= 0"),
    "learner_gpus": (lambda v: v >= 0 and (v <= 1 or float(v).is_integer()),
                     "be a fraction in [0, 1] or a whole number (Ray's rule for GPU requests)"),
    "torch_threads": (lambda v: v >= 1, "be >= 1"),
}


def field_docs() -> dict[str, str]:
    """The docstring written under each field of `Config` (used for the CLI help)."""
    tree = ast.parse(inspect.getsource(Config))
    body = tree.body[0].body
    docs = {}
    for node, following in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(following, ast.Expr) \
                and isinstance(following.value, ast.Constant) and isinstance(following.value.value, str):
            docs[node.target.id] = following.value.value.strip()
    return docs


def field_types() -> dict[str, typing.Any]:
    hints = typing.get_type_hints(Config)
    return {f.name: hints[f.name] for f in fields(Config)}


def describe_type(kind) -> str:
    """How an error message names what a field accepts."""
    if typing.get_origin(kind) is Literal:
        return "one of " + ", ".join(map(str, typing.get_args(kind)))
    if typing.get_origin(kind) is tuple:
        return "a list of integers (e.g. 64,64 or [64, 64])"
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}[kind]


def coerce(key: str, value, kind):
    """Turn a YAML or command-line value into the field's type, or raise ConfigError naming the key.

    Text (a flag, `--set`) is parsed. A typed value (YAML, Python) is checked as it is, never cast:
    casting is how `null` became the string "None", `yes` became 1 and `[64.7]` became [64]. A float
    is accepted for an integer field only when it is a whole number (`1.0e6`), which loses nothing.
    """
    if value is None:
        raise ConfigError(f"{key} must be {describe_type(kind)}, got null")
    try:
        return _from_text(value, kind) if isinstance(value, str) else _from_typed(value, kind)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"{key} must be {describe_type(kind)}, got {value!r}") from None


def _from_text(text: str, kind):
    """The value a flag or `--set` spells; ValueError when it does not spell one of `kind`."""
    if typing.get_origin(kind) is Literal:
        if text not in typing.get_args(kind):
            raise ValueError(text)
        return text
    if typing.get_origin(kind) is tuple:
        items = text.strip().removeprefix("[").removesuffix("]")     # YAML's flow style is accepted too
        return tuple(_from_text(item.strip(), int) for item in items.split(","))
    if kind is bool:
        lowered = text.strip().lower()
        if lowered not in ("true", "false", "1", "0", "yes", "no"):
            raise ValueError(text)
        return lowered in ("true", "1", "yes")
    if kind is int:
        digits = text.strip().replace("_", "")
        return _whole(float(digits)) if any(c in digits for c in ".eE") else int(digits)
    if kind is float:
        return _finite(float(text.replace("_", "")))
    return text


def _from_typed(value, kind):
    """`value` itself when it is of `kind` (a whole float for an int); TypeError/ValueError otherwise."""
    if typing.get_origin(kind) is Literal:
        if not isinstance(value, str) or value not in typing.get_args(kind):
            raise ValueError(value)
        return value
    if typing.get_origin(kind) is tuple:
        if not isinstance(value, (list, tuple)):
            raise TypeError(value)
        return tuple(_from_typed(item, int) for item in value)
    if kind is bool:
        if not isinstance(value, bool):
            raise TypeError(value)
        return value
    if isinstance(value, bool):                  # bool is an int subclass: `actors: yes` is not 1
        raise TypeError(value)
    if kind is int:
        if isinstance(value, float):
            return _whole(value)
        if not isinstance(value, int):
            raise TypeError(value)
        return value
    if kind is float:
        if not isinstance(value, (int, float)):
            raise TypeError(value)
        return _finite(float(value))
    if not isinstance(value, str):
        raise TypeError(value)
    return value


def _whole(number: float) -> int:
    if not number.is_integer():
        raise ValueError(number)
    return int(number)


def _finite(number: float) -> float:
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(number)
    return number


def apply_overrides(config: Config, overrides: dict, source: str = "") -> Config:
    """A copy of `config` with `overrides` applied; unknown keys raise ConfigError naming them."""
    types = field_types()
    where = f" in {source}" if source else ""
    values = {}
    for key, value in overrides.items():
        name = str(key).replace("-", "_")
        if name == FRAME_COUNTED_KEY:
            values[name] = coerce(name, value, int)
            continue
        if name not in types:
            raise ConfigError(f"{key}: unknown config key{where}")
        values[name] = coerce(name, value, types[name])
    return dataclasses.replace(config, **in_agent_steps(values, values.get("env", config.env)))


FRAME_COUNTED_KEY = "epsilon_decay_frames"


def in_agent_steps(values: dict, env: str) -> dict:
    """`values` with counts written in frames turned into agent steps.

    Before gorila counted exploration and the learning start in agent steps (as DQN does), a config
    named `epsilon_decay_frames` and gave `learning_starts` in frames too: a mapping that names it
    (the config saved with an older run, an older YAML file) has both divided by the frames per agent
    step of its environment (4 on Atari), so that resuming or evaluating it means what it meant.
    """
    if FRAME_COUNTED_KEY not in values:
        return values
    values = dict(values)
    per_step = frames_per_agent_step(env)
    values["epsilon_decay_steps"] = values.pop(FRAME_COUNTED_KEY) // per_step
    if "learning_starts" in values:
        values["learning_starts"] //= per_step
    return values


def frames_per_agent_step(env: str) -> int:
    """Emulator frames per agent step: the action repeat of 4 on Atari, 1 elsewhere (and for a name
    that is no environment, which preflight reports on its own)."""
    from gorila.envs.registry import EnvError, resolve_env
    from gorila.envs.vector import ATARI_FRAMESKIP
    try:
        return ATARI_FRAMESKIP if resolve_env(env).kind == "atari" else 1
    except EnvError:
        return 1


def load_yaml(path: str | Path) -> dict:
    """Read a YAML config file into a dict; a missing or malformed file is a ConfigError."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    try:
        data = yaml.safe_load(path.read_text())
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise ConfigError(f"config file {path} is not valid YAML: {str(error).splitlines()[0]}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping of config keys to values")
    return data


def validate(config: Config) -> Config:
    """Check every range and the topology; raise ConfigError naming the first bad key."""
    for key, (check, must) in _RULES.items():
        value = getattr(config, key)
        if not check(value):
            raise ConfigError(f"{key} must {must}, got {value!r}")
    if config.bundled:
        if config.actors != config.learners:
            raise ConfigError(f"bundled mode needs actors == learners (got actors={config.actors}, "
                              f"learners={config.learners}); pass --no-bundled for other topologies")
        if config.replay != "local":
            raise ConfigError("bundled mode uses local replay; pass --no-bundled to use --replay global")
    if config.address and config.address != "auto":
        host, _, port = config.address.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError(f"address must be HOST:PORT or auto, got {config.address!r}")
    if config.replay == "global" and config.replay_shards > config.actors * config.envs_per_actor:
        raise ConfigError(f"replay_shards must be <= actors * envs_per_actor "
                          f"({config.actors * config.envs_per_actor}): each shard holds whole environment streams")
    return config


def staleness_limit(config: Config) -> int:
    """The staleness beyond which shards discard a gradient (0: none), as `max_staleness` says.

    Auto grows with the learners: with N of them, every gradient arrives about N times as many
    versions late as with one, so a constant would discard nearly all gradients of a large run.
    """
    if config.max_staleness == -1:
        return 0
    if config.max_staleness > 0:
        return config.max_staleness
    in_flight = 2 * config.learner_sync_every + config.max_inflight_pushes * config.push_every
    return max(AUTO_STALENESS_FLOOR, 2 * config.learners * in_flight)


def build_config(preset: str | None = None, file: str | None = None, overrides: dict | None = None,
                 scale: float | None = None) -> Config:
    """Preset (shrunk by `scale`, see `scaled_preset`), then YAML file, then explicit overrides; validated."""
    config = Config()
    if preset:
        config = apply_overrides(config, scaled_preset(preset, scale)[0])
    elif scale is not None:
        raise ConfigError("scale: --scale shrinks a preset; give --preset too")
    if file:
        config = apply_overrides(config, load_yaml(file), source=str(file))
    if overrides:
        config = apply_overrides(config, overrides)
    return validate(config)


def save_yaml(config: Config, path: str | Path) -> None:
    Path(path).write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))



def learner_device(config: Config) -> str:
    """`cpu` or `cuda`: where this process's learners compute, as `config.device` asks."""
    import torch
    if config.device == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device: cuda was asked for, but torch sees no CUDA device here "
                          "(use --device auto or cpu)")
    return "cuda" if config.device != "cpu" and torch.cuda.is_available() else "cpu"


SCALED_COUNTS = (("actors", "actors"), ("learners", "learners"), ("param_shards", "parameter shards"),
                 ("replay_shards", "replay shards"))


def scaled_preset(preset: str, scale: float | None = None) -> tuple[dict, str]:
    """A preset's values for a cluster `scale` times the size it describes, and a line saying what changed.

    Actors, learners (bundles), parameter and replay shards are multiplied by `scale` (rounded, at least
    one). theta-'s period counts the updates of all learners, so it changes by the learners' own ratio:
    each learner makes as many updates between two refreshes as in the full-size run. What each bundle
    does (replay, minibatch, learning start, exploration) is unchanged.
    """
    if preset not in PRESETS:
        raise ConfigError(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    values = dict(PRESETS[preset])
    if scale is None:
        return values, ""
    if not 0 < scale < float("inf"):
        raise ConfigError(f"scale must be a number > 0, got {scale!r}")
    base = Config()
    changes = []
    for key, words in SCALED_COUNTS:
        old = values.get(key, getattr(base, key))
        values[key] = max(1, round(old * scale))
        if values[key] != old:
            changes.append(f"{old:,} -> {values[key]:,} {words}")
    old_learners = PRESETS[preset].get("learners", base.learners)
    target = values.get("target_update_every", base.target_update_every)
    values["target_update_every"] = max(1, round(target * values["learners"] / old_learners))
    if values["target_update_every"] != target:
        changes.append(f"theta- every {target:,} -> {values['target_update_every']:,} server updates "
                       f"({values['target_update_every'] / values['learners']:,.0f} per learner, as at full size)")
    return values, (f"{preset} scaled by {scale:g}: " + (", ".join(changes) or "nothing changed")
                    + "; each bundle's replay, minibatch, learning start and exploration as at full size")
