"""What one learner update costs with the Impala network against the Nature network, on this CPU.

One update is a batch of 32 Atari stacks (84x84x4 uint8, laid out channels last as replay hands them
over): the target network's forward without gradient, the online network's forward and backward, and
the optimizer's step. Two updates per network, side by side:
- dqn: the plain DQN update of `gorila bench` (`bare_train_step`: Huber loss on max_a Q_target);
- c51: Rainbow's distributional update (51 atoms, dueling over atoms, double-DQN choice of a*, the
  categorical projection and the cross-entropy), on the same torsos.
The setups take turns one update at a time (after a warm-up), so a load that comes and goes on the
machine falls on all of them alike; each reports the median of its timed updates. With `--json` it
writes the figures with the command, the commit and the machine.

Usage: nice -n 19 python benchmarks/network_costs.py [--repeats 20] [--warmup 5] [--threads 1] [--json FILE]
       [--note TEXT]
"""

from __future__ import annotations

import argparse
import datetime
import json
import shlex
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from atari_baseline import head_commit, machine  # noqa: E402

from gorila.agent import distributional  # noqa: E402
from gorila.agent.heads import build_distributional_network  # noqa: E402
from gorila.agent.networks import build_q_network, num_parameters  # noqa: E402
from gorila.config import build_config  # noqa: E402
from gorila.experiments.bench.common import bare_train_step  # noqa: E402
from gorila.messages import EnvInfo  # noqa: E402

NETWORKS = ("nature_cnn", "impala_cnn")
SHAPE, ACTIONS, BATCH = (4, 84, 84), 6, 32  # Pong's action set
ATARI = EnvInfo(SHAPE, "uint8", ACTIONS, frame_shape=(84, 84), stack=4, frames_per_step=4, is_atari=True)


def dqn_step(network: str):
    """`gorila bench`'s plain DQN update (the atari preset's RMSProp, batch 32) on `network`."""
    factory = lambda obs_shape, num_actions: build_q_network(network, obs_shape, num_actions)
    return bare_train_step(build_config("atari", overrides={"network": factory}), ATARI, "cpu")


def c51_step(network: str):
    """Rainbow's update on one fixed batch: C51 with dueling over atoms and the double-DQN choice (Adam)."""
    torch.manual_seed(0)
    online = build_distributional_network(network, SHAPE, ACTIONS, dueling=True)
    target = build_distributional_network(network, SHAPE, ACTIONS, dueling=True).requires_grad_(False)
    optimizer = torch.optim.Adam(online.parameters(), lr=6.25e-5, eps=1.5e-4)
    atoms = distributional.support()
    layout = torch.channels_last
    obs = torch.randint(0, 256, (BATCH, *SHAPE), dtype=torch.uint8).contiguous(memory_format=layout)
    next_obs = torch.randint(0, 256, (BATCH, *SHAPE), dtype=torch.uint8).contiguous(memory_format=layout)
    actions = torch.randint(0, ACTIONS, (BATCH,))
    rewards, discounts = torch.zeros(BATCH), torch.full((BATCH,), 0.99**3)

    def step() -> int:
        with torch.no_grad():
            targets = distributional.categorical_targets(rewards, discounts, target(next_obs), atoms, online(next_obs))
        loss = distributional.categorical_loss(online(obs), actions, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss.item()
        return 1

    return step


def measure(repeats: int, warmup: int) -> dict[str, list[float]]:
    """The seconds of each setup's timed updates, the setups taking turns."""
    makers = (("dqn", dqn_step), ("c51", c51_step))
    return take_turns(
        {f"{kind} {network}": make(network) for kind, make in makers for network in NETWORKS}, repeats, warmup
    )


def take_turns(steps: dict, repeats: int, warmup: int) -> dict[str, list[float]]:
    """The seconds of each of `steps`' timed calls, one call of each in turn (after `warmup` rounds), so
    that a load coming and going on the machine falls on all alike."""
    times = {name: [] for name in steps}
    for round_ in range(warmup + repeats):
        for name, step in steps.items():
            start = time.perf_counter()
            step()
            if round_ >= warmup:
                times[name].append(time.perf_counter() - start)
    return times


def timings(times: dict[str, list[float]]) -> tuple[dict, dict]:
    """Each setup's median and quartiles in ms: the medians unrounded, and both as a result file shows them."""
    medians = {name: 1000 * statistics.median(seconds) for name, seconds in times.items()}
    shown = {
        "median_ms": {name: round(ms, 1) for name, ms in medians.items()},
        "quartiles_ms": {
            name: [round(1000 * q, 1) for q in statistics.quantiles(seconds, n=4)[::2]]
            for name, seconds in times.items()
        },
    }
    return medians, shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    times = measure(args.repeats, args.warmup)
    medians, shown = timings(times)
    result = {
        "command": "nice -n 19 python " + shlex.join(["benchmarks/network_costs.py", *sys.argv[1:]]),
        "commit": head_commit(),
        "machine": machine(),
        "date": datetime.date.today().isoformat(),
        "torch": torch.__version__,
        "threads": args.threads,
        "batch": BATCH,
        "timed_updates": args.repeats,
        "note": args.note,
        "parameters": {
            network: {
                "dqn": num_parameters(build_q_network(network, SHAPE, ACTIONS)),
                "c51": num_parameters(build_distributional_network(network, SHAPE, ACTIONS, dueling=True)),
            }
            for network in NETWORKS
        },
        **shown,
        "impala_over_nature": {
            kind: round(medians[f"{kind} impala_cnn"] / medians[f"{kind} nature_cnn"], 2) for kind in ("dqn", "c51")
        },
        "c51_over_dqn": {
            network: round(medians[f"c51 {network}"] / medians[f"dqn {network}"], 2) for network in NETWORKS
        },
    }
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
