"""A run's schedules against its budget: when epsilon ends, when learning starts, how often theta- moves.

DQN's schedules count agent steps per agent (`learning_starts` in each bundle's replay, epsilon's
anneal over each actor's own steps), while `total_frames` is shared by all actors: each actor takes
about `total_frames / N_act` of it. Put together, a schedule can fall outside the budget, silently:
epsilon still near 1 when the run ends, or learners that never sample. Preflight refuses a run whose
learners could not start (`check_learning_start`), the launch says when each thing happens
(`describe_schedule`) and warns when epsilon will not finish annealing (`epsilon_warning`). Each reads
the run's plan (`gorila.system.plan`), whose shares of the budget `gorila.system.planning` takes from
`actor_steps` and `memory_steps` here.
"""

from __future__ import annotations

from gorila.agent.dqn import linear_epsilon
from gorila.algorithms import algorithm_of
from gorila.config import Config, ConfigError
from gorila.messages import EnvInfo
from gorila.system.plan import RunPlan
from gorila.system.topology import replay_count


def actor_steps(config: Config, info: EnvInfo) -> int:
    """Agent steps each actor takes in the whole run: its share of the budget."""
    return info.steps(config.total_frames) // config.actors


def memory_steps(config: Config, info: EnvInfo) -> int:
    """Agent steps written into each replay memory in the whole run (a bundle's, a local one, a shard)."""
    return info.steps(config.total_frames) // replay_count(config)


def _workers(config: Config) -> str:
    count = config.actors
    return (
        f"{count:,} bundle{'s' if count > 1 else ''}"
        if config.bundled
        else f"{count:,} actor{'s' if count > 1 else ''}"
    )


def _each(config: Config) -> str:
    """'each of the 10 bundles', 'the one bundle'."""
    kind = "bundle" if config.bundled else "actor"
    return f"each of the {config.actors:,} {kind}s" if config.actors > 1 else f"the one {kind}"


def check_learning_start(config: Config, plan: RunPlan) -> None:
    """Refuse a run whose replay memories could not hold their warm-up before the budget ends (an
    algorithm without replay, PQN, has none: it learns from its first rollout)."""
    if not algorithm_of(config).learns_from_replay:
        return
    needed, written, info = plan.min_sample_size, plan.memory_steps, plan.info
    if needed < written:
        return
    memories = plan.replay_count
    field = "learning_starts" if needed == plan.replay_warmup else "batch_size"
    where = "each bundle's replay" if config.bundled else f"each of the {memories:,} replay memories"
    enough = 4 * needed * memories * info.frames_per_step  # warm-up a quarter of each memory's steps
    raise ConfigError(
        f"{field}: {where} must hold {needed:,} transitions before learning starts, but receives only "
        f"{written:,} agent steps of total_frames={config.total_frames:,} ({_workers(config)}, "
        f"{info.frames_per_step} frame{'s' if info.frames_per_step > 1 else ''} per step): no update would be made; "
        f"raise total_frames (e.g. to {enough:,}) or lower {field} below {written:,}"
    )


def epsilon_at_end(config: Config, plan: RunPlan) -> float:
    """Epsilon of an actor annealing to epsilon_end when the budget ends."""
    return linear_epsilon(
        plan.actor_steps - plan.epsilon_hold_steps,
        config.epsilon_start,
        config.epsilon_end,
        config.epsilon_decay_steps,
    )


def epsilon_warning(config: Config, plan: RunPlan) -> str | None:
    """A line when epsilon's anneal is longer than each actor's share of the budget, else None."""
    steps, hold, end = plan.actor_steps, plan.epsilon_hold_steps, plan.epsilon_of(0).end_step
    if end <= steps:
        return None
    frames = end * config.actors * plan.info.frames_per_step
    held = f" after holding it for {hold:,}" if hold else ""
    return (
        f"warning: epsilon will not finish annealing: each actor takes about {steps:,} agent steps and epsilon "
        f"anneals over {config.epsilon_decay_steps:,} of them{held}, so it ends the run at "
        f"{epsilon_at_end(config, plan):.3g} instead of {config.epsilon_end:g}; raise total_frames to >= "
        f"{frames:,} or lower epsilon_decay_steps to <= {max(steps - hold, 0):,}"
    )


def _share(part: int, whole: int) -> str:
    """A percentage with two significant digits below 10% (0.4%, 8%), whole ones above (1,000%)."""
    if not whole:
        return "-"
    percent = 100 * part / whole
    return f"{percent:.2g}%" if percent < 10 else f"{percent:,.0f}%"


def describe_schedule(config: Config, plan: RunPlan) -> str:
    """One launch line: each actor's share of the budget, and when epsilon ends, learning starts and
    how often theta- is refreshed, in that actor's (or replay memory's) own agent steps."""
    steps, written, warmup = plan.actor_steps, plan.memory_steps, plan.replay_warmup
    end = "the ladder's rungs" if plan.on_ladder else f"{config.epsilon_end:g}"
    hold = plan.epsilon_hold_steps
    over = (
        f"over the {config.epsilon_decay_steps:,} after its first {hold:,}"
        if hold
        else f"over its first {config.epsilon_decay_steps:,}"
    )
    anneal = f"epsilon {config.epsilon_start:g} -> {end} {over} ({_share(config.epsilon_decay_steps, steps)})"
    if config.epsilon_start == 0 and config.epsilon_end == 0 and not plan.on_ladder:
        anneal = "no epsilon-greedy exploration (epsilon 0)"
    algorithm = algorithm_of(config)
    learning = algorithm.learning(config, plan.planned_updates)
    if not algorithm.learns_from_replay:
        return f"schedule: {_each(config)} takes about {steps:,} agent steps; {anneal}; {learning}"
    if config.bundled:
        start = f"learning starts once its replay holds {warmup:,} ({_share(warmup, written)})"
    else:
        start = (
            f"learning starts once the replay memories hold {config.learning_starts:,} in all "
            f"({_share(warmup, written)} of what each receives)"
        )
    return f"schedule: {_each(config)} takes about {steps:,} agent steps; {anneal}; {start}; {learning}"
