"""Published Atari scores and the paper's normalisations (Nair et al., 2015, tables 2-3).

The paper's 49 games and their published scores are in `atari_scores.tsv` next to this module. Its
slugs use hyphens (`space-invaders`); ale-py names the same ROMs with underscores (`space_invaders`),
and that is the only difference for all 49 games, so `ATARI_GAMES` holds the ale-py names. Importing
this module costs no torch, Ray or Gymnasium.

Each evaluation protocol has its own reference columns:

- `noop` (up to 30 null-op starts): random, human, DQN (Nature) and Gorila;
- `human-starts` (start points sampled from human play): the `_hs` columns;
- `machado` (sticky actions; Machado et al., 2018) has no published Gorila or DQN column here: its
  scores are normalised against the null-op columns and say so (`reference_protocol`).

Normalised score = 100 * (score - random) / (reference - random), so 0 is random play and 100 the
reference. The paper counts a game "above DQN" when Gorila's score beats DQN's, and "at human level"
when the human-normalised score is at least 75%.
"""
from __future__ import annotations

import csv
import functools
import statistics
from importlib import resources

from gorila.envs import EnvError, resolve_env
from gorila.evaluation.protocols import PROTOCOL_NAMES

HUMAN_LEVEL = 75.0          # percent of human, the paper's threshold
_COLUMNS = {"noop": {"random": "random", "human": "human", "dqn": "dqn_nature", "gorila": "gorila"},
            "human-starts": {"random": "random_hs", "human": "human_hs", "dqn": "dqn_hs", "gorila": "gorila_hs"}}
PUBLISHED_PROTOCOLS = tuple(_COLUMNS)      # the protocols with published columns of their own


@functools.lru_cache(maxsize=1)
def _score_table() -> dict[str, dict[str, float]]:
    """Rows of atari_scores.tsv keyed by ale-py game name, in file order."""
    text = resources.files(__package__).joinpath("atari_scores.tsv").read_text()
    rows = csv.DictReader(text.splitlines(), delimiter="\t")
    return {row.pop("game").replace("-", "_"): {k: float(v) for k, v in row.items()} for row in rows}


ATARI_GAMES: tuple[str, ...] = tuple(_score_table())


def reference_scores(game: str) -> dict[str, float]:
    """Random, human, DQN and Gorila scores of one of the paper's 49 games (any spelling)."""
    spec = resolve_env(game)
    table = _score_table()
    if spec.kind != "atari" or spec.game not in table:
        raise EnvError(f"no reference scores for '{game}': it is not one of the paper's 49 Atari games")
    return dict(table[spec.game])


def reference_protocol(protocol: str) -> str:
    """The protocol whose published columns `protocol`'s scores are compared with."""
    if protocol not in PROTOCOL_NAMES:
        raise ValueError(f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOL_NAMES)}")
    return protocol if protocol in PUBLISHED_PROTOCOLS else "noop"


def published(game: str, protocol: str) -> dict[str, float]:
    """random, human, dqn and gorila scores of `game` for the reference columns of `protocol`."""
    row = reference_scores(game)
    return {name: float(row[column]) for name, column in _COLUMNS[reference_protocol(protocol)].items()}


def normalise(score: float, random: float, reference: float) -> float | None:
    """100 * (score - random) / (reference - random): 0 is random play, 100 the reference; None where
    the reference scored the same as random play (DQN on Montezuma's Revenge: no scale to measure on)."""
    if reference == random:
        return None
    return 100.0 * (score - random) / (reference - random)


def normalised_scores(game: str, score: float, protocol: str) -> dict:
    """Human- and DQN-normalised `score`, with the published numbers they were taken against."""
    ref = published(game, protocol)
    return {"reference_protocol": reference_protocol(protocol), "published": ref,
            "human_normalised": normalise(score, ref["random"], ref["human"]),
            "dqn_normalised": normalise(score, ref["random"], ref["dqn"]),
            "gorila_paper_normalised": normalise(score, ref["random"], ref["gorila"])}


def paper_game(env) -> str | None:
    """The ale-py name of one of the paper's 49 games for an env name or spec, else None."""
    try:
        spec = resolve_env(env)
    except EnvError:
        return None
    return spec.game if spec.kind == "atari" and spec.game in ATARI_GAMES else None


def suite_summary(scores: dict[str, float], protocol: str) -> dict:
    """The paper's aggregate figures over games {ale-py name: score}.

    games_above_dqn: games whose score beats DQN's published score under the same protocol;
    games_at_human_level: games at >= 75% of human (human-normalised);
    median and mean human-normalised score.
    """
    rows = {game: normalised_scores(game, score, protocol) for game, score in scores.items()}
    human = [row["human_normalised"] for row in rows.values()]
    return {"protocol": protocol, "games": len(rows),
            "games_above_dqn": sum(scores[g] > rows[g]["published"]["dqn"] for g in rows),
            "games_at_human_level": sum(h >= HUMAN_LEVEL for h in human),
            "median_human_normalised": statistics.median(human) if human else None,
            "mean_human_normalised": statistics.mean(human) if human else None}
