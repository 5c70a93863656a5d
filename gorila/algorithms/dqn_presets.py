"""DQN's presets: ready sets of config values, each with the reasons for its choices (their scaling to
a cluster's size: `gorila.config.scaling`; every algorithm's together: `gorila.config.presets`)."""

from __future__ import annotations

from gorila.envs.atari_constants import MAX_EPISODE_FRAMES, STICKY_ACTIONS

DQN_PRESETS: dict[str, dict] = {
    # Tuned on 2 CPU cores (benchmarks/time_to_solve.py, seeds 0-4): four CartPole copies per actor
    # share each batched forward pass; one update of 64 per 4 agent steps; a high Adam rate and a
    # 64x64 network, whose updates cost a third of a 128x128 one's. With several bundles the actors
    # settle on a short ladder of final epsilons (0.05 down to 0.0025; Ape-X's idea, not Gorila's),
    # the setting the multi-bundle times of benchmarks/NOTES.md were measured with.
    "cartpole": dict(
        env="CartPole-v1",
        total_frames=250_000,
        stop_at_return=475.0,
        envs_per_actor=4,
        hidden_sizes=(64, 64),
        gamma=0.99,
        n_step=3,
        double_dqn=True,
        batch_size=64,
        replay_capacity=50_000,
        learning_starts=1_000,
        update_every=4,
        epsilon_ladder=True,
        epsilon_start=1.0,
        epsilon_end=0.04,
        epsilon_decay_steps=8_000,
        ladder_base=0.05,
        ladder_alpha=1.0,
        optimizer="adam",
        learning_rate=4e-3,
        target_update_every=128,
        push_every=1,
        learner_sync_every=1,
        eval_every_frames=5_000,
        eval_episodes=20,
        eval_epsilon=0.0,
    ),
    # DQN (Mnih et al. 2015) per learner, Gorila's parameter server around it, as DQN's reference code
    # (run_gpu, NeuralQLearner.lua) counts its schedules:
    # - replay capacity, learning start and epsilon in agent steps (4 frames each): 1M, 50,000, and
    #   epsilon held at 1 until learning starts, then annealed to 0.1 over 1M steps (its `ep` counts
    #   numSteps - learn_start);
    # - theta- every 10,000 agent steps (`target_q` counts numSteps), 2,500 updates at one per 4 steps;
    # - no loss-outlier filter: DQN has none (Gorila's is the gorila-paper preset's). Measured, k = 5
    #   on the paper's statistic, Pong and Breakout, first 1M frames, seeds 0 and 1: it dropped
    #   0.03-0.18% of the gradients and moved no training return by more than 0.2
    #   (benchmarks/baselines/atari/outlier-filter-1m.md), so nothing argues against DQN's choice;
    # - a life loss is terminal for learning (no bootstrap), but does not cut the frame stack as DQN's
    #   transition table does: ale-py's stack, which the actor acts on, runs on across it, and replay
    #   rebuilds the stacks the actor saw; the two differ on the 3 steps after each lost life.
    # Where it still differs from DQN's code, and why:
    # - actors act on parameters 400-800 agent steps old (actor_sync_every 400, and each sync takes the
    #   theta+ asked for at the previous one, prefetched), where DQN acts on the network it trains: a
    #   Gorila actor reads theta+ from the parameter server, and a read every step would put a round trip
    #   on every action (the paper's actors also refresh every N steps);
    # - no random no-ops after a life-loss terminal in training: ale-py's vector env goes on with the game
    #   across a lost life (life_loss_info) and only a game over resets it, with its up to 30 no-ops;
    # - training episodes are capped at 108,000 frames (30 minutes; ale-py's usual cap, Machado et al.),
    #   so that a stuck game cannot hold a copy forever; evaluations keep DQN's 18,000.
    "atari": dict(
        env="Pong",
        total_frames=50_000_000,
        network="nature_cnn",
        gamma=0.99,
        n_step=1,
        batch_size=32,
        replay_capacity=1_000_000,
        learning_starts=50_000,
        update_every=4,
        loss_reduction="sum",
        clip_rewards=True,
        max_grad_norm=0.0,
        epsilon_start=1.0,
        epsilon_end=0.1,
        epsilon_decay_steps=1_000_000,
        epsilon_hold=True,
        epsilon_ladder=False,
        optimizer="rmsprop",
        learning_rate=2.5e-4,
        rmsprop_alpha=0.95,
        optimizer_eps=0.01,
        target_update_every=2_500,
        actor_sync_every=400,
        learner_sync_every=1,
        eval_every_frames=1_000_000,
        eval_episodes=30,
        eval_epsilon=0.05,
        eval_max_frames=18_000,
        checkpoint_every_frames=1_000_000,
        outlier_k=0.0,
    ),
    # MinAtar's DQN (Young & Tian 2019): its one-convolution network on 10x10 boolean frames, replay of
    # 100k, gamma 0.99, epsilon down to 0.1, RMSProp 2.5e-4 with squared-gradient momentum 0.95, the full
    # action set (v0) of the paper's curves. Its floor on the RMSProp denominator is 0.01 outside the
    # square root (torch's centred RMSprop); gorila's RMSProp adds optimizer_eps inside the root, so 1e-4
    # is the same floor. Scaled for minutes on 2 CPU cores (benchmarks/minatar_dqn.py, benchmarks/NOTES.md):
    # - four copies per actor share each forward pass;
    # - one update of 256 per 16 frames instead of one of 32 per frame: 16 sampled transitions a frame, half
    #   the paper's, because the network's arithmetic at 32 a frame caps a run near 1,000 frames/s on 2
    #   cores (B=128 on 2 torch threads: 1,181 frames/s against 334 for the paper's ratio as 64 per 2), and
    #   an update's cost is mostly fixed: 256 per 16 ran 1.27-1.36 times as fast as 128 per 8 side by side
    #   and learnt as far (benchmarks/NOTES.md, 2026-12-02; all five games at 500k frames, 2 seeds: 1.02-6.40
    #   of the published DQN, README);
    # - 3-step returns and a learning rate of 4e-3 instead of 2.5e-4: each update moves the parameters
    #   about one learning rate whatever the batch (RMSProp divides the gradient's scale out), so sixteen
    #   times fewer updates need a rate several times larger to learn as far per frame (at 128 per 8,
    #   Breakout at 300k frames: 7.16 at 2e-3, against about 5 at 5e-4; Freeway learnt to cross only at
    #   2e-3; halving the updates again took twice the rate);
    # - no loss-outlier filter (DQN has none): where rewards are rare, the minibatches holding one are
    #   the outliers, and dropping them (Freeway: 746 of 22,661 gradients, every one with a crossing in
    #   it) leaves nothing to learn from;
    # - epsilon annealed over 100k frames and learning after 5,000, as the paper; theta- refreshed every
    #   125 updates (2,000 frames; the paper: 1,000).
    # - with several bundles on Ray, each update waits for the theta+ with its learner's previous gradient
    #   in it (learner_refresh synchronous; one bundle holds its shard and waits for nothing): 16 bundles on
    #   Breakout, seed 0, reached a training mean of 6 at 229,888 frames with it, gradients 15 versions late
    #   on average, and refreshing pipelined never passed 4 in 879,616 frames, 30 versions late, its loss
    #   growing (one bundle: 6 at 136,433); at 8 bundles, 196,864 frames with it and 157,696 without (one
    #   seed each, no further apart than runs of one setting; benchmarks/baselines/scaling).
    # torch_threads 2 is for one process on 2 cores (the local runtime); on Ray give each bundle 1.
    "minatar": dict(
        env="MinAtar/Breakout-v0",
        total_frames=100_000,
        network="minatar_cnn",
        gamma=0.99,
        n_step=3,
        envs_per_actor=4,
        batch_size=256,
        replay_capacity=100_000,
        learning_starts=5_000,
        update_every=16,
        clip_rewards=False,
        max_grad_norm=0.0,
        outlier_k=0.0,
        epsilon_start=1.0,
        epsilon_end=0.1,
        epsilon_decay_steps=100_000,
        epsilon_ladder=False,
        optimizer="rmsprop",
        learning_rate=4e-3,
        rmsprop_alpha=0.95,
        optimizer_eps=1e-4,
        target_update_every=125,
        actor_sync_every=4,
        learner_sync_every=1,
        learner_refresh="synchronous",
        torch_threads=2,
        eval_every_frames=25_000,
        eval_episodes=20,
        eval_epsilon=0.0,
        checkpoint_every_frames=50_000,
    ),
}
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
# The paper's loss-outlier filter at k = 5 (measured beside none on Pong and Breakout's first 1M
# frames: benchmarks/baselines/atari/outlier-filter-1m.md).
DQN_PRESETS["gorila-paper"] = dict(
    DQN_PRESETS["atari"],
    actors=100,
    learners=100,
    param_shards=31,
    shard_placement="apart",
    optimizer="adagrad",
    learning_rate=1e-3,
    optimizer_eps=1e-8,
    target_update_every=60_000,
    total_frames=100 * 50_000_000,
    outlier_k=5.0,
)
# Ape-X (Horgan et al. 2018, "Distributed Prioritized Experience Replay"): many actors, each on its own
# rung of the epsilon ladder eps_i = 0.4 ** (1 + 7 i / (N - 1)), feed one central prioritised replay
# (proportional, alpha 0.6, beta 0.4) that a single learner samples; 3-step returns, double Q-learning
# and a dueling network. The paper's Atari run: 360 actors, a replay of 2M transitions, minibatches of
# 512, centred RMSProp 0.00025 / 4, theta- every 2,500 learner updates, gradients clipped to norm 40,
# actors refreshing theta every 400 frames and computing the initial priorities of what they send.
# Scaled for a 2-core machine and CartPole (the sizes of the cartpole preset, which is tuned there): 3
# actors of 4 copies each on the ladder (0.4, 0.016, 0.00066 after the anneal from 1), 2 replay shards
# of 25,000 transitions each (one central replay would serve 3 actors as well; two show the cross-shard
# draw, by priority mass, at work), one learner making one update of 64 per 4 agent steps, Adam 4e-3,
# theta- every 128 updates, a 64x64 dueling MLP (`network: auto`, so an Atari --env gets the Nature CNN,
# though with these CartPole-sized rates). New transitions get the largest priority so far instead of
# an actor-computed one, and beta anneals from 0.4 to 1 over the budget (Schaul et al. 2016).
DQN_PRESETS["apex"] = dict(
    DQN_PRESETS["cartpole"],
    total_frames=400_000,
    bundled=False,
    actors=3,
    learners=1,
    param_shards=1,
    replay="global",
    replay_shards=2,
    prioritised=True,
    priority_alpha=0.6,
    priority_beta=0.4,
    n_step=3,
    double_dqn=True,
    dueling=True,
    network="auto",
    epsilon_ladder=True,
    ladder_base=0.4,
    ladder_alpha=7.0,
)
# Atari learned in the fewest wall seconds on one machine (one bundle; `--runtime local` on a laptop).
# DQN's learner is the limit on a CPU (an update of 64 costs about 40 agent steps of acting), so the
# preset spends its updates where published work found them worth most. Each change from the atari
# preset (DQN), and why:
# - Adam 1e-4 (Tianshou's and CleanRL's DQN on Atari; Rainbow's 6.25e-5 is tuned for 200M frames)
#   instead of DQN's RMSProp 2.5e-4 on summed errors: the rate most fast Pong runs use, with the
#   losses averaged (Adam divides the scale out);
# - 3-step returns (Rainbow's ablations: multi-step is among its largest gains early); no double DQN,
#   whose extra forward pass costs 1.2 of an update here, and which Rainbow's ablations found worth least
#   (Pong learns without it in CleanRL's DQN);
# - minibatches of 64, one update per 10 agent steps: 6.4 sampled transitions per agent step against
#   DQN's 8 (Tianshou's atari_dqn samples 3.2: 32 at 0.1 updates per step); on two CPU threads an
#   update of 64 costs 1.6 of one of 32 (channels-last convolutions), so 64 is the cheaper way to a sample;
# - 32 copies of the game sharing each forward pass (Tianshou: 10): 579 frames/s over a Pong run's first
#   110 minutes against 545 with ten;
# - theta- every 500 updates (5,000 agent steps; DQN: 10,000 steps), as Tianshou;
# - epsilon from 1 over the first 250,000 agent steps (Dopamine's anneal; DQN: to 0.1 over 1M) to
#   Ape-X's ladder over the 32 copies, copy i at 0.4 ** (1 + 7 i / 31): from 0.4 down to 0.0007,
#   0.067 on average, 11 of the 32 copies at or above DQN's evaluation rate 0.05. The training return
#   is played at these rates, evaluations at DQN's 0.05, as `gorila evaluate` plays every Atari
#   protocol. Measured on Pong, this machine: with every copy at 0.01 (seed 0) the best parameters
#   scored 19.3 over 30 episodes at 0.01 but 11.3 at 0.05 (some games lost 20-0): the agent must see
#   the states a random action at 0.05 leads to. A ladder from 0.05 down to 0.0025 (0.016 on average,
#   the preset before) reached a DQN-protocol 15-17.7 on seed 0 and never passed 16.2 in 10M frames on
#   seed 1; Ape-X's ladder took seed 1 to 18.3 at 6.0M frames (benchmarks/baselines/atari/);
# - learning from 20,000 agent steps (Dopamine's Rainbow; DQN: 50,000) and a replay of 500,000 (DQN:
#   1M; 3.9 GB in all): measured on Pong, seed 0, a replay of 100,000 (Tianshou's, 1.2 GB) reached a
#   training mean of +18 at 4.82M frames and then lost whole games at epsilon 0.05 (0-21 at 9.5M
#   frames), holding only the last minutes of play, where a winning agent seldom sees the opponent
#   lead (the likely cause, not yet shown); 500,000 reached +18 at 4.00M frames (84 minutes, beside
#   other work), lost no game in its evaluations during training from 4M to 7.5M frames (its note),
#   and its best parameters scored 18.13 over 30 episodes at 0.05 (one seed; README "Results");
# - no loss-outlier filter (DQN has none; rare-reward minibatches are the outliers) and gradients clipped
#   to norm 10 (PQN, Tianshou's policy default is none: a guard against a rare large step);
# - with several bundles on Ray, each update waits for the theta+ with its learner's previous gradient in
#   it (learner_refresh synchronous, as the minatar preset, where it made 16 bundles learn; one bundle on
#   the local runtime waits either way): 4 bundles on 2 cores ran about 1,000 frames/s with it, gradients
#   3 versions late on average.
# Breakout-like games need FIRE after a lost life, which a nearly greedy agent may never press:
# `--set fire_reset=true` there. Results: README "Atari", benchmarks/baselines/.
DQN_PRESETS["atari-fast"] = dict(
    DQN_PRESETS["atari"],
    total_frames=10_000_000,
    n_step=3,
    double_dqn=False,
    dueling=False,
    batch_size=64,
    update_every=10,
    replay_capacity=500_000,
    learning_starts=20_000,
    loss_reduction="mean",
    max_grad_norm=10.0,
    outlier_k=0.0,
    epsilon_start=1.0,
    epsilon_end=0.01,
    epsilon_decay_steps=250_000,
    epsilon_hold=False,
    epsilon_ladder=True,
    ladder_over="copies",
    ladder_base=0.4,
    ladder_alpha=7.0,
    optimizer="adam",
    learning_rate=1e-4,
    optimizer_eps=1e-8,
    target_update_every=500,
    actor_sync_every=100,
    learner_sync_every=1,
    learner_refresh="synchronous",
    torch_threads=2,
    runtime="local",
    envs_per_actor=32,
    eval_every_frames=500_000,
    eval_epsilon=0.05,
    checkpoint_every_frames=200_000,
)
# The atari preset's DQN under the settings Machado et al. (2018), "Revisiting the Arcade Learning
# Environment", ask papers to train and evaluate with: sticky actions (each frame repeats the previous
# action with probability 0.25), so that the emulator is no longer deterministic and an open-loop action
# sequence cannot score; the full set of 18 actions, so that no game's minimal set is given away; no
# life-loss signal, so that the score alone tells the agent how it does (a lost life is no terminal);
# episodes capped at 108,000 frames (30 minutes) in training and in evaluation (DQN's: 18,000).
DQN_PRESETS["machado"] = dict(
    DQN_PRESETS["atari"],
    sticky_actions=STICKY_ACTIONS,
    full_action_set=True,
    life_loss_signal=False,
    max_episode_frames=MAX_EPISODE_FRAMES,
    eval_max_frames=MAX_EPISODE_FRAMES,
)

# The fields DQN's presets give for the whole run (`gorila.config.presets.SHARED_BY_ACTORS`): its
# replay memories' capacity and warm-up, its anneal and its copies; on 32 bundles the atari preset
# would otherwise hold 32M transitions (226 GB) with epsilon at 0.69 when its 50M frames end.
# gorila-paper's bundles are whole DQN agents, as the paper's were: it shares nothing.
DQN_SHARES = ("envs_per_actor", "epsilon_decay_steps", "learning_starts", "replay_capacity")
WHOLE_AGENT_PRESETS = ("gorila-paper",)
# In synchronous rounds N learners share the minibatch of one update: each samples 1/N of the batch
# from its own replay, N times as often.
DQN_SHARES_IN_ROUNDS = ("batch_size", "update_every")
