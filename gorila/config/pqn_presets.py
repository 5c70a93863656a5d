"""The presets of PQN (algorithm pqn): the settings of its reference code, each change written beside it."""

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
# frames, greedy, as the reference tests its policy during training.
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


# Gorila as Nair et al. (2015) ran it: 100 bundles, each DQN's actor, 1M-transition replay and learner;
# 31 parameter shards applying AdaGrad, each on a machine of its own; theta- every 60,000
# parameter-server updates; gradients whose absolute loss lies more than k standard deviations above
# its running mean dropped (the paper gives no k: 5).
# Schedules: each bundle is one DQN agent, so it counts as DQN's code does, per agent: its actor anneals
# epsilon over its own first 1M agent steps and its learner starts once its own replay holds 50,000
# transitions. The budget is therefore per bundle too: each gets DQN's whole 50M frames (the paper
# trained for days, up to 6, and states no frame count), 5 billion frames for the 100, so that epsilon
# ends after 8% of each bundle's steps and learning starts after 0.4%, as in DQN. theta-'s 60,000
# server updates are 600 of each learner's: with 3.1M updates per learner it moves about 5,200 times.
# (Counting epsilon and the warm-up over the whole system's steps instead would end exploration after
# 10,000 steps of each actor and start learners on 500 transitions each.)
# The paper gives no learning rate. AdaGrad is blind to the gradient's scale (summed or averaged clipped errors step alike):
# its first step moves each parameter by about the rate itself, later ones by rate / sqrt(updates). On
# the Nature CNN learning from a replay of random Breakout play (400 updates from theta_0, 2026-11), the
# mean loss of the first ten updates was 14 at 1e-2 and 0.12 at 3e-3, against 0.005 at 1e-3 and 1e-4 (and
# 0.004 for DQN's RMSProp); 1e-3 and 1e-4 stayed calm (loss 0.003 and 0.002, |Q| < 0.15), 1e-3 moving the
# parameters ten times as far: the largest calm rate, which AdaGrad's decay needs over millions of updates.
