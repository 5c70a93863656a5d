"""Environment names: what a user may type, and what it resolves to.

Three kinds of environment exist for gorila: Atari games, run through ale-py's
C++ vector environment with the DQN preprocessing; MinAtar's miniature Atari
games (Young & Tian 2019, `MinAtar/Breakout-v1`: 10x10 boolean frames, one
channel per kind of object), which show learning from pixels on a CPU in
minutes; and any other Gymnasium environment with a discrete action space
(CartPole and friends, for quick checks). `resolve_env` turns a user's
spelling into one canonical `EnvSpec` so that configs, logs and checkpoints
all name an environment the same way. A user's own environment is a
Gymnasium one too: `package.module:Env-v0` (the module registers it),
`package.module:make_env` or, from Python, the callable itself (`EnvSpec.factory`).
(The paper's 49 games and their published scores are in `gorila.evaluation.scores`.)
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from gorila.envs.atari_constants import FRAMESKIP
from gorila.plugins import PluginError, import_module_of, is_reference, reference_of, resolve_callable

_ATARI_ID = re.compile(r"^(?:ALE/)?(?P<game>[A-Za-z0-9_\-]+?)(?:NoFrameskip|Deterministic)?(?:-v(?P<ver>\d+))?$")
_GYM_EXAMPLE = "e.g. CartPole-v1"


class EnvError(ValueError):
    """A user named an environment gorila cannot run; the message is one line."""


@dataclass(frozen=True)
class EnvSpec:
    """A resolved environment: `kind` is 'atari', 'minatar' or 'gym'; `game` is the ale-py ROM name,
    MinAtar's game name ('space_invaders'), or None. A Gymnasium env made by the user's callable has it
    as `factory` (and its reference as `id`); `kwargs` go to `gymnasium.make` or to the factory."""

    kind: str
    id: str
    game: str | None = None
    factory: object = field(default=None, compare=False)
    kwargs: dict = field(default_factory=dict, compare=False, hash=False)

    def registered_id(self) -> str:
        """The Gymnasium id to make, once the module of a `module:Env-v0` has registered it (in this process)."""
        if not is_reference(self.id):
            return self.id
        import_module_of(self.id, "env")
        return self.id.partition(":")[2].strip()

    def make(self, max_episode_steps: int | None = None, **options):
        """One Gymnasium env of this spec, cut at `max_episode_steps` if given; `options` (render_mode)
        go to `gymnasium.make` (a user's factory takes only its env_kwargs)."""
        import gymnasium

        if self.kind == "minatar":
            register_minatar()
        if self.factory is None:
            limits = {} if max_episode_steps is None else {"max_episode_steps": max_episode_steps}
            return gymnasium.make(self.registered_id(), disable_env_checker=True, **limits, **options, **self.kwargs)
        env = self.factory(**self.kwargs)
        if not isinstance(env, gymnasium.Env):
            raise EnvError(f"env: {self.id} returned a {type(env).__name__}, not a gymnasium.Env")
        return env if max_episode_steps is None else gymnasium.wrappers.TimeLimit(env, max_episode_steps)


def _squash(name: str) -> str:
    """Spelling-insensitive key: 'SpaceInvaders', 'space_invaders', 'space-invaders' all agree."""
    return name.replace("_", "").replace("-", "").lower()


@functools.lru_cache(maxsize=1)
def _rom_index() -> dict[str, str]:
    """Map squashed name -> ale-py ROM id; reading ale-py's ROM list is cheap (no emulator)."""
    from ale_py import roms

    return {_squash(rom): rom for rom in roms.get_all_rom_ids()}


def _atari_name(game: str) -> str:
    """ale-py's PascalCase name of a ROM, as in 'ALE/SpaceInvaders-v5'."""
    return game.title().replace("_", "")


def _resolve_atari(name: str) -> EnvSpec | None:
    """Atari spec for 'Pong', 'space_invaders', 'ALE/Pong-v5', 'PongNoFrameskip-v4'...; else None."""
    match = _ATARI_ID.match(name)
    if match is None:
        return None
    game = _rom_index().get(_squash(match["game"]))
    if game is None:
        return None
    return EnvSpec(kind="atari", id=f"ALE/{_atari_name(game)}-v5", game=game)


def _gym_id(name: str) -> str | None:
    """The registered non-Atari Gymnasium id for `name`, adding the highest version when none is given.

    Atari ids (entry point in ale_py) are left to `_resolve_atari`, so that 'Pong-v4' means the
    game under gorila's preprocessing, while 'Blackjack-v1' stays Gymnasium's card game.
    """
    import gymnasium

    if is_reference(name):  # `module:Env-v0`: the module registers Env-v0 when imported
        import_module_of(name, "env")
        module, _, bare = name.partition(":")
        found = _gym_id(bare.strip())
        return None if found is None else f"{module.strip()}:{found}"
    registry = gymnasium.registry
    if name not in registry:
        versions = [key for key in registry if re.fullmatch(re.escape(name) + r"-v\d+", key)]
        name = max(versions, key=lambda key: int(key.rsplit("-v", 1)[1]), default=None)
    if name is None or str(registry[name].entry_point).startswith("ale_py"):
        return None
    return name


_CHECKED: dict = {}  # spaces already checked, by (id, kwargs), for registered envs only


def _check_spaces(spec: EnvSpec) -> None:
    """Build the env once to read its spaces: there is no cheaper way to learn them.

    DQN picks one of n actions, and the networks, the replay and the vector backends all take an
    observation as one array of numbers: a Discrete action space and a Box observation space.
    """
    import gymnasium

    key = None if spec.factory is not None else (spec.id, repr(sorted(spec.kwargs.items())))
    if key in _CHECKED:
        return
    try:
        env = spec.make()
    except gymnasium.error.Error as exc:  # missing dependency (e.g. Box2D) and the like
        raise EnvError(f"cannot create '{spec.id}': {str(exc).splitlines()[0]}") from exc
    except TypeError as exc:  # most often an env_kwargs key the constructor does not take
        raise EnvError(f"cannot create '{spec.id}' with env_kwargs {spec.kwargs}: {exc}") from None
    try:
        actions, observations = env.action_space, env.observation_space
    finally:
        env.close()
    if not isinstance(actions, gymnasium.spaces.Discrete):
        raise EnvError(f"'{spec.id}' has action space {actions}; DQN needs a Discrete action space")
    if not isinstance(observations, gymnasium.spaces.Box) or not observations.shape:
        raise EnvError(
            f"env: '{spec.id}' has observation space {observations}, which gorila does not support: "
            "it needs a Box observation space (an array of numbers, as in CartPole-v1)"
        )
    if key is not None:
        _CHECKED[key] = True


def resolve_env(name, kwargs: dict | None = None) -> EnvSpec:
    """Canonical spec for a user's environment (a name, a `module:attr` reference or a callable) and
    the keyword arguments of its constructor; raises EnvError when there is none."""
    if isinstance(name, EnvSpec):
        return name
    kwargs = dict(kwargs or {})
    if callable(name):
        return _gym_spec(EnvSpec(kind="gym", id=reference_of(name), factory=name, kwargs=kwargs))
    if not isinstance(name, str) or not name.strip():
        raise EnvError(f"environment name must be a non-empty string, got {name!r}")
    name = name.strip()
    try:
        spec = _resolve_name(name)
    except PluginError as error:
        raise EnvError(str(error)) from None
    if kwargs and spec.kind == "atari":
        raise EnvError(
            f"env_kwargs: {spec.id} is played by gorila's own Atari environment, which takes its "
            "settings as config fields (sticky_actions, full_action_set, ...), not env_kwargs"
        )
    spec = EnvSpec(spec.kind, spec.id, spec.game, spec.factory, kwargs)
    return _gym_spec(spec) if spec.kind == "gym" else spec  # MinAtar's kwargs are checked by its vector env


def _resolve_name(name: str) -> EnvSpec:
    """The spec a name spells, before env_kwargs: MinAtar, Atari, a registered Gymnasium id, a
    `module:Env-v0` or a `module:factory`."""
    if name.lower().startswith(MINATAR_PREFIX.lower()):
        return _resolve_minatar(name)
    gym_id = None if name.startswith("ALE/") else _gym_id(name)
    if is_reference(name):
        if gym_id is not None:
            return EnvSpec(kind="gym", id=gym_id)
        if re.search(r"-v\d+$", name):
            raise EnvError(
                f"env: importing {name.partition(':')[0]!r} registered no Gymnasium env {name.partition(':')[2]!r}"
            )
        return EnvSpec(kind="gym", id=name, factory=resolve_callable(name, "env"))
    if gym_id is not None and re.search(r"-v\d+$", name):
        return EnvSpec(kind="gym", id=gym_id)  # an exact Gymnasium id wins over a ROM of the same name
    spec = _resolve_atari(name)
    if spec is not None:
        return spec
    if gym_id is not None:
        return EnvSpec(kind="gym", id=gym_id)
    raise EnvError(
        f"unknown environment '{name}': not an Atari game (e.g. Pong, Breakout) "
        f"nor a registered Gymnasium id ({_GYM_EXAMPLE}), nor a package.module:Env-v0"
    )


def frames_per_agent_step(name: str) -> int:
    """Emulator frames per agent step of environment `name`: the action repeat on Atari, 1 elsewhere
    (and for a name that is no environment, which preflight reports on its own)."""
    try:
        return FRAMESKIP if resolve_env(name).kind == "atari" else 1
    except EnvError:
        return 1


def _gym_spec(spec: EnvSpec) -> EnvSpec:
    """A Gymnasium env's spec, once its spaces are known to be ones gorila supports."""
    _check_spaces(spec)
    return spec


MINATAR_PREFIX = "MinAtar/"
MINATAR_GAMES = ("asterix", "breakout", "freeway", "seaquest", "space_invaders")
MINATAR_VERSIONS = {"0": "MinAtar's 6 actions, as in its paper", "1": "the game's minimal action set"}


def register_minatar() -> None:
    """Register MinAtar's Gymnasium ids in this process (the package does not on import, and Gymnasium
    1.x no longer loads entry-point plugins). Only a plain Gymnasium env needs them: gorila plays the
    games without MinAtar's wrappers, whose import loads seaborn, pandas and scipy."""
    import gymnasium

    require_minatar()
    if f"{MINATAR_PREFIX}Breakout-v1" not in gymnasium.registry:
        from minatar.gym import register_envs

        register_envs()


def require_minatar() -> None:
    """EnvError with the install line when the minatar package is missing (checked without importing it)."""
    import importlib.util

    if importlib.util.find_spec("minatar") is None:
        raise EnvError("MinAtar environments need the minatar package: pip install 'gorila[minatar]'")


def _resolve_minatar(name: str) -> EnvSpec:
    """Spec of 'MinAtar/Breakout-v1' (any case; the newest version when none is given)."""
    require_minatar()
    game, _, version = name[len(MINATAR_PREFIX) :].partition("-v")
    candidates = [
        key
        for key in _minatar_ids()
        if _squash(key[len(MINATAR_PREFIX) :].rsplit("-v", 1)[0]) == _squash(game)
        and version in ("", key.rsplit("-v", 1)[1])
    ]
    if not candidates:
        raise EnvError(f"unknown environment '{name}': MinAtar has {', '.join(_minatar_ids())}")
    env_id = max(candidates, key=lambda key: int(key.rsplit("-v", 1)[1]))
    game = next(game for game in MINATAR_GAMES if _squash(game) == _squash(env_id[len(MINATAR_PREFIX) : -3]))
    return EnvSpec(kind="minatar", id=env_id, game=game)


def _minatar_ids() -> list[str]:
    """MinAtar's Gymnasium ids, as `minatar.gym.register_envs` names them: v0 and v1 of each game."""
    return [
        f"{MINATAR_PREFIX}{game.title().replace('_', '')}-v{version}"
        for game in MINATAR_GAMES
        for version in MINATAR_VERSIONS
    ]
