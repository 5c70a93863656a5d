"""What `gorila train` checks before it starts anything: a bad input ends here, in one line naming
the field, instead of minutes (or hours) later inside Ray, a component or the kernel's OOM killer.

`config.validate` checks each value and the topology on their own; the checks here need to know the
environment (its observation shape, its action repeat) or this machine (its memory, its GPUs, what
listens at `--address`, whether Weights & Biases can start a run for `--track` without a prompt). `run_checks` is the part the driver repeats for programmatic runs.
"""

from __future__ import annotations

import socket

from gorila.agent.networks import is_users_network
from gorila.components.replay.storage import StreamStorage
from gorila.config import Config, ConfigError
from gorila.config.schema import split_address
from gorila.envs import make_vector_env_for
from gorila.messages import EnvInfo, env_info
from gorila.placement import Resources
from gorila.plugins import reference_of
from gorila.records.tracking import check_tracking
from gorila.system.agent_builders import network_for, resolve_device
from gorila.system.budget import check_learning_start
from gorila.system.plan import RunPlan
from gorila.system.planning import plan_run

PROBE_TIMEOUT_S = 5


def preflight(config: Config) -> EnvInfo:
    """Every check that needs the environment or this machine, cheapest first; the env's `EnvInfo`."""
    check_address(config)
    check_tracking(config)
    info = probe_env(config)
    plan = check_fits_env(config, info)
    check_replay_memory(config, plan)
    check_devices(plan.resources)
    return info


def run_checks(config: Config) -> RunPlan:
    """The part a run started from Python repeats (`Driver`): the environment, the sizes that must fit
    it, and a learner device that exists on this machine (a cluster's is not asked here); the run's
    plan, made once here for the whole run."""
    plan = check_fits_env(config, probe_env(config))
    if not plan.resources.address:
        resolve_device(plan.resources.device)
    return plan


def probe_env(config: Config) -> EnvInfo:
    """Build one copy of the environment to read its shapes (an unsupported env raises EnvError)."""

    with make_vector_env_for(config, 1, config.seed) as probe:
        return env_info(probe)


def check_address(config: Config) -> None:
    """A cluster address where nothing listens fails in seconds, before Ray is even imported."""
    if config.runtime != "ray" or config.address in ("", "auto"):
        return
    try:
        socket.create_connection(split_address(config.address), timeout=PROBE_TIMEOUT_S).close()
    except OSError as error:
        raise ConfigError(
            f"address: nothing answers at {config.address} ({error.strerror or error}); start the "
            "cluster with `ray start --head` or leave --address out for an embedded Ray"
        ) from None


# ---- the environment -------------------------------------------------------------------------


def check_fits_env(config: Config, info: EnvInfo) -> RunPlan:
    """The network, the parameter shards and the replay memories can all work with this environment,
    and the learners can start within the budget; the run's plan (which the network must be able to
    take the environment's observations for, and which slices theta+ among the shards)."""
    check_network(config, info)
    plan = plan_run(config, info)
    check_replay_sizes(config, plan)
    check_learning_start(config, plan)
    return plan


REAL_FORWARD_PARAMETERS = 50_000_000  # 200 MB of float32: tried on the CPU, beyond on `meta`


def check_network(config: Config, info: EnvInfo) -> int:
    """The network takes this environment's observations; its parameter count.

    Built on torch's `meta` device first: shapes only, no memory, so a huge network is measured, not
    made. One of ordinary size then tries an observation for real, in milliseconds; a forward pass on
    `meta` would cost over a second of torch's first-use setup, at every launch.
    """
    import torch

    users = is_users_network(config.network)
    # A built-in network fails with ValueError or RuntimeError; a user's factory may raise anything.
    failures = Exception if users else (ValueError, RuntimeError)
    try:
        with torch.device("meta"):
            network = network_for(config, info)
        size = sum(parameter.numel() for parameter in network.parameters())
        if size <= REAL_FORWARD_PARAMETERS:
            network = network_for(config, info)
        device = next(network.parameters()).device
        out = network(torch.zeros((1, *info.obs_shape), dtype=getattr(torch, info.obs_dtype), device=device))
    except failures as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ConfigError(
            f"network: {reference_of(config.network)} cannot take {reference_of(config.env)}'s "
            f"observations of shape {info.obs_shape} ({reason})" + ("" if users else "; use --network auto")
        ) from None
    if tuple(getattr(out, "shape", ())) != (1, info.num_actions):
        raise ConfigError(
            f"network: {reference_of(config.network)} maps a batch of 1 observation to "
            f"{tuple(getattr(out, 'shape', ()))}, not (1, {info.num_actions}): one Q-value per action"
        )
    return size


