"""The schema of an experiment: `Config`, every section of `gorila.config.sections` in one typed dataclass.

The CLI flags, their help text, the saved `config.yaml` of a run and the TensorBoard hparams are all
derived from `Config` and its sections. `validate` applies every field's rule and the checks between
fields, and names the key that is wrong.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, fields

from gorila.algorithms import UnknownAlgorithm, algorithm_named
from gorila.config.presets import PRESETS, preset_for_env
from gorila.config.rules import MAX_SEED, NETWORKS
from gorila.config.sections import (
    AtariConfig,
    DQNConfig,
    ExperimentConfig,
    ExplorationConfig,
    FaultsConfig,
    LearningRuleConfig,
    NetworkConfig,
    ParameterServerConfig,
    PQNConfig,
    RainbowConfig,
    RecordsConfig,
    ResourcesConfig,
    TopologyConfig,
)
from gorila.plugins import reference_of

__all__ = ["Config", "ConfigError", "MAX_SEED", "NETWORKS", "split_address", "validate"]


class ConfigError(ValueError):
    """A user-supplied configuration value is unknown or out of range; the message names the key."""


# A dataclass takes the fields of its last base first, so the sections are listed last to first:
# Config's fields run in the order of SECTIONS (a test holds the two together).
@dataclass
class Config(
    ResourcesConfig,
    FaultsConfig,
    RecordsConfig,
    ParameterServerConfig,
    ExplorationConfig,
    RainbowConfig,
    PQNConfig,
    DQNConfig,
    NetworkConfig,
    LearningRuleConfig,
    TopologyConfig,
    AtariConfig,
    ExperimentConfig,
):
    """An experiment's whole config: every field of every section, read as `config.batch_size`."""

    def section(self, kind):
        """This config's fields of one section, as an instance of it: what a component reading only
        that section is given."""
        return kind(**{item.name: getattr(self, item.name) for item in fields(kind)})

    def to_dict(self) -> dict:
        """The config as plain data (config.yaml, checkpoints): a callable as its `module:qualname`."""
        data = {item.name: getattr(self, item.name) for item in fields(self)}
        data["hidden_sizes"] = list(self.hidden_sizes)
        data["env_kwargs"] = copy.deepcopy(self.env_kwargs)
        return {key: reference_of(value) for key, value in data.items()}


def _env_preset_defaults(init):
    """Config's constructor, with the defaults of the preset an Atari or MinAtar `env` implies for the
    fields not given (`preset_for_env`): `Config(env="Pong")` is the config `gorila train --env Pong`
    and `make_config(env="Pong")` build, not CartPole's base values. A config built with every field
    (`dataclasses.replace`, a saved run's values) is taken as given."""

    @functools.wraps(init)
    def __init__(self, *args, **given):
        init(self, *args, **given)
        if "env" in given and not args and len(given) < len(_FIELD_NAMES):
            preset = preset_for_env(self.env)
            for key, value in PRESETS[preset].items() if preset else ():
                if key not in given:
                    setattr(self, key, copy.deepcopy(value))

    return __init__


_FIELD_NAMES = frozenset(item.name for item in fields(Config))
Config.__init__ = _env_preset_defaults(Config.__init__)


def split_address(address: str) -> tuple[str, int]:
    """(host, port) of a Ray cluster's HOST:PORT; ValueError saying what is wrong otherwise."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"address must be HOST:PORT or auto, got {address!r}")
    return host, int(port)


def validate(config: Config) -> Config:
    """Check every range and the topology; raise ConfigError naming the first bad key."""
    for item in fields(Config):
        check, must = item.metadata.get("rule", (None, ""))
        value = getattr(config, item.name)
        if check is not None and not check(value):
            raise ConfigError(f"{item.name} must {must}, got {value!r}")
    try:
        algorithm = algorithm_named(config.algorithm)
    except UnknownAlgorithm as error:
        raise ConfigError(str(error)) from None
    if config.bundled:
        if config.actors != config.learners:
            raise ConfigError(
                f"bundled mode needs actors == learners (got actors={config.actors}, "
                f"learners={config.learners}); pass --no-bundled for other topologies"
            )
        if config.replay != "local":
            raise ConfigError("bundled mode uses local replay; pass --no-bundled to use --replay global")
    if problem := algorithm.check(config):
        raise ConfigError(problem)
    if config.max_bundles and not (config.bundled and config.runtime == "ray" and config.max_bundles >= config.actors):
        raise ConfigError(
            f"max_bundles={config.max_bundles} grows a bundled Ray run from its actors={config.actors} bundles: "
            "it needs bundled mode, --runtime ray and max_bundles >= actors (0 turns it off)"
        )
    if config.synchronous_sgd and config.learner_refresh == "pipelined":
        raise ConfigError(
            "learner_refresh: pipelined computes each gradient without the learner's previous update, but "
            "synchronous_sgd has every learner wait for its round's theta+: drop one of the two"
        )
    if config.synchronous_sgd and config.max_bundles:
        raise ConfigError(
            f"max_bundles={config.max_bundles} grows the run by bundles, but synchronous_sgd's rounds wait for the "
            "learners the run starts with: drop one of the two"
        )
    if config.address and config.runtime == "local":
        raise ConfigError(
            f"address: --address {config.address} joins a Ray cluster, but runtime is local (one process on this "
            "machine; the atari-fast and pqn presets set it): add --runtime ray"
        )
    if config.address and config.address != "auto":
        try:
            split_address(config.address)
        except ValueError as error:
            raise ConfigError(str(error)) from None
    if config.replay == "global" and config.replay_shards > config.actors * config.envs_per_actor:
        raise ConfigError(
            f"replay_shards must be <= actors * envs_per_actor "
            f"({config.actors * config.envs_per_actor}): each shard holds whole environment streams"
        )
    return config
