"""`gorila record-starts`: record start points for `gorila evaluate --protocol human-starts`."""

from __future__ import annotations

EXAMPLES = """examples:
  gorila record-starts --env Pong --out starts/Pong.json         # random play
  gorila record-starts --env Pong --out starts/Pong.json --checkpoint runs/Pong
  gorila record-starts --env Pong --out starts/Pong.json --trajectory game.json"""


def add_parser(commands, argv: list[str]) -> None:
    """`gorila record-starts --env GAME --out FILE`: the count, the source of play (a trajectory file,
    the keyboard or a checkpoint; else random play), the games played and the seed."""
    record = commands.add_parser(
        "record-starts",
        help="record start points for --protocol human-starts",
        description="Record start points (states reached by play, saved as a seed and "
        "actions) for `gorila evaluate --protocol human-starts`.",
        epilog=EXAMPLES,
    )
    record.add_argument("--env", required=True, help="Atari game (Pong, ALE/Pong-v5, ...)")
    record.add_argument("--out", required=True, metavar="FILE", help="start-point file to write (JSON)")
    record.add_argument("--count", type=int, default=100, help="start points (default 100, as in the paper)")
    source = record.add_mutually_exclusive_group()
    source.add_argument(
        "--trajectory",
        metavar="FILE",
        action="append",
        help="JSON/NPZ of ALE actions from reset (repeatable; README: Start points)",
    )
    source.add_argument("--human", action="store_true", help="play with the keyboard (needs a display)")
    source.add_argument(
        "--checkpoint", metavar="RUN", help="a trained agent plays (epsilon 0.05): a run directory or a checkpoint file"
    )
    record.add_argument("--games", type=int, default=1, help="games the agent or random play plays (default 1)")
    record.add_argument("--seed", type=int, default=0, help="seed of play and of the choice of start points")


def run(args) -> int:
    """Record the start points, print how many, of which game, from how far in, and where; 0."""
    from gorila.evaluation.start_recording import record_starts

    done = record_starts(
        args.env, args.out, args.count, args.trajectory, args.human, args.checkpoint, args.seed, args.games
    )
    print(
        f"{done['count']} start points of {done['game']} ({done['source']} play, {min(done['frames']):,}-"
        f"{max(done['frames']):,} frames in): {done['out']}"
    )
    return 0
