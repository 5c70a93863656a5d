"""The algorithms Gorila's components run, by name: the one registry, `ALGORITHMS`.

An algorithm (`gorila.core.Algorithm`) brings its presets, its checks, its budget rule and the
builders of its network and workers; a config names it (`algorithm: dqn`), and everything that
depends on which it is asks the registry (`algorithm_of(config)`), never the name. Adding one is a
module beside these and one `register` line below:

    dqn   DQN as Gorila runs it: replay memories, theta-, one update per update_every agent steps;
          bundles or any mix of actors, replays and learners (`dqn`, presets in `dqn_presets`)
    pqn   PQN: rollouts and Q(lambda) targets, no replay and no theta-; bundles only (`pqn`, presets
          in `pqn_presets`)
    rainbow  DQN with C51's return distributions and, optionally, noisy layers; every topology DQN
          runs in (`rainbow`, presets in `rainbow_presets`)

This package sits below the config (which reads its presets and checks): its modules import no config
module at load, and the components they build only inside their building methods.
"""

from __future__ import annotations

from gorila.algorithms.dqn import DQN
from gorila.algorithms.pqn import PQN
from gorila.algorithms.rainbow import Rainbow
from gorila.core import Algorithm

ALGORITHMS: dict[str, Algorithm] = {}


class UnknownAlgorithm(ValueError):
    """A name no algorithm is registered under; the message names those that are."""


def register(algorithm: Algorithm) -> Algorithm:
    """Make `algorithm` what configs naming `algorithm.name` run; a name registered twice is an error."""
    if algorithm.name in ALGORITHMS:
        raise ValueError(f"algorithm {algorithm.name!r} is registered already")
    ALGORITHMS[algorithm.name] = algorithm
    return algorithm


def known() -> str:
    """The registered names, as a message lists them."""
    return ", ".join(ALGORITHMS)


def algorithm_named(name: str) -> Algorithm:
    """The algorithm registered as `name`; UnknownAlgorithm naming the known ones otherwise."""
    if name not in ALGORITHMS:
        raise UnknownAlgorithm(f"algorithm must be one of {known()}, got {name!r}")
    return ALGORITHMS[name]


def algorithm_of(config) -> Algorithm:
    """The algorithm a config runs."""
    return algorithm_named(config.algorithm)


register(DQN())
register(PQN())
register(Rainbow())
