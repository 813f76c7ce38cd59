"""Bradley–Terry ratings of the strategies of one experiment, from the ranks, and intransitive cycles.

Within each game every pair of seats held by different strategies is one comparison: the better rank wins it,
equal ranks give half a win each (two seats of one strategy say nothing about it and are not compared).
Bradley–Terry rather than Plackett–Luce: ranks are often tied, which Plackett–Luce, a model of full orderings,
has no place for, while a pair handles a tie as half a win; and "A beats B in x% of their meetings" is what a
designer means by one strategy being stronger, which is what Bradley–Terry models. The pairwise win counts are
its sufficient statistics, so the fit and every bootstrap refit work on an S x S matrix, not on the rows.

The fit is Hunter's (2004) MM algorithm. One virtual drawn comparison per pair of strategies (half a win each way)
keeps it finite where a strategy never wins or never loses (in a small resample) and joins strategies that never
met; beside the thousands of real comparisons of an experiment it moves no rating visibly. The scale is pinned by
a mean log-strength of 0 and reported on the Elo scale, 400 / ln 10 points per unit of log-strength, so a gap of
D points means P(A beats B) = 1 / (1 + 10^(-D / 400)). Intervals: a cluster bootstrap over deals (matches in match
mode), resampling clusters with their pairwise counts and refitting, 200 resamples, seed fixed.
"""

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import polars as pl

from reports.stats import cluster_codes, cluster_resampled_sums, cluster_unit, percentile_interval

ELO = 400 / np.log(10)  # rating points per unit of log-strength
VIRTUAL_WIN = 0.5  # each way, per pair of strategies
TOLERANCE = 1e-10  # largest change of a log-strength between MM steps at convergence
MAX_STEPS = 20_000
RESAMPLES = 200


@dataclass(frozen=True)
class Pairwise:
    """The pairwise comparisons of one experiment's strategies (sorted names), with bootstrap resamples.

    wins[i, j]: i's wins over j (ties half); games[i, j]: games where i and j both sat (games[i, i]: games of i);
    boot[b]: wins of resample b; method: how the resamples were drawn."""

    strategies: list[str]
    wins: np.ndarray
    games: np.ndarray
    boot: np.ndarray
    method: str


def seat_tables(rows: pl.DataFrame, *names: str) -> list[np.ndarray]:
    """(games, seats) for each named column of the rows: one game per line, seats in order (every game has every
    seat)."""
    ordered = rows.sort("game_id", "seat")
    seats = ordered.height // ordered["game_id"].n_unique()
    return [ordered[name].to_numpy().reshape(-1, seats) for name in names]


def pairwise(rows: pl.DataFrame, n_boot: int = RESAMPLES, seed: int = 0) -> Pairwise:
    """Pairwise wins of every strategy over every other in these rows (one experiment, one player count), and
    their cluster bootstrap: all in a few array operations per pair of seats, none per game or cluster."""
    strategies, code = np.unique(rows["strategy"].to_numpy().astype(str), return_inverse=True)
    cluster, n_clusters = cluster_codes(rows)
    coded = rows.with_columns(_code=pl.Series(code.ravel()), _cluster=pl.Series(cluster))
    strategy, rank, game_cluster = seat_tables(coded, "_code", "rank", "_cluster")
    s = len(strategies)
    cells, won = [], []
    for i, j in combinations(range(strategy.shape[1]), 2):
        met = strategy[:, i] != strategy[:, j]
        i_wins = (rank[met, i] < rank[met, j]) + 0.5 * (rank[met, i] == rank[met, j])
        base = game_cluster[met, 0] * s * s
        cells += [base + strategy[met, i] * s + strategy[met, j], base + strategy[met, j] * s + strategy[met, i]]
        won += [i_wins, 1 - i_wins]
    per_cluster = np.bincount(np.concatenate(cells), np.concatenate(won), n_clusters * s * s).reshape(n_clusters, -1)
    boot = cluster_resampled_sums(per_cluster, n_boot, seed).reshape(n_boot, s, s)
    present = np.zeros((len(strategy), s))
    np.put_along_axis(present, strategy, 1.0, axis=1)
    unit = {"match": "matches", "deal": "deals"}[cluster_unit(rows)]
    method = f"cluster bootstrap over {unit} ({n_boot} resamples, refitted; equal ranks count half a win each)"
    return Pairwise(list(strategies), per_cluster.sum(axis=0).reshape(s, s), (present.T @ present).astype(np.int64),
                    boot, method)


