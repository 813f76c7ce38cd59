"""Handicaps for every seat, half points and tie orders, re-scored from the recorded games (issue 17 §3).

Every function takes the rows of ONE experiment at ONE player count (one row per (game, seat)). A `Compensation`
(points for every seat, a tie order) changes how the recorded games are scored; `rescore` gives every game's win
shares under it, computed from the recorded scores and the game's tie-breaker columns, for all games at once. On
top of it:

- `SeatCurve`: one seat's win share as a function of its own points, the others' fixed, at any points in a sorted
  search (its bisection finds the seat's fair points whatever the score range; reports/compensation.py builds
  the compensation that evens every seat on it);
- `seat_handicaps`: for every seat, its win share under each handicap on a half-point grid around its fair point
  (every step, or MAX_GRID steps spread evenly over a wider range), with cluster-robust intervals, the fair
  point (the share closest to 1/P) and the confidence set of fair handicaps (the grid's points whose 95% interval
  holds 1/P);
- `handicap_findings`: the handicap grid as findings records.

Points are always "in the seat's favour": added to its score where the highest score wins, subtracted where the
lowest wins. Scores are compared doubled, so a half point is a whole step: with integer scores +h.5 never ties, it
beats everyone the seat ties at +h and loses to everyone above, and no tie-breaker applies to that pair.
Intervals: `share_intervals`, the one place they come from (a cluster-robust interval over deals, or matches in match
mode, cluster-robust)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import polars as pl

from reports.analysis import GameData, record
from reports.load import ResultsError
from reports.stats import cluster_ratio_interval, ratio_interval

METHOD = "cluster_t"  # of every re-scored share (share_intervals; stats.METHODS), over deals or matches

MAX_GRID = 81  # most half-point steps shown per seat; a wider range is sampled evenly
MARGIN_SE = 4.0  # a grid ends where the share is this many (cluster) standard errors off fair


@dataclass(frozen=True)
class Compensation:
    """A change to how the recorded games are scored.

    `points[seat]` go to that seat's final score in its favour (added where the highest score wins, subtracted
    where the lowest wins; negative points count against the seat), whole or half points; () gives none.
    `tie_order` (seats, the first wins) settles the ties on score that the game's own tie-breakers leave; ties
    that remain are shared, 1/k each."""
    points: tuple[float, ...] = ()
    tie_order: tuple[int, ...] | None = None

    def __post_init__(self):
        if any((2 * p) % 1 for p in self.points):
            raise ValueError(f"a handicap is whole or half points, got {self.points}")

    @classmethod
    def of_steps(cls, steps, tie_order=None) -> Compensation:
        """From half-point steps per seat."""
        return cls(tuple(s / 2 for s in np.asarray(steps).tolist()), None if tie_order is None else tuple(tie_order))

    def steps(self, players: int) -> np.ndarray:
        """(P,) the points in half-point steps, 0 for every seat when none are given."""
        if self.points and len(self.points) != players:
            raise ValueError(f"{len(self.points)} points for {players} seats")
        return np.array([round(2 * p) for p in self.points] if self.points else [0] * players, np.int64)


NONE = Compensation()


@dataclass(frozen=True)
class Games:
    """One experiment's games at one player count as (games, seats) arrays, in game_id order."""
    game_id: np.ndarray  # (G,)
    cluster: np.ndarray  # (G,) index of the game's cluster, 0..C-1
    favour: np.ndarray  # (G, P) int64: each seat's score in its favour (negated where lowest wins), doubled
    breakers: tuple[np.ndarray, ...]  # (G, P) int64 each: the tie-breaker columns, the most wins, in order
    cluster_by: str  # "deal" or "match_id"
    tie_breakers: tuple[str, ...]
    weight: np.ndarray  # (G,) the recorded games each row stands for: 1, or more where merged (distinct_scores)

    @property
    def players(self) -> int:
        return self.favour.shape[1]

    def mean(self, values: np.ndarray) -> np.ndarray:
        """The mean over the recorded games of per-row values (G,) or (G, k)."""
        return np.average(values, axis=0, weights=self.weight)

    @property
    def clusters(self) -> int:
        return int(self.cluster.max()) + 1

    @property
    def bound(self) -> int:
        """Half-point steps beyond which a seat wins (or loses) every game: the score range plus a half point."""
        return int(self.favour.max() - self.favour.min()) + 1


