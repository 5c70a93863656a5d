"""The presets of PQN (`gorila.algorithms.pqn`): the settings of its reference code, each change written beside it."""

from __future__ import annotations

PQN_PRESETS: dict[str, dict] = {}

# PQN (Gallici et al. 2025, "Simplifying Deep Temporal Difference Learning"; the settings of its
# reference code, purejaxql's pqn_minatar): each bundle steps 128 copies for rollouts of 32 steps and
# learns from each rollout at once, 2 passes of 32 minibatches of 128, on Q(lambda) targets with lambda
# 0.65 taken from the Q-values it acted on; no replay memory and no theta-; LayerNorm in the network;
# half the squared TD error, the gradient clipped to norm 10; RAdam at 5e-4 decayed linearly to 0 over
# the run; epsilon 1 -> 0.05 over the first 10% of the budget (50,000 of 500,000 agent steps: with
# another total_frames, set epsilon_decay_steps to a tenth of its agent steps). Kept from the reference
# where this project differs: MinAtar's own games (sticky actions 0.1, the full action set, no episode
# cap) instead of gymnax's; PyTorch's default initialisation instead of He-normal weights (`weight_init`:
# with He-normal, Freeway's seeds all cross the road but later, benchmarks/baselines/minatar). torch_threads
# 2 is for one process on 2 cores; with several bundles on Ray give each 1. Evaluations every 100k
# frames, greedy, as the reference tests its policy during training. Each gradient is computed on the
# theta+ with its learner's previous one in it (learner_refresh synchronous; a round trip per update on
# Ray, none for the one bundle that holds the shard): PQN takes many small steps on each rollout, and
# with 8 bundles on MinAtar Breakout the pipelined refresh, one own gradient behind, needed 1.5 times
# the frames to a training mean of 8 (691k against 454k, seed 0; benchmarks/baselines/scaling). Bundles
# apply their gradients as they come (Gorila's asynchronous SGD), not in synchronous rounds
# (`synchronous_sgd`): in rounds N bundles learn per frame as the preset's one bundle does (nothing
# late), but PQN's 64 updates per 4,096 frames then run one after the other, a round trip each, and on
# MinAtar a bundle's frames/s falls as 1/N: no faster on N machines than one bundle on one
# (benchmarks/baselines/scaling/pqn-minatar-breakout-rounds).
PQN_PRESETS["pqn"] = dict(
    env="MinAtar/Breakout-v0",
    algorithm="pqn",
    total_frames=500_000,
    network="auto",
    layer_norm=True,
    dueling=False,
    gamma=0.99,
    envs_per_actor=128,
    rollout_steps=32,
    rollout_epochs=2,
    rollout_minibatches=32,
    q_lambda=0.65,
    huber_delta=0.0,
    max_grad_norm=10.0,
    clip_rewards=False,
    outlier_k=0.0,
    epsilon_start=1.0,
    epsilon_end=0.05,
    epsilon_decay_steps=50_000,
    epsilon_hold=False,
    epsilon_ladder=False,
    optimizer="radam",
    learning_rate=5e-4,
    learning_rate_decay=True,
    optimizer_eps=1e-8,
    learner_refresh="synchronous",
    torch_threads=2,
    runtime="local",
    eval_every_frames=100_000,
    eval_episodes=20,
    eval_epsilon=0.0,
)
# PQN's CartPole settings (purejaxql's pqn_cartpole): 32 copies, rollouts of 64 steps, 4 passes of 16
# minibatches, lambda 0.95, an MLP of 2 x 256 units with LayerNorm, rewards scaled by 0.1, RAdam at 1e-4
# decayed to 0, epsilon 1 -> 0.2 over the first 20% of 500k agent steps.
PQN_PRESETS["pqn-cartpole"] = dict(
    PQN_PRESETS["pqn"],
    env="CartPole-v1",
    total_frames=500_000,
    stop_at_return=475.0,
    hidden_sizes=(256, 256),
    envs_per_actor=32,
    rollout_steps=64,
    rollout_epochs=4,
    rollout_minibatches=16,
    q_lambda=0.95,
    reward_scale=0.1,
    learning_rate=1e-4,
    epsilon_end=0.2,
    epsilon_decay_steps=100_000,
    eval_every_frames=10_000,
)

# The fields PQN's presets give for the whole run (`gorila.config.presets.SHARED_BY_ACTORS`): with each
# bundle stepping the pqn preset's 128 copies in 32 minibatches, a whole agent as the paper's bundles
# were, 8 PQN bundles on MinAtar Breakout needed 3.4 times one bundle's frames to a training mean of 8
# (seed 0); shared, 1.5-1.7, and with the pqn presets' refresh and bootstrap, the shards' staleness
# momentum and the actors' reads within rollouts 1.06 (medians of seeds 0-5; benchmarks/baselines/scaling).
PQN_SHARES = ("envs_per_actor", "rollout_minibatches", "epsilon_decay_steps")
# In synchronous rounds each of N learners keeps the preset's minibatches of every pass, on its 1/N of
# the copies' steps: the mean of their gradients is one update of the preset's minibatch.
PQN_KEPT_IN_ROUNDS = ("rollout_minibatches",)
