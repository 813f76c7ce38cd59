"""Bradley–Terry ratings of the strategies of one experiment, from the ranks, and intransitive cycles.

Within each game every pair of seats held by different strategies is one comparison: the better rank wins it,
equal ranks give half a win each (two seats of one strategy say nothing about it and are not compared).
Bradley–Terry rather than Plackett–Luce: ranks are often tied, which Plackett–Luce, a model of full orderings,
has no place for, while a pair handles a tie as half a win; and "A beats B in x% of their meetings" is what a
designer means by one strategy being stronger, which is what Bradley–Terry models. The pairwise win counts are
its sufficient statistics, so the fit works on an S x S matrix, not on the rows.

The fit is Hunter's (2004) MM algorithm on the data alone: no prior, no virtual comparison. A strategy that never
wins (never loses) has no finite maximum-likelihood rating: it is reported as -inf (+inf), flagged never_wins
(never_loses), with a one-sided bound, and the others are fitted among themselves. The scale is pinned by a mean
log-strength of 0 over the finite ratings and reported on the Elo scale, 400 / ln 10 points per unit of
log-strength, so a gap of D points means P(A beats B) = 1 / (1 + 10^(-D / 400)). Intervals: a cluster-robust
sandwich standard error of the log-strengths over deals (matches in match mode) and a t quantile on G - 1 degrees
of freedom (stats.METHODS "bradley_terry_sandwich"); no random draw.
"""

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import polars as pl
from scipy.special import expit

from reports.stats import LEVEL, cluster_codes, ratio_interval, ratio_p_values, t_quantile

ELO = 400 / np.log(10)  # rating points per unit of log-strength
TOLERANCE = 1e-10  # largest change of a log-strength between MM steps at convergence
MAX_STEPS = 20_000
BISECTION_STEPS = 100  # halvings of the bracket of a one-sided bound
BRACKET = 40.0  # log-strengths searched for a one-sided bound: -BRACKET..BRACKET around the opponents


@dataclass(frozen=True)
class Pairwise:
    """The pairwise comparisons of one experiment's strategies (sorted names).

    wins[i, j]: i's wins over j (ties half); games[i, j]: games where i and j both sat (games[i, i]: games of i);
    per_cluster[c, i, j]: i's wins over j in cluster c (deals, or matches in match mode)."""

    strategies: list[str]
    wins: np.ndarray
    games: np.ndarray
    per_cluster: np.ndarray


def seat_tables(rows: pl.DataFrame, *names: str) -> list[np.ndarray]:
    """(games, seats) for each named column of the rows: one game per line, seats in order (every game has every
    seat)."""
    ordered = rows.select(*dict.fromkeys(["game_id", "seat", *names])).sort("game_id", "seat")
    seats = ordered.height // ordered["game_id"].n_unique()
    return [ordered[name].to_numpy().reshape(-1, seats) for name in names]


def pairwise(rows: pl.DataFrame) -> Pairwise:
    """Pairwise wins of every strategy over every other in these rows (one experiment, one player count), in total
    and per cluster: all in a few array operations per pair of seats, none per game or cluster."""
    strategies = rows["strategy"].unique().sort().to_list()
    code = rows["strategy"].cast(pl.Enum(strategies)).to_physical()  # each strategy's place in sorted order
    cluster, n_clusters = cluster_codes(rows)
    coded = rows.with_columns(_code=code.cast(pl.Int64), _cluster=pl.Series(cluster))
    strategy, rank, game_cluster = seat_tables(coded, "_code", "rank", "_cluster")
    s = len(strategies)
    cells, won = [], []
    for i, j in combinations(range(strategy.shape[1]), 2):
        met = strategy[:, i] != strategy[:, j]
        i_wins = (rank[met, i] < rank[met, j]) + 0.5 * (rank[met, i] == rank[met, j])
        base = game_cluster[met, 0] * s * s
        cells += [base + strategy[met, i] * s + strategy[met, j], base + strategy[met, j] * s + strategy[met, i]]
        won += [i_wins, 1 - i_wins]
    per_cluster = np.bincount(np.concatenate(cells), np.concatenate(won), n_clusters * s * s).reshape(-1, s, s)
    present = np.zeros((len(strategy), s))
    np.put_along_axis(present, strategy, 1.0, axis=1)
    return Pairwise(strategies, per_cluster.sum(axis=0), (present.T @ present).astype(np.int64), per_cluster)


