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
- `cli`: the `gorila` command; `api`: the same from Python (`gorila.train`, `gorila.evaluate`, ...).

From Python:

    import gorila
    result = gorila.train(gorila.make_config("cartpole", runtime="local"))
    q_network = gorila.load_q_network(result.run_dir)

The names below are imported from their modules on first use: `import gorila` (which the `gorila`
command does first) loads neither torch nor Ray.
"""

from gorila.lazy import lazy_attributes

_HOMES = {
    "make_config": "api",
    "train": "api",
    "resume": "api",
    "evaluate": "api",
    "load_q_network": "api",
    "sweep": "api",
    "TrainResult": "api",
    "Evaluation": "api",
    "QNetwork": "api",
    "Config": "config",
    "ConfigError": "config",
    "PRESETS": "config",
    "EnvError": "envs.registry",
    "PluginError": "plugins",
    "CheckpointError": "records.checkpoints",
}

__all__ = sorted(_HOMES)

__getattr__ = lazy_attributes(__name__, _HOMES, globals())
