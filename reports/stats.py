"""Confidence intervals for the rates and means in the reports.

Wilson intervals for proportions (successes may be fractional, e.g. tie shares), a percentile bootstrap for
means, and paired intervals (paired_ratio, paired_difference): a cluster bootstrap over deals (matches in match
mode), since the games of one deal are correlated. The bootstrap resamples the counts of distinct values (a
multinomial draw), which is the same distribution as resampling the values one by one but costs
O(n_boot * distinct values), so it stays fast on a million integer scores. resampled_sums does the same for rows
of several columns (e.g. per-game or per-deal totals), from which ratio_ci and paired differences are built.
"""

import warnings

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



# ---------------------------------------------------------------- paired intervals over clusters of games
# Rows of one game, and the games of one deal (every deal is played under every seating: common random numbers),
# are not independent. The unit of resampling is the cluster, the deal or in match mode the match; every group of
# one call is resampled with the same draw of clusters, so that differences between groups keep their pairing.

WIN = pl.col("win")
MIN_CLUSTERS = 10  # fewer deals (matches) than this give no bootstrap interval: the resamples cannot vary enough
CLUSTER_COLUMN = {"match": "match_id", "deal": "deal"}


def cluster_unit(rows: pl.DataFrame) -> str:
    """What a cluster is in these rows: "match" in match mode (a match_id column, filled), else "deal"."""
    return "match" if "match_id" in rows.columns and rows["match_id"].null_count() == 0 else "deal"


def clusters(rows: pl.DataFrame) -> np.ndarray:
    """The cluster of every row: its match_id in match mode, else its deal."""
    return rows[CLUSTER_COLUMN[cluster_unit(rows)]].to_numpy()


def bootstrap_method(rows: pl.DataFrame, n_boot: int) -> str:
    """The method text of a cluster bootstrap of these rows."""
    unit = {"match": "matches", "deal": "deals"}[cluster_unit(rows)]
    too_few = len(np.unique(clusters(rows))) < MIN_CLUSTERS
    few = f"; no interval from fewer than {MIN_CLUSTERS} {unit}" if too_few else ""
    return (f"cluster bootstrap over {unit} ({n_boot} resamples, the same draw for every group; a k-way tie's 1/k "
            f"of a win is summed as it is){few}")


def columns(rows: pl.DataFrame, *exprs: pl.Expr) -> list[np.ndarray]:
    """Expressions over the rows, as floats (a mask gives 0 and 1; a literal is broadcast)."""
    zeros = pl.repeat(0.0, pl.len())
    frame = rows.select((zeros + expr.cast(pl.Float64)).alias(str(i)) for i, expr in enumerate(exprs))
    return [series.to_numpy() for series in frame.get_columns()]


def cluster_codes(rows: pl.DataFrame) -> tuple[np.ndarray, int]:
    """Every row's cluster as a code 0..n-1, and n."""
    distinct, codes = np.unique(clusters(rows), return_inverse=True)
    return codes.ravel(), len(distinct)


def group_codes(rows: pl.DataFrame, by: list[str]) -> tuple[pl.DataFrame, np.ndarray]:
    """The distinct values of the columns `by`, sorted (for by = [] one group: a frame of one row and no column),
    and every row's group as a code into them."""
    if not by:
        return pl.DataFrame({"_": [0]}).drop("_"), np.zeros(rows.height, np.int64)
    groups = rows.select(by).unique().sort(by)
    codes = rows.select(by).join(groups.with_row_index("_group"), on=by, how="left", nulls_equal=True,
                                 maintain_order="left")["_group"]
    return groups, codes.to_numpy().astype(np.int64)


def per_cluster(cluster: np.ndarray, n_clusters: int, group: np.ndarray, n_groups: int, values) -> np.ndarray:
    """(n_clusters, n_groups): the sums of values by cluster and group."""
    flat = np.bincount(cluster * n_groups + group, weights=np.asarray(values, float), minlength=n_clusters * n_groups)
    return flat.reshape(n_clusters, n_groups)