def bradley_terry(wins: np.ndarray) -> np.ndarray:
    """Log-strengths (..., S), mean 0, of the Bradley–Terry fit to wins (..., S, S) (wins[i, j]: i over j), by MM.

    Hunter (2004): strength_i <- W_i / sum_j n_ij / (strength_i + strength_j), W_i i's wins, n_ij the comparisons
    of i and j. Every matrix of the batch is fitted at once. The maximum-likelihood fit is finite only where every
    strategy wins and loses some comparison (finite_strategies): fit those."""
    comparisons, won = wins + np.swapaxes(wins, -1, -2), wins.sum(axis=-1)
    log_strength = np.zeros(wins.shape[:-1])
    for _ in range(MAX_STEPS):
        strength = np.exp(log_strength)
        updated = np.log(won / (comparisons / (strength[..., :, None] + strength[..., None, :])).sum(axis=-1))
        updated -= updated.mean(axis=-1, keepdims=True)
        step, log_strength = np.abs(updated - log_strength).max(), updated
        if step < TOLERANCE:
            break
    return log_strength


def sandwich_se(per_cluster: np.ndarray, log_strength: np.ndarray) -> np.ndarray:
    """Cluster-robust standard errors (..., S) of mean-0 log-strengths fitted to per_cluster wins (..., C, S, S):
    I^+ B I^+, I the Fisher information (a weighted graph Laplacian, its pseudo-inverse pinning the mean), B the sum
    over clusters of the outer products of each cluster's score, times G / (G - 1) (CR1)."""
    p = expit(log_strength[..., :, None] - log_strength[..., None, :])
    met = per_cluster + np.swapaxes(per_cluster, -1, -2)
    score = (per_cluster - met * p[..., None, :, :]).sum(axis=-1)  # (..., C, S)
    weight = met.sum(axis=-3) * p * np.swapaxes(p, -1, -2)
    information = np.eye(p.shape[-1]) * weight.sum(axis=-1)[..., None] - weight
    g = clusters_met(per_cluster)
    outer = np.einsum("...ci,...cj->...ij", score, score) * (g / (g - 1))[..., None, None]
    inverse = np.linalg.pinv(information, hermitian=True)
    return np.sqrt(np.einsum("...ii->...i", inverse @ outer @ inverse))


def clusters_met(per_cluster: np.ndarray) -> np.ndarray:
    """The clusters (..., ) with at least one comparison."""
    return (per_cluster.sum(axis=(-1, -2)) > 0).sum(axis=-1)


