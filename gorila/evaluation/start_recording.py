"""`gorila record-starts`: start points for the human-starts protocol, from play the user names.

Sources, in order of preference: trajectory files (`--trajectory`, see `start_points.load_trajectory`),
a person at the keyboard (`--human`, Gymnasium's play utility; needs a display), a trained agent
(`--checkpoint`, epsilon 0.05), else uniformly random actions. The file says which it was; trajectory
files that all say they are human play (`"played_by": "human"`) make human start points.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from gorila.envs import resolve_env
from gorila.envs.ale_single import AtariGame
from gorila.envs.atari_constants import FRAMESKIP
from gorila.evaluation.protocols import DQN_EVAL_EPSILON, PROTOCOLS
from gorila.evaluation.start_points import (
    HUMAN_PLAY,
    StartPointError,
    Trajectory,
    load_trajectory,
    sample_start_points,
    save_start_points,
)

# a start point leaves at least half of human starts' 108,000 frames to play
RECORD_MAX_FRAMES = PROTOCOLS["human-starts"].max_frames // 2


def play_trajectory(game: AtariGame, policy: Callable[[np.ndarray], int], seed: int) -> Trajectory:
    """One game from a reset with emulator seed `seed`, played by `policy` (observation -> ALE action)
    until it ends or reaches the recording cap."""
    obs, actions = game.reset(seed), []
    while True:
        action = int(policy(obs))
        obs, _, over = game.step(action)
        actions.append(action)
        if over or game.truncated:
            return Trajectory(seed, tuple(actions))


def random_policy(game: AtariGame, seed: int) -> Callable[[np.ndarray], int]:
    rng = np.random.default_rng(seed)
    return lambda obs: game.minimal_actions[rng.integers(len(game.minimal_actions))]


def checkpoint_policy(game: AtariGame, path: str, seed: int) -> tuple[Callable[[np.ndarray], int], str]:
    """Epsilon-greedy (0.05) play of a checkpoint's theta+, and the checkpoint file."""
    from gorila.agent.policy import EpsilonGreedyPolicy
    from gorila.evaluation.protocol_env import action_ids
    from gorila.evaluation.saved_agent import load_saved_agent

    agent = load_saved_agent(path)
    trained_on = resolve_env(agent.config.env)
    if trained_on != game.spec:
        raise StartPointError(f"{agent.file} was trained on {trained_on.id}, not on {game.spec.id}")
    ids = action_ids(game, agent.info.num_actions)
    acting = EpsilonGreedyPolicy(agent.network, agent.info.num_actions, np.random.default_rng(seed))

    def policy(obs: np.ndarray) -> int:
        return ids[int(acting.act(obs[None], DQN_EVAL_EPSILON)[0])]

    return policy, str(agent.file)


def gymnasium_game(game: AtariGame):
    """Gymnasium's env of the same game, stepped as `AtariGame` replays: 4 frames an action, no sticky
    actions, all 18 actions (index i is ALE action i)."""
    import gymnasium

    return gymnasium.make(
        game.spec.id,
        render_mode="rgb_array",
        frameskip=FRAMESKIP,
        repeat_action_probability=0.0,
        full_action_space=True,
    )


def human_trajectory(game: AtariGame, seed: int) -> Trajectory:
    """One game played by a person with the keyboard (Gymnasium's play utility), up to its first end."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        raise StartPointError(
            "--human needs a display to play on (DISPLAY is not set); record a trajectory "
            "where there is one, or pass --trajectory FILE"
        )
    try:
        import gymnasium
        from gymnasium.utils.play import play
    except (ImportError, gymnasium.error.DependencyNotInstalled) as error:
        raise StartPointError(f"--human needs pygame ({error}); pip install pygame") from None
    env = gymnasium_game(game)
    actions, state = [], {"ended": False, "seed": None}
    ale_ids = [action.value for action in env.unwrapped.ale.getLegalActionSet()]  # the full set, in order

    def record(obs, next_obs, action, reward, terminated, truncated, info):
        if state["seed"] is None:
            state["seed"] = env.unwrapped.ale.getInt("random_seed")
        if not state["ended"]:
            actions.append(ale_ids[int(action)])
            state["ended"] = terminated or truncated

    print("play with the keyboard; close the window (or Escape) to finish")
    play(env, keys_to_action=env.unwrapped.get_keys_to_action(), seed=seed, callback=record, noop=0)
    env.close()
    if not actions:
        raise StartPointError("no actions were played: no start point to take")
    return Trajectory(int(state["seed"]), tuple(actions))


def record_starts(
    game_name: str,
    out: str,
    count: int,
    trajectories: list[str] | None = None,
    human: bool = False,
    checkpoint: str | None = None,
    seed: int = 0,
    games: int = 1,
    say: Callable[[str], None] = print,
) -> dict:
    """Record `count` start points of `game_name` into `out`; what was written."""
    if count < 1 or games < 1:
        raise StartPointError("--count and --games must be >= 1")
    game = AtariGame(game_name, max_frames=RECORD_MAX_FRAMES)
    recorded_from = ""
    if trajectories:
        played = [load_trajectory(path, game_name) for path in trajectories]
        source = HUMAN_PLAY if all(t.played_by == HUMAN_PLAY for t in played) else "trajectory"
        recorded_from = ", ".join(trajectories)
    elif human:
        source, played = HUMAN_PLAY, [human_trajectory(game, seed)]
    else:
        source = "checkpoint" if checkpoint else "random"
        played = []
        if checkpoint:
            policy, recorded_from = checkpoint_policy(game, checkpoint, seed)
        for index in range(games):
            if not checkpoint:
                policy = random_policy(game, seed + index)
            played.append(play_trajectory(game, policy, seed + index))
            say(f"played game {index + 1}/{games}: {len(played[-1].actions):,} agent steps")
    points = sample_start_points(played, game, count, seed)
    save_start_points(out, game_name, points, source, recorded_from)
    return {
        "game": game.spec.game,
        "source": source,
        "count": len(points),
        "out": out,
        "frames": [point.frames for point in points],
    }
