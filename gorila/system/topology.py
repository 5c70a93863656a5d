"""The one wiring function: which Gorila component talks to which, for any topology.

`build_system` is the whole architecture in one page. A runtime brings its `place` (build this object
for a component of this role, here or in a Ray actor) and its `calls` (how components call each
other through their contracts); the wiring is the same.

    bundled:      bundle_i = actor_i --> local replay_i --> learner_i        (N_act = N_learn)
    non-bundled:  actor_i --> replay (local: one per actor; global: N_replay shards) --> learner_j
    always:       learners --gradient slices--> N_param ParameterShards --theta+, theta---> actors, learners
                  driver --theta+--> evaluator

Where the shards run is `shard_placement`: `apart`, each in a process of its own, as the paper's 31
shard machines; `learners`, shard i inside the process of learner (or bundle) i mod N_learn, so that
the slice of theta+ it owns never leaves that learner's device and its part of that learner's
gradient is applied without a message. It is still a shard: the learner sends it gradients and the
shard applies them, checks their staleness and keeps its own version and theta-.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gorila.algorithms import algorithm_of
from gorila.components.replay.routing import ReplaySampler, ReplayWriter, Route, remote_batch_steps
from gorila.config import Config
from gorila.config.derived import learner_processes, shard_holders, synchronous_refresh
from gorila.core import Worker
from gorila.placement import ACTOR, BUNDLE, EVALUATOR, LEARNER, PARAMETER_SHARD, REPLAY, Kind, Resources, WorkerId
from gorila.runtime.calls import WorkerError
from gorila.seeds import replay_seed, sampler_seed
from gorila.system.agent_builders import make_evaluator
from gorila.system.builders import make_actor, make_bundle, make_learner, make_replay, make_shard_of
from gorila.system.plan import RunPlan


@dataclass
class System:
    """Handles of every placed component (objects on the local runtime, Ray actor handles on Ray)."""

    shards: list
    bounds: list
    workers: dict[WorkerId, Worker] = field(default_factory=dict)  # bundles, or actors and learners
    replays: list = field(default_factory=list)  # stand-alone replay memories (non-bundled)
    evaluator: object = None
    held: dict[WorkerId, tuple[int, ...]] = field(default_factory=dict)  # shards served in a worker's process
    has_replay: bool = True  # the algorithm keeps replay memories (PQN: none, its bundles hold none)

    def holder_of(self, shard: int) -> WorkerId | None:
        """The worker whose process serves parameter shard `shard` (dies and restarts with it), if any."""
        return next((worker for worker, held in self.held.items() if shard in held), None)

    def handles(self) -> list:
        return [*self.shards, *self.replays, *self.workers.values(), self.evaluator]

    def replay_holders(self) -> list:
        """What holds each replay memory: the bundles, or the stand-alone memories (none for an algorithm
        without replay)."""
        if not self.has_replay:
            return []
        return self.replays or [h for w, h in self.workers.items() if w.role is Kind.BUNDLE]

    def servers(self) -> list:
        """Components that answer calls rather than do work: shards, replay memories, then the evaluator."""
        return [*self.shards, *self.replays, self.evaluator]


def build_system(
    config: Config,
    plan: RunPlan,
    runtime,
    shard_backups: list[str] | None = None,
    saved_replays: list[str] | None = None,
) -> System:
    """Create and connect every component of the topology `plan` lays out (`gorila.system.plan`) on
    `runtime`; each is built from its own sections of `config` and the plan. A shard whose file in
    `shard_backups` holds a state starts from it (restarted, it waits for the driver's state instead:
    `gorila.system.shard_states`); a replay memory (a bundle's or a stand-alone one, in
    `System.replay_holders()` order) likewise from `saved_replays`."""
    place, calls, info = runtime.place, runtime.calls, plan.info
    bounds = list(plan.bounds)
    backups = shard_backups or [None] * len(bounds)
    saved = saved_replays or [None] * plan.replay_count
    hosts = shard_hosts(plan, runtime)
    if hosts:
        shards = [runtime.hosted_shard(hosts[i % len(hosts)], i) for i in range(len(bounds))]
        hosted = [
            tuple((i, *bounds[i], backups[i]) for i in range(j, len(bounds), len(hosts))) for j in range(len(hosts))
        ]
        hosting = lambda role, j, make, *args: (
            place(role.hosting_shards(), make, *args, hosted[j], as_handle=hosts[j])
            if j < len(hosts)
            else place(role, make, *args)
        )
    else:
        shards = [
            place(PARAMETER_SHARD, make_shard_of, config, plan, i, start, stop, backups[i])
            for i, (start, stop) in enumerate(bounds)
        ]
        hosting = lambda role, j, make, *args: place(role, make, *args)
    system = System(shards, bounds, has_replay=algorithm_of(config).learns_from_replay)
    holder_role = BUNDLE if config.bundled else LEARNER
    system.held = {WorkerId(holder_role.name, j): tuple(index for index, *_ in hosted[j]) for j in range(len(hosts))}
    if config.bundled:
        for i in range(config.actors):
            system.workers[WorkerId(BUNDLE.name, i)] = hosting(
                BUNDLE, i, make_bundle, config, plan, i, shards, bounds, calls, saved[i]
            )
    else:
        system.replays = [
            place(REPLAY, make_replay, config, info, memory, replay_seed(config.seed, i), saved[i])
            for i, memory in enumerate(plan.replays)
        ]
        for i in range(config.actors):
            writer = ReplayWriter(
                system.replays, list(plan.routes[i]), calls, remote_batch_steps(config.envs_per_actor)
            )
            system.workers[WorkerId(ACTOR.name, i)] = place(
                ACTOR, make_actor, config, plan, i, shards, bounds, calls, writer
            )
        for j in range(config.learners):
            sampler = ReplaySampler(
                [system.replays[r] for r in plan.learner_replays[j]], calls, seed=sampler_seed(config.seed, j)
            )
            system.workers[WorkerId(LEARNER.name, j)] = hosting(
                LEARNER, j, make_learner, config, plan, j, shards, bounds, calls, sampler
            )
    system.evaluator = place(EVALUATOR, make_evaluator, config, info)
    return system


def shard_hosts(plan: RunPlan, runtime) -> list:
    """The handles, reserved before anything is placed, of the learners or bundles that will hold the
    shards (the first min(N_learn, N_param) learner processes); none where shards run apart, or where
    every component shares one process anyway (the local runtime)."""
    if not runtime.hosts_shards:
        return []
    return [runtime.reserve() for _ in range(plan.resources.shard_holders)]


def actor_routes(config: Config, index: int) -> list[Route]:
    """Where actor `index`'s env streams go: its own replay, or spread over the global shards."""
    slots = range(config.envs_per_actor)
    if config.replay == "local":
        return [Route(index, tuple(slots), tuple(slots))]
    streams = [index * config.envs_per_actor + slot for slot in slots]  # global stream ids
    by_shard: dict[int, list] = {}
    for slot, stream in zip(slots, streams):
        by_shard.setdefault(stream % config.replay_shards, []).append((slot, stream // config.replay_shards))
    return [Route(shard, tuple(s for s, _ in pairs), tuple(t for _, t in pairs)) for shard, pairs in by_shard.items()]


def replay_count(config: Config) -> int:
    """How many replay memories the topology has (one per bundle, or the stand-alone ones)."""
    return config.actors if config.bundled else len(replay_layout(config))


def replay_layout(config: Config) -> list[tuple[int, int]]:
    """(capacity, num_streams) of each replay memory: a bundle's, or a stand-alone one (PQN has none)."""
    if not algorithm_of(config).learns_from_replay:
        return []
    if config.replay == "local":
        return [(config.replay_capacity, config.envs_per_actor)] * config.actors
    total_streams = config.actors * config.envs_per_actor
    shards = config.replay_shards
    return [(config.replay_capacity // shards, len(range(s, total_streams, shards))) for s in range(shards)]


def learner_replays(config: Config, index: int) -> list[int]:
    """The replay memories learner `index` samples from."""
    if config.replay == "global":
        return list(range(config.replay_shards))
    if config.learners <= config.actors:
        return list(range(index, config.actors, config.learners))
    return [index % config.actors]


def describe_topology(config: Config, plan: RunPlan) -> str:
    """One line a user reads at launch: the shape of the system `plan` lays out."""
    plural = lambda n, word: f"{n} {word}{'s' if n > 1 else ''}"
    if config.bundled:
        name, parts = algorithm_of(config).bundle_shape
        shape = f"{plural(config.actors, name)} ({parts})"
        if config.max_bundles > config.actors:
            shape += f", up to {config.max_bundles} as the cluster gains room"
    else:
        replay = f"global replay ({config.replay_shards} shards)" if config.replay == "global" else "local replays"
        shape = f"{config.actors} actors -> {replay} -> {config.learners} learners"
    limit = plan.staleness_limit
    stale = f"gradients over {limit:,} versions stale dropped" if limit else "no gradient dropped as stale"
    where = "beside the learners" if plan.shards_beside_learners else "apart"
    return f"{shape}, {plural(config.param_shards, 'parameter shard')} {where} ({stale}; {plan.refresh_mode})"


def refresh_mode(config: Config) -> str:
    """How the learners refresh theta+ (`synchronous_refresh`), in the launch line's words. On Ray with
    the shards beside the learners, learner 0 holds them all when there is one learner or one shard."""
    if synchronous_refresh(config):
        return "synchronous theta+ refresh"
    if not (shard_holders(config) == 1 and synchronous_refresh(config, holds_every_shard=True)):
        return "pipelined theta+ refresh"
    if learner_processes(config) == 1:
        return "synchronous theta+ refresh"
    return "theta+ refresh synchronous where a learner holds every shard, else pipelined"


READY_TIMEOUT_S = 120  # how long the components of a run may go without one more of them starting


def wait_ready(runtime, system: System, resources: Resources, window: float = READY_TIMEOUT_S) -> None:
    """Every component constructed (on Ray: scheduled on some node and its constructor done); else a
    clear error. The wait goes on while components keep starting (a loaded machine starts Ray's worker
    processes slowly) and ends after `window` seconds in which none did; the error then tells a cluster
    without room for them from one that has room and is only slow."""
    handles = system.handles()
    missing = len(handles)
    while True:
        still = runtime.wait_ready(handles, window)
        if not still:
            return
        if still == missing:
            break
        missing = still
    free = runtime.free_cpus()
    if free >= resources.worker_cpus and not resources.learner_gpus:
        raise WorkerError(
            f"{missing} of {len(handles)} components did not start within {window:g} s although the cluster "
            f"has CPUs free for them ({free:g}): the machine is too loaded to start Ray's "
            "worker processes, or a component's constructor hangs (its log is in the Ray session's logs)"
        )
    raise WorkerError(
        f"{missing} of {len(handles)} components could not be placed within {window:g} s: the Ray "
        f"cluster lacks the CPUs/GPUs they ask for (worker_cpus={resources.worker_cpus}, "
        f"learner_gpus={resources.learner_gpus})"
    )
