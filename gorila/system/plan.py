"""The run plan: everything a config implies for one run, worked out once, before anything is placed.

A config says what to run (N_act actors, N_learn learners, N_param shards, the preset's schedules);
the environment says what one agent step is (`EnvInfo`). Put together they imply how many processes
run and what each reserves, how the replay memories are laid out and who writes and samples which,
when learning starts, each actor's epsilon schedule, the staleness beyond which a shard drops a
gradient, how many gradients one update averages, and how learners refresh theta+. `RunPlan` holds
all of that, frozen; `gorila.system.planning.plan_run` makes it, from the pure functions that compute
each value (in `config.derived`, `builders`, `topology`, `agent_builders` and `budget`, where they
are tested), and the system reads it from there:

    info = probe_env(config)                        # gorila.system.preflight
    plan = plan_run(config, info)                   # gorila.system.planning: once
    runtime = make_runtime(plan.resources)          # the runtime is given resources, not the config
    system = build_system(config, plan, runtime)    # each component gets its own sections and its part

Components still receive only their own settings (a shard its staleness limit and round size, an
actor its epsilon schedule); the plan travels with the builders into each component's process, so a
value is never worked out again there. This module holds only the records, so that the modules that
read a plan can import it without importing what makes it.
"""

from __future__ import annotations

from dataclasses import dataclass

from gorila.components.actor import EpsilonSchedule
from gorila.components.replay.priorities import PriorityRule
from gorila.components.replay.routing import Route
from gorila.messages import EnvInfo
from gorila.placement import Resources


@dataclass(frozen=True)
class ReplayPlan:
    """One replay memory (a bundle's, a local one, or a global replay's shard): how many transitions
    it holds over how many env streams, the sampleable entries it waits for before giving minibatches,
    and its prioritised replay's exponents (None: uniform)."""

    capacity: int
    streams: int
    min_size: int
    priority: PriorityRule | None


@dataclass(frozen=True)
class RunPlan:
    """What a config implies for one run in one environment (`gorila.system.planning.plan_run`); read,
    never recomputed."""

    info: EnvInfo  # the environment's facts the plan was made from
    resources: Resources  # what the runtime places and reserves (it is given this, not the config)
    # the parameter server: N_param shards, each a slice of theta+
    bounds: tuple[tuple[int, int], ...]  # each shard's [start, stop) of the flat theta+
    shards_beside_learners: bool  # shard placement `learners` (or `auto` on one machine)
    shard_device: str  # where a shard keeps its slice, as asked: the learners' device beside them, else cpu
    staleness_limit: int  # versions beyond which a shard drops a gradient (0: none dropped)
    round_size: int  # gradients one update averages (N_learn in synchronous rounds, else 1)
    planned_updates: int  # server updates in the whole run, all learners together
    decay_updates: int  # updates the learning rate decays over (0: constant)
    synchronous_refresh: bool  # a learner (or the driver) waits for the theta+ its own push made
    synchronous_when_holding_all: bool  # ... a learner that holds every shard in its process
    refresh_mode: str  # how the learners refresh theta+, in the launch line's words
    # replay: who writes and who samples which memory
    replay_count: int  # memories the run saves and restores (one per bundle, or the stand-alone ones)
    replays: tuple[ReplayPlan, ...]  # each memory (none for an algorithm without replay, PQN)
    replay_warmup: int  # entries each memory holds before its learners sample (`learning_starts`' share)
    min_sample_size: int  # ... and never fewer than one minibatch
    routes: tuple[tuple[Route, ...], ...]  # actor i's env streams -> memories (stand-alone replay)
    learner_replays: tuple[tuple[int, ...], ...]  # learner j samples these memories
    # schedules, in agent steps
    total_steps: int  # the run's budget, all actors together
    actor_steps: int  # each actor's share of it
    memory_steps: int  # agent steps written into each replay memory in the run
    epsilon: tuple[EpsilonSchedule, ...]  # actor i's exploration (its ladder rung, its hold)
    on_ladder: bool  # the actors settle on an Ape-X ladder's rungs rather than all on epsilon_end
    epsilon_hold_steps: int  # agent steps each actor holds epsilon_start before it anneals

    def epsilon_of(self, index: int) -> EpsilonSchedule:
        """Actor (bundle) `index`'s schedule; a bundle that joined a growing run takes the schedule of
        bundle `index` mod N_act (`max_bundles`)."""
        return self.epsilon[index % len(self.epsilon)]

    def refreshes_synchronously(self, holds_every_shard: bool) -> bool:
        """Does a learner wait for the theta+ its own last push made? (`learner_refresh`)"""
        return self.synchronous_when_holding_all if holds_every_shard else self.synchronous_refresh

    def bundle_replay(self, index: int) -> ReplayPlan:
        """Bundle `index`'s replay memory (all alike; a bundle that joined a growing run takes bundle
        `index` mod N_act's)."""
        return self.replays[index % len(self.replays)]
