"""The sections of an experiment's config, one typed dataclass each, a docstring and a rule per field
(`gorila.config.rules.checked`). `Config` (`gorila.config.schema`) is all of them at once; the CLI groups its flags by them,
a component is given the section it reads (`Config.section`), and config.yaml stays one flat mapping."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ClassVar, Literal

from gorila.config.rules import MAX_SEED, NETWORKS, checked
from gorila.envs.atari_constants import MAX_EPISODE_FRAMES
from gorila.plugins import is_reference


@dataclass
class ExperimentConfig:
    """What is learned and for how long: the environment, the seed, the budget in frames, the run directory and when to stop."""

    TITLE: ClassVar[str] = "experiment"
    env: str | Callable = checked(
        "CartPole-v1",
        lambda v: callable(v) or (isinstance(v, str) and v.strip() != ""),
        "be an environment name or a callable returning a Gymnasium env",
    )
    """Environment: a game or Gymnasium id (Pong, MinAtar/Breakout, CartPole-v1) or your own (package.module:Env-v0). In full: an Atari game (Pong, ALE/Pong-v5), a MinAtar game (MinAtar/Breakout), a registered Gymnasium id with discrete actions (CartPole-v1), `package.module:Env-v0` (imports the module, which registers Env-v0) or `package.module:make_env` (a callable returning a Gymnasium env, wrappers included); from Python also the callable itself."""
    env_kwargs: dict = field(default_factory=dict)
    """Keyword arguments of the environment's constructor (`gymnasium.make(env, **env_kwargs)`, or the callable's); `--env-kwargs KEY=VALUE`, repeatable, values read as YAML. Not for Atari games, whose settings are gorila's own fields."""
    seed: int = checked(
        0, lambda v: 0 <= v <= MAX_SEED, f"lie in [0, {MAX_SEED}] (seeds derived from it must stay 32-bit)"
    )
    """Random seed of networks, replay sampling and environments; at most 2**30 - 1, since the seeds of environment copies and evaluations are derived by adding to it and must stay 32-bit."""
    total_frames: int = checked(200_000, lambda v: v > 0, "be > 0")
    """Training budget in environment frames, summed over all actors (Atari: 4 frames per agent step)."""
    run_dir: str = ""
    """Run directory (config, metrics, checkpoints), created at launch and refused if it is not empty; default runs/<env>-<date>-<time>, with -2, -3, ... added when a launch in the same second took that name."""
    stop_at_return: float = 0.0
    """Stop as soon as a greedy evaluation mean reaches this return (0 = train for the whole budget)."""
    stop_at_train_return: float = 0.0
    """Stop as soon as the mean training return of the last 100 episodes, played at the actors' epsilon, reaches this (0 = never): a run measured in frames to a score (benchmarks/scaling.py), with no evaluation on the way out."""
    stop_when_solved: bool = True
    """Stop at the first confirmed evaluation at or above stop_at_return; False trains on for the whole budget and still records when the run was first solved (soak and chaos runs)."""


@dataclass
class AtariConfig:
    """How ALE plays an Atari game: sticky actions, the action set, the life-loss signal and the episode cap (Machado et al. 2018 against DQN)."""

    TITLE: ClassVar[str] = "Atari emulator"
    sticky_actions: float = checked(0.0, lambda v: 0.0 <= v < 1.0, "lie in [0, 1)")
    """Atari: probability that each emulator frame repeats the previous action instead of the agent's (ALE's repeat_action_probability), in training and evaluation; DQN: 0, Machado et al. 2018: 0.25."""
    full_action_set: bool = False
    """Atari: the network chooses among all 18 ALE actions (Machado et al. 2018) instead of the game's minimal set (DQN)."""
    life_loss_signal: bool = True
    """Atari: a lost life is terminal for learning while the game goes on (DQN's convention; Machado et al. 2018: no, only the game over is). Evaluation never signals one."""
    max_episode_frames: int = checked(MAX_EPISODE_FRAMES, lambda v: v >= 1, "be >= 1")
    """Atari: frame cap of a training episode (108,000 frames, 30 minutes, as ale-py and Machado et al. 2018 have it); evaluation episodes take eval_max_frames."""


