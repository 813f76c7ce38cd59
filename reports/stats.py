"""Confidence intervals for the rates and means in the reports.

The games of one deal (every deal is played under every seating: common random numbers), and in match mode the
games of one match, are correlated: the unit of every interval is the cluster, the deal or the match. Rates, shares
and means are ratios of cluster sums, sum(v) / sum(w) per group, and their intervals are cluster-robust: the
standard error of the ratio by linearisation (the delta method, CR1: the residual sums v - r w of the clusters,
times G / (G - 1)) and a t quantile on G - 1 degrees of freedom, G the clusters the group appears in. With few
clusters the t quantile, not the normal one, is what keeps 95% coverage (tests/test_calibration.py measures it at
10, 30 and 300 deals). Near 0% or 100% that interval degenerates (zero width at 0 of n) or leaves [0, 1]; there a
proportion gets Wilson's score interval on the effective sample size (see ratio_interval). Nothing is drawn at
random: the same rows in the same order give the same floats, every call (the report reads its rows in one order:
by game and seat); the clusters are combined in the order of their sums, so only the few rows within a cluster are
added in the order they come.

Every function that returns an interval names its method by a key of METHODS, with its `level` and `clusters`.
"""

import math

import numpy as np
import polars as pl
from scipy.stats import t as student_t

Z_95 = 1.959963984540054
LEVEL = 0.95
ROUNDING = 1e-12  # a cluster's residual this small, relative to its sums, is rounding: every cluster at one rate

METHODS = {
    "count": "a count of what the games recorded, or a share of such counts that describes the games played (who sat "
             "where, how many games); not an estimate, so no interval (low = high = the count)",
    "exact": "a known constant (a fair share 1/N), no interval",
    "cluster_t": "ratio of cluster sums; cluster-robust (CR1, delta-method) standard error; t on G − 1 degrees of "
                 "freedom (G: clusters, deals or in match mode matches); a proportion at or near 0% or 100%, where "
                 "that interval has no width or leaves [0, 1], gets Wilson's score interval on the effective sample "
                 "size p(1 − p) / se² instead (capped by the trials; the trials where se = 0), with the same t "
                 "quantile",
    "paired_cluster_t": "difference of two ratios of cluster sums over the same clusters; linearised cluster-robust "
                        "standard error; t on G − 1 degrees of freedom",
    "newcombe": "Newcombe's hybrid score interval of a difference of two proportions (from their Wilson intervals), "
                "rows as independent samples",
    "wilson": "Wilson score interval of a proportion, rows as independent trials",
    "normal": "normal interval of a ratio by the delta method, rows as independent trials",
    "bradley_terry_sandwich": "Bradley–Terry by MM (no prior) on pairwise rank comparisons, Elo scale; "
                              "cluster-robust sandwich standard error of the log-strengths, t on G − 1 degrees of "
                              "freedom",
    "bradley_terry_bound": "Bradley–Terry, a strategy that never wins (never loses): no finite rating; the one-sided "
                           "bound is the rating at which its expected share of its comparisons reaches its Wilson "
                           "bound (cluster_t)",
}


def wilson(successes, n, z: float = Z_95):
    """Wilson score interval for a proportion successes / n.

    Works on scalars or numpy arrays (elementwise, z too). `successes` may be fractional (a tie shared by k
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


def t_quantile(clusters, level: float = LEVEL):
    """The two-sided t quantile of `level` on clusters - 1 degrees of freedom (nan below 2 clusters)."""
    clusters = np.asarray(clusters, dtype=float)
    with np.errstate(invalid="ignore"):
        return student_t.ppf((1 + level) / 2, np.where(clusters >= 2, clusters - 1, np.nan))


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjustment of p-values for testing them together (family-wise error): the i-th smallest
    times (m - i + 1), made non-decreasing in that order, capped at 1. nan p-values are left out of m and stay
    nan."""
    p = np.asarray(p_values, dtype=float)
    tested = np.flatnonzero(~np.isnan(p))
    order = tested[np.argsort(p[tested], kind="stable")]
    stepped = np.maximum.accumulate(p[order] * (len(order) - np.arange(len(order))))
    adjusted = np.full(p.shape, np.nan)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def holm_min(p_values) -> float:
    """The p-value of a family of tests that some null is false: its smallest Holm-adjusted p-value (1 where none
    was tested)."""
    return float(np.nanmin(holm(p_values), initial=1.0))


