"""Where components go: the kinds of placed component (`Kind`), what a runtime needs to know to place
one (`Role`, one per kind, built on its call contract from `gorila.core`), what it needs to know of
a run to connect, place and size them (`Resources`), and which worker the driver hands work to
(`WorkerId`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from gorila.core import ActorWorker, BundleWorker, EvaluatorServer, LearnerWorker, ReplayServer, ShardServer


class Kind(StrEnum):
    """The kinds of placed component; a worker's kind is in its `WorkerId`, a role's in its `Role`."""

    PARAMETER_SHARD = "parameter_shard"
    REPLAY = "replay_memory"
    EVALUATOR = "evaluator"
    ACTOR = "actor"
    LEARNER = "learner"
    BUNDLE = "bundle"


@dataclass(frozen=True)
class Role:
    """A kind of placed component: the contract its callers use and what a runtime needs to place
    it. A server answers calls, so its callers wait through a restart; a worker does work that the
    driver hands out again when its process is lost. A role that `learns` runs a learner (alone or in
    a bundle) and gets the learner's device. A restarted process of a role that `waits_for_state`
    answers no call of its contract before the driver has given it its last state (the contract's
    `restore`): no node needs the driver's disk for it, and no caller sees it start again from scratch.
    A worker that `hosts_shards` holds parameter shards in its process beside its own work (shard
    placement `learners`); it waits for its shards' states after a restart."""

    name: Kind
    contract: type
    server: bool = False
    learns: bool = False
    waits_for_state: bool = False
    hosts_shards: bool = False

    def hosting_shards(self) -> Role:
        """This worker role, holding parameter shards beside its own work."""
        return replace(self, waits_for_state=True, hosts_shards=True)


PARAMETER_SHARD = Role(Kind.PARAMETER_SHARD, ShardServer, server=True, waits_for_state=True)
REPLAY = Role(Kind.REPLAY, ReplayServer, server=True)
EVALUATOR = Role(Kind.EVALUATOR, EvaluatorServer, server=True)
ACTOR = Role(Kind.ACTOR, ActorWorker)
LEARNER = Role(Kind.LEARNER, LearnerWorker, learns=True)
BUNDLE = Role(Kind.BUNDLE, BundleWorker, learns=True)


@dataclass(frozen=True)
class Resources:
    """What a runtime is given of a run (`gorila.system.planning` works it out from the config, once): where
    to connect, how many processes of each kind it will place and what each asks for. A runtime reads
    this and never the config, so that where components run is decided in one place."""

    runtime: str  # "local" or "ray"
    address: str  # the Ray cluster to join; "" starts an embedded one
    workers: int  # processes that do work: N_act bundles, or N_act actors and N_learn learners
    learner_processes: int  # N_learn: processes that run a learner (bundles, or stand-alone learners)
    worker_cpus: float  # CPUs Ray reserves for each worker
    server_cpus: float  # CPUs Ray reserves for each server (shard, replay memory, evaluator)
    learner_gpus: float  # GPUs Ray reserves for each learner process (0: share one where there is one)
    device: str  # the learners' device as asked (auto, cpu, cuda): resolved in each learner's own process
    param_shards: int  # N_param
    shard_holders: int  # learner processes that hold the shards beside their work; 0 where they run apart
    shard_threads: int  # calls one shard's host serves at once (more in synchronous rounds)

    @property
    def shards_per_holder(self) -> int:
        """The most shards one holder serves (shard i in holder i mod `shard_holders`)."""
        return -(-self.param_shards // self.shard_holders) if self.shard_holders else 0


@dataclass(frozen=True)
class WorkerId:
    """Which worker the driver hands work to: its kind (a bundle, an actor or a learner; the evaluator,
    whose calls the driver tracks beside theirs) and its index among that kind."""

    role: Kind
    index: int

    def __post_init__(self):
        object.__setattr__(self, "role", Kind(self.role))  # "actor" as read from a checkpoint

    def __str__(self) -> str:
        return f"{self.role} {self.index}"
