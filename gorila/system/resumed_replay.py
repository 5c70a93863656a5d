"""The line a resumed run prints about its replay memories, so that nobody resumes with an empty replay
without knowing: the transitions it restored and from where (a run with `save_replay` saves every
memory with each checkpoint), or that it starts empty, what that costs, and how to keep it next time.

An empty replay costs a resumed DQN run twice. Its learners sample nothing until each memory holds its
warm-up again (`learning_starts`, as at launch; `replay_warmup`), so the frames played meanwhile teach
nothing; and after that they learn from the frames played since the resume only, until the memories
have refilled to their capacity (a replay of 500,000 transitions: 2M Atari frames).
"""

from __future__ import annotations

from pathlib import Path

from gorila.config import Config
from gorila.system.plan import RunPlan


def replay_line(config: Config, plan: RunPlan, sizes: list[int], restored: list[str]) -> str | None:
    """What a resumed run's replay memories hold (`sizes`: each memory's transitions, in
    `System.replay_holders()` order), restored from the files `restored` or started empty; None for a
    run that keeps no replay (PQN)."""
    if not plan.replays:
        return None
    if restored:
        return f"replay: {sum(sizes):,} transitions restored from {_where(restored, len(plan.replays))}"
    why = (
        "no replay was saved with the checkpoint; save_replay keeps it from now on"
        if config.save_replay
        else "this run saves none: --set save_replay=true keeps it"
    )
    return f"replay: empty ({why}); {refill_cost(plan)}"


def refill_cost(plan: RunPlan) -> str:
    """What refilling an empty replay costs, in transitions and frames."""
    info = plan.info
    warmup = plan.min_sample_size * len(plan.replays)
    capacity = sum(memory.capacity for memory in plan.replays)
    return (
        f"learning waits until it holds {warmup:,} transitions again (about {info.frames(warmup):,} frames), "
        f"and refills to its {capacity:,} in about {info.frames(capacity):,} frames"
    )


def _where(restored: list[str], memories: int) -> str:
    if memories == 1:
        return restored[0]
    return f"{Path(restored[0]).parent} ({len(restored)} of {memories} memories)"
