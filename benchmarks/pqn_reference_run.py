"""Runs purejaxql's PQN on gymnax's MinAtar inside the reference's own environment (not gorila's): the
`make_train` of its `pqn_minatar.py` with its `pqn_minatar.yaml` settings, jitted as its `single_run`
does, for a given number of agent steps; writes the training return per update as JSON.

Called by benchmarks/pqn_reference.py with that environment's Python:
  python pqn_reference_run.py PUREJAXQL_DIR GAME STEPS SEED OUT.json [KEY=VALUE ...]
(KEY=VALUE: settings of the reference changed, values read as YAML, e.g. TEST_DURING_TRAINING=false)
"""

import json
import sys
import time

start = time.time()
source, game, steps, seed, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
sys.path.insert(0, source)

import jax  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402
from purejaxql.pqn_minatar import make_train  # noqa: E402

config = OmegaConf.to_container(OmegaConf.load(f"{source}/purejaxql/config/alg/pqn_minatar.yaml"))
config.update(ENV_NAME=game, TOTAL_TIMESTEPS=steps, TOTAL_TIMESTEPS_DECAY=steps, SEED=seed, NUM_SEEDS=1)
config.update(WANDB_MODE="disabled", WANDB_LOG_ALL_SEEDS=False)
config.update(OmegaConf.to_container(OmegaConf.from_dotlist(sys.argv[6:])))
train = jax.jit(make_train(config))
outs = jax.block_until_ready(train(jax.random.PRNGKey(seed)))
metrics = outs["metrics"]
json.dump(
    {
        "env_steps": [int(x) for x in metrics["env_step"]],
        "returns": [float(x) for x in metrics["returned_episode_returns"]],
        "test_returns": [float(x) for x in metrics.get("test_returned_episode_returns", [])],
        "seconds_in_python": time.time() - start,
        "jax": jax.__version__,
        "settings": config,
    },
    open(out, "w"),
)