@dataclass
class TopologyConfig:
    """Where the components live and how many of each: the paper's N_act actors, N_learn learners, N_param parameter shards and the replay memory, bundled or not."""

    TITLE: ClassVar[str] = "runtime and topology"
    runtime: Literal["ray", "local"] = "ray"
    """Where components live: `ray` (one process per component, asynchronous) or `local` (one process, deterministic order)."""
    address: str = ""
    """Ray cluster to join (HOST:PORT or `auto`); empty starts an embedded single-machine Ray."""
    actors: int = checked(1, lambda v: v >= 1, "be >= 1 (at least one actor)")
    """N_act: number of actors, each stepping its own environment copies."""
    learners: int = checked(1, lambda v: v >= 1, "be >= 1 (at least one learner)")
    """N_learn: number of learners computing gradients."""
    param_shards: int = checked(1, lambda v: v >= 1, "be >= 1")
    """N_param: parameter-server shards, each owning one contiguous slice of theta+."""
    shard_placement: Literal["auto", "learners", "apart"] = "auto"
    """Where the parameter shards run: `learners` (shard i beside learner i mod N_learn), `apart` (each in a process of its own, the paper's layout) or `auto`: beside the learners on one machine, apart on a cluster joined with --address, where a node lost with a learner would otherwise take its shards with it and no learner could go on without them. Beside a learner, a shard keeps its slice of theta+ and its optimizer's moments on that learner's device, so that its slice of every gradient and of theta+ never travels (other processes reach it by message). Shards apply the gradients either way."""
    replay: Literal["local", "global"] = "local"
    """Replay memory: `local` (one per actor) or `global` (N_replay shards shared by all actors)."""
    replay_shards: int = checked(1, lambda v: v >= 1, "be >= 1 (a global replay needs at least one shard)")
    """N_replay: shards of the global replay (ignored for local replay)."""
    bundled: bool = True
    """Bundled mode (the paper's experiments): each bundle is one actor, its local replay and one learner; needs actors == learners and local replay."""
    max_bundles: int = checked(0, lambda v: v >= 0, "be >= 0")
    """Grow a bundled Ray run up to this many bundles as its cluster gains room (a node joins, CPUs are freed): one more whenever a bundle's worker_cpus are free; 0 keeps `actors`. A bundle that joins starts with an empty replay memory, reads theta+ and holds no parameter shard."""
    envs_per_actor: int = checked(1, lambda v: v >= 1, "be >= 1")
    """Environment copies each actor steps at once with one batched forward pass."""


@dataclass
class LearningRuleConfig:
    """The learning rule every bundle follows: DQN (a replay memory and theta-), PQN (rollouts and Q(lambda)) or Rainbow (DQN with return distributions)."""

    TITLE: ClassVar[str] = "learning rule"
    algorithm: str = "dqn"
    """What each bundle learns by: `dqn`, `pqn` or `rainbow`. `dqn` is Mnih et al. 2015 as Gorila runs it (a replay memory, theta-, one update per update_every agent steps); `pqn` is Gallici et al. 2025 (rollouts of rollout_steps steps of every environment copy, Q(lambda) targets under the parameters that acted, rollout_epochs passes of rollout_minibatches minibatches over each rollout; no replay memory and no theta-); `rainbow` is Hessel et al. 2018: DQN with each action's return distribution on num_atoms atoms (C51's loss) and, where `noisy` is on, noisy layers in place of epsilon-greedy, beside DQN's double_dqn, dueling, n_step and prioritised. pqn runs in bundles only: N bundles are N PQN agents sharing theta+ through the parameter server. The names are those `gorila.algorithms` registers; another is refused."""


