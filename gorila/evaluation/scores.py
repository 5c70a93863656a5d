"""Published Atari scores and the paper's normalisations (Nair et al., 2015, tables 2-3).

The paper's 49 games and their published scores are in `atari_scores.tsv` next to this module. Its
slugs use hyphens (`space-invaders`); ale-py names the same ROMs with underscores (`space_invaders`),
and that is the only difference for all 49 games, so `ATARI_GAMES` holds the ale-py names. Importing
this module costs no torch, Ray or Gymnasium.

Each evaluation protocol has its own reference columns:

- `noop` (up to 30 null-op starts): random, human, DQN (Nature) and Gorila;
- `human-starts` (start points sampled from human play): the `_hs` columns; a score from start points
  that were not recorded from human play is compared with them with a warning (`start_points_warning`);
- `machado` (sticky actions; Machado et al., 2018) has no published Gorila or DQN column here: its
  scores are normalised against the null-op columns and say so (`reference_protocol`).

Normalised score = 100 * (score - random) / (reference - random), so 0 is random play and 100 the
reference. The paper counts a game "above DQN" when Gorila's score beats DQN's, "at human level" when
it reaches 75% of human, and "double" / "5 times" DQN's score.

A reference at or below random play. Under human starts the published human score of Video Pinball
(15,641) is below random play's (20,452), and DQN scored below random play on seven games (Asterix,
Asteroids, Double Dunk, Gravitar, Private Eye, Video Pinball, Wizard of Wor). The normalised score
keeps the plain formula (the published medians and means are taken so: 71.3% / 215.2% for Gorila,
47.5% / 122.2% for DQN under human starts), but against such a reference its sign is inverted and
`references_at_or_below_random` names it. The counts compare improvements over random play instead
(`reaches`): a score reaches `f` times a reference when it beats random play and
score - random >= f * (reference - random); against a reference at or below random play any score
above random play reaches it. "At human level" is f = 0.75 of human, "double" and "5 times" DQN are
f = 2 and 5. On the published Gorila human-start scores this gives the paper's counts: 25 games at
human level (24 by the normalised score, which puts Video Pinball at -1,905%), 22 at double and 11 at
5 times DQN (15 and 4 where DQN beat random play, and all seven where it did not; the ratio of raw
scores gives 19 and 11).
"""

from __future__ import annotations

import csv
import functools
import statistics
from importlib import resources

from gorila.envs import EnvError, resolve_env
from gorila.evaluation.protocols import PROTOCOL_NAMES
from gorila.evaluation.start_points import HUMAN_PLAY

HUMAN_LEVEL = 75.0  # percent of human, the paper's threshold
DQN_MULTIPLES = (2, 5)  # "double" and "5 times" DQN's score, the paper's other counts
_COLUMNS = {
    "noop": {"random": "random", "human": "human", "dqn": "dqn_nature", "gorila": "gorila"},
    "human-starts": {"random": "random_hs", "human": "human_hs", "dqn": "dqn_hs", "gorila": "gorila_hs"},
}
PUBLISHED_PROTOCOLS = tuple(_COLUMNS)  # the protocols with published columns of their own


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


def reaches(score: float, random: float, reference: float, fraction: float = 1.0) -> bool:
    """Whether `score` improves on random play by at least `fraction` of `reference`'s improvement:
    score > random and score - random >= fraction * (reference - random). Against a reference at or
    below random play (nothing to improve on) any score above random play reaches it."""
    return score > random and score - random >= fraction * (reference - random)


def at_human_level(score: float, random: float, human: float) -> bool:
    """The paper's "at human level": `score` reaches 75% of human (see `reaches`)."""
    return reaches(score, random, human, HUMAN_LEVEL / 100.0)


def normalised_scores(game: str, score: float, protocol: str) -> dict:
    """Human- and DQN-normalised `score`, with the published numbers they were taken against, the
    references whose normalised score has its sign inverted and whether `score` is at human level."""
    ref = published(game, protocol)
    return {
        "reference_protocol": reference_protocol(protocol),
        "published": ref,
        "human_normalised": normalise(score, ref["random"], ref["human"]),
        "dqn_normalised": normalise(score, ref["random"], ref["dqn"]),
        "gorila_paper_normalised": normalise(score, ref["random"], ref["gorila"]),
        "references_at_or_below_random": [name for name in ("human", "dqn", "gorila") if ref[name] <= ref["random"]],
        "at_human_level": at_human_level(score, ref["random"], ref["human"]),
    }


def start_points_warning(protocol: str, source: str | None) -> str | None:
    """The one-line warning due where a score is compared with the paper's human-start columns although
    its start points (`start_points.start_points_source`) were not recorded from human play; else None."""
    if reference_protocol(protocol) != "human-starts" or source == HUMAN_PLAY:
        return None
    return (
        f"start points not recorded from human play ({source or 'unknown'}): the paper's human-start scores "
        "began at human experts' states, so this score is not comparable with them"
    )


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
    games_at_2x_dqn, games_at_5x_dqn: games at double and 5 times DQN's score (see `reaches`);
    games_at_human_level: games at >= 75% of human (see `reaches`);
    median and mean human-normalised score (the plain formula, as published).
    """
    refs = {game: published(game, protocol) for game in scores}
    human = [normalise(scores[g], ref["random"], ref["human"]) for g, ref in refs.items()]
    human = [h for h in human if h is not None]
    multiples = {
        f"games_at_{x}x_dqn": sum(reaches(scores[g], ref["random"], ref["dqn"], x) for g, ref in refs.items())
        for x in DQN_MULTIPLES
    }
    return {
        "protocol": protocol,
        "games": len(refs),
        "games_above_dqn": sum(scores[g] > ref["dqn"] for g, ref in refs.items()),
        **multiples,
        "games_at_human_level": sum(at_human_level(scores[g], ref["random"], ref["human"]) for g, ref in refs.items()),
        "median_human_normalised": statistics.median(human) if human else None,
        "mean_human_normalised": statistics.mean(human) if human else None,
    }
