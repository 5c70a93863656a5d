"""Unit tests for gorila.envs: names, batched stepping conventions, episode playing."""

import numpy as np
import pytest

from gorila.envs import (
    EnvError,
    EnvSpec,
    make_vector_env,
    play_episodes,
    resolve_env,
)

# ale-py's reset tripwire in vector.py warns when episode_end and a real reset disagree.
pytestmark = pytest.mark.filterwarnings("error:.*episode_end:UserWarning")


@pytest.mark.parametrize("name", ["Pong", "pong", "PONG", "ALE/Pong-v5", "PongNoFrameskip-v4", " Pong "])
def test_pong_spellings(name):
    assert resolve_env(name) == EnvSpec(kind="atari", id="ALE/Pong-v5", game="pong")


@pytest.mark.parametrize("name", ["SpaceInvaders", "space_invaders", "space-invaders"])
def test_space_invaders_spellings(name):
    assert resolve_env(name) == EnvSpec("atari", "ALE/SpaceInvaders-v5", "space_invaders")


@pytest.mark.parametrize("name", ["CartPole-v1", "CartPole", "Acrobot-v1", "MountainCar-v0"])
def test_gym_ids(name):
    spec = resolve_env(name)
    assert spec.kind == "gym" and spec.game is None and spec.id.startswith(name)


def test_gym_id_beats_rom_of_same_name():
    # Gymnasium's card game, not the Atari ROM, and its tuple observations are refused by name
    with pytest.raises(EnvError, match=r"^env: 'Blackjack-v1' has observation space Tuple\("):
        resolve_env("Blackjack-v1")
    assert resolve_env("ALE/Blackjack-v5").kind == "atari"


@pytest.mark.parametrize("name", ["NoSuchGame-v9", "ALE/NoSuch-v5", "CartPole-v99", "Pong-extra"])
def test_unknown_raises_with_name(name):
    with pytest.raises(EnvError, match="unknown environment") as info:
        resolve_env(name)
    message = str(info.value)
    assert name in message and "\n" not in message


def test_continuous_actions_rejected():
    with pytest.raises(EnvError, match="Pendulum-v1.*Discrete"):
        resolve_env("Pendulum-v1")


@pytest.mark.parametrize("game", ["Breakout", "Pong"])
def test_atari_obs(game):
    env = make_vector_env(game, 2, seed=0, num_threads=1)
    try:
        obs = env.reset()
        assert obs.dtype == np.uint8 and obs.shape == (2, 4, 84, 84)
        assert (env.obs_shape, env.frame_shape, env.stack) == ((4, 84, 84), (84, 84), 4)
        assert env.obs_dtype == np.uint8 and env.num_actions >= 3
        step = env.step(np.zeros(2, np.int64))
        assert step.obs.shape == (2, 4, 84, 84) and step.obs.dtype == np.uint8
        assert step.reward.dtype == np.float32 and step.reward.shape == (2,)
        assert step.terminal.dtype == bool and step.episode_end.dtype == bool
    finally:
        env.close()


def _random_until(env, predicate, max_steps, seed=0):
    """Random play until predicate(step) holds; returns the steps seen (bounded)."""
    rng = np.random.default_rng(seed)
    env.reset()
    seen = []
    for _ in range(max_steps):
        seen.append(env.step(rng.integers(0, env.num_actions, env.num_envs)))
        if predicate(seen[-1]):
            break
    return seen


def test_breakout_life_loss_is_terminal_not_episode_end():
    env = make_vector_env("Breakout", 1, seed=0, num_threads=1)
    try:
        steps = _random_until(env, lambda s: s.episode_end[0], max_steps=3000)
        life_losses = [s for s in steps if s.terminal[0] and not s.episode_end[0]]
        assert steps[-1].episode_end[0], "no game over within 3000 random steps"
        assert len(life_losses) == 4  # Breakout: 5 lives, the 5th loss is the game over
        assert steps[-1].terminal[0]
        fresh = env.step(np.zeros(1, np.int64))
        assert fresh.reward[0] == 0 and not fresh.terminal[0] and not fresh.episode_end[0]
        assert (fresh.obs[0, :3] == 0).all()  # a new stack after the reset
    finally:
        env.close()


