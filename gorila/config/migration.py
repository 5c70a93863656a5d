"""Configs written by older versions of gorila, read as they were meant."""

from __future__ import annotations

FRAME_COUNTED_KEY = "epsilon_decay_frames"


def in_agent_steps(values: dict, env: str) -> dict:
    """`values` with counts written in frames turned into agent steps.

    Before gorila counted exploration and the learning start in agent steps (as DQN does), a config
    named `epsilon_decay_frames` and gave `learning_starts` in frames too: a mapping that names it
    (the config saved with an older run, an older YAML file) has both divided by the frames per agent
    step of its environment (4 on Atari), so that resuming or evaluating it means what it meant.
    """
    if FRAME_COUNTED_KEY not in values:
        return values
    values = dict(values)
    from gorila.envs.registry import frames_per_agent_step

    per_step = frames_per_agent_step(env)
    values["epsilon_decay_steps"] = values.pop(FRAME_COUNTED_KEY) // per_step
    if "learning_starts" in values:
        values["learning_starts"] //= per_step
    return values
