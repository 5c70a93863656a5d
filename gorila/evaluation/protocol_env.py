"""Episodes played as an evaluation protocol of `gorila.evaluation.protocols` says, on `AtariGame`s.

A network trained on a game's minimal action set (gorila's default, DQN's) acts in the full set through
its minimal actions' ALE ids: its choice i becomes ALE action `minimal_actions[i]`, so it never picks
one of the other actions, and epsilon's random actions are drawn from its own actions as well. A
network trained on the full set (`full_action_set`, Machado et al. 2018) has 18 outputs, each the ALE
action of its index, as in training.
"""

from __future__ import annotations

import numpy as np

from gorila.envs import atari_constants as atari
from gorila.envs.ale_single import AtariGame
from gorila.envs.registry import EnvError, EnvSpec
from gorila.envs.vector import Step, VectorEnv
from gorila.evaluation.protocols import EvaluationProtocol


def action_ids(game: AtariGame, num_actions: int) -> list[int]:
    """ALE action id of each of the network's `num_actions` outputs (see the module docstring)."""
    if num_actions == len(game.minimal_actions):
        return list(game.minimal_actions)
    if num_actions == atari.FULL_ACTIONS:
        return list(range(atari.FULL_ACTIONS))
    raise EnvError(
        f"a network with {num_actions} actions does not fit {game.spec.id}: it has "
        f"{len(game.minimal_actions)} actions (minimal set) and {atari.FULL_ACTIONS} (full set)"
    )


class ProtocolEnv(VectorEnv):
    """K `AtariGame`s behind the `VectorEnv` contract, each episode begun as the protocol says.

    Episode e of a round (seeded with `reset(seed)`) is played by copy e mod K from emulator seed
    seed + e, or, under human starts, from start point `start_of(e)` replayed from its own seed: a
    round of `episodes` <= len(starts) episodes takes start points spread evenly over the file
    (which lists them in order of play), a longer one goes round them. The reward of the start's own
    frames is never returned. `actions` are the network's; `self.action_ids` turns them into ALE
    actions.
    """

    def __init__(
        self,
        spec: EnvSpec,
        num_envs: int,
        protocol: EvaluationProtocol,
        num_actions: int,
        max_frames: int | None = None,
        starts: list | None = None,
        episodes: int | None = None,
    ):
        if protocol.start_points and not starts:
            raise EnvError("the human-starts protocol needs start points (--starts FILE)")
        self.spec, self.num_envs, self.protocol, self.starts = spec, num_envs, protocol, starts
        self.planned = episodes
        self.max_frames = int(max_frames or protocol.max_frames)
        self._games = [AtariGame(spec, protocol.sticky_actions, self.max_frames) for _ in range(num_envs)]
        self.action_ids = np.array(action_ids(self._games[0], num_actions))
        self.num_actions, self.frames_per_step = num_actions, atari.FRAMESKIP
        self._set_shapes((atari.STACK, atari.FRAME_SIZE, atari.FRAME_SIZE), np.uint8, atari.STACK)
        self._episode = None

    def reset(self, seed: int | None = None) -> np.ndarray:
        self._base = int(self.seed if seed is None else seed)
        self._episode = np.arange(self.num_envs)
        self._ended = np.zeros(self.num_envs, bool)
        return np.stack([self._begin(slot) for slot in range(self.num_envs)])

    def step(self, actions: np.ndarray) -> Step:
        if self._episode is None:
            raise RuntimeError("call reset() before step()")
        ale_actions = self.action_ids[self._actions(actions)]
        obs = np.empty((self.num_envs, *self.obs_shape), np.uint8)
        reward = np.zeros(self.num_envs, np.float32)
        over = np.zeros(self.num_envs, bool)
        for slot, game in enumerate(self._games):
            if self._ended[slot]:
                self._episode[slot] += self.num_envs
                obs[slot] = self._begin(slot)
            else:
                obs[slot], reward[slot], over[slot] = game.step(ale_actions[slot])
        truncated = np.array([game.truncated for game in self._games])
        ended = (over | truncated) & ~self._ended
        self._ended = ended
        return Step(obs, reward, over, ended.copy())

    def _begin(self, slot: int) -> np.ndarray:
        """Start episode `self._episode[slot]` in copy `slot`; its first observation."""
        game, episode = self._games[slot], int(self._episode[slot])
        if self.starts:
            return self.starts[self.start_of(episode)].play(game)
        return game.reset(self._base + episode, fire=False, noops=0)

    def start_of(self, episode: int) -> int:
        """Index of the start point episode `episode` begins at."""
        count = len(self.starts)
        if self.planned and self.planned <= count and episode < self.planned:
            return episode * count // self.planned
        return episode % count

    def episode_seeds(self, seed: int, episodes: int) -> list[dict]:
        """Seed (and start point) of each episode of a round, in `play_episodes`' order (copy by
        copy)."""
        order = [
            slot + k * self.num_envs
            for slot in range(self.num_envs)
            for k in range(episodes)
            if slot + k * self.num_envs < episodes
        ]
        if self.starts:
            points = [(self.start_of(e), self.starts[self.start_of(e)]) for e in order]
            return [{"start_point": i, "seed": point.seed, "start_frames": point.frames} for i, point in points]
        return [{"seed": seed + e} for e in order]

    def close(self) -> None:
        for game in self._games:
            game.close()
