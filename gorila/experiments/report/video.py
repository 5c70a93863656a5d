"""One evaluation episode of saved parameters as an animation: MP4 when imageio with ffmpeg is
installed, else GIF (Pillow).

Atari episodes show what the agent sees: the newest 84x84 grey frame of its input stack, enlarged,
under null-op starts at the run's eval_epsilon (0.05 in the Atari preset). Gymnasium tasks, played
greedily, are drawn by their own renderer; CartPole, whose renderer needs pygame, is drawn from its state when pygame is missing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gorila.agent.policy import EpsilonGreedyPolicy
from gorila.envs import make_vector_env_for
from gorila.envs.atari_constants import FRAMESKIP
from gorila.envs.registry import EnvSpec, resolve_env
from gorila.evaluation.saved_agent import load_saved_agent
from gorila.seeds import evaluation_seed

MAX_STEPS = 1000  # agent steps recorded at most (an Atari episode may run to 4,500)
ATARI_SCALE = 3


class VideoError(RuntimeError):
    """The episode could not be drawn; the message says why."""


def record_episode(checkpoint: Path, stem: Path, max_steps: int = MAX_STEPS) -> tuple[Path, str]:
    """Play one episode with the checkpoint's parameters; the file written and a note on its format. A
    checkpoint that does not fit its game raises CheckpointError (`load_saved_agent`)."""
    agent = load_saved_agent(checkpoint)
    config, info = agent.config, agent.info
    seed = evaluation_seed(config.seed, independent=True)
    policy = EpsilonGreedyPolicy(agent.network, info.num_actions, np.random.default_rng(seed))
    if info.is_atari:
        frames, total = _atari_frames(config, policy, seed, max_steps)
        fps = 60 // FRAMESKIP  # one agent step is 4 frames at 60 Hz
    else:
        frames, total = _gym_frames(resolve_env(config.env, config.env_kwargs), policy, seed, max_steps)
        fps = 30
    path, note = write_animation(frames, stem, fps)
    return path, f"{note}; return {total:g} over {len(frames) - 1} steps" + (
        f" (cut at {max_steps})" if len(frames) > max_steps else ""
    )


def _atari_frames(config, policy: EpsilonGreedyPolicy, seed: int, max_steps: int) -> tuple[list[np.ndarray], float]:

    frames, total = [], 0.0
    with make_vector_env_for(config, 1, seed, evaluation=True) as env:  # as the run was evaluated
        obs = env.reset(seed)
        frames.append(_enlarge(obs[0][-1]))
        for _ in range(max_steps):
            step = env.step(policy.act(obs, config.eval_epsilon))
            obs, total = step.obs, total + float(step.reward[0])
            frames.append(_enlarge(obs[0][-1]))
            if step.episode_end[0]:
                break
    return frames, total


def _enlarge(frame: np.ndarray) -> np.ndarray:
    return np.repeat(np.repeat(frame, ATARI_SCALE, axis=0), ATARI_SCALE, axis=1)


def _gym_frames(
    spec: EnvSpec, policy: EpsilonGreedyPolicy, seed: int, max_steps: int
) -> tuple[list[np.ndarray], float]:
    env = spec.make(render_mode="rgb_array")
    try:
        obs, _ = env.reset(seed=seed)
        draw = _renderer(env, spec.id)
        frames, total = [draw(obs)], 0.0
        for _ in range(max_steps):
            action = int(policy.act(obs[None].astype(np.float32), 0.0)[0])
            obs, reward, terminated, truncated, _ = env.step(action)
            frames.append(draw(obs))
            total += float(reward)
            if terminated or truncated:
                break
        return frames, total
    finally:
        env.close()


def _renderer(env, env_id: str):
    """env.render(), or a drawing of CartPole's state where the renderer is not installed."""
    try:
        env.render()
        return lambda obs: env.render()
    except Exception as error:
        if env_id.startswith("CartPole"):
            return draw_cartpole
        raise VideoError(f"{env_id} cannot be drawn here ({type(error).__name__}: {error})") from None


def draw_cartpole(state: np.ndarray, width: int = 300, height: int = 200) -> np.ndarray:
    """CartPole from its state (cart position, velocity, pole angle, angular velocity)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    scale = width / 4.8  # the track runs from -2.4 to 2.4
    x, ground = width / 2 + float(state[0]) * scale, height * 0.75
    draw.line([(0, ground), (width, ground)], fill="black")
    draw.rectangle([x - 20, ground - 12, x + 20, ground + 6], fill=(60, 60, 60))
    length = 1.0 * scale  # the pole is 1.0 long (twice its half-length 0.5)
    tip = (x + length * np.sin(float(state[2])), ground - 12 - length * np.cos(float(state[2])))
    draw.line([(x, ground - 12), tip], fill=(200, 120, 60), width=6)
    return np.asarray(image)


def write_animation(frames: list[np.ndarray], stem: Path, fps: int) -> tuple[Path, str]:
    """stem.mp4 with imageio and ffmpeg, otherwise stem.gif; the path and what was written."""
    try:
        import imageio.v2 as imageio

        path = stem.with_suffix(".mp4")
        imageio.mimwrite(path, [_rgb(f) for f in frames], fps=fps)
        return path, "MP4 (imageio)"
    except Exception as error:  # imageio or its ffmpeg missing
        reason = "imageio is not installed" if isinstance(error, ImportError) else f"imageio failed ({error})"
    from PIL import Image

    path = stem.with_suffix(".gif")
    images = [Image.fromarray(f) for f in frames]
    images[0].save(path, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    return path, f"GIF ({reason}: no MP4)"


def _rgb(frame: np.ndarray) -> np.ndarray:
    return np.stack([frame] * 3, axis=-1) if frame.ndim == 2 else frame
