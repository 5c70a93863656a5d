"""The presets of Rainbow (`gorila.algorithms.rainbow`): Hessel et al.'s, Dopamine's, and MinAtar's on
this project's DQN preset, each choice written beside it."""

from __future__ import annotations

from gorila.algorithms.dqn_presets import DQN_PRESETS

RAINBOW_PRESETS: dict[str, dict] = {}

# Rainbow's own parts, as Hessel et al. (2018) have them (their Table 1): C51's 51 atoms on [-10, 10];
# noisy layers with sigma_0 0.5 and no epsilon-greedy; double Q-learning and a dueling head over the
# atoms; 3-step returns; proportional prioritised replay with exponent 0.5 on each transition's
# cross-entropy and importance sampling from 0.4 up to 1; Adam with epsilon 1.5e-4 on the mean loss.
RAINBOW_PARTS = dict(
    algorithm="rainbow",
    num_atoms=51,
    v_min=-10.0,
    v_max=10.0,
    noisy=True,
    noisy_sigma0=0.5,
    epsilon_start=0.0,
    epsilon_end=0.0,
    epsilon_decay_steps=0,
    epsilon_hold=False,
    epsilon_ladder=False,
    double_dqn=True,
    dueling=True,
    n_step=3,
    prioritised=True,
    priority_alpha=0.5,
    priority_beta=0.4,
    optimizer="adam",
    optimizer_eps=1.5e-4,
    loss_reduction="mean",
)

# Rainbow as Hessel et al. ran it on Atari, on the atari preset's DQN game settings (minimal action set,
# life-loss terminals, clipped rewards, DQN's evaluation at 0.05): its parts, Adam 6.25e-5, minibatches
# of 32, one per 4 agent steps, from 20,000 agent steps (80k frames) on; theta- every 8,000 agent steps
# (2,000 updates); a replay of 1M; 200M frames. No gradient clipping (the paper gives none).
RAINBOW_PRESETS["rainbow"] = dict(
    DQN_PRESETS["atari"],
    **RAINBOW_PARTS,
    total_frames=200_000_000,
    learning_rate=6.25e-5,
    learning_starts=20_000,
    target_update_every=2_000,
)
# Dopamine's Rainbow (Castro et al. 2018; its rainbow.gin and atari_lib), the curves this project is
# compared with: C51 with 3-step returns and prioritised replay, but neither noisy layers, nor double
# Q-learning, nor a dueling head; epsilon-greedy from 1 to 0.01 over 250,000 agent steps, evaluations at
# 0.001; Adam 6.25e-5 with epsilon 1.5e-4; sticky actions 0.25 and no life-loss terminals (Machado et
# al.'s protocol, as Dopamine plays it; Dopamine keeps the minimal action set); episodes capped at
# 108,000 frames. Where it differs from Dopamine: importance sampling anneals from 0.5 to 1 over the run
# (Dopamine keeps 0.5), and a new transition takes the largest priority seen so far (Dopamine: the
# largest ever set, the same unless priorities shrink).
RAINBOW_PRESETS["rainbow-dopamine"] = dict(
    RAINBOW_PRESETS["rainbow"],
    total_frames=10_000_000,
    noisy=False,
    double_dqn=False,
    dueling=False,
    epsilon_start=1.0,
    epsilon_end=0.01,
    epsilon_decay_steps=250_000,
    priority_beta=0.5,
    sticky_actions=0.25,
    life_loss_signal=False,
    max_episode_frames=108_000,
    eval_max_frames=108_000,
    eval_epsilon=0.001,
)
# Rainbow on MinAtar: its parts on the sizes of this project's minatar (DQN) preset, which is scaled for
# minutes on 2 CPU cores (four copies per actor, one update of 256 per 16 frames, theta- every 125
# updates).
RAINBOW_PRESETS["rainbow-minatar"] = dict(
    DQN_PRESETS["minatar"],
    **RAINBOW_PARTS,
    total_frames=500_000,
    learning_rate=1e-3,
)
# Rainbow on CartPole: its parts on the cartpole (DQN) preset's sizes and rates (four copies, a 64x64
# network, one update of 64 per 4 agent steps, Adam 4e-3, theta- every 128 updates), the atoms on
# [0, 100]: CartPole pays 1 a step, so no discounted return at gamma 0.99 passes 1 / (1 - 0.99).
RAINBOW_PRESETS["rainbow-cartpole"] = {**DQN_PRESETS["cartpole"], **RAINBOW_PARTS, "v_min": 0.0, "v_max": 100.0}