@dataclass
class NetworkConfig:
    """The Q-network: its kind, hidden widths, dueling head, LayerNorm and initial weights."""

    TITLE: ClassVar[str] = "network"
    network: str | Callable = checked(
        "auto",
        lambda v: callable(v) or v in NETWORKS or is_reference(v),
        f"be one of {', '.join(NETWORKS)}, a package.module:factory or a callable",
    )
    """Q-network: auto, mlp, nature_cnn, minatar_cnn, impala_cnn (Espeholt et al. 2018's ResNet, for image frames) or your own (package.module:factory). Auto picks the Nature CNN for Atari, MinAtar's one-convolution CNN for MinAtar's 10x10 frames and an MLP otherwise; `package.module:factory` (or, from Python, the callable) is your own: `factory(obs_shape, num_actions)` returns a torch.nn.Module mapping a batch of observations, in their stored dtype (float32; uint8 Atari frames; bool MinAtar frames), to one Q-value per action (hidden_sizes and dueling are then not used)."""
    hidden_sizes: tuple[int, ...] = checked(
        (128, 128), lambda v: len(v) >= 1 and all(h > 0 for h in v), "be positive widths"
    )
    """Hidden layer widths of the MLP."""
    dueling: bool = False
    """Dueling head (Wang et al. 2016): separate value and advantage streams."""
    layer_norm: bool = False
    """LayerNorm before the ReLU of every hidden layer (PQN; Gallici et al. 2025 show it stabilises learning without theta-): over each cell's filters after a convolution, over the units after a dense layer."""
    weight_init: Literal["default", "he_normal"] = "default"
    """Initial weights of the built-in networks: PyTorch's defaults (uniform within 1/sqrt(fan_in)), or he_normal as PQN's reference code has them: truncated-normal kernels of variance 2/fan_in before each ReLU and 1/fan_in at the outputs, zero biases. Behind a LayerNorm a layer's scale drops out of its outputs, so larger initial weights make each optimizer step a smaller change."""


@dataclass
class DQNConfig:
    """DQN's update: the target, the loss, the minibatch, the replay memory and the rewards it learns from."""

    TITLE: ClassVar[str] = "DQN"
    gamma: float = checked(0.99, lambda v: 0.0 <= v <= 1.0, "lie in [0, 1]")
    """Discount factor."""
    n_step: int = checked(1, lambda v: v >= 1, "be >= 1")
    """Length of the multi-step return (1 = DQN's one-step target)."""
    double_dqn: bool = False
    """Pick the bootstrap action with the online network (double DQN)."""
    batch_size: int = checked(32, lambda v: v >= 1, "be >= 1")
    """Minibatch size of each learner update."""
    replay_capacity: int = checked(100_000, lambda v: v >= 100, "be >= 100")
    """Transitions (agent steps) held by one local replay (M per actor) or by the whole global replay."""
    prioritised: bool = False
    """Proportional prioritised replay (Schaul et al. 2016; Ape-X, Horgan et al. 2018): entry i is drawn with probability p_i / sum p over all replay memories a learner samples, p_i = (|delta_i| + priority_eps) ** priority_alpha from its last TD error, and the loss is weighted by importance-sampling weights; new entries get the largest priority so far (actors compute no initial priorities). False: uniform replay."""
    priority_alpha: float = checked(0.6, lambda v: v >= 0, "be >= 0")
    """Prioritised replay: how much priorities shape the draw (0 = uniform; Schaul et al. and Ape-X: 0.6)."""
    priority_beta: float = checked(0.4, lambda v: 0.0 <= v <= 1.0, "lie in [0, 1]")
    """Prioritised replay: the importance-sampling exponent at the start, annealed linearly to 1 (full correction) over the run's total_frames (Schaul et al.: 0.4; Ape-X: 0.4)."""
    priority_eps: float = checked(1e-6, lambda v: v > 0, "be > 0")
    """Prioritised replay: added to |delta| so that no entry's priority is 0 (it could never be drawn again)."""
    learning_starts: int = checked(1_000, lambda v: v >= 0, "be >= 0")
    """Agent steps (transitions) of experience before learning starts, as DQN's reference code counts its 50,000 (Atari: 4 frames each): each bundle's replay must hold this many (outside bundles, all replay memories together). A run whose learners could not start within total_frames is refused before it starts."""
    update_every: int = checked(4, lambda v: v >= 1, "be >= 1")
    """Agent steps per learner update in a bundle (DQN: one update per 4 steps); non-bundled learners keep the same ratio to frames collected."""
    huber_delta: float = checked(1.0, lambda v: v >= 0, "be >= 0")
    """Huber loss threshold (DQN's error clipping); 0 = no clipping, half the squared error (PQN)."""
    loss_reduction: Literal["mean", "sum"] = "mean"
    """How a minibatch's Huber losses combine into the loss a gradient is taken of: `sum` as in DQN's reference code (a gradient batch_size times the mean's; RMSProp's eps floor and the learning rate were tuned with it), or `mean`. The logged loss is always the mean per transition."""
    clip_rewards: bool = False
    """Clip rewards to [-1, 1] for learning (Atari); logged returns stay raw."""
    reward_scale: float = checked(1.0, lambda v: v > 0, "be > 0")
    """Multiply rewards by this for learning, after any clipping (PQN's CartPole: 0.1); logged returns stay raw."""
    fire_reset: bool = False
    """Atari: press FIRE after every reset, in games that have it (DQN did not: its agent learns to press FIRE itself)."""
    max_grad_norm: float = checked(10.0, lambda v: v >= 0, "be >= 0")
    """Clip each gradient to this global norm before it is sent (0 = no clipping)."""


