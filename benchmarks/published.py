"""Published results, rendered from their files: every number the README and the results pages show
between `<!-- results:begin NAME -->` and `<!-- results:end NAME -->` is written by the block function
NAME of `BLOCKS`, from the compiled files under `benchmarks/baselines/` and the
benchmarks' measurements under `benchmarks/results/`, never typed.

Usage: python benchmarks/published.py [--check] [--root DIR]
  without --check: rewrites every block in place;
  --check: changes nothing, exits 1 naming each block whose text differs from what its files give.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path

import published_atari as atari
import published_cartpole as cartpole
import published_minatar as minatar

BLOCKS = {  # a block's name in the pages: the function that writes it, given the repository's root
    "cartpole": cartpole.cartpole,
    "cartpole-speed": cartpole.cartpole_speed,
    "faults": cartpole.faults,
    "faults-table": cartpole.faults_table,
    "minatar": minatar.minatar,
    "minatar-dqn": minatar.minatar_dqn,
    "pqn": minatar.pqn,
    "pqn-reference": minatar.pqn_reference,
    "rainbow-minatar": minatar.rainbow_minatar,
    "pong": atari.pong,
    "pong-replay500k": atari.pong_replay500k,
    "pong-seeds": atari.pong_seeds,
    "pong-ladder-marks": atari.pong_ladder_marks,
    "pong-first-marks": atari.pong_first_marks,
    "h200": atari.h200,
    "outlier-filter": atari.outlier_filter,
}

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("README.md", "docs/results.md", "docs/guides/failures.md")  # the pages that hold blocks
BLOCK = re.compile(r"(<!-- results:begin (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- results:end (?P=name) -->)", re.S)


def block_text(name: str, root: Path) -> str:
    """What a block holds between its markers: its function's text, set off by blank lines (so that
    Markdown reads a table or a list inside it as one)."""
    if name not in BLOCKS:
        raise KeyError(f"no block function named {name!r} (published.BLOCKS)")
    return "\n" + BLOCKS[name](root).strip("\n") + "\n\n"


def rendered(text: str, root: Path) -> str:
    """The page `text` with every block's body replaced by what its files give."""
    return BLOCK.sub(lambda m: m.group(1) + block_text(m.group("name"), root) + m.group(4), text)


def differences(text: str, root: Path, page: str) -> list[str]:
    """A short diff for each block of `text` that is out of date, headed by the page and the block."""
    out = []
    for match in BLOCK.finditer(text):
        want = block_text(match.group("name"), root)
        if match.group("body") != want:
            diff = difflib.unified_diff(
                match.group("body").splitlines(), want.splitlines(), "as written", "from its files", n=0, lineterm=""
            )
            out.append(f"{page}: block {match.group('name')} is out of date:\n" + "\n".join(list(diff)[:20]))
    return out


def check(root: Path) -> list[str]:
    """Every out-of-date block of the pages under `root`, as `differences` words it; none when all agree."""
    return [line for page in PAGES for line in differences((root / page).read_text(), root, page)]


def write(root: Path) -> list[str]:
    """Renders every block of the pages under `root` in place; returns the pages it changed."""
    changed = []
    for page in PAGES:
        path = root / page
        text = path.read_text()
        if (new := rendered(text, root)) != text:
            path.write_text(new)
            changed.append(page)
    return changed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 where a block is out of date")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository whose pages and files to use")
    args = parser.parse_args(argv)
    if args.check:
        stale = check(args.root)
        print("\n\n".join(stale) if stale else f"results: every block of {', '.join(PAGES)} agrees with its files")
        return 1 if stale else 0
    changed = write(args.root)
    print(f"results: rewrote {', '.join(changed)}" if changed else "results: every block already agreed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