def test_breakout_evaluation_has_no_life_loss_terminals():
    env = make_vector_env("Breakout", 1, seed=0, evaluation=True, num_threads=1)
    try:
        steps = _random_until(env, lambda s: s.episode_end[0], max_steps=3000)
        assert steps[-1].episode_end[0] and steps[-1].terminal[0]
        assert not any(s.terminal[0] for s in steps[:-1])
    finally:
        env.close()


def test_atari_frame_cap_truncates():
    env = make_vector_env("Pong", 2, seed=0, evaluation=True, max_episode_frames=40, num_threads=1)
    try:
        env.reset()
        ends = [env.step(np.zeros(2, np.int64)).episode_end for _ in range(11)]
        assert not np.any(ends[:9]) and np.all(ends[9]) and not np.any(ends[10])
    finally:
        env.close()


def test_life_loss_on_capped_step_ends_episode():
    """ale-py resets at the cap even when that step is a life loss (truncated is then False)."""

    def play(cap, max_steps):
        env = make_vector_env("Breakout", 1, seed=0, num_threads=1, max_episode_frames=cap)
        steps = _random_until(env, lambda s: s.terminal[0], max_steps)
        steps.append(env.step(np.zeros(1, np.int64)))
        env.close()
        return steps

    first_loss = len(play(None, 3000)) - 1
    steps = play(4 * first_loss, first_loss)
    assert steps[-2].terminal[0] and steps[-2].episode_end[0]
    assert (steps[-1].obs[0, :3] == 0).all()  # it really was reset


def test_cartpole_truncation_then_new_episode():
    env = make_vector_env("CartPole-v1", 2, seed=0, max_episode_frames=5)
    try:
        obs = env.reset()
        assert obs.dtype == np.float32 and obs.shape == (2, 4)
        assert (env.stack, env.frame_shape, env.num_actions) == (1, (4,), 2)
        for _ in range(4):
            step = env.step(np.array([0, 1]))
            assert not step.episode_end.any() and not step.terminal.any()
        last = env.step(np.array([0, 1]))
        assert last.episode_end.all() and not last.terminal.any()
        fresh = env.step(np.array([0, 1]))
        assert (fresh.reward == 0).all() and not fresh.episode_end.any() and not fresh.terminal.any()
        assert not np.allclose(fresh.obs, last.obs)
    finally:
        env.close()


def test_cartpole_seeding_reproducible():
    def trajectory(seed):
        env = make_vector_env("CartPole-v1", 2, seed=seed)
        obs = [env.reset()] + [env.step(np.array([1, 0])).obs for _ in range(30)]
        env.close()
        return np.stack(obs)

    assert np.array_equal(trajectory(3), trajectory(3))
    assert not np.array_equal(trajectory(3), trajectory(4))


def test_gym_copies_step_exactly_as_gymnasiums_sync_vector_env():
    """The plain loop (Acrobot has no batched implementation) keeps Gymnasium's next-step
    autoreset, seeding and float32 observations."""
    import gymnasium

    reference = gymnasium.vector.SyncVectorEnv(
        [lambda: gymnasium.make("Acrobot-v1", max_episode_steps=40)] * 3,
        autoreset_mode=gymnasium.vector.AutoresetMode.NEXT_STEP,
    )
    env = make_vector_env("Acrobot-v1", 3, seed=7, max_episode_frames=40)
    try:
        ref_obs, _ = reference.reset(seed=7)
        np.testing.assert_array_equal(env.reset(), ref_obs.astype(np.float32))
        actions = np.random.default_rng(0).integers(0, 2, (400, 3))
        ends = 0
        for action in actions:
            ref_obs, ref_reward, ref_terminated, ref_truncated, _ = reference.step(action)
            step = env.step(action)
            np.testing.assert_allclose(step.obs, ref_obs.astype(np.float32), rtol=1e-6)
            np.testing.assert_array_equal(step.reward, ref_reward)
            np.testing.assert_array_equal(step.terminal, ref_terminated)
            np.testing.assert_array_equal(step.episode_end, ref_terminated | ref_truncated)
            ends += int(step.episode_end.sum())
        assert ends >= 10  # many autoresets were compared
    finally:
        env.close()
        reference.close()


