"""What every bench section shares: the Atari setting, how a rate is measured, small-built parts, and
the contract of a part measured inside its own Ray process (`Timed`)."""

from __future__ import annotations

import time
from typing import Callable, Protocol

import numpy as np
import torch

from gorila.agent.networks import q_network_for
from gorila.components.replay.routing import ReplayWriter, Route
from gorila.config import Config, build_config
from gorila.envs import make_vector_env_for
from gorila.messages import EnvInfo, env_info
from gorila.placement import PARAMETER_SHARD, Role
from gorila.runtime.calls import DirectCalls
from gorila.system.builders import initial_parameters, make_actor, make_replay, make_shard, make_shard_of
from gorila.system.planning import plan_run, replay_plan

GAME = "Breakout"


class Timed(Protocol):
    """A part measured where it runs, in its own Ray process (`MeasuredLearner`, `MeasuredActor`)."""

    def rate(self, seconds: float) -> float:
        """Units per second of the part's work over `seconds`, after a warm-up."""


LEARNER_RATE = Role("learner_rate", Timed, learns=True)  # placed as a learner is: its CPUs and GPU
ACTOR_RATE = Role("actor_rate", Timed)  # placed as an actor is


def atari(**overrides) -> tuple[Config, EnvInfo]:
    """The atari preset on Breakout, sized to fill and learn within seconds."""
    settings = dict(
        env=GAME, runtime="local", replay_capacity=20_000, learning_starts=1_000, total_frames=10**9, torch_threads=1
    )
    config = build_config("atari", overrides={**settings, **overrides})
    with make_vector_env_for(config, 1, 0) as probe:
        return config, env_info(probe)


def rate(work: Callable[[], int], seconds: float, warmup: float = 1.0) -> float:
    """Units per second of `work()` (which returns the units it did), after a warm-up."""
    deadline = time.perf_counter() + warmup
    while time.perf_counter() < deadline:
        work()
    start, done = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        done += work()
    return done / (time.perf_counter() - start)


def single_shard(config: Config, info: EnvInfo):
    """One in-process shard holding all of theta_0, and its bounds."""
    theta = initial_parameters(config, info)
    return [make_shard(config, plan_run(config, info), 0, theta)], [(0, theta.size)]


def actor_with_replay(config: Config, info: EnvInfo, index: int, shards: list, bounds, calls):
    """Actor `index` writing directly to a replay of its own that never samples; both."""
    never = replay_plan(config, info, config.replay_capacity, config.envs_per_actor, 10**9)
    replay = make_replay(config, info, never, index)
    streams = tuple(range(config.envs_per_actor))
    writer = ReplayWriter([replay], [Route(0, streams, streams)], DirectCalls())
    return make_actor(config, plan_run(config, info), index, shards, bounds, calls, writer), replay


def local_actor(config: Config, info: EnvInfo):
    """Actor 0 and its replay, with one shard, every call direct."""
    shards, bounds = single_shard(config, info)
    return actor_with_replay(config, info, 0, shards, bounds, DirectCalls())


def ray_shards(runtime, config: Config, info: EnvInfo, bounds) -> list:
    """Parameter shards placed on `runtime` (a `RayRuntime`), one per slice of `bounds`."""
    plan = plan_run(config, info)
    return [
        runtime.place(PARAMETER_SHARD, make_shard_of, config, plan, i, start, stop)
        for i, (start, stop) in enumerate(bounds)
    ]


def filled_replay(config: Config, info: EnvInfo, entries: int = 5_000):
    """A one-stream replay holding `entries` random Atari transitions, sampleable at once."""
    replay = make_replay(config, info, replay_plan(config, info, config.replay_capacity, 1, 1), 0)
    rng = np.random.default_rng(0)
    frames = rng.integers(0, 256, (64, 1) + info.frame_shape, dtype=np.uint8)
    for start in range(0, entries, 64):
        replay.add_steps(
            [0],
            frames,
            rng.integers(0, info.num_actions, (64, 1)),
            rng.normal(size=(64, 1)),
            np.zeros((64, 1), bool),
            np.zeros((64, 1), bool),
        )
    return replay


def bare_train_step(config: Config, info: EnvInfo, device: str, channels_last: bool = True) -> Callable[[], int]:
    """A plain PyTorch DQN update on one fixed batch: what a learner step costs without Gorila. Image
    batches are laid out channels last, as Gorila's replay hands them over (the fastest layout on a
    CPU), unless `channels_last` is False: the [B, k, H, W] arrays a DQN written the usual way stacks."""
    torch.manual_seed(0)
    online = q_network_for(config, info).to(device)
    target = q_network_for(config, info).to(device).requires_grad_(False)
    optimizer = torch.optim.RMSprop(online.parameters(), lr=config.learning_rate, alpha=0.95, eps=0.01, centered=True)
    batch = config.batch_size
    obs = torch.randint(0, 256, (batch,) + info.obs_shape, dtype=torch.uint8, device=device)
    next_obs = torch.randint(0, 256, (batch,) + info.obs_shape, dtype=torch.uint8, device=device)
    if channels_last and obs.dim() == 4:
        obs, next_obs = (x.contiguous(memory_format=torch.channels_last) for x in (obs, next_obs))
    actions = torch.randint(0, info.num_actions, (batch,), device=device)
    rewards = torch.zeros(batch, device=device)

    def step() -> int:
        with torch.no_grad():
            y = rewards + 0.99 * target(next_obs).max(1).values
        q = online(obs).gather(1, actions[:, None]).squeeze(1)
        loss = torch.nn.functional.huber_loss(q, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss.item()  # wait for the device, as the learner does
        return 1

    return step