@dataclass
class PQNConfig:
    """PQN's update (algorithm: pqn): rollouts of T steps, epochs of minibatches over each, Q(lambda) targets."""

    TITLE: ClassVar[str] = "PQN (algorithm: pqn)"
    rollout_steps: int = checked(32, lambda v: v >= 1, "be >= 1")
    """PQN: vector steps of every environment copy in one rollout (T; PQN's MinAtar and Atari settings: 32 steps of 128 copies)."""
    rollout_epochs: int = checked(2, lambda v: v >= 1, "be >= 1")
    """PQN: passes a learner makes over each rollout (PQN: 2)."""
    rollout_minibatches: int = checked(32, lambda v: v >= 1, "be >= 1")
    """PQN: minibatches each pass splits a rollout's agent steps into, one update each (PQN: 32, of 128 transitions)."""
    rollout_bootstrap: Literal["current", "acted"] = "current"
    """PQN: the max_a Q(s_{t+1}, a) a rollout's Q(lambda) targets bootstrap from. `acted`: the Q-values of the parameters that acted (PQN's reference: one agent, whose parameters do not move between its rollout and its passes over it); `current`: those of the theta+ the learner starts its passes from, recomputed in one forward pass over the rollout where other bundles moved theta+ since it was acted (one bundle: nothing moved it, the same targets as `acted`). 8 bundles on MinAtar Breakout: 516k frames to a training mean of 8 against 823k (benchmarks/baselines/scaling)."""
    rollout_read_every: int = checked(6, lambda v: v >= 0, "be >= 0")
    """PQN: vector steps between an actor's reads of theta+ within a rollout, none waited for (0: only at each rollout's start, PQN's reference). Where other bundles move theta+ while one acts, it acts on their updates too; alone, a read finds theta+ unmoved and loads nothing. 8 bundles on MinAtar Breakout, seeds 0-5: 397k frames to a training mean of 8 against 496k (benchmarks/baselines/scaling)."""
    q_lambda: float = checked(0.65, lambda v: 0.0 <= v <= 1.0, "lie in [0, 1]")
    """PQN: lambda of the Q(lambda) targets (0: one-step Q-learning; 1: the rollout's discounted return, bootstrapped at its end; PQN: 0.65)."""


@dataclass
class RainbowConfig:
    """What Rainbow adds to DQN (algorithm: rainbow): the return distribution's atoms (C51) and noisy layers."""

    TITLE: ClassVar[str] = "Rainbow (algorithm: rainbow)"
    num_atoms: int = checked(51, lambda v: v >= 2, "be >= 2")
    """Rainbow: atoms of each action's return distribution, evenly spaced on [v_min, v_max] (C51, Bellemare et al. 2017: 51)."""
    v_min: float = -10.0
    """Rainbow: the lowest atom, the smallest return the distribution can hold (C51 on Atari's clipped rewards: -10)."""
    v_max: float = 10.0
    """Rainbow: the highest atom (C51: 10); must exceed v_min. A return beyond [v_min, v_max] is counted at the nearer end."""
    noisy: bool = False
    """Rainbow: the head's dense layers are noisy (factorised Gaussian, Fortunato et al. 2018), their noise drawn afresh at every forward pass in training and off in evaluation; exploration then comes from the noise (set epsilon_start and epsilon_end to 0, as the rainbow presets do)."""
    noisy_sigma0: float = checked(0.5, lambda v: v >= 0, "be >= 0")
    """Rainbow: sigma_0 of the noisy layers, whose noise scales start at sigma_0 / sqrt(inputs) (Fortunato et al. 2018: 0.5)."""