def cluster_column(rows: pl.DataFrame) -> str:
    """The unit of a cluster: match_id in match mode, else deal."""
    return "match_id" if "match_id" in rows.columns and rows["match_id"].null_count() == 0 else "deal"


def prepare(rows: pl.DataFrame, lowest_wins: bool, tie_breakers: tuple[str, ...] | list[str] = ()) -> Games:
    """The rows as (games, seats) arrays; ResultsError unless they are one experiment at one player count with
    every seat 0..P-1 of every game present once."""
    if rows.is_empty() or rows["players"].n_unique() != 1 or rows["experiment"].n_unique() != 1:
        raise ResultsError("a handicap needs the rows of one experiment at one player count")
    by = cluster_column(rows)
    ordered = rows.select(*dict.fromkeys(["game_id", "seat", "players", "score", by, *tie_breakers])).sort("game_id",
                                                                                                          "seat")
    players, count = int(ordered["players"][0]), ordered["game_id"].n_unique()
    seats = ordered["seat"].to_numpy()
    if ordered.height != count * players or (seats.reshape(count, players) != np.arange(players)).any():
        raise ResultsError(f"every game needs exactly one row for each of its {players} seats")

    def grid(column: str) -> np.ndarray:
        return ordered[column].to_numpy().astype(np.int64).reshape(count, players)

    _, cluster = np.unique(grid(by)[:, 0], return_inverse=True)
    return Games(game_id=grid("game_id")[:, 0], cluster=cluster.ravel(),
                 favour=2 * (-1 if lowest_wins else 1) * grid("score"),
                 breakers=tuple(grid(column) for column in tie_breakers), cluster_by=by,
                 tie_breakers=tuple(tie_breakers), weight=np.ones(count))


def distinct_scores(games: Games) -> Games:
    """The games' distinct rows of scores and tie-breakers, each weighted by the games it stands for: every share
    (a mean over the games) is the same, from far fewer rows; no cluster is kept, so no interval comes from them."""
    keys = np.concatenate([games.favour, *games.breakers], axis=1)
    _, first, inverse = np.unique(row_codes(keys), return_index=True, return_inverse=True)
    rows, seats = keys[first], games.players
    return Games(game_id=np.arange(len(rows)), cluster=np.zeros(len(rows), np.int64), favour=rows[:, :seats],
                 breakers=tuple(rows[:, seats * k:seats * (k + 1)] for k in range(1, len(games.breakers) + 1)),
                 cluster_by=games.cluster_by, tie_breakers=games.tie_breakers,
                 weight=np.bincount(inverse.ravel(), weights=games.weight))


def row_codes(keys: np.ndarray) -> np.ndarray:
    """(G,) one number per row of keys (G, k), equal exactly where the rows are: the row's digits in a mixed radix
    (each column's range), or its bytes where those overflow 62 bits."""
    low = keys.min(axis=0)
    span = keys.max(axis=0) - low + 1
    if np.prod(span.astype(float)) >= 2**62:
        return np.ascontiguousarray(keys).view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel()
    return (keys - low) @ np.cumprod(np.concatenate([[1], span[:-1]]))


# ---------------------------------------------------------------- re-scoring


def first_place_shares(levels: list[np.ndarray]) -> np.ndarray:
    """(G, P) win shares: the seats whose key, compared level by level (each (G, P), the most wins), is the
    game's best share the win equally. Reductions run over the few seats, column by column (numpy's max along a
    short axis is several times slower)."""
    leading = np.ones(levels[0].shape, bool)
    for level in levels:
        masked = np.where(leading, level, np.iinfo(np.int64).min)
        leading &= masked == functools.reduce(np.maximum, masked.T)[:, None]
    return leading / functools.reduce(np.add, leading.T.astype(np.int64))[:, None]


