"""An evaluation kept as JSON (`gorila evaluate --json`, RUN/evaluations, a suite's results): its
figures named as the Python API's `Evaluation` names them (return_mean, return_std, episodes,
returns). A run's metrics.jsonl, where they sit beside the training episodes' own return_mean,
prefixes them with eval_."""

from __future__ import annotations

import json
from pathlib import Path

FILE_NAMES = {
    "eval_return_mean": "return_mean",
    "eval_return_std": "return_std",
    "eval_episodes": "episodes",
    "eval_returns": "returns",
}


def as_evaluation(result: dict) -> dict:
    """`result` with the evaluator's metric names (eval_return_mean, ...) as an evaluation names them
    (return_mean, ...); a file written under the metric names reads as a new one."""
    return {FILE_NAMES.get(key, key): value for key, value in result.items()}


def load_evaluation(path) -> dict:
    """The evaluation kept in the JSON file `path`."""
    return as_evaluation(json.loads(Path(path).read_text()))