def bradley_terry(wins: np.ndarray) -> np.ndarray:
    """Log-strengths (..., S), mean 0, of the Bradley–Terry fit to wins (..., S, S) (wins[i, j]: i over j), by MM.

    Hunter (2004): strength_i <- W_i / sum_j n_ij / (strength_i + strength_j), W_i i's wins, n_ij the comparisons
    of i and j, each with one virtual drawn comparison per pair. Every matrix of the batch is fitted at once."""
    s = wins.shape[-1]
    wins = wins + VIRTUAL_WIN * (1 - np.eye(s))
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


def ratings(rows: pl.DataFrame, n_boot: int = RESAMPLES, seed: int = 0) -> pl.DataFrame:
    """The Bradley–Terry rating of every strategy on the Elo scale (mean 0), with its 95% cluster bootstrap
    interval (lo, hi), the games it sat in, and the method. Best first."""
    pairs = pairwise(rows, n_boot, seed)
    lo, hi = percentile_interval(ELO * bradley_terry(pairs.boot))
    method = "Bradley–Terry by MM on pairwise rank comparisons, Elo scale (mean 0); " + pairs.method
    return pl.DataFrame({"strategy": pairs.strategies, "rating": ELO * bradley_terry(pairs.wins), "lo": lo, "hi": hi,
                         "games": np.diag(pairs.games), "method": method}).sort("rating", descending=True)


def head_to_head(wins: np.ndarray) -> np.ndarray:
    """share[..., i, j]: i's wins over j / their comparisons (nan where they never met)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return wins / (wins + np.swapaxes(wins, -1, -2))


def cycles(rows: pl.DataFrame, n_boot: int = RESAMPLES, seed: int = 0) -> list[dict]:
    """Intransitive triples: A beats B, B beats C and C beats A in head-to-head share (A's pairwise wins over B /
    their comparisons, over the games where both sat), each leg with its cluster bootstrap interval.

    verdict "clear": every leg's interval lies above 0.5; "likely": every estimate is above 0.5 and the cycle holds
    in most resamples (support, the share of resamples where all three legs exceed 0.5), but some interval reaches
    0.5. Weaker cycles are left out; none gives []. Clear cycles first, then by support."""
    pairs = pairwise(rows, n_boot, seed)
    share, boot = head_to_head(pairs.wins), head_to_head(pairs.boot)
    lo, hi = percentile_interval(boot.reshape(n_boot, -1))
    lo, hi = lo.reshape(share.shape), hi.reshape(share.shape)
    names, found = pairs.strategies, []
    for a, b, c in combinations(range(len(names)), 3):
        for cycle in ((a, b, c), (a, c, b)):
            legs = list(zip(cycle, cycle[1:] + cycle[:1]))
            support = float(np.mean(np.all([boot[:, i, j] > 0.5 for i, j in legs], axis=0)))
            if all(share[i, j] > 0.5 for i, j in legs) and support > 0.5:
                found.append({"cycle": [names[i] for i in cycle],
                              "verdict": "clear" if all(lo[i, j] > 0.5 for i, j in legs) else "likely",
                              "support": support, "method": "head-to-head shares; " + pairs.method,
                              "legs": [{"winner": names[i], "loser": names[j], "estimate": float(share[i, j]),
                                        "lo": float(lo[i, j]), "hi": float(hi[i, j]), "games": int(pairs.games[i, j])}
                                       for i, j in legs]})
    return sorted(found, key=lambda cycle: (cycle["verdict"] != "clear", -cycle["support"]))
