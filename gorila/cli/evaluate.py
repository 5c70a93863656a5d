"""`gorila evaluate`: a checkpoint's score under an evaluation protocol."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gorila.evaluation.protocols import PROTOCOL_NAMES

EXAMPLES = """examples:
  gorila evaluate runs/Pong-20261129-120000 --episodes 30     # loads best.pt
  gorila evaluate runs/Pong-20261129-120000 --protocol machado --json score.json
  gorila evaluate runs/Pong-20261129-120000 --protocol human-starts \\
      --starts starts/Pong.json"""


def add_parser(commands, argv: list[str]) -> None:
    """`gorila evaluate PATH`: the protocol, start points, frame cap, episodes, epsilon, seed and JSON file."""
    evaluate = commands.add_parser(
        "evaluate",
        help="evaluate a checkpoint under an evaluation protocol",
        description="Play a checkpoint's greedy policy under an evaluation protocol "
        "and print its mean score (and normalised scores for Atari).",
        epilog=EXAMPLES,
    )
    evaluate.add_argument("path", help="run directory (its best checkpoint, else its latest) or checkpoint file")
    evaluate.add_argument(
        "--protocol",
        choices=PROTOCOL_NAMES,
        default=None,
        help="noop: up to 30 no-ops, 18,000 frames; human-starts: from --starts points, "
        "108,000 frames; machado: sticky actions 0.25, 18 actions, 108,000 frames "
        "(default: machado for a run trained with sticky actions, else noop)",
    )
    evaluate.add_argument("--starts", metavar="FILE", help="start points for human-starts (gorila record-starts)")
    evaluate.add_argument(
        "--max-frames", type=int, default=None, help="frame cap per episode (default: the protocol's)"
    )
    evaluate.add_argument(
        "--episodes",
        type=int,
        default=None,
        help="episodes (default: one per start point, else the run's eval_episodes)",
    )
    evaluate.add_argument(
        "--epsilon",
        type=float,
        default=None,
        help="exploration rate (default: DQN's 0.05 under every Atari protocol, else the run's eval_epsilon)",
    )
    evaluate.add_argument("--seed", type=int, default=None, help="evaluation seed")
    evaluate.add_argument(
        "--json",
        metavar="FILE",
        help="also write the result as JSON (the evaluation of a run's "
        "checkpoint is kept in RUN/evaluations in any case)",
    )


def run(args) -> int:
    """Evaluate, print the mean score (and the normalised scores of an Atari game), keep the result in the
    checkpoint's run (what `gorila report RUN` shows), write `--json`; 0."""
    from gorila.evaluation.checkpoint_evaluation import evaluate_checkpoint, run_of

    result = evaluate_checkpoint(
        args.path,
        episodes=args.episodes,
        epsilon=args.epsilon,
        seed=args.seed,
        protocol=args.protocol,
        starts=args.starts,
        max_frames=args.max_frames,
        say=lambda line: print(line, flush=True),
    )
    print(f"checkpoint: {result['checkpoint']}")
    if result["version_note"]:
        print(f"gorila: note: {result['version_note']}", file=sys.stderr, flush=True)
    print(
        f"{result['env']}: mean {result['return_mean']:.2f} +/- {result['return_std']:.2f} over "
        f"{result['episodes']} episodes ({result['protocol'] + ', ' if result['atari'] else ''}epsilon "
        f"{result['epsilon']:g}, {result['env_frames']:,} training frames, {result['wall_seconds']:.1f} s)"
    )
    if result.get("normalised"):
        dqn = "-" if result["dqn_normalised"] is None else f"{result['dqn_normalised']:.1f}%"
        print(
            f"human-normalised {result['human_normalised']:.1f}%, DQN-normalised {dqn} "
            f"(published {result['normalised']['reference_protocol']} scores){_inverted(result['normalised'])}"
        )
    if result.get("normalised") and result["normalised"]["warning"]:
        print(f"gorila: warning: {result['normalised']['warning']}", file=sys.stderr, flush=True)
    if (run_dir := run_of(args.path)) is not None:
        _keep(result, run_dir)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


def _keep(result: dict, run_dir) -> None:
    """Save the result in the run; a run that cannot be written to (read-only, a full disk) only loses it."""
    from gorila.evaluation.checkpoint_evaluation import save_evaluation

    try:
        print(f"saved: {save_evaluation(result, run_dir)} (what `gorila report {run_dir}` shows)")
    except OSError as error:
        print(f"gorila: warning: the evaluation is not kept in {run_dir}: {error}", file=sys.stderr, flush=True)


SOURCE_NAMES = {"human": "human", "dqn": "DQN", "gorila": "Gorila"}


def _inverted(normalised: dict) -> str:
    """A note where a published score is at or below random play's: its normalised score's sign is inverted."""
    names = [SOURCE_NAMES[name] for name in normalised.get("references_at_or_below_random") or []]
    if not names:
        return ""
    level = "at" if normalised["at_human_level"] else "below"
    scores = "score is" if len(names) == 1 else "scores are"
    return (
        f"; the published {' and '.join(names)} {scores} at or below random play's, so normalised against "
        f"{'it' if len(names) == 1 else 'them'} the sign is inverted ({level} human level as the paper counts)"
    )