def finite_strategies(wins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """never_wins, never_loses (S,): strategies without a finite rating, found by taking out, until none is
    left, every strategy that wins none (loses none) of its comparisons with the strategies still in."""
    keep, never_wins, never_loses = np.ones(len(wins), bool), np.zeros(len(wins), bool), np.zeros(len(wins), bool)
    while True:
        among = wins * keep[:, None] * keep[None, :]
        won, lost = among.sum(axis=1), among.sum(axis=0)
        never_wins |= keep & (won == 0) & (lost > 0)
        never_loses |= keep & (lost == 0) & (won > 0)
        out = keep & ((won == 0) | (lost == 0))
        if not out.any():
            return never_wins, never_loses
        keep &= ~out


def one_sided_bound(pairs: Pairwise, i: int, finite: np.ndarray, log_strength: np.ndarray, upper: bool,
                    level: float) -> float:
    """The log-strength at which strategy i's expected share of its comparisons with the finite strategies
    reaches the Wilson bound of its observed share (0 or 1) over the clusters (stats.ratio_interval), by
    bisection; nan where it met no finite strategy."""
    won, met = pairs.per_cluster[:, i, finite], (pairs.per_cluster[:, i] + pairs.per_cluster[:, :, i])[:, finite]
    if met.sum() == 0:
        return float("nan")
    found = ratio_interval(won.sum(axis=1)[:, None], met.sum(axis=1)[:, None], [True], level)
    target = found["hi" if upper else "lo"][0]
    comparisons, opponents = met.sum(axis=0), log_strength[finite]
    low, high = opponents.min() - BRACKET, opponents.max() + BRACKET
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2
        share = (comparisons * expit(middle - opponents)).sum() / comparisons.sum()
        low, high = (middle, high) if share < target else (low, middle)
    return float((low + high) / 2)


def ratings(rows: pl.DataFrame | Pairwise, level: float = LEVEL) -> pl.DataFrame:
    """The Bradley–Terry rating of every strategy on the Elo scale (mean 0 over the finite ones), with its
    cluster-robust interval (lo, hi), the games it sat in, clusters, level and the method (a stats.METHODS key).
    A strategy that never wins: rating and lo -inf, hi its one-sided bound, never_wins; one that never loses
    likewise at +inf. Best first. `rows` may be their pairwise comparisons, computed already."""
    pairs = rows if isinstance(rows, Pairwise) else pairwise(rows)
    never_wins, never_loses = finite_strategies(pairs.wins)
    finite = ~(never_wins | never_loses)
    log_strength, lo, hi = np.full(len(finite), np.nan), np.full(len(finite), np.nan), np.full(len(finite), np.nan)
    if finite.sum() >= 2:
        sub = np.ix_(finite, finite)
        cluster_wins = pairs.per_cluster[:, finite][:, :, finite]
        log_strength[finite] = bradley_terry(pairs.wins[sub])
        half = t_quantile(clusters_met(cluster_wins), level) * sandwich_se(cluster_wins, log_strength[finite])
        lo[finite], hi[finite] = log_strength[finite] - half, log_strength[finite] + half
    elif finite.sum() == 1:
        log_strength[finite] = 0.0
    for i in np.flatnonzero(never_wins | never_loses):
        bound = one_sided_bound(pairs, i, finite, log_strength, never_wins[i], level)
        log_strength[i] = np.inf if never_loses[i] else -np.inf
        lo[i], hi[i] = (-np.inf, bound) if never_wins[i] else (bound, np.inf)
    method = np.where(finite, "bradley_terry_sandwich", "bradley_terry_bound")
    return pl.DataFrame({"strategy": pairs.strategies, "rating": ELO * log_strength, "lo": ELO * lo,
                         "hi": ELO * hi, "games": np.diag(pairs.games), "never_wins": never_wins,
                         "never_loses": never_loses, "clusters": clusters_met(pairs.per_cluster), "level": level,
                         "method": method}).sort("rating", "strategy", descending=[True, False], nulls_last=True)


def head_to_head(wins: np.ndarray) -> np.ndarray:
    """share[..., i, j]: i's wins over j / their comparisons (nan where they never met)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return wins / (wins + np.swapaxes(wins, -1, -2))


def leg_intervals(pairs: Pairwise, level: float) -> dict[str, np.ndarray]:
    """Every ordered pair's head-to-head share (S, S) with its interval over the clusters (stats.ratio_interval)
    and the one-sided confidence that it exceeds 0.5 (from the matching test, stats.ratio_p_values)."""
    s = len(pairs.strategies)
    met = pairs.per_cluster + np.swapaxes(pairs.per_cluster, -1, -2)
    found = ratio_interval(pairs.per_cluster.reshape(-1, s * s), met.reshape(-1, s * s), np.ones(s * s, bool), level)
    p = ratio_p_values(found["estimate"], found["se"], found["n_eff"], found["clusters"], 0.5)
    above = np.where(found["estimate"] > 0.5, 1 - p / 2, p / 2)
    return {key: np.asarray(found[key]).reshape(s, s) for key in ("lo", "hi", "method")} | {
        "above": above.reshape(s, s)}


def cycles(rows: pl.DataFrame | Pairwise, level: float = LEVEL) -> list[dict]:
    """Intransitive triples: A beats B, B beats C and C beats A in head-to-head share (A's pairwise wins over B /
    their comparisons, over the games where both sat), each leg with its cluster-robust interval. Both
    orientations of every triple are looked at.

    verdict "clear": every leg's interval lies above 0.5; "likely": every estimate is above 0.5 but some interval
    reaches 0.5. support: the smallest one-sided confidence of a leg that its share exceeds 0.5. Weaker cycles are
    left out; none gives []. Clear cycles first, then by support. `rows` may be their pairwise comparisons."""
    pairs = rows if isinstance(rows, Pairwise) else pairwise(rows)
    share, legs_found = head_to_head(pairs.wins), leg_intervals(pairs, level)
    lo, hi, above = legs_found["lo"], legs_found["hi"], legs_found["above"]
    names, found = pairs.strategies, []
    for a, b, c in combinations(range(len(names)), 3):
        for cycle in ((a, b, c), (a, c, b)):
            legs = list(zip(cycle, cycle[1:] + cycle[:1]))
            if all(share[i, j] > 0.5 for i, j in legs):
                found.append({"cycle": [names[i] for i in cycle],
                              "verdict": "clear" if all(lo[i, j] > 0.5 for i, j in legs) else "likely",
                              "support": float(min(above[i, j] for i, j in legs)), "level": level,
                              "method": "cluster_t",
                              "legs": [{"winner": names[i], "loser": names[j], "estimate": float(share[i, j]),
                                        "lo": float(lo[i, j]), "hi": float(hi[i, j]), "games": int(pairs.games[i, j])}
                                       for i, j in legs]})
    return sorted(found, key=lambda cycle: (cycle["verdict"] != "clear", -cycle["support"]))
