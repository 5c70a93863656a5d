"""A bundle (the paper's experiments): one actor, its local replay and one learner, in one place.

Bundles share nothing but the parameter server. Inside a bundle the learner makes one update every
`update_every` agent steps, DQN's ratio, once the local replay holds `learning_starts` frames.
"""
from __future__ import annotations

from gorila.actor import Actor
from gorila.config import Config, effective_learning_starts
from gorila.core import EnvInfo
from gorila.learner import Learner
from gorila.parameter_server.client import ParameterClient
from gorila.replay import ReplayMemory
from gorila.replay.routing import ReplayWriter, Route
from gorila.runtime.calls import DirectCalls


def replay_args(config: Config, info: EnvInfo, capacity: int, num_streams: int, seed: int,
                min_frames: int) -> tuple:
    """ReplayMemory arguments of a local replay or global shard for this environment.

    Sampling starts once `min_frames` frames are held (and never before one minibatch is there).
    """
    min_size = max(config.batch_size, min_frames // info.frames_per_step)
    return (capacity, num_streams, info.frame_shape, info.obs_dtype, info.stack, config.n_step,
            config.gamma, seed, min_size)


class Bundle:
    """Actor + LocalReplay + Learner, stepped in lockstep in one process."""

    def __init__(self, config: Config, info: EnvInfo, index: int, shards: list, bounds, calls):
        num_envs = config.envs_per_actor
        self.replay = ReplayMemory(*replay_args(config, info, config.replay_capacity, num_envs,
                                                config.seed + index, effective_learning_starts(config)))
        streams = tuple(range(num_envs))
        writer = ReplayWriter([self.replay], [Route(0, streams, streams)], DirectCalls())
        client = lambda: ParameterClient(shards, bounds, calls, config.max_inflight_pushes)
        self.actor = Actor(config, info, index, client(), writer)
        self.learner = Learner(config, info, index, client(), self.replay)
        self.update_every = config.update_every
        self.update_credit = 0

    def run(self, budget: int) -> dict:
        """`budget` agent steps, with one learner update every `update_every` of them."""
        steps = updates = 0
        while steps < budget:
            self.actor.step()
            steps += self.actor.env.num_envs
            self.update_credit += self.actor.env.num_envs
            while self.update_credit >= self.update_every:
                self.update_credit -= self.update_every
                updates += self.learner.update()
        self.learner.send(refresh=False)
        self.learner.params.drain()
        report = self.actor.report(steps)
        report.update(self.learner.report(updates))
        report["replay_size"] = len(self.replay)
        return report

    def close(self) -> None:
        self.actor.close()