def test_atari_seeding_reproducible():
    def trajectory(seed):
        env = make_vector_env("Breakout", 2, seed=seed, num_threads=1, max_episode_frames=200)
        rng = np.random.default_rng(0)
        obs = [env.reset()] + [env.step(rng.integers(0, 4, 2)).obs for _ in range(120)]
        env.close()
        return np.stack(obs)

    assert np.array_equal(trajectory(7), trajectory(7))


@pytest.mark.parametrize("num_envs,num_episodes", [(3, 7), (4, 2), (1, 3)])
def test_play_episodes_cartpole_fixed_length(num_envs, num_episodes):
    env = make_vector_env("CartPole-v1", num_envs, max_episode_frames=10)
    try:
        rng = np.random.default_rng(0)
        # Pole-balancing with a time limit of 10 never fails before 10 steps.
        returns = play_episodes(env, lambda o: rng.integers(0, 2, len(o)), num_episodes, seed=0)
        assert returns.shape == (num_episodes,)
        assert (returns == 10).all()
    finally:
        env.close()


def test_play_episodes_no_short_episode_bias():
    env = make_vector_env("CartPole-v1", 2)
    try:
        # Slot 0 pushes one way and falls fast; slot 1 alternates and lasts longer.
        def act(obs, t=[0]):
            t[0] += 1
            return np.array([0, t[0] % 2])

        returns = play_episodes(env, act, 6, seed=1)
        assert returns.shape == (6,)
        assert returns[:3].max() < returns[3:].min()  # 3 short and 3 long: a fixed share per slot
    finally:
        env.close()


def test_play_episodes_atari_counts_all_lives():
    env = make_vector_env("Breakout", 2, evaluation=True, max_episode_frames=400, num_threads=1)
    try:
        returns = play_episodes(env, lambda o: np.ones(len(o), np.int64), 3, seed=0)
        assert returns.shape == (3,) and (returns >= 0).all()
    finally:
        env.close()


def test_bad_arguments():
    with pytest.raises(EnvError):
        make_vector_env("CartPole-v1", 0)
    env = make_vector_env("CartPole-v1", 2)
    env.reset()
    with pytest.raises(ValueError):
        env.step(np.zeros(3, np.int64))
    env.close()


def test_out_of_range_action_raises_instead_of_hanging():
    env = make_vector_env("Breakout", 2, num_threads=1)
    env.reset()
    with pytest.raises(ValueError, match="actions must lie"):
        env.step(np.array([env.num_actions, 0]))
    env.close()


@pytest.mark.parametrize("fire_reset, loses_a_life", [(False, False), (True, True)])
def test_fire_reset_is_off_unless_asked(fire_reset, loses_a_life):
    """Doing nothing in Breakout loses a life only once FIRE has launched the ball: ale-py presses it
    at reset only when asked (DQN did not)."""
    env = make_vector_env("Breakout", 1, seed=0, num_threads=1, fire_reset=fire_reset)
    try:
        env.reset()
        steps = [env.step(np.zeros(1, np.int64)) for _ in range(200)]
        assert any(s.terminal[0] for s in steps) == loses_a_life
    finally:
        env.close()


def test_each_implementation_says_how_it_seeds_its_copies():
    with make_vector_env("CartPole-v1", 3) as batched:  # Gymnasium's batched implementation
        seeds = batched.episode_seeds(50, 6)
        assert [(s["copies"], s["seed"]) for s in seeds] == [(3, 50)] and "as a whole" in seeds[0]["note"]
    with make_vector_env("Acrobot-v1", 3) as looped:  # copies stepped in a loop
        assert [(s["copy"], s["seed"]) for s in looped.episode_seeds(50, 6)] == [(0, 50), (1, 51), (2, 52)]