def tie_rank(order: tuple[int, ...], players: int) -> np.ndarray:
    """(P,) each seat's standing in a tie order, the first the highest; ValueError unless it names every seat once."""
    if sorted(order) != list(range(players)):
        raise ValueError(f"a tie order names every seat 0..{players - 1} once, got {list(order)}")
    rank = np.zeros(players, np.int64)
    rank[list(order)] = np.arange(players, 0, -1)
    return rank


def scored_shares(games: Games, favour: np.ndarray, tie_order: tuple[int, ...] | None) -> np.ndarray:
    """(G, P) win shares with these (doubled) scores in each seat's favour, then the game's tie-breakers, then the
    tie order."""
    levels = [favour, *games.breakers]
    if tie_order is not None:
        levels.append(np.broadcast_to(tie_rank(tie_order, games.players), favour.shape))
    return first_place_shares(levels)


def win_shares(games: Games, compensation: Compensation) -> np.ndarray:
    """(G, P) win shares of every game under the compensation (vectorised over the games)."""
    return scored_shares(games, games.favour + compensation.steps(games.players), compensation.tie_order)


def rescore(rows: pl.DataFrame, compensation: Compensation, lowest_wins: bool,
            tie_breakers: tuple[str, ...] | list[str] = ()) -> pl.DataFrame:
    """Every game's win shares under the compensation, from the recorded scores and tie-breaker columns:
    columns game_id, seat, win (1/k for each of k seats still tied for first), sorted by game_id and seat."""
    games = prepare(rows, lowest_wins, tie_breakers)
    shares = win_shares(games, compensation)
    return pl.DataFrame({"game_id": np.repeat(games.game_id, games.players),
                         "seat": np.tile(np.arange(games.players, dtype=np.int8), len(games.game_id)),
                         "win": shares.ravel()})


# ---------------------------------------------------------------- shares and intervals


def cluster_sums(games: Games, values: np.ndarray) -> np.ndarray:
    """(C,) sums of per-game values within each cluster."""
    return np.bincount(games.cluster, weights=values, minlength=games.clusters)


def cluster_se(wins: np.ndarray, counts: np.ndarray) -> float:
    """The cluster-robust standard error of sum(wins) / sum(counts), from per-cluster sums (the grid's guide to
    where a share is clearly off fair)."""
    return float(ratio_interval(wins[:, None], counts[:, None], [True])["se"][0])


