"""Helpers the tests share, importable as `tests.helpers`.

`fresh_checkpoint`: an untrained agent's checkpoint, written in a second: what evaluation tests need from a run.
`store_final_evaluation`: a suite game's final evaluation result file, as `gorila evaluate` writes it.
`from_the_driver`: an event (a kill, say) made by a run's own driver loop as soon as it is due.
`CARTPOLE_INFO`, `ATARI_INFO`, `MINATAR_INFO`: the shapes of those environments, as the driver reads them.
`ray_cluster`: a Ray cluster of several nodes on this machine, joined by this process, for as long as a test needs it.
`steps_ahead_of_updates`: how far a run's actors ended ahead of DQN's ratio, and the most its scheduler allows.
`in_session`, `wait_for`: the live processes of a session (a driver started in one, with its Ray), and a
poll until a condition holds."""

import json
import os
import signal
import time
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Callable

import torch

from gorila.agent.networks import flat_parameters, q_network_for
from gorila.config import build_config
from gorila.envs import make_vector_env_for
from gorila.messages import EnvInfo, env_info
from gorila.records.checkpoints import save_checkpoint
from gorila.runtime.session_guard import processes

CARTPOLE_INFO = EnvInfo((4,), "float32", 2, (4,), 1, 1, False)
ATARI_INFO = EnvInfo((4, 84, 84), "uint8", 6, (84, 84), 4, 4, True)  # 6 actions: Pong's minimal set
MINATAR_INFO = EnvInfo((4, 10, 10), "bool", 3, (4, 10, 10), 1, 1, False)


def fresh_checkpoint(run_dir: Path, env: str = "Pong", preset: str = "atari", seed: int = 0) -> Path:
    """A run directory holding one checkpoint of a freshly initialised Q-network for `env`."""
    config = build_config(preset, overrides={"env": env, "seed": seed})
    with make_vector_env_for(config, 1, config.seed) as vector_env:
        info = env_info(vector_env)
    torch.manual_seed(seed)
    theta = flat_parameters(q_network_for(config, info))
    payload = {"config": config.to_dict(), "env_info": asdict(info), "theta": torch.as_tensor(theta)}
    save_checkpoint(run_dir, payload, 0)
    return run_dir


def store_final_evaluation(plan, game: str, protocol: str, score: float, starts: str = "human") -> None:
    """The result file of `game` under `protocol` in suite `plan`: its mean score, normalised, and under
    human starts who played to its start points (`starts`)."""
    from gorila.evaluation.scores import normalised_scores

    plan.game_dir(game).mkdir(parents=True, exist_ok=True)
    result = {
        "return_mean": score,
        "episodes": 30,
        "env_frames": 20_000,
        "normalised": normalised_scores(game, score, protocol),
    }
    if protocol == "human-starts":
        result["start_points_source"] = starts
    plan.result_file(game, protocol).write_text(json.dumps(result))


def from_the_driver(trainer, due: Callable[[], bool], event: Callable[[], object]) -> list:
    """Have `trainer`'s driver loop run `event()` once, just before its periodic jobs, on the first
    turn of the loop at which `due()` holds; the list returned then holds what `event` returned.
    Made by the loop, the event cannot be missed: a thread polling for the moment could see the run
    end first (and the driver cannot end the run between the moment and the event)."""
    made, periodic = [], trainer.periodic

    def event_then_periodic() -> None:
        if not made and due():
            made.append(event())
        periodic()

    trainer.periodic = event_then_periodic
    return made


KILL_EVERY_FRAMES = 2_000  # frames between the kills of `kill_in_turn`


def kill_in_turn(trainer, victims: list, every: int = KILL_EVERY_FRAMES) -> list:
    """Have the driver kill -9 each victim's process (a `WorkerId`, or "shard 0") once the run has
    collected another `every` frames; the list of the victims killed (filled as the run goes)."""
    killed = []

    def kill(victim) -> None:
        handle = trainer.system.shards[0] if victim == "shard 0" else trainer.system.workers[victim]
        os.kill(trainer.runtime.processes([handle])[0][1], signal.SIGKILL)
        killed.append(str(victim))

    for number, victim in enumerate(victims, start=1):
        due = lambda number=number: len(killed) == number - 1 and trainer.info.frames(trainer.steps) >= number * every
        from_the_driver(trainer, due, lambda victim=victim: kill(victim))
    return killed


def steps_ahead_of_updates(trainer, result: dict) -> tuple[int, int]:
    """How many agent steps a finished run's actors ended ahead of its updates (times update_every), and
    the most its scheduler allows whatever the processes' speeds: an actor is given a chunk only while
    the steps collected and in flight are at most `Scheduler.slack()` ahead of the updates the learners
    were asked, and a learner does every update it is asked once its replay is warm (by the run's last
    chunk: a learner that finds no minibatch at the end is reported as a slack of -1). A report may pass
    its chunk by envs_per_actor - 1 steps."""
    scheduler, config = trainer.scheduler, trainer.config
    steps, chunk = scheduler.counters.steps, scheduler.chunk_steps
    ahead = steps - result["updates"] * config.update_every
    if scheduler.counters.starved:
        return ahead, -1
    return ahead, scheduler.slack() + chunk + -(-steps // chunk) * (config.envs_per_actor - 1)


def in_session(session: int) -> list[int]:
    """The live processes (zombies are dead) of the session whose leader was `session`."""
    found = []
    for pid in processes():
        try:
            with open(f"/proc/{pid}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session and fields[0] != "Z":
            found.append(pid)
    return found


def slowdown() -> float:
    """How many times longer than on an idle machine things take now: GORILA_TEST_SLOWDOWN where set,
    else the runnable processes per core over the last minute (at least 1). A window a test waits for
    something in is its idle-machine length times this, so that a loaded machine fails no test by time."""
    given = os.environ.get("GORILA_TEST_SLOWDOWN")
    if given:
        return max(1.0, float(given))
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def wait_for(condition, timeout: float, poll: float = 0.2) -> bool:
    """Whether `condition()` came true within `timeout` seconds of an idle machine (times `slowdown()`)."""
    deadline = time.monotonic() + timeout * slowdown()
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(poll)
    return True


@contextmanager
def ray_cluster(nodes: int):
    """A Ray cluster of `nodes` nodes (raylets on this machine: `ray.cluster_utils.Cluster`), one CPU
    each, the first its head, joined by this process; shut down on leaving."""
    import ray
    from ray.cluster_utils import Cluster

    from gorila.runtime.ray.cluster import cluster_head_args

    cluster = Cluster(
        initialize_head=True,
        head_node_args=cluster_head_args(),
    )
    for _ in range(nodes - 1):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    try:
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()
