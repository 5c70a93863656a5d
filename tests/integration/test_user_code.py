"""Your own environment and your own network, defined right here, train on both runtimes: named on the
command line (`--env tests.integration.test_user_code:Signpost-v0 --network ...:small_q_network`) and
given from Python as the objects themselves, from a thread other than the main one. The checkpoints
load back with `gorila.load_q_network`, which acts as the trained agent does."""

import subprocess
import sys
import threading
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import torch

import gorila
from tests.helpers import slowdown

ROOT = Path(__file__).resolve().parents[2]
MODULE = __name__  # tests.integration.test_user_code: what Ray's workers import


class Signpost(gymnasium.Env):
    """A corridor of `length` cells; the agent starts in the middle and a sign, shown in every
    observation, says which end pays +1 (the other pays -1). A policy that ignores the sign scores 0 on
    average; one that reads it scores about +1. Each step costs 0.01; episodes end at either end, or
    after 30 steps."""

    def __init__(self, length: int = 5):
        self.length = length
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (length + 2,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(2)  # 0: left, 1: right

    def _obs(self) -> np.ndarray:
        obs = np.zeros(self.length + 2, np.float32)
        obs[self.position] = 1.0
        obs[self.length + self.goal] = 1.0
        return obs

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.position, self.goal, self.steps = self.length // 2, int(self.np_random.integers(2)), 0
        return self._obs(), {}

    def step(self, action):
        self.position += 1 if action == 1 else -1
        self.steps += 1
        at_end = self.position in (0, self.length - 1)
        reward = -0.01
        if at_end:
            reward += 1.0 if (self.position == self.length - 1) == (self.goal == 1) else -1.0
        return self._obs(), reward, at_end, self.steps >= 30, {}


if "Signpost-v0" not in gymnasium.registry:
    gymnasium.register("Signpost-v0", entry_point=Signpost)


def make_signpost(length: int = 5) -> gymnasium.Env:
    """The environment as a factory with its wrappers, as a user would hand it to gorila."""
    return gymnasium.wrappers.TimeLimit(Signpost(length), 30)


def small_q_network(obs_shape, num_actions) -> torch.nn.Module:
    """A user's own Q-network: one hidden layer of 32."""
    return torch.nn.Sequential(
        torch.nn.Linear(int(np.prod(obs_shape)), 32), torch.nn.ReLU(), torch.nn.Linear(32, num_actions)
    )


SOLVED = 0.8
TRAINING = {
    "total_frames": 12_000,
    "learning_starts": 500,
    "epsilon_decay_steps": 3_000,
    "epsilon_end": 0.05,
    "eval_every_frames": 1_000,
    "stop_at_return": SOLVED,
    "confirm_episodes": 20,
    "target_update_every": 100,
}


def flags(fields: dict) -> list[str]:
    return [item for key, value in fields.items() for item in (f"--{key.replace('_', '-')}", str(value))]


@pytest.mark.parametrize("runtime", ["local", "ray"])
def test_a_users_env_and_network_named_on_the_command_line_train(runtime, tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "gorila",
            "train",
            "--preset",
            "cartpole",
            "--runtime",
            runtime,
            "--env",
            f"{MODULE}:Signpost-v0",
            "--env-kwargs",
            "length=7",
            "--network",
            f"{MODULE}:small_q_network",
            *flags(TRAINING),
            "--run-dir",
            str(tmp_path / "run"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600 * slowdown(),
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "solved: eval mean >= 0.8" in run.stdout, run.stdout[-2000:]
    saved = (tmp_path / "run" / "config.yaml").read_text()
    assert f"env: {MODULE}:Signpost-v0" in saved and "length: 7" in saved
    q_network = gorila.load_q_network(tmp_path / "run")
    assert isinstance(q_network.network, torch.nn.Sequential) and q_network.obs_shape == (9,)
    assert reads_the_sign(q_network, 7)


@pytest.mark.parametrize("runtime", ["local", "ray"])
def test_a_users_env_factory_and_network_given_from_python_train_from_a_thread(runtime, tmp_path):
    config = gorila.make_config(
        "cartpole", runtime=runtime, env=make_signpost, env_kwargs={"length": 5}, network=small_q_network, **TRAINING
    )
    results = {}

    def train():
        try:
            results["train"] = gorila.train(config, tmp_path / "run")
        except BaseException as error:  # raised again below, in the test
            results["error"] = error

    worker = threading.Thread(target=train, daemon=True)  # one that never returns cannot keep pytest from exiting
    worker.start()
    worker.join(timeout=600 * slowdown())
    assert not worker.is_alive(), "gorila.train did not return within 600 s (its thread is left running, a daemon)"
    if "error" in results:
        raise results["error"]
    result = results["train"]
    assert result.solved_at_frames is not None and result.best_eval_return >= SOLVED
    assert result.best_checkpoint == tmp_path / "run" / "checkpoints" / "best.pt"
    assert f"env: {MODULE}:make_signpost" in (tmp_path / "run" / "config.yaml").read_text()
    evaluation = gorila.evaluate(result.run_dir, episodes=50)
    assert evaluation.episodes == 50 and evaluation.return_mean >= SOLVED
    assert reads_the_sign(gorila.load_q_network(result.run_dir), 5)


def reads_the_sign(q_network, length: int) -> bool:
    """The greedy action in the middle of the corridor goes the way the sign points."""
    middle = np.zeros((2, length + 2), np.float32)
    middle[:, length // 2] = 1.0
    middle[0, length], middle[1, length + 1] = 1.0, 1.0  # the sign: left, then right
    return list(q_network.act(middle)) == [0, 1]