@dataclass
class ExplorationConfig:
    """The actors' epsilon-greedy exploration: its schedule and the Ape-X ladder."""

    TITLE: ClassVar[str] = "exploration"
    epsilon_start: float = checked(1.0, lambda v: 0.0 <= v <= 1.0, "lie in [0, 1]")
    """Initial exploration rate of every actor."""
    epsilon_end: float = checked(0.05, lambda v: 0.0 <= v <= 1.0, "lie in [0, 1]")
    """Final exploration rate of every actor; with epsilon_ladder (and several actors, or ladder_over copies) the ladder sets each actor's, or each copy's, instead."""
    epsilon_decay_steps: int = checked(10_000, lambda v: v >= 0, "be >= 0")
    """Agent steps (per actor, summed over its environment copies) over which epsilon anneals linearly to its final value, as DQN's reference code counts its 1M (Atari: 4 frames each)."""
    epsilon_hold: bool = False
    """Hold epsilon at epsilon_start until learning starts, then anneal it over epsilon_decay_steps (DQN's reference code: its epsilon counts the agent steps since learn_start); False anneals from the first step. The hold is learning_starts agent steps of each bundle, or each actor's share of them outside bundles."""
    epsilon_ladder: bool = False
    """Give each actor its own final epsilon, base ** (1 + alpha * i / (N - 1)) as in Ape-X, so actors behave differently (Gorila's actors all anneal to epsilon_end)."""
    ladder_base: float = checked(0.4, lambda v: 0.0 < v <= 1.0, "lie in (0, 1]")
    """Base of the epsilon ladder (Ape-X: 0.4)."""
    ladder_alpha: float = checked(7.0, lambda v: v >= 0, "be >= 0")
    """Exponent spread of the epsilon ladder (Ape-X: 7)."""
    ladder_over: Literal["actors", "copies"] = "actors"
    """What the epsilon ladder spreads over: actors (one rung each, as in Ape-X) or copies (one rung per environment copy, so that one actor's copies explore at different rates). With copies there are actors x envs_per_actor rungs, copy j of actor i on rung i * envs_per_actor + j."""


@dataclass
class ParameterServerConfig:
    """The parameter server: the shards' optimizer, theta-, stale and outlying gradients, and how often actors and learners exchange parameters with it."""

    TITLE: ClassVar[str] = "parameter server"
    optimizer: Literal["adagrad", "rmsprop", "adam", "radam", "sgd"] = "adam"
    """Optimizer each parameter shard applies to its slice (Gorila: AdaGrad; DQN: RMSProp; PQN: RAdam)."""
    learning_rate: float = checked(5e-4, lambda v: v > 0, "be > 0")
    """Learning rate of the shard optimizers."""
    learning_rate_decay: bool = False
    """Decay the learning rate linearly to 0 over the updates the run will make (PQN), counted by each shard: the budget's agent steps divided by update_every (dqn), or its rollouts times rollout_epochs * rollout_minibatches (pqn)."""
    optimizer_eps: float = checked(1e-8, lambda v: v > 0, "be > 0")
    """Epsilon of the shard optimizer's denominator."""
    rmsprop_alpha: float = checked(0.95, lambda v: 0.0 < v < 1.0, "lie in (0, 1)")
    """Smoothing constant of RMSProp's squared-gradient average."""
    adam_beta1: float = checked(0.9, lambda v: 0.0 <= v < 1.0, "lie in [0, 1)")
    """Decay of Adam's and RAdam's first moment, their momentum (Kingma & Ba: 0.9), for gradients that are never late."""
    staleness_momentum: bool = True
    """Shards take out of Adam's momentum what their gradients' staleness adds (asynchrony is momentum of its own, Mitliagkas et al. 2016): beta1 = max(0, 1 - (1 + s)(1 - adam_beta1)), s the running mean staleness of the last ~100 updates; a learner that waits for its own gradient alone keeps adam_beta1. 8 PQN bundles on MinAtar Breakout: see benchmarks/baselines/scaling."""
    target_update_every: int = checked(200, lambda v: v >= 1, "be >= 1")
    """theta- <- theta+ every this many parameter-server updates (gradients applied, all learners together). DQN's code refreshes it every 10,000 agent steps, 2,500 updates at one per 4 steps; Gorila every 60,000 updates."""
    max_staleness: int = checked(0, lambda v: v >= -1, "be >= 1, 0 (auto) or -1 (keep every gradient)")
    """A shard discards a gradient computed on parameters more than this many of its versions old. 0 = auto: max(100, 2 * N_learn * (2 * learner_sync_every + max_inflight_pushes * push_every)), twice the versions the other learners add while a gradient is on its way (it is computed on parameters fetched one refresh ahead and queues behind up to max_inflight_pushes messages of push_every gradients); -1 = keep every gradient."""
    outlier_k: float = checked(5.0, lambda v: v >= 0, "be >= 0")
    """A learner drops a gradient whose loss is more than k running standard deviations above its running mean (0 = off)."""
    outlier_warmup: int = checked(100, lambda v: v >= 2, "be >= 2")
    """Updates a learner makes before the outlier test applies."""
    actor_sync_every: int = checked(100, lambda v: v >= 1, "be >= 1")
    """Agent steps between an actor's parameter refreshes from the parameter server."""
    learner_sync_every: int = checked(1, lambda v: v >= 1, "be >= 1")
    """Learner updates between a learner's parameter refreshes from the parameter server."""
    push_every: int = checked(1, lambda v: v >= 1, "be >= 1")
    """Learner updates whose gradients travel to the shards in one message (each is still applied as its own update)."""
    learner_refresh: Literal["auto", "pipelined", "synchronous"] = "auto"
    """How a learner's push and its refresh of theta+ share a round trip: `pipelined` takes the theta+ it asked for with its previous push (never waits; each gradient is computed on parameters without the one before it), `synchronous` waits for the theta+ that includes the gradient just pushed; `auto` is synchronous on the local runtime, where every call completes at once and waiting costs nothing, and pipelined on Ray, where it would idle the learner for a round trip per update (benchmarks/NOTES.md)."""
    synchronous_sgd: bool = False
    """On Ray, shards apply the mean of one gradient from every learner as one update (synchronous SGD in rounds) instead of each gradient as it comes (Gorila's asynchronous SGD). No gradient is then computed on parameters that another learner's update has moved since, and N PQN bundles learn as one bundle with all their copies, each keeping the preset's minibatches per pass (not shared). A learner waits for each round's theta+ (learner_refresh synchronous). The local runtime's bundles take turns, so its shards apply each gradient as it comes either way. MinAtar Breakout: benchmarks/baselines/scaling."""
    round_timeout_seconds: float = checked(10.0, lambda v: v > 0, "be > 0")
    """With synchronous_sgd, how long a round waits for learners whose gradients are missing (a learner restarted, or left without work at the end of the run) before it is applied without them; a late gradient joins the next round, and its learner is waited for again."""
    max_inflight_pushes: int = checked(4, lambda v: v >= 1, "be >= 1")
    """Gradients a learner may have in flight to the shards before it waits (keeps the server off the critical path)."""


