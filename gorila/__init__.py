"""Gorila, the General Reinforcement Learning Architecture (Nair et al. 2015): DQN run as actors,
replay memories, learners and a sharded parameter server in parallel, on one process or on Ray.

The package, by role (each folder's docstring says more):
- `contracts`: what crosses between components, and the typed interface of each kind of component;
- `config`: the typed schema of an experiment, presets, parsing;
- `agent`: DQN's maths as pure functions, the Q-networks, the epsilon-greedy policy;
- `components`: the paper's parts (actor, learner, bundle, evaluator, replay, parameter_server),
  none knowing where it runs;
- `system`: builders, the topology (`system.topology.build_system`), the driver loop, the budget
  policy, the stop rule, recovery from failures, preflight checks;
- `runtime`: where components live, in one process (`local`) or as Ray actors (`ray`);
- `envs`: Atari, MinAtar and Gymnasium environments, batched;
- `evaluation`: evaluation protocols, evaluating a checkpoint, start points, published scores;
- `experiments`: the 49-game suite, reports with plots and video, the benchmark;
- `records`: checkpoints, metrics, progress display, run directories;
- `cli`: the `gorila` command.
"""
