"""Confidence intervals for the rates and means in the reports.

Wilson intervals for proportions (successes may be fractional, e.g. tie shares), and a percentile
bootstrap for means. The bootstrap resamples the counts of distinct values (a multinomial draw), which
is the same distribution as resampling the values one by one but costs O(n_boot * distinct values), so
it stays fast on a million integer scores. resampled_sums does the same for rows of several columns
(e.g. per-game or per-deal totals), from which ratio_ci and paired differences are built.
"""

import numpy as np
import polars as pl

Z_95 = 1.959963984540054
_MAX_CELLS = 4_000_000  # largest (resamples x distinct values) block drawn at once


def wilson(successes, n, z: float = Z_95):
    """Wilson score interval for a proportion successes / n.

    Works on scalars or numpy arrays (elementwise). `successes` may be fractional (a tie shared by k
    players counts 1/k). Where n == 0 there is no information and the interval is (0, 1), the limit of
    the formula as n -> 0. Returns (lo, hi), clipped to [0, 1]."""
    successes = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    safe_n = np.where(n > 0, n, 1.0)
    p = np.clip(successes / safe_n, 0.0, 1.0)
    z2_n = z * z / safe_n
    centre = (p + z2_n / 2) / (1 + z2_n)
    half = z * np.sqrt(p * (1 - p) / safe_n + z2_n / (4 * safe_n)) / (1 + z2_n)
    # min / max guard against rounding at p = 0 or 1: the interval always contains p
    lo = np.where(n > 0, np.clip(np.minimum(centre - half, p), 0.0, 1.0), 0.0)
    hi = np.where(n > 0, np.clip(np.maximum(centre + half, p), 0.0, 1.0), 1.0)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def with_wilson(frame: pl.DataFrame, successes: str, trials: str) -> pl.DataFrame:
    """frame plus columns lo and hi: the Wilson interval of its columns successes / trials, row by row."""
    lo, hi = wilson(frame[successes].to_numpy(), frame[trials].to_numpy())
    return frame.with_columns(lo=pl.Series(lo, dtype=pl.Float64), hi=pl.Series(hi, dtype=pl.Float64))


def bootstrap_mean_ci(values, n_boot: int = 2000, seed: int = 0, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval for the mean of `values`.

    Returns (nan, nan) for an empty sample. Deterministic for a given seed."""
    values = np.asarray(values, dtype=float).ravel()
    if values.size == 0:
        return float("nan"), float("nan")
    means = resampled_sums(values[:, None], n_boot, seed)[:, 0] / values.size
    tail = (1 - level) / 2
    lo, hi = np.quantile(means, [tail, 1 - tail])
    return float(lo), float(hi)


def resampled_sums(units: np.ndarray, n_boot: int = 2000, seed: int = 0) -> np.ndarray:
    """Column sums of n_boot bootstrap resamples of the rows of units (n, k): an (n_boot, k) array.

    A resample draws n rows with replacement; like bootstrap_mean_ci it draws multinomial
    counts of the distinct rows, so it is fast when rows repeat (small integer counts do)."""
    distinct, counts = distinct_rows(np.asarray(units, dtype=float))
    n = int(counts.sum())
    rng = np.random.default_rng(seed)
    block = max(1, _MAX_CELLS // len(distinct))
    sums = [
        rng.multinomial(n, counts / n, size=min(block, n_boot - start)) @ distinct for start in range(0, n_boot, block)
    ]
    return np.concatenate(sums)


def distinct_rows(units: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(units, axis=0, return_counts=True), the same rows in the same order, by sorting the columns
    (lexsort) rather than rows as records, which was most of the report's time."""
    if len(units) == 0:
        return units, np.zeros(0, np.int64)
    ordered = units[np.lexsort(units.T[::-1])]
    starts = np.flatnonzero(np.concatenate([[True], (ordered[1:] != ordered[:-1]).any(axis=1)]))
    return ordered[starts], np.diff(np.append(starts, len(ordered)))


def ratio_ci(numerator, denominator, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval for sum(numerator) / sum(denominator), resampling the paired units."""
    units = np.column_stack([np.asarray(numerator, float), np.asarray(denominator, float)])
    if units.shape[0] == 0:
        return float("nan"), float("nan")
    sums = resampled_sums(units, seed=seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = sums[:, 0] / sums[:, 1]
    lo, hi = np.nanquantile(ratios, [0.025, 0.975])
    return float(lo), float(hi)