@dataclass
class RecordsConfig:
    """Evaluations, progress lines and metrics, checkpoints, backups of the shards' states and tracking."""

    TITLE: ClassVar[str] = "evaluation, logging, checkpoints"
    eval_every_frames: int = checked(10_000, lambda v: v >= 0, "be >= 0")
    """Frames between greedy evaluations (0 = only at the end)."""
    eval_episodes: int = checked(20, lambda v: v >= 1, "be >= 1")
    """Episodes per evaluation."""
    confirm_episodes: int = checked(100, lambda v: v >= 1, "be >= 1")
    """Episodes of the independent confirmation of an evaluation that reached stop_at_return (as many as `gorila evaluate RUN --episodes 100` plays afterwards)."""
    eval_epsilon: float = checked(0.0, lambda v: 0.0 <= v <= 1.0, "lie in [0, 1]")
    """Exploration rate during evaluation (Atari protocol: 0.05)."""
    eval_max_frames: int = checked(18_000, lambda v: v >= 1, "be >= 1")
    """Frame cap of an Atari evaluation episode (5 minutes)."""
    checkpoint_every_frames: int = checked(50_000, lambda v: v >= 0, "be >= 0")
    """Frames between checkpoints (a final one is always written)."""
    log_every_seconds: float = checked(2.0, lambda v: v > 0, "be > 0")
    """Seconds between progress lines and metrics records."""
    keep_checkpoints: int = checked(3, lambda v: v >= 1, "be >= 1")
    """Training checkpoints kept in the run directory (older ones are deleted; best.pt is always kept)."""
    save_replay: bool = False
    """Save every replay memory with each checkpoint (compressed .npz, written atomically), so that --resume continues with its experience instead of refilling it."""
    shard_backup_every_seconds: float = checked(10.0, lambda v: v > 0, "be > 0")
    """Seconds between writes of the parameter shards' last copied states (shard_copy_every_seconds) to the run directory, where a shard that Ray restarts on the driver's node reads them first (Ray)."""
    track: bool = False
    """Log the same scalars as TensorBoard, and the config, to Weights & Biases (pip install 'gorila[track]'); WANDB_MODE=offline writes a local run to sync later."""
    wandb_project: str = "gorila"
    """Weights & Biases project of a tracked run."""
    wandb_entity: str = ""
    """Weights & Biases entity (user or team) of a tracked run; empty: the logged-in user's default."""
    wandb_run_name: str = ""
    """Name of the tracked run in Weights & Biases; empty: the run directory's name."""