def cluster_resampled_sums(units: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """(n_boot, k): the column sums of n_boot resamples, with replacement, of the per-cluster rows units (n, k).

    resampled_sums draws multinomial counts of the distinct rows, fast where rows repeat (small clusters); where
    most clusters differ, drawing the clusters themselves (a block of resamples at a time) costs less. Both are
    the same bootstrap."""
    units = np.asarray(units, dtype=float)
    n = len(units)
    if n == 0:
        return np.zeros((n_boot, units.shape[1]))
    if len(distinct_rows(units)[0]) * 3 <= n:
        return resampled_sums(units, n_boot, seed)
    rng = np.random.default_rng(seed)
    block = max(1, _MAX_CELLS // n)
    sums = []
    for start in range(0, n_boot, block):
        size = min(block, n_boot - start)
        drawn = rng.integers(0, n, (size, n)) + n * np.arange(size)[:, None]
        sums.append(np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n) @ units)
    return np.concatenate(sums)


def percentile_interval(draws: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The column-wise percentile interval of bootstrap draws (n_boot, k), leaving out resamples where a ratio is
    undefined (no row of the group drawn)."""
    tail = (1 - level) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a column with no defined draw gives nan
        lo, hi = np.nanquantile(draws, [tail, 1 - tail], axis=0)
    return lo, hi


def distinct_games(rows: pl.DataFrame, group: np.ndarray, n_groups: int) -> np.ndarray:
    """The number of distinct games in each group."""
    counts = (pl.DataFrame({"group": group, "game": rows["game_id"]}).group_by("group")
              .agg(pl.col("game").n_unique()))
    return np.bincount(counts["group"].to_numpy(), counts["game"].to_numpy(), n_groups).astype(np.int64)


def paired_ratio(rows: pl.DataFrame, value: pl.Expr, weight: pl.Expr, by: list[str], n_boot: int = 2000,
                 seed: int = 0, min_clusters: int = MIN_CLUSTERS) -> pl.DataFrame:
    """Per group of `by`: estimate = sum(value) / sum(weight), with a cluster bootstrap interval (lo, hi).

    Seat win shares: value win, weight 1, by ["seat"]; strategy win shares: by ["strategy"] (a strategy at several
    seats of one game is still one cluster). Every group is resampled with the same clusters, so their differences
    are paired (see paired_difference). lo_unpaired, hi_unpaired: the interval as if rows were independent trials,
    Wilson where every value lies in [0, weight] (a proportion), else the normal interval of a ratio. games: the
    distinct games of the group. One row per group, sorted by `by`."""
    cluster, n_clusters = cluster_codes(rows)
    groups, group = group_codes(rows, by)
    n_groups = groups.height
    v, w = columns(rows, value, weight)
    sums_v, sums_w = (per_cluster(cluster, n_clusters, group, n_groups, x) for x in (v, w))
    boot = cluster_resampled_sums(np.hstack([sums_v, sums_w]), n_boot, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo, hi = percentile_interval(boot[:, :n_groups] / boot[:, n_groups:])
        estimate = sums_v.sum(axis=0) / sums_w.sum(axis=0)
    if n_clusters < min_clusters:
        lo, hi = np.full(n_groups, np.nan), np.full(n_groups, np.nan)
    lo_u, hi_u, method_u = unpaired_ratio(v, w, group, n_groups)
    return pl.DataFrame({**groups.to_dict(), "estimate": estimate, "lo": lo, "hi": hi, "lo_unpaired": lo_u,
                         "hi_unpaired": hi_u, "games": distinct_games(rows, group, n_groups),
                         "method": bootstrap_method(rows, n_boot), "method_unpaired": method_u})


def unpaired_ratio(v: np.ndarray, w: np.ndarray, group: np.ndarray, n_groups: int) -> tuple[np.ndarray, ...]:
    """The interval (lo, hi) of sum(v) / sum(w) in each group with rows as independent trials, and its method."""
    sum_v, sum_w = np.bincount(group, v, n_groups), np.bincount(group, w, n_groups)
    if np.all((v >= 0) & (v <= w)):
        lo, hi = wilson(sum_v, sum_w)
        return np.atleast_1d(lo), np.atleast_1d(hi), "Wilson (unpaired: rows as independent trials)"
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = sum_v / sum_w
        spread = Z_95 * np.sqrt(np.bincount(group, (v - ratio[group] * w) ** 2, n_groups)) / sum_w
    return ratio - spread, ratio + spread, "normal, delta method (unpaired: rows as independent trials)"


def newcombe(won_a: float, n_a: float, won_b: float, n_b: float) -> tuple[float, float]:
    """Newcombe's hybrid score interval of won_a / n_a - won_b / n_b from the two Wilson intervals, for
    independent samples."""
    p_a, p_b = won_a / n_a, won_b / n_b
    (lo_a, hi_a), (lo_b, hi_b) = wilson(won_a, n_a), wilson(won_b, n_b)
    return p_a - p_b - float(np.hypot(p_a - lo_a, hi_b - p_b)), p_a - p_b + float(np.hypot(hi_a - p_a, p_b - lo_b))


def paired_difference(rows: pl.DataFrame, a: pl.Expr, b: pl.Expr, n_boot: int = 2000, seed: int = 0,
                      value: pl.Expr = WIN, min_clusters: int = MIN_CLUSTERS) -> dict:
    """The difference of two win shares: the share of the rows where mask a holds minus that where b holds.

    Strategy A against B: a = strategy == "A", b = strategy == "B"; seat 0 against fair: a = seat == 0,
    b = pl.lit(True) (the seats of a game share one win, so all rows win 1 / players); a restricted variant
    against its base likewise. value: each row's share of a win, in [0, 1] (a k-way tie gives 1/k).
    estimate, lo, hi: both shares from the same resampled clusters; lo_unpaired, hi_unpaired: Newcombe's interval
    as if the rows of a and of b were independent samples. width_ratio = paired width / unpaired width, and
    games_factor = its inverse squared: how many times the games an unpaired analysis needs for the same width."""
    cluster, n_clusters = cluster_codes(rows)
    v, in_a, in_b = columns(rows, value, a, b)
    units = np.column_stack([np.bincount(cluster, x, n_clusters) for x in (v * in_a, in_a, v * in_b, in_b)])
    boot = cluster_resampled_sums(units, n_boot, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        differences = boot[:, 0] / boot[:, 1] - boot[:, 2] / boot[:, 3]
    lo, hi = (float(q[0]) for q in percentile_interval(differences[:, None]))
    if n_clusters < min_clusters:
        lo = hi = float("nan")
    won_a, n_a, won_b, n_b = (float(x) for x in units.sum(axis=0))
    if n_a == 0 or n_b == 0:
        raise ValueError(f"paired_difference: no row where mask {'a' if n_a == 0 else 'b'} holds")
    lo_u, hi_u = newcombe(won_a, n_a, won_b, n_b)
    game = rows["game_id"].to_numpy()
    return {"estimate": won_a / n_a - won_b / n_b, "lo": lo, "hi": hi, "share_a": won_a / n_a, "share_b": won_b / n_b,
            "games_a": len(np.unique(game[in_a > 0])), "games_b": len(np.unique(game[in_b > 0])),
            "games": len(np.unique(game[(in_a > 0) | (in_b > 0)])), "clusters": n_clusters,
            **widths(lo, hi, lo_u, hi_u), "method": "paired " + bootstrap_method(rows, n_boot),
            "method_unpaired": "Newcombe hybrid score (Wilson) interval, unpaired: rows as independent samples"}


def widths(lo: float, hi: float, lo_unpaired: float, hi_unpaired: float) -> dict:
    """The unpaired interval, both widths, their ratio (paired / unpaired) and games_factor, its inverse squared."""
    width, width_u = hi - lo, hi_unpaired - lo_unpaired
    return {"lo_unpaired": lo_unpaired, "hi_unpaired": hi_unpaired, "width": width, "width_unpaired": width_u,
            "width_ratio": width / width_u if width_u > 0 else float("nan"),
            "games_factor": (width_u / width) ** 2 if width > 0 else float("nan")}