def check_replay_sizes(config: Config, plan: RunPlan) -> None:
    """Every replay memory can hold what its learners wait for, or a run would never update.

    A learner samples only once its replay holds `min_sample_size` sampleable entries. An entry is
    sampleable when its frame stack and n-step window lie in its stream, and it is not an episode's
    last observation; at least every other entry is not one, so a replay of C entries over S streams
    is sure to reach N sampleable entries when C >= 2 N + S * (n_step + stack).
    """
    warmup, needed, info = plan.replay_warmup, plan.min_sample_size, plan.info
    per_stream = info.stack + config.n_step + 1
    shards = config.replay_shards if config.replay == "global" else 1
    for capacity, streams in ((memory.capacity, memory.streams) for memory in plan.replays):
        if capacity // streams < per_stream:
            raise ConfigError(
                f"replay_capacity: {capacity:,} transitions over {streams} environment streams "
                f"(envs_per_actor={config.envs_per_actor}) leave {capacity // streams} per stream, fewer than the "
                f"{per_stream} each needs (stack + n_step + 1); raise replay_capacity to >= "
                f"{shards * streams * per_stream:,} or lower envs_per_actor"
            )
        sure = 2 * needed + streams * (config.n_step + info.stack)
        if capacity < sure:
            field, why = (
                ("batch_size", "one minibatch")
                if config.batch_size >= warmup
                else ("learning_starts", f"learning_starts={config.learning_starts:,} agent steps")
            )
            raise ConfigError(
                f"{field}: each replay memory must hold {needed:,} sampleable transitions ({why}) before "
                f"learners start, more than a replay_capacity of {capacity * shards:,} can promise (episode "
                f"ends are not sampleable); raise replay_capacity to >= {sure * shards:,} or lower {field}"
            )


# ---- this machine ----------------------------------------------------------------------------


def replay_memory_need(plan: RunPlan) -> tuple[int, int, int]:
    """(bytes, transitions, bytes per transition) of all replay memories once full; frames stored once."""
    transitions = sum(replay_entries(plan))
    per_entry = StreamStorage.bytes_per_entry(plan.info.frame_shape, plan.info.obs_dtype)
    return transitions * per_entry, transitions, per_entry


def replay_entries(plan: RunPlan) -> list[int]:
    """Transitions each replay memory holds once full (whole streams of capacity // streams each)."""
    return [(memory.capacity // memory.streams) * memory.streams for memory in plan.replays]


def available_memory_bytes() -> int | None:
    """MemAvailable of /proc/meminfo: what the kernel can give without swapping (None off Linux)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def check_replay_memory(config: Config, plan: RunPlan) -> None:
    """A replay that cannot fit in this machine's memory fails now, not when it fills hours later.

    Replay arrays are allocated lazily (the kernel maps pages as they are written), so without this
    check an oversized run starts fine and is killed once its replay fills. On a cluster (--address)
    the replay memories spread over its machines: this one's memory says nothing, and the driver checks
    each node's share once it has joined (`check_node_memory`).
    """
    if config.runtime == "ray" and config.address:
        return
    need, transitions, per_entry = replay_memory_need(plan)
    available = available_memory_bytes()
    if available is not None and need > available:
        memories = len(plan.replays)
        raise ConfigError(
            f"replay_capacity: the replay needs {need / 1e9:.1f} GB ({transitions:,} transitions in {memories} "
            f"replay memor{'ies' if memories > 1 else 'y'}, {per_entry:,} bytes each) but this machine has "
            f"{available / 1e9:.1f} GB available; lower replay_capacity or the number of actors"
        )


def check_node_memory(config: Config, plan: RunPlan, nodes: list[dict]) -> None:
    """On a cluster, no node can be given more replay memory than it has (`nodes`: each one's CPUs and
    memory, as the runtime reports them). A node with room for k workers (its CPUs / worker_cpus) may
    be given the k largest local replay memories; a global replay's shards ask for no CPUs of their
    own (server_cpus 0), so any one node may be given all of them. This machine's memory says nothing
    there (`check_replay_memory`), and a node that runs out kills its replays hours in, once they fill."""
    per_entry = StreamStorage.bytes_per_entry(plan.info.frame_shape, plan.info.obs_dtype)
    sizes = sorted((entries * per_entry for entries in replay_entries(plan)), reverse=True)
    if not sizes:
        return
    worker_cpus = plan.resources.worker_cpus
    by_cpus = config.replay == "local" and worker_cpus > 0
    for node in nodes:
        room = int(node["cpus"] // worker_cpus) if by_cpus else len(sizes)
        need = sum(sizes[:room])
        if node["memory"] and need > node["memory"]:
            raise ConfigError(
                f"replay_capacity: node {node['node']} has room for {min(room, len(sizes))} of the "
                f"{len(sizes)} replay memories, {need / 1e9:.1f} GB once full, but {node['memory'] / 1e9:.1f} GB "
                "of memory for Ray's tasks; lower replay_capacity (each replay memory holds that many transitions) "
                "or raise worker_cpus so that fewer share a node"
            )


def check_devices(resources: Resources) -> None:
    """GPUs asked for exist here, or the run fails at once instead of waiting for Ray to place learners.

    An embedded Ray sees this machine's GPUs; a cluster's are checked when the driver joins it.
    """
    if resources.address and resources.runtime == "ray":
        return
    resolve_device(resources.device)
    if resources.runtime != "ray" or not resources.learner_gpus:
        return
    import torch

    present = torch.cuda.device_count()
    wanted = resources.learner_gpus * resources.learner_processes
    if wanted > present:
        raise ConfigError(
            f"learner_gpus: {resources.learner_gpus:g} per learner asks for {wanted:g} GPU{'s' if wanted != 1 else ''} in all, "
            f"but torch sees {present} CUDA devices on this machine"
        )
