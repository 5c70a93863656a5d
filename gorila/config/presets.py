"""Presets: ready sets of config values, each with the reasons for its choices, brought by the
algorithms (`gorila.algorithms`: DQN's in `dqn_presets`, PQN's in `pqn_presets`); `PRESETS` holds them
all. Their scaling to a cluster's size: `scaling`."""

from __future__ import annotations

from gorila.algorithms import ALGORITHMS

PRESETS: dict[str, dict] = {name: values for a in ALGORITHMS.values() for name, values in a.presets.items()}

# What a preset gives for its whole run rather than for each actor: a run with more actors (bundles)
# than the preset has shares these among them, 1/N each (`gorila.config.scaling.actor_shares`), so that
# N bundles explore, warm up and learn per frame as the preset's one agent does, hold the experience of
# the same last frames in all, and N machines each do 1/N of its work. Each algorithm says which
# (`Algorithm.shared_by_actors`, with its reasons beside its presets).
SHARED_BY_ACTORS: dict[str, tuple[str, ...]] = {
    name: shared for a in ALGORITHMS.values() for name in a.presets if (shared := a.shared_by_actors(name))
}
# In synchronous rounds (`synchronous_sgd` on Ray) one update is the mean of N learners' gradients, so
# the preset's minibatch of one update is what they share: a DQN learner samples 1/N of the batch from
# its own replay N times as often (each bundle steps 1/N of the frames), and PQN's learners each keep the
# preset's minibatches of every pass, on their 1/N of the copies' steps. Either way N bundles make the
# preset's updates, of its minibatch size, per frame. Each algorithm says which
# (`Algorithm.shared_in_rounds`, `kept_in_rounds`).
SHARED_IN_ROUNDS: dict[str, tuple[str, ...]] = {
    name: a.shared_in_rounds(name) for a in ALGORITHMS.values() for name in a.presets if name in SHARED_BY_ACTORS
}
KEPT_IN_ROUNDS = tuple(dict.fromkeys(key for a in ALGORITHMS.values() for key in a.kept_in_rounds))

# What a run starts from when it names no preset, by kind of environment: DQN's settings for an Atari
# game and MinAtar's for a MinAtar game, rather than the base config's CartPole-sized ones (Adam 5e-4,
# raw rewards, a 100k replay), which no published Atari result used.
ENV_KIND_PRESETS = {"atari": "atari", "minatar": "minatar"}


def preset_for_env(env) -> str | None:
    """The preset a run on `env` gets when it names none (`ENV_KIND_PRESETS`); None for other kinds
    and for a name that is no environment (preflight reports that one)."""
    from gorila.envs.registry import EnvError, resolve_env

    try:
        return ENV_KIND_PRESETS.get(resolve_env(env).kind)
    except EnvError:
        return None
