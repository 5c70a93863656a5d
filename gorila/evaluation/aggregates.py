"""Aggregate scores over a suite's runs with their uncertainty, as Agarwal et al. (2021, "Deep RL at the
Edge of the Statistical Precipice") recommend and their library rliable computes them.

A score matrix has shape [runs, games]: scores[n, m] is the normalised score of run n on game m (a run
is one seed of the suite). The aggregates:

- interquartile mean (IQM): the mean of the middle 50% of all runs x games, a 25% trimmed mean over the
  whole matrix (rliable's `aggregate_iqm`, scipy's `trim_mean(..., 0.25, axis=None)`);
- median: the median over games of each game's mean over runs (`aggregate_median`);
- mean: the mean over games of each game's mean over runs (`aggregate_mean`);
- performance profile (score distribution): for each threshold tau, the fraction of all runs x games
  whose score is above tau (`run_score_deviation`).

Their uncertainty is a 95% percentile interval of the stratified bootstrap: each resample draws the runs
of every game with replacement, independently per game (the games are the strata and are all kept), as
rliable's `StratifiedBootstrap` does without task bootstrap; 2,000 resamples from a fixed seed, so that a
report is the same every time it is made. The functions take a matrix or a stack of them [..., runs,
games], which is how the resamples are measured at once.
"""

from __future__ import annotations

import numpy as np

CONFIDENCE = 0.95
RESAMPLES = 2_000
SEED = 0
TRIM = 0.25  # the IQM leaves out the lowest and the highest quarter of the scores


def score_matrix(scores) -> np.ndarray:
    """`scores` as a float array [runs, games] of finite numbers, at least one of each; else ValueError."""
    matrix = np.asarray(scores, dtype=float)
    if matrix.ndim != 2 or 0 in matrix.shape:
        raise ValueError(f"scores must be a matrix [runs, games] with at least one of each, got shape {matrix.shape}")
    if not np.isfinite(matrix).all():
        raise ValueError("scores must be finite numbers")
    return matrix


def iqm(scores) -> np.ndarray | float:
    """Interquartile mean: the 25% trimmed mean of all runs x games together (per matrix of a stack)."""
    flat = np.sort(np.reshape(scores, (*np.shape(scores)[:-2], -1)), axis=-1)
    cut = int(TRIM * flat.shape[-1])  # as scipy's trim_mean: whole scores only, rounded down
    return flat[..., cut : flat.shape[-1] - cut].mean(axis=-1)


def median(scores) -> np.ndarray | float:
    """Median over games of each game's mean score over runs."""
    return np.median(np.mean(scores, axis=-2), axis=-1)


def mean(scores) -> np.ndarray | float:
    """Mean over games of each game's mean score over runs."""
    return np.mean(np.mean(scores, axis=-2), axis=-1)


AGGREGATES = {"IQM": iqm, "median": median, "mean": mean}


def stratified_resamples(scores, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """`resamples` bootstrap copies [resamples, runs, games] of a score matrix: in each, every game's
    runs are drawn with replacement from that game's own runs, independently of the other games."""
    matrix = score_matrix(scores)
    runs, games = matrix.shape
    picks = np.random.default_rng(seed).integers(0, runs, size=(resamples, runs, games))
    return matrix[picks, np.arange(games)]


def interval(estimates: np.ndarray, confidence: float = CONFIDENCE) -> tuple:
    """The percentile interval of bootstrap estimates (along their first axis): (low, high)."""
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(estimates, [tail, 100 - tail], axis=0)
    return low, high


def aggregates(scores, resamples: int = RESAMPLES, seed: int = SEED, confidence: float = CONFIDENCE) -> dict:
    """{'IQM' | 'median' | 'mean': {'estimate', 'low', 'high'}}: each aggregate of the score matrix and
    its stratified bootstrap interval (the three measured on the same resamples)."""
    matrix = score_matrix(scores)
    stack = stratified_resamples(matrix, resamples, seed)
    out = {}
    for name, aggregate in AGGREGATES.items():
        low, high = interval(aggregate(stack), confidence)
        out[name] = {"estimate": float(aggregate(matrix)), "low": float(low), "high": float(high)}
    return out


def performance_profile(scores, taus) -> np.ndarray:
    """For each tau of `taus`, the fraction of all runs x games with a score above tau (per matrix of a stack)."""
    scores = np.asarray(scores, dtype=float)
    # a tau at a time: all taus at once would hold resamples x runs x games x taus booleans
    return np.stack([np.mean(scores > tau, axis=(-2, -1)) for tau in np.asarray(taus, dtype=float)], axis=-1)


def profile_with_band(
    scores, taus, resamples: int = RESAMPLES, seed: int = SEED, confidence: float = CONFIDENCE
) -> dict:
    """{'taus', 'profile', 'low', 'high'}: the performance profile at `taus` and its stratified bootstrap
    interval at each tau."""
    matrix = score_matrix(scores)
    low, high = interval(performance_profile(stratified_resamples(matrix, resamples, seed), taus), confidence)
    return {
        "taus": np.asarray(taus, dtype=float),
        "profile": performance_profile(matrix, taus),
        "low": low,
        "high": high,
    }