def share_intervals(counts: np.ndarray, wins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 95% intervals (lo, hi) of every win share sum(wins[:, j]) / sum(counts), wins (C, k) summed per cluster:
    the one place every handicap and compensation interval comes from (stats.cluster_ratio_interval, method
    cluster_t, Wilson on the effective sample near 0% and 100%)."""
    return cluster_ratio_interval(wins, counts)


class SeatCurve:
    """One seat's win share as a function of its own points, every other seat's compensation fixed.

    Game g is won outright with more than margin[g] half-point steps in the seat's favour, won tie_share[g] with
    exactly margin[g] (the tie-breakers and tie order settle it) and lost with fewer; so any step's share is two
    searches in the sorted margins, whatever the score range."""

    def __init__(self, games: Games, seat: int, others: Compensation = NONE):
        self.games, self.seat = games, seat
        favour = games.favour + others.steps(games.players)
        best_other = np.delete(favour, seat, axis=1).max(axis=1)
        self.margin = best_other - games.favour[:, seat]
        tied = favour.copy()
        tied[:, seat] = best_other
        self.tie_share = scored_shares(games, tied, others.tie_order)[:, seat]
        self.counts = cluster_sums(games, np.ones(len(games.game_id)))
        order = np.argsort(self.margin)
        self.sorted_margin = self.margin[order]
        weights = games.weight[order]
        self.weight_below = np.concatenate([[0.0], np.cumsum(weights)])  # [k]: of the k smallest margins
        self.ties_below = np.concatenate([[0.0], np.cumsum(weights * self.tie_share[order])])

    def game_wins(self, step: int) -> np.ndarray:
        """(G,) the seat's win in every game with `step` half points in its favour."""
        return (self.margin < step) + (self.margin == step) * self.tie_share

    def share(self, step: int) -> float:
        """The seat's win share with `step` half points in its favour: the games it wins outright (margin below the
        step) and its share of those it ties (margin at it), from the sorted margins in two searches."""
        below, at = np.searchsorted(self.sorted_margin, [step, step + 1])
        won = self.weight_below[below] + self.ties_below[at] - self.ties_below[below]
        return float(won / self.weight_below[-1])

    def wins(self, step: int) -> np.ndarray:
        """(C,) the seat's wins per cluster with `step` half points in its favour."""
        return cluster_sums(self.games, self.game_wins(step))

    def fair_step(self) -> int:
        """The step whose share is closest to 1/P (the smaller |step| of two as close), by bisection: the share
        never falls as the step grows, from 0 below the smallest margin to 1 above the largest."""
        fair = 1 / self.games.players
        below, above = int(self.margin.min()) - 1, int(self.margin.max()) + 1
        while above - below > 1:
            middle = (below + above) // 2
            below, above = (below, middle) if self.share(middle) >= fair else (middle, above)
        return self.toward_zero(min((above, below), key=lambda step: (round(abs(self.share(step) - fair), 12),
                                                                     abs(step))))

    def toward_zero(self, step: int) -> int:
        """The step nearest 0 with the same share as `step` (the share is flat between two margins: with scores
        of millions, a half point is any of the steps between them), by bisection."""
        share, inside, outside = round(self.share(step), 12), step, 0
        if round(self.share(0), 12) == share:
            return 0
        while abs(inside - outside) > 1:
            middle = (inside + outside) // 2
            inside, outside = (middle, outside) if round(self.share(middle), 12) == share else (inside, middle)
        return inside

    def off_fair(self, step: int, margin: float) -> int:
        """+1 when the share is clearly above 1/P (by `margin` standard errors), -1 clearly below, else 0."""
        gap = self.share(step) - 1 / self.games.players
        return int(np.sign(gap)) if abs(gap) > margin * cluster_se(self.wins(step), self.counts) else 0

    def clearly_off(self, start: int, direction: int, margin: float) -> int:
        """The first step from `start` in `direction` (+1 or -1) at which the share is clearly off fair that way
        (or the bound, past which the seat wins or loses every game): doubling, then bisection."""
        bound = self.games.bound
        near, far = 0, 1
        while self.off_fair(start + direction * far, margin) != direction and far < 2 * bound:
            near, far = far, 2 * far
        while far - near > 1:
            middle = (near + far) // 2
            near, far = (near, middle) if self.off_fair(start + direction * middle, margin) == direction \
                else (middle, far)
        return max(-bound, min(bound, start + direction * far))

    def steps(self, margin: float) -> np.ndarray:
        """Half-point steps from 0 and the fair point out to where the share is clearly off fair each side: every
        step when they are at most MAX_GRID, else MAX_GRID evenly spread plus 0 and the fair point's neighbours."""
        fair = self.fair_step()
        low, high = min(0, self.clearly_off(fair, -1, margin)), max(0, self.clearly_off(fair, 1, margin))
        if high - low < MAX_GRID:
            return np.arange(low, high + 1)
        spread = np.linspace(low, high, MAX_GRID).round().astype(np.int64)
        return np.unique(np.concatenate([spread, [0, fair - 1, fair, fair + 1]]).clip(low, high))


# ---------------------------------------------------------------- handicaps per seat


def seat_handicaps(rows: pl.DataFrame, lowest_wins: bool,
                   tie_breakers: tuple[str, ...] | list[str] = ()) -> pl.DataFrame:
    """For every seat, its win share with each number of points in its favour on a half-point grid, from 0 out
    past its fair point, with 95% cluster-robust intervals (share_intervals).

    Columns: players, seat, points (float, x.0 or x.5), estimate, low, high, games, method; plausible (the
    interval holds 1/P); fair_point (the grid's share closest to 1/P, the smaller |points| on a tie: a half point
    where the fair point lies between two whole points); points_low, points_high (the confidence set of fair
    handicaps: the least and most points whose interval holds 1/P; null when none does). A grid end whose
    interval still holds 1/P is widened until it does not (or reaches the score range)."""
    games = prepare(rows, lowest_wins, tie_breakers)
    curves = [SeatCurve(games, seat) for seat in range(games.players)]
    margin = MARGIN_SE
    while True:
        grid = handicap_grid(curves, margin)
        if not open_ends(grid, games.bound):
            return grid
        margin *= 2


def handicap_grid(curves: list[SeatCurve], margin: float) -> pl.DataFrame:
    """The grid of every seat's curve with its intervals."""
    games = curves[0].games
    cells = [(curve.seat, step) for curve in curves for step in curve.steps(margin)]
    wins = np.column_stack([curves[seat].wins(step) for seat, step in cells])
    lo, hi = share_intervals(curves[0].counts, wins)
    fair = 1 / games.players
    grid = pl.DataFrame({
        "players": games.players, "seat": [seat for seat, _ in cells], "points": [step / 2 for _, step in cells],
        "estimate": wins.sum(axis=0) / len(games.game_id), "low": lo, "high": hi, "games": len(games.game_id),
        "method": METHOD}, schema_overrides={"players": pl.Int8, "seat": pl.Int8})
    grid = grid.with_columns(plausible=(pl.col("low") <= fair) & (fair <= pl.col("high")),
                             gap=(pl.col("estimate") - fair).abs().round(12), size=pl.col("points").abs())
    closest = pl.col("gap") == pl.col("gap").min().over("seat")
    smallest = pl.col("size") == pl.col("size").filter(closest).min().over("seat")
    plausible = pl.col("points").filter(pl.col("plausible"))
    return grid.with_columns(fair_point=closest & smallest, points_low=plausible.min().over("seat"),
                             points_high=plausible.max().over("seat")).drop("gap", "size")


def open_ends(grid: pl.DataFrame, bound: int) -> bool:
    """Whether some seat's grid ends in a plausible point short of the bound (the set may reach further)."""
    in_set = pl.col("plausible").sort_by("points")
    ends = grid.group_by("seat").agg(pl.col("points").min().alias("first"), pl.col("points").max().alias("last"),
                                     in_set.first().alias("first_in"), in_set.last().alias("last_in"))
    return bool(ends.select(((pl.col("first_in") & (pl.col("first") * 2 > -bound))
                             | (pl.col("last_in") & (pl.col("last") * 2 < bound))).any()).item())


def fair_handicaps(grid: pl.DataFrame) -> pl.DataFrame:
    """One row per seat: its fair point with the share under it, and the confidence set points_low..points_high."""
    return grid.filter(pl.col("fair_point")).sort("seat").drop("plausible", "fair_point")


def handicap_findings(grid: pl.DataFrame, data: GameData) -> list[dict]:
    """Every grid row of seat_handicaps as a findings record (metric "handicap": the seat's win share with
    `points` in its favour), fair_point marking the seat's fair point."""
    return [record(data, r["players"], "handicap", r["estimate"], r["low"], r["high"], r["games"], r["method"],
                   seat=r["seat"], points=r["points"], fair_point=r["fair_point"], points_low=r["points_low"],
                   points_high=r["points_high"])
            for r in grid.sort("seat", "points").iter_rows(named=True)]