@dataclass
class FaultsConfig:
    """Fault tolerance (Ray): how many failures a run recovers from, and when a call, a restart or the whole run counts as failed."""

    TITLE: ClassVar[str] = "fault tolerance (Ray)"
    max_failures: int = checked(10, lambda v: v >= 0, "be >= 0")
    """Component failures (a process died or stopped answering) the run recovers from before it gives up with a final checkpoint."""
    call_timeout_seconds: float = checked(300.0, lambda v: v > 0, "be > 0")
    """A worker whose call has not returned after this long is treated as failed and restarted."""
    restart_timeout_seconds: float = checked(600.0, lambda v: v > 0, "be > 0")
    """A worker coming back from a restart (its process starting, its shards waiting for their state) has this long to answer its first call before it is ended again. After a second such deadline without an answer the run ends naming it: its process does not start again (on a cluster, most often no node with room for it). call_timeout_seconds counts from its first answer on."""
    shard_copy_every_seconds: float = checked(1.0, lambda v: v > 0, "be > 0")
    """Seconds between the driver's copies of the parameter shards' states, which a shard that Ray restarts is given back: a shard's death loses at most the updates it applied since the last copy (Ray)."""
    stall_seconds: float = checked(120.0, lambda v: v > 0, "be > 0")
    """A run whose frames and updates have not moved for this long is a fault of its own (Ray): recorded, and the workers whose calls are in flight restarted."""


@dataclass
class ResourcesConfig:
    """What each process is given: Ray's CPU and GPU reservations, the learners' device and PyTorch's threads."""

    TITLE: ClassVar[str] = "resources"
    worker_cpus: float = checked(1.0, lambda v: v >= 0, "be >= 0")
    """CPUs Ray reserves for each actor, learner or bundle."""
    server_cpus: float = checked(0.0, lambda v: v >= 0, "be >= 0")
    """CPUs Ray reserves for each parameter or replay shard."""
    device: Literal["auto", "cpu", "cuda"] = "auto"
    """Where learners compute: `auto` uses a GPU when torch sees one, `cuda` insists on it, `cpu` never uses one (actors and evaluation stay on the CPU)."""
    learner_precision: Literal["float32", "bfloat16", "auto"] = "float32"
    """The learners' forward passes: `bfloat16` computes the networks' convolutions and matrix products in bfloat16 (torch.autocast), while parameters, gradients, targets and losses stay float32; on a CPU with AVX-512 BF16 an atari-fast update takes 0.74 of its float32 time (0.55 with the Impala network); a CPU without bfloat16 instructions gains nothing. `auto`: bfloat16 where the learner's device has bfloat16 instructions (a CUDA GPU from Ampere on, an x86 CPU with AVX-512 BF16 or AMX, an Arm CPU with BF16), float32 elsewhere. Actors and evaluation always compute in float32."""
    learner_gpus: float = checked(
        0.0,
        lambda v: v >= 0 and (v <= 1 or float(v).is_integer()),
        "be a fraction in [0, 1] or a whole number (Ray's rule for GPU requests)",
    )
    """GPUs Ray reserves for each learner or bundle (0 with a GPU device: the learners share one GPU)."""
    torch_threads: int = checked(1, lambda v: v >= 1, "be >= 1")
    """PyTorch threads in each component."""


# The sections in the schema's order: the order of the flags, the help, the docs and config.yaml.
SECTIONS = (
    ExperimentConfig,
    AtariConfig,
    TopologyConfig,
    LearningRuleConfig,
    NetworkConfig,
    DQNConfig,
    PQNConfig,
    RainbowConfig,
    ExplorationConfig,
    ParameterServerConfig,
    RecordsConfig,
    FaultsConfig,
    ResourcesConfig,
)