# ---------------------------------------------------------------- ratios of cluster sums


def ratio_interval(sum_v: np.ndarray, sum_w: np.ndarray, bounded, level: float = LEVEL) -> dict[str, np.ndarray]:
    """The estimate sum(v) / sum(w) of each of k groups and its interval, from per-cluster sums (C, k): cell_interval
    over every (cluster, group) cell."""
    sum_v, sum_w = np.asarray(sum_v, float), np.asarray(sum_w, float)
    clusters, k = sum_v.shape
    return cell_interval(np.tile(np.arange(k), clusters), sum_v.ravel(), sum_w.ravel(), k, bounded, level)


def cell_interval(group: np.ndarray, sum_v: np.ndarray, sum_w: np.ndarray, n_groups: int, bounded,
                  level: float = LEVEL) -> dict[str, np.ndarray]:
    """The estimate sum(v) / sum(w) of each group and its interval, from the sums of its clusters: a cell per
    (cluster, group) with `group` its group's code, in any order; a cell with no value and no weight is absent.

    A group's clusters are those where it has a value or a weight (G). Standard error by linearisation:
    se = sqrt(G / (G - 1) * sum_c (V_c - r W_c)^2) / W, and lo, hi = r -+ t se, t on G - 1 degrees of freedom
    (method cluster_t). A group of one cluster gets nan.

    `bounded` (n_groups,) marks proportions, groups whose rows all lie in [0, weight]. Where such a group's interval
    would have zero width (every cluster at the same rate, above all 0 of n or n of n) or leave [0, 1], it is
    Wilson's score interval on the effective sample size n_eff = r (1 - r) / se^2 (the trials, sum(w), where the
    design effect makes n_eff exceed them), with the same t quantile (still method cluster_t). Where se = 0
    n_eff is the trials: the rows show no variation between clusters to measure a design effect from, and a
    rate of exactly 0 or 1 is where that matters least; it gives 0 of 9,000 an upper bound of about t² / 9,000.
    A residual within rounding of zero (ROUNDING) is zero, so that clusters at one rate give se = 0 whatever order
    their rows were summed in. Returns estimate, lo, hi, se, n_eff (nan for unbounded groups), clusters, method
    (ids). Each group's cells are summed in the order of their sums, so the same cells give the same floats in any
    order."""
    group, sum_v, sum_w = np.asarray(group, np.int64), np.asarray(sum_v, float), np.asarray(sum_w, float)
    present = (sum_v != 0) | (sum_w != 0)
    group, sum_v, sum_w = group[present], sum_v[present], sum_w[present]
    order = np.lexsort((sum_w, sum_v, group))
    group, sum_v, sum_w = group[order], sum_v[order], sum_w[order]
    g = np.bincount(group, minlength=n_groups)
    total_v, total_w = np.bincount(group, sum_v, n_groups), np.bincount(group, sum_w, n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = total_v / total_w
        expected = estimate[group] * sum_w
        residual = sum_v - expected
        residual[np.abs(residual) <= ROUNDING * (np.abs(sum_v) + np.abs(expected))] = 0.0  # a constant is constant
        se = np.sqrt(g / (g - 1) * np.bincount(group, residual**2, n_groups)) / np.abs(total_w)
        q = t_quantile(g, level)
        lo, hi = estimate - q * se, estimate + q * se
        n_eff = np.where(se > 0, np.minimum(estimate * (1 - estimate) / se**2, total_w), total_w)
    at_edge = np.asarray(bounded) & ((se == 0) | (lo < 0) | (hi > 1))
    edge_lo, edge_hi = wilson(estimate * n_eff, n_eff, np.where(np.isnan(q), 0.0, q))
    lo, hi = np.where(at_edge, edge_lo, lo), np.where(at_edge, edge_hi, hi)
    single = g < 2
    lo, hi = np.where(single, np.nan, lo), np.where(single, np.nan, hi)
    return {"estimate": estimate, "lo": lo, "hi": hi, "se": se, "n_eff": np.where(bounded, n_eff, np.nan),
            "clusters": g, "method": np.full(np.shape(estimate), "cluster_t")}


def canonical_order(*sums: np.ndarray) -> list[np.ndarray]:
    """The per-cluster sums (C, k) of each array, every column's clusters sorted by their values (the arrays' in
    turn), so that sums over clusters do not depend on the order the clusters came in."""
    order = np.lexsort([s.T for s in reversed(sums)]).T
    return [np.take_along_axis(s, order, axis=0) for s in sums]


def cluster_ratio_interval(numerators, denominators, level: float = LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi), arrays of k: the interval of sum(numerators[:, j]) / sum(denominators) from per-cluster sums,
    numerators (C, k), denominators (C,) or (C, k) (ratio_interval). A column is a proportion, with Wilson's
    interval near 0 and 1, where every cluster's numerator lies in [0, its denominator]."""
    numerators = np.asarray(numerators, float)
    denominators = np.broadcast_to(np.asarray(denominators, float).reshape(len(numerators), -1), numerators.shape)
    bounded = ((numerators >= 0) & (numerators <= denominators)).all(axis=0)
    found = ratio_interval(numerators, denominators, bounded, level)
    return found["lo"], found["hi"]


def mean_interval(values, cluster=None, level: float = LEVEL) -> tuple[float, float]:
    """The cluster_t interval of the mean of `values`, clustered by `cluster` (e.g. each value's deal); without,
    every value is its own cluster (the t interval). (nan, nan) from fewer than two clusters."""
    values = np.asarray(values, dtype=float).ravel()
    if values.size == 0:
        return float("nan"), float("nan")
    distinct, code = np.unique(np.arange(values.size) if cluster is None else np.asarray(cluster),
                               return_inverse=True)
    order = np.lexsort((values, code.ravel()))
    code, values = code.ravel()[order], values[order]
    found = ratio_interval(np.bincount(code, values, len(distinct))[:, None],
                           np.bincount(code, minlength=len(distinct))[:, None].astype(float), [False], level)
    return float(found["lo"][0]), float(found["hi"][0])


def ratio_ci(numerator, denominator) -> tuple[float, float]:
    """The interval of sum(numerator) / sum(denominator) where each pair (numerator, denominator) is one cluster's
    sums (cluster_ratio_interval); (nan, nan) from fewer than two."""
    numerator = np.asarray(numerator, float)
    if numerator.size < 2:
        return float("nan"), float("nan")
    lo, hi = cluster_ratio_interval(numerator[:, None], np.asarray(denominator, float))
    return float(lo[0]), float(hi[0])


# ---------------------------------------------------------------- paired intervals over clusters of games
# Every group of one call is summed over the same clusters, so that differences between groups keep their pairing.

WIN = pl.col("win")
CLUSTER_COLUMN = {"match": "match_id", "deal": "deal"}
CLUSTER_PLURAL = {"match": "matches", "deal": "deals"}  # a cluster in words


def cluster_unit(rows: pl.DataFrame | pl.LazyFrame) -> str:
    """What a cluster is in these rows: "match" in match mode (a match_id column, filled), else "deal"."""
    if "match_id" not in rows.collect_schema().names():
        return "deal"
    return "match" if rows.lazy().select(pl.col("match_id").null_count() == 0).collect().item() else "deal"


def cluster_keys(rows: pl.DataFrame | pl.LazyFrame) -> list[str]:
    """The columns whose values are a row's cluster (clusters): its player count, where the rows have one, and its
    match in match mode, else its deal."""
    return [c for c in ("players", CLUSTER_COLUMN[cluster_unit(rows)]) if c in rows.collect_schema().names()]


def cluster_columns(rows: pl.DataFrame | pl.LazyFrame) -> list[str]:
    """The columns that name a row's cluster (clusters): players, deal, and match_id in match mode."""
    return [c for c in ("players", "deal", "match_id") if c in rows.collect_schema().names()]


def clustered_method(rows: pl.DataFrame, what: str) -> str:
    """The method text of a cluster-robust interval of `what` over these rows' clusters: 'cluster_t over deals (what)'
    (findings records keep the id, stats.METHODS, and the cluster)."""
    return f"cluster_t over {CLUSTER_PLURAL[cluster_unit(rows)]} ({what})"


def clusters(rows: pl.DataFrame) -> np.ndarray:
    """The cluster of every row: its match in match mode, else its deal; at its player count, since every player
    count numbers its deals (matches) from 0, so that rows pooled over player counts never share a cluster across
    them."""
    column = rows[CLUSTER_COLUMN[cluster_unit(rows)]]
    if "players" not in rows.columns:
        return column.to_numpy()
    return (rows["players"].cast(pl.Int64) * 2**32 + column.cast(pl.Int64)).to_numpy()


def columns(rows: pl.DataFrame, *exprs: pl.Expr) -> list[np.ndarray]:
    """Expressions over the rows, as floats (a mask gives 0 and 1; a literal is broadcast)."""
    zeros = pl.repeat(0.0, pl.len())
    frame = rows.select((zeros + expr.cast(pl.Float64)).alias(str(i)) for i, expr in enumerate(exprs))
    return [series.to_numpy() for series in frame.get_columns()]


def cluster_codes(rows: pl.DataFrame) -> tuple[np.ndarray, int]:
    """Every row's cluster as a code 0..n-1 (in sorted order of the clusters), and n."""
    return dense_codes(clusters(rows))


def dense_codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Every value's rank among the distinct values, 0..n-1, and n. Clusters are a player count (above bit 32) and
    a deal or match counted from 0: where those span little more than the values' number, the ranks are counted
    (a pass, not a sort)."""
    values = np.asarray(values, np.int64)
    if values.size == 0 or values.min() < 0:
        distinct, codes = np.unique(values, return_inverse=True)
        return codes.ravel(), len(distinct)
    high, low = values >> 32, values & 0xFFFFFFFF
    width = int(low.max()) + 1
    if (int(high.max()) + 1) * width > 4 * values.size + 2**20:
        distinct, codes = np.unique(values, return_inverse=True)
        return codes.ravel(), len(distinct)
    flat = high * width + low  # the same order as the values
    present = np.bincount(flat) > 0
    return (np.cumsum(present) - 1)[flat], int(present.sum())


def sorted_columns(*columns: np.ndarray) -> list[np.ndarray]:
    """The columns with their rows sorted by the first, then the second, and so on (np.lexsort's order, the last
    key first there), by polars' sort: several times quicker on millions of rows."""
    frame = pl.DataFrame({str(k): column for k, column in enumerate(columns)})
    return [series.to_numpy() for series in frame.sort(frame.columns).get_columns()]


def group_codes(rows: pl.DataFrame, by: list[str]) -> tuple[pl.DataFrame, np.ndarray]:
    """The distinct values of the columns `by`, sorted (for by = [] one group: a frame of one row and no column),
    and every row's group as a code into them."""
    if not by:
        return pl.DataFrame({"_": [0]}).drop("_"), np.zeros(rows.height, np.int64)
    coded = [column_codes(rows[column]) for column in by]
    sizes = [len(distinct) for distinct, _ in coded if distinct is not None]
    if len(sizes) < len(by) or math.prod(sizes) > 4 * rows.height + 2**20:  # too many to count: sort the rows' own
        groups = rows.select(by).unique().sort(by)
        codes = rows.select(by).join(groups.with_row_index("_group"), on=by, how="left", nulls_equal=True,
                                     maintain_order="left")["_group"]
        return groups, codes.to_numpy().astype(np.int64)
    combined = np.ravel_multi_index([code for _, code in coded], sizes)  # the first column leading: sorted order
    present = np.bincount(combined, minlength=math.prod(sizes)) > 0
    places = np.unravel_index(np.flatnonzero(present), sizes)
    groups = pl.DataFrame([distinct.gather(place) for (distinct, _), place in zip(coded, places)])
    return groups, (np.cumsum(present) - 1)[combined]


def column_codes(column: pl.Series) -> tuple[pl.Series | None, np.ndarray | None]:
    """A column's distinct values as `sort` orders them (null first) and every row's place among them, for strings,
    enums, numbers and booleans; (None, None) for other kinds."""
    distinct = column.unique().sort()
    if column.dtype.is_integer() and not column.null_count():  # places counted, not sorted
        codes, _ = dense_codes(column.to_numpy().astype(np.int64) - int(distinct[0]))
        return distinct, codes
    if column.dtype == pl.String:
        key = column.cast(pl.Enum(distinct.drop_nulls().to_list())).to_physical()  # sorted strings: places already
    elif isinstance(column.dtype, pl.Enum) or column.dtype.is_numeric() or column.dtype == pl.Boolean:
        key = column.to_physical().cast(pl.Int8) if column.dtype == pl.Boolean else column.to_physical()
        key = key.rank("dense") - 1
    else:
        return None, None
    if not distinct.null_count():
        return distinct, key.cast(pl.Int64).to_numpy()
    return distinct, (key.cast(pl.Int64) + 1).fill_null(0).to_numpy()


def per_cluster(cluster: np.ndarray, n_clusters: int, group: np.ndarray, n_groups: int, values) -> np.ndarray:
    """(n_clusters, n_groups): the sums of values by cluster and group."""
    flat = np.bincount(cluster * n_groups + group, weights=np.asarray(values, float), minlength=n_clusters * n_groups)
    return flat.reshape(n_clusters, n_groups)


def paired_ratio(rows: pl.DataFrame | pl.LazyFrame, value: pl.Expr, weight: pl.Expr, by: list[str],
                 min_clusters: int = 2, level: float = LEVEL, unpaired: bool = True) -> pl.DataFrame:
    """Per group of `by`: estimate = sum(value) / sum(weight), with its cluster-robust interval (lo, hi; see
    cell_interval: cluster_t, Wilson on the effective sample for a proportion near 0 or 1), its standard error se,
    n_eff and clusters.

    Seat win shares: value win, weight 1, by ["seat"]; strategy win shares: by ["strategy"] (a strategy at several
    seats of one game is still one cluster). Every group is summed over the same clusters, so their differences
    are paired (see paired_difference). A group is a proportion where every row's value lies in [0, weight].
    lo_unpaired, hi_unpaired: the interval as if rows were independent trials, Wilson for a proportion, else the
    normal interval of a ratio. games: the distinct games of the group; rows: its rows. Fewer than min_clusters
    (at least 2) clusters give nan. One row per group, sorted by `by`; method and method_unpaired are keys of
    METHODS. The rows may be lazy: only the columns that cluster_cells sums are collected.
    `unpaired` False leaves the unpaired interval out (its normal interval reads the rows again)."""
    cells = cluster_cells(rows, value, weight, by)
    groups, group = group_codes(cells, by)
    n_groups = groups.height
    bounded = np.bincount(group, cells["out"].to_numpy(), n_groups) == 0
    found = cell_interval(group, cells["v"].to_numpy(), cells["w"].to_numpy(), n_groups, bounded, level)
    too_few = found["clusters"] < max(min_clusters, 2)
    games, n = (np.bincount(group, cells[c].to_numpy(), n_groups).astype(np.int64) for c in ("games", "n"))
    columns = {**groups.to_dict(), "estimate": found["estimate"], "lo": np.where(too_few, np.nan, found["lo"]),
               "hi": np.where(too_few, np.nan, found["hi"]), "se": found["se"], "n_eff": found["n_eff"],
               "clusters": found["clusters"], "level": level, "games": games, "rows": n, "method": found["method"]}
    if unpaired:
        lo_u, hi_u, method_u = unpaired_ratio(rows, value, weight, cells, groups, group)
        columns |= {"lo_unpaired": lo_u, "hi_unpaired": hi_u, "method_unpaired": method_u}
    return pl.DataFrame(columns)


def cluster_cells(rows: pl.DataFrame | pl.LazyFrame, value: pl.Expr, weight: pl.Expr, by: list[str]) -> pl.DataFrame:
    """One row per cluster and group of `by` that holds rows: the cluster's columns, `by`, and over its rows the sums
    of value and weight (v, w), its rows (n), its distinct games and its rows whose value leaves [0, weight] (out).
    A missing value or weight makes its cell's sum nan, as numpy's sums did. Each cell's rows are added one after
    another in their order (a cumulative sum's last: polars' own sums split large groups among its threads, and its
    streaming engine splits every group, so that their floats vary from call to call), so the same rows in the same
    order give the same floats every time; lazy rows are read in the columns needed only."""
    keys = [*dict.fromkeys([*cluster_keys(rows), *by])]
    v, w = pl.col("_v"), pl.col("_w")
    return (rows.lazy().select(*dict.fromkeys([*keys, "game_id"]), _v=as_float(value), _w=as_float(weight))
            .group_by(keys).agg(v=in_order(v), w=total_weight(weight), n=pl.len(),
                                games=pl.col("game_id").n_unique(), out=((v < 0) | (v > w)).sum())
            .collect(engine="in-memory"))


def total_weight(weight: pl.Expr) -> pl.Expr:
    """A cell's sum of weights: its rows times a literal weight (1 for a mean: exact, and cheap), else in_order."""
    if weight.meta.is_literal():
        return pl.len() * pl.select(weight.cast(pl.Float64)).item()
    return in_order(pl.col("_w"))


def in_order(expr: pl.Expr) -> pl.Expr:
    """The sum of expr's values added one after another, in the rows' order (cluster_cells)."""
    return expr.cum_sum().last()


def as_float(expr: pl.Expr) -> pl.Expr:
    """expr as a float per row (a literal broadcast), a missing value as nan."""
    return (pl.repeat(0.0, pl.len()) + expr.cast(pl.Float64)).fill_null(float("nan"))


def clustered(rows: pl.DataFrame | pl.LazyFrame, measures: dict[str, tuple[pl.Expr, pl.Expr]], by: list[str]
              ) -> pl.DataFrame:
    """Per group of `by`, each measure NAME: (value, weight) as sum(value) / sum(weight), in columns NAME, NAME_lo
    and NAME_hi, its cluster-robust interval (paired_ratio); with the group's games, rows (n) and the method of the
    first measure. The one clustered computation of the game analyses: a new measure is a line of `measures`. Each
    measure is summed on its own."""
    frame = None
    for name, (value, weight) in measures.items():
        one = paired_ratio(rows, value, weight, by, unpaired=False).select(*by, "games", "method", n="rows", **{
            name: "estimate", f"{name}_lo": "lo", f"{name}_hi": "hi"})
        if frame is None:
            frame = one
        elif by:
            frame = frame.join(one.drop("games", "method", "n"), on=by, maintain_order="left", nulls_equal=True)
        else:
            frame = pl.concat([frame, one.drop("games", "method", "n")], how="horizontal")
    return frame


def ratio_p_values(estimate, se, n_eff, clusters, null) -> np.ndarray:
    """Two-sided p-values that each ratio equals `null`, matching the intervals of ratio_interval: the t test
    (estimate - null) / se on clusters - 1 degrees of freedom, the test the t interval inverts; where se = 0 and
    n_eff is given (a proportion at 0% or 100%, whose interval is Wilson's), the score test of the Wilson interval,
    (estimate - null) / sqrt(null (1 - null) / n_eff), on the same degrees of freedom. nan below 2 clusters."""
    estimate, se, n_eff, null = (np.asarray(x, float) for x in (estimate, se, n_eff, null))
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = np.where(np.isnan(n_eff) | (se > 0), se, np.sqrt(null * (1 - null) / n_eff))
        statistic = np.where(estimate == null, 0.0, np.abs(estimate - null) / spread)
        g = np.asarray(clusters, float)
        return np.where(g >= 2, 2 * student_t.sf(statistic, np.where(g >= 2, g - 1, 1)), np.nan)


def unpaired_ratio(rows: pl.DataFrame | pl.LazyFrame, value: pl.Expr, weight: pl.Expr, cells: pl.DataFrame,
                   groups: pl.DataFrame, group: np.ndarray) -> tuple[np.ndarray, ...]:
    """The interval (lo, hi) of sum(v) / sum(w) in each of the groups with rows as independent trials, and its
    method: Wilson's where every row's value lies in [0, weight] (from the cells' sums), else the normal interval,
    r -+ z sqrt(sum (v - r w)²) / sum(w), the squares summed over the rows in a second pass."""
    v, w = cells["v"].to_numpy(), cells["w"].to_numpy()
    order = np.lexsort((w, v, group))  # the cells come in any order: each group's are added in one
    sum_v, sum_w = (np.bincount(group[order], x[order], groups.height) for x in (v, w))
    if cells["out"].sum() == 0:
        lo, hi = wilson(sum_v, sum_w)
        return np.atleast_1d(lo), np.atleast_1d(hi), "wilson"
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = sum_v / sum_w
        spread = Z_95 * np.sqrt(squared_residuals(rows, value, weight, groups, ratio)) / sum_w
    return ratio - spread, ratio + spread, "normal"


def squared_residuals(rows: pl.DataFrame | pl.LazyFrame, value: pl.Expr, weight: pl.Expr, groups: pl.DataFrame,
                      ratio: np.ndarray) -> np.ndarray:
    """Per group (in the order of `groups`): sum (v - r w)² over its rows, r its ratio."""
    by = groups.columns
    if not by:
        found = rows.lazy().select(in_order((as_float(value) - float(ratio[0]) * as_float(weight)) ** 2).alias("s"))
        return found.collect(engine="in-memory")["s"].to_numpy()
    ratios = groups.with_columns(_r=pl.Series(ratio)).lazy()
    residual = (pl.col("_v") - pl.col("_r") * pl.col("_w")) ** 2
    found = (rows.lazy().select(*by, _v=as_float(value), _w=as_float(weight))
             .join(ratios, on=by, how="left", nulls_equal=True, maintain_order="left").group_by(by)
             .agg(s=in_order(residual))
             .collect(engine="in-memory"))
    return groups.join(found, on=by, how="left", nulls_equal=True, maintain_order="left")["s"].to_numpy()


def newcombe(won_a: float, n_a: float, won_b: float, n_b: float) -> tuple[float, float]:
    """Newcombe's hybrid score interval of won_a / n_a - won_b / n_b from the two Wilson intervals, for
    independent samples."""
    p_a, p_b = won_a / n_a, won_b / n_b
    (lo_a, hi_a), (lo_b, hi_b) = wilson(won_a, n_a), wilson(won_b, n_b)
    return p_a - p_b - float(np.hypot(p_a - lo_a, hi_b - p_b)), p_a - p_b + float(np.hypot(hi_a - p_a, p_b - lo_b))


def difference_interval(units: np.ndarray, level: float = LEVEL) -> dict:
    """The difference of two ratios over the same clusters, from per-cluster sums units (C, 4) or (C, 4, k) (value
    and weight of a, value and weight of b; k pairs at once): estimate = A / W_a - B / W_b, se by linearisation,
    sqrt(G / (G - 1) * sum_c ((a_c - r_a w_a,c) / W_a - (b_c - r_b w_b,c) / W_b)^2), and r -+ t se on G - 1 degrees
    of freedom, G the clusters where a or b has a row (method paired_cluster_t; nan below 2 clusters). Returns
    estimate, lo, hi, se, clusters, share_a, share_b: floats, or arrays of k."""
    units = np.asarray(units, float)
    columns_of = np.moveaxis(units, 1, 0).reshape(4, len(units), -1)  # (4, C, k)
    va, wa, vb, wb = (x.reshape(units.shape[:1] + units.shape[2:]) for x in canonical_order(*columns_of))
    total_va, total_wa, total_vb, total_wb = (x.sum(axis=0) for x in (va, wa, vb, wb))
    with np.errstate(invalid="ignore", divide="ignore"):
        share_a, share_b = total_va / total_wa, total_vb / total_wb
        residual = (va - share_a * wa) / total_wa - (vb - share_b * wb) / total_wb
        g = ((va != 0) | (wa != 0) | (vb != 0) | (wb != 0)).sum(axis=0)
        se = np.sqrt(g / (g - 1) * (residual**2).sum(axis=0))
        half = t_quantile(g, level) * se
    estimate = share_a - share_b
    found = {"estimate": estimate, "lo": estimate - half, "hi": estimate + half, "se": se, "clusters": g,
             "share_a": share_a, "share_b": share_b}
    return {key: value.item() if np.ndim(value) == 0 else value for key, value in found.items()}


def cluster_units(cluster: np.ndarray, n_clusters: int, v: np.ndarray, in_a: np.ndarray,
                  in_b: np.ndarray) -> np.ndarray:
    """(n_clusters, 4): per cluster, the sums of v where mask a holds, of a, of v where b holds, of b; summed in one
    order whatever the rows' order, so the same rows give the same floats."""
    cluster, v, in_a, in_b = sorted_columns(cluster, v, in_a, in_b)
    return np.column_stack([np.bincount(cluster, x, n_clusters) for x in (v * in_a, in_a, v * in_b, in_b)])


def paired_difference(rows: pl.DataFrame, a: pl.Expr, b: pl.Expr, value: pl.Expr = WIN, min_clusters: int = 2,
                      level: float = LEVEL) -> dict:
    """The difference of two win shares: the share of the rows where mask a holds minus that where b holds.

    Strategy A against B: a = strategy == "A", b = strategy == "B"; seat 0 against fair: a = seat == 0,
    b = pl.lit(True) (the seats of a game share one win, so all rows win 1 / players); a restricted variant
    against its base likewise. value: each row's share of a win, in [0, 1] (a k-way tie gives 1/k).
    estimate, lo, hi: difference_interval over the clusters (paired_cluster_t), clipped to [-1, 1] for shares;
    where that has zero width (no cluster differs from the others in either share, as when one side never wins)
    and the values are shares, Newcombe's interval instead (newcombe). lo_unpaired, hi_unpaired: Newcombe's
    interval as if the rows of a and of b were independent samples. width_ratio = paired width / unpaired width,
    and games_factor = its inverse squared: how many times the games an unpaired analysis needs for the same
    width. Fewer than min_clusters (at least 2) clusters give
    nan."""
    cluster, n_clusters = cluster_codes(rows)
    v, in_a, in_b = columns(rows, value, a, b)
    units = cluster_units(cluster, n_clusters, v, in_a, in_b)
    won_a, n_a, won_b, n_b = (float(x) for x in units.sum(axis=0))
    if n_a == 0 or n_b == 0:
        raise ValueError(f"paired_difference: no row where mask {'a' if n_a == 0 else 'b'} holds")
    found = difference_interval(units, level)
    lo_u, hi_u = newcombe(won_a, n_a, won_b, n_b)
    lo, hi, method = found["lo"], found["hi"], "paired_cluster_t"
    shares = bool(np.all((v >= 0) & (v <= 1)))
    if found["se"] == 0 and shares:
        lo, hi, method = lo_u, hi_u, "newcombe"
    elif shares:  # a difference of two shares lies in [-1, 1]
        lo, hi = max(lo, -1.0), min(hi, 1.0)
    if found["clusters"] < max(min_clusters, 2):
        lo = hi = float("nan")
    game = rows["game_id"]
    return {"estimate": found["estimate"], "lo": lo, "hi": hi, "se": found["se"], "share_a": found["share_a"],
            "share_b": found["share_b"], "games_a": game.filter(in_a > 0).n_unique(),
            "games_b": game.filter(in_b > 0).n_unique(), "games": game.filter((in_a > 0) | (in_b > 0)).n_unique(),
            "clusters": found["clusters"], "level": level, **widths(lo, hi, lo_u, hi_u), "method": method,
            "method_unpaired": "newcombe"}


def paired_mean_intervals(rows: pl.DataFrame, value: pl.Expr, a: pl.Expr, b: pl.Expr,
                          level: float = LEVEL) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """estimate, lo, hi (3,): the mean of `value` over the rows where mask a holds, over those where b holds, and
    the first minus the second, each with its cluster-robust interval over the same clusters (cluster_t for the
    means, paired_cluster_t for the difference)."""
    cluster, n_clusters = cluster_codes(rows)
    units = cluster_units(cluster, n_clusters, *columns(rows, value, a, b))
    means = ratio_interval(units[:, [0, 2]], units[:, [1, 3]], [False, False], level)
    difference = difference_interval(units, level)
    return tuple(np.append(means[key], difference[key]) for key in ("estimate", "lo", "hi"))


def widths(lo: float, hi: float, lo_unpaired: float, hi_unpaired: float) -> dict:
    """The unpaired interval, both widths, their ratio (paired / unpaired) and games_factor, its inverse squared."""
    width, width_u = hi - lo, hi_unpaired - lo_unpaired
    return {"lo_unpaired": lo_unpaired, "hi_unpaired": hi_unpaired, "width": width, "width_unpaired": width_u,
            "width_ratio": width / width_u if width_u > 0 else float("nan"),
            "games_factor": (width_u / width) ** 2 if width > 0 else float("nan")}
