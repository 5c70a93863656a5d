"""What every published block reads its numbers with (`published.py`): a committed file by its path
from the repository's root, and the few ways the pages write a number."""

from __future__ import annotations

import json
from pathlib import Path


def load(root: Path, path: str) -> dict:
    return json.loads((root / path).read_text())


def millions(frames: float) -> str:
    return f"{frames / 1e6:.2f}M"


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f}"


def indented(lines: list[str]) -> list[str]:
    """Lines as the continuation of a list item (two spaces in)."""
    return [f"  {line}" if line else "" for line in lines]
