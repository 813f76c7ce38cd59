"""Handicaps for every seat, half points and tie rules, re-scored from the recorded games (issue 17 §3).

Every function takes the rows of ONE experiment at ONE player count (one row per (game, seat)). A `Compensation`
changes how the recorded games are scored; `rescore` gives every game's win shares under it, computed from the
recorded scores and the game's tie-breaker columns, for all games at once. On top of it:

- `seat_handicaps`: for every seat, its win share under each handicap on a half-point grid around its fair point,
  with cluster-bootstrap intervals, the fair point (the share closest to 1/P) and the confidence set of fair
  handicaps (the points whose 95% interval holds 1/P);
- `recommend`: among one seat's whole or half points (each seat in turn) and the start player's tie rules, the
  compensation that leaves the seats closest to fair, with every seat's share under it and without it;
- `handicap_findings`: the handicap grid as findings records.

Points are always "in the seat's favour": added to its score where the highest score wins, subtracted where the
lowest wins. Scores are compared doubled, so a half point is a whole step: with integer scores +h.5 never ties, it
beats everyone the seat ties at +h and loses to everyone above, and no tie-breaker applies to that pair.
Intervals: cluster bootstrap (deals, or matches in match mode), the same cluster draws for every column.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from reports.load import ResultsError
from reports.stats import resampled_sums

N_BOOT = 2000
LEVEL = 0.95
MARGIN_SE = 4.0  # a grid ends where the share is this many (cluster) standard errors off fair
CRITERION = "the largest |win share − 1/P| over the seats (minimax)"


@dataclass(frozen=True)
class Compensation:
    """A change to how the recorded games are scored.

    `points` go to `seat`'s final score in its favour (added where the highest score wins, subtracted where the
    lowest wins; negative points count against the seat); whole or half points. `tie_seat` loses every tie on
    score it is in (with `tie_wins`, wins it); the rule applies after the game's own tie-breakers, to the ties
    they leave, or with `tie_first` before them (the tie-breakers then only settle ties among the other seats).
    Ties that remain are shared, 1/k each."""
    seat: int | None = None
    points: float = 0.0
    tie_seat: int | None = None
    tie_wins: bool = False
    tie_first: bool = False

    def __post_init__(self):
        if (2 * self.points) % 1:
            raise ValueError(f"a handicap is whole or half points, got {self.points}")
        if self.points and self.seat is None:
            raise ValueError("points need the seat they go to")

    @property
    def steps(self) -> int:
        """The points in half-point steps."""
        return round(2 * self.points)

    @property
    def tie_rule(self) -> str | None:
        """'seat 0 loses ties (after tie-breakers)', or None."""
        if self.tie_seat is None:
            return None
        return f"seat {self.tie_seat} {'wins' if self.tie_wins else 'loses'} ties"

    def label(self, tie_breakers: tuple[str, ...] = ()) -> str:
        """'none', 'seat 2: +1.5 points', 'seat 0 loses ties', 'seat 0 loses ties (before tie-breakers)'..."""
        points = f"{self.points:+g}".replace("-", "−") + (" point" if abs(self.points) == 1 else " points")
        parts = [f"seat {self.seat}: {points}"] if self.steps else []
        if self.tie_rule:
            parts.append(self.tie_rule + (f" ({'before' if self.tie_first else 'after'} tie-breakers)"
                                          if tie_breakers else ""))
        return ", ".join(parts) or "none"


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

    @property
    def players(self) -> int:
        return self.favour.shape[1]

    @property
    def clusters(self) -> int:
        return int(self.cluster.max()) + 1

    @property
    def bound(self) -> int:
        """Half-point steps beyond which a seat wins (or loses) every game: the score range plus a half point."""
        return int(self.favour.max() - self.favour.min()) + 1


def cluster_column(rows: pl.DataFrame) -> str:
    """The unit of resampling: match_id in match mode, else deal."""
    return "match_id" if "match_id" in rows.columns and rows["match_id"].null_count() == 0 else "deal"


def prepare(rows: pl.DataFrame, lowest_wins: bool, tie_breakers: tuple[str, ...] | list[str] = ()) -> Games:
    """The rows as (games, seats) arrays; ResultsError unless they are one experiment at one player count with
    every seat 0..P-1 of every game present once."""
    if rows.is_empty() or rows["players"].n_unique() != 1 or rows["experiment"].n_unique() != 1:
        raise ResultsError("a handicap needs the rows of one experiment at one player count")
    ordered = rows.sort("game_id", "seat")
    players, count = int(ordered["players"][0]), ordered["game_id"].n_unique()
    seats = ordered["seat"].to_numpy()
    if ordered.height != count * players or (seats.reshape(count, players) != np.arange(players)).any():
        raise ResultsError(f"every game needs exactly one row for each of its {players} seats")

    def grid(column: str) -> np.ndarray:
        return ordered[column].to_numpy().astype(np.int64).reshape(count, players)

    by = cluster_column(rows)
    _, cluster = np.unique(grid(by)[:, 0], return_inverse=True)
    return Games(game_id=grid("game_id")[:, 0], cluster=cluster.ravel(),
                 favour=2 * (-1 if lowest_wins else 1) * grid("score"),
                 breakers=tuple(grid(column) for column in tie_breakers), cluster_by=by,
                 tie_breakers=tuple(tie_breakers))


# ---------------------------------------------------------------- re-scoring


def first_place_shares(levels: list[np.ndarray]) -> np.ndarray:
    """(G, P) win shares: the seats whose key, compared level by level (each (G, P), the most wins), is the
    game's best share the win equally."""
    leading = np.ones(levels[0].shape, bool)
    for level in levels:
        masked = np.where(leading, level, np.iinfo(np.int64).min)
        leading &= masked == masked.max(axis=1, keepdims=True)
    return leading / leading.sum(axis=1, keepdims=True)


def win_shares(games: Games, compensation: Compensation) -> np.ndarray:
    """(G, P) win shares of every game under the compensation (vectorised over the games)."""
    for seat in (compensation.seat, compensation.tie_seat):
        if seat is not None and not 0 <= seat < games.players:
            raise ValueError(f"seat {seat} does not exist at {games.players} players")
    favour = games.favour
    if compensation.steps:
        favour = favour.copy()
        favour[:, compensation.seat] += compensation.steps
    levels = [favour, *games.breakers]
    if compensation.tie_seat is not None:
        rule = np.zeros(games.players, np.int64)
        rule[compensation.tie_seat] = 1 if compensation.tie_wins else -1
        levels.insert(1 if compensation.tie_first else len(levels), np.broadcast_to(rule, favour.shape))
    return first_place_shares(levels)


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
    """Cluster-robust standard error of sum(wins) / sum(counts), from per-cluster sums (a quick guide for the
    grid's width; the intervals themselves are bootstrapped)."""
    share = wins.sum() / counts.sum()
    spread = ((wins - share * counts) ** 2).sum() * len(wins) / max(len(wins) - 1, 1)
    return float(np.sqrt(spread) / counts.sum())


def bootstrap_shares(counts: np.ndarray, wins: np.ndarray, n_boot: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals (lo, hi) of sum(wins[:, j]) / sum(counts) for every column j of wins (C, k), from one
    cluster bootstrap (the same resampled clusters for every column)."""
    sums = resampled_sums(np.column_stack([counts, wins]), n_boot, seed)
    tail = (1 - LEVEL) / 2
    lo, hi = np.quantile(sums[:, 1:] / sums[:, :1], [tail, 1 - tail], axis=0)
    return lo, hi


def method_text(games: Games, n_boot: int) -> str:
    over = "matches" if games.cluster_by == "match_id" else "deals"
    scored = "scores and tie-breakers" if games.tie_breakers else "scores"
    return (f"re-scored from the recorded {scored}; cluster bootstrap over {over} ({n_boot} resamples, 95% "
            "percentile); a k-way tie counts 1/k of a win, resampled as it is")


class SeatCurve:
    """One seat's win share under its own points, per half-point step, computed once per step."""

    def __init__(self, games: Games, seat: int):
        self.games, self.seat = games, seat
        self.counts = cluster_sums(games, np.ones(len(games.game_id)))
        self._wins: dict[int, np.ndarray] = {}

    def wins(self, step: int) -> np.ndarray:
        """(C,) the seat's wins per cluster with `step` half points in its favour."""
        if step not in self._wins:
            shares = win_shares(self.games, Compensation(seat=self.seat, points=step / 2))
            self._wins[step] = cluster_sums(self.games, shares[:, self.seat])
        return self._wins[step]

    def share(self, step: int) -> float:
        return float(self.wins(step).sum() / self.counts.sum())

    def off_fair(self, step: int, margin: float) -> int:
        """+1 when the share is clearly above 1/P (by `margin` standard errors), -1 clearly below, else 0."""
        gap = self.share(step) - 1 / self.games.players
        return int(np.sign(gap)) if abs(gap) > margin * cluster_se(self.wins(step), self.counts) else 0

    def steps(self, margin: float) -> range:
        """Half-point steps from 0 out past the fair point, on to where the share is clearly off fair each side
        (or the bound, past which the seat wins or loses every game)."""
        fair, bound = 1 / self.games.players, self.games.bound
        direction = -1 if self.share(0) > fair else 1
        crossing = 0
        while (self.share(crossing) - fair) * direction < 0 and abs(crossing) < bound:
            crossing += direction
        low, high = min(0, crossing), max(0, crossing)
        while low > -bound and self.off_fair(low, margin) >= 0:
            low -= 1
        while high < bound and self.off_fair(high, margin) <= 0:
            high += 1
        return range(low, high + 1)


# ---------------------------------------------------------------- handicaps per seat


def seat_handicaps(rows: pl.DataFrame, lowest_wins: bool, tie_breakers: tuple[str, ...] | list[str] = (),
                   n_boot: int = N_BOOT, seed: int = 0) -> pl.DataFrame:
    """For every seat, its win share with each number of points in its favour on a half-point grid, from 0 out
    past its fair point, with 95% cluster-bootstrap intervals.

    Columns: players, seat, points (float, x.0 or x.5), estimate, low, high, games, method; plausible (the
    interval holds 1/P); fair_point (the grid's share closest to 1/P, the smaller |points| on a tie: a half point
    where the fair point lies between two whole points); points_low, points_high (the confidence set of fair
    handicaps: the least and most points whose interval holds 1/P; null when none does). A grid end whose
    interval still holds 1/P is widened until it does not (or reaches the score range)."""
    games = prepare(rows, lowest_wins, tie_breakers)
    curves = [SeatCurve(games, seat) for seat in range(games.players)]
    margin = MARGIN_SE
    while True:
        grid = handicap_grid(curves, margin, n_boot, seed)
        if not open_ends(grid, games.bound):
            return grid
        margin *= 2


def handicap_grid(curves: list[SeatCurve], margin: float, n_boot: int, seed: int) -> pl.DataFrame:
    """The grid of every seat's curve with its intervals (one bootstrap for all seats and points)."""
    games = curves[0].games
    cells = [(curve.seat, step) for curve in curves for step in curve.steps(margin)]
    wins = np.column_stack([curves[seat].wins(step) for seat, step in cells])
    lo, hi = bootstrap_shares(curves[0].counts, wins, n_boot, seed)
    fair = 1 / games.players
    grid = pl.DataFrame({
        "players": games.players, "seat": [seat for seat, _ in cells], "points": [step / 2 for _, step in cells],
        "estimate": wins.sum(axis=0) / len(games.game_id), "low": lo, "high": hi, "games": len(games.game_id),
        "method": method_text(games, n_boot)}, schema_overrides={"players": pl.Int8, "seat": pl.Int8})
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


def handicap_findings(grid: pl.DataFrame) -> list[dict]:
    """Every grid row of seat_handicaps as a findings record (metric "handicap": the seat's win share with
    `points` in its favour), fair_point marking the seat's fair point."""
    return [{"players": r["players"], "seat": r["seat"], "metric": "handicap", "points": r["points"],
             "estimate": r["estimate"], "low": r["low"], "high": r["high"], "games": r["games"],
             "method": r["method"], "fair_point": r["fair_point"], "points_low": r["points_low"],
             "points_high": r["points_high"]}
            for r in grid.sort("seat", "points").iter_rows(named=True)]


# ---------------------------------------------------------------- the recommended compensation


def candidates(grid: pl.DataFrame, start_share: float, players: int, tie_first: bool) -> list[Compensation]:
    """None; every seat's points on its grid; the start player loses ties; and, when the start player is behind
    (wins less than 1/P), it wins ties."""
    points = [Compensation(seat=seat, points=points) for seat, points in grid.select("seat", "points").iter_rows()
              if points]
    rules = [Compensation(tie_seat=0, tie_first=tie_first)]
    if start_share < 1 / players:
        rules.append(Compensation(tie_seat=0, tie_wins=True, tie_first=tie_first))
    return [NONE, *points, *rules]


def distance_from_fair(shares: np.ndarray) -> float:
    """The largest |share − 1/P| over the seats."""
    return float(np.abs(shares - 1 / len(shares)).max())


def simplicity(compensation: Compensation) -> tuple[int, float]:
    """Order among equally fair compensations: none, then a tie rule, then the fewest points."""
    return (0 if compensation == NONE else 1 if compensation.tie_seat is not None else 2, abs(compensation.points))


def share_records(games: Games, compensations: list[Compensation], n_boot: int, seed: int) -> list[list[dict]]:
    """Per compensation, every seat's win share under it with its interval (one bootstrap for all)."""
    counts = cluster_sums(games, np.ones(len(games.game_id)))
    shares = [win_shares(games, compensation) for compensation in compensations]
    wins = np.column_stack([cluster_sums(games, s[:, seat]) for s in shares for seat in range(games.players)])
    lo, hi = bootstrap_shares(counts, wins, n_boot, seed)
    method = method_text(games, n_boot)
    out = []
    for i, compensation in enumerate(compensations):
        columns = range(i * games.players, (i + 1) * games.players)
        out.append([{"players": games.players, "seat": seat, "metric": "compensated_win_share",
                     "compensation": compensation.label(games.tie_breakers), "compensated_seat": compensation.seat,
                     "points": compensation.points, "tie_rule": compensation.tie_rule,
                     "estimate": float(shares[i][:, seat].mean()), "low": float(lo[j]), "high": float(hi[j]),
                     "games": len(games.game_id), "method": method}
                    for seat, j in zip(range(games.players), columns)])
    return out


def recommend(rows: pl.DataFrame, lowest_wins: bool, tie_breakers: tuple[str, ...] | list[str] = (),
              n_boot: int = N_BOOT, seed: int = 0, tie_first: bool = False, grid: pl.DataFrame | None = None) -> dict:
    """The compensation that leaves the seats' win shares closest to fair, by CRITERION, among: one seat's whole
    or half points (each seat in turn, the points of its seat_handicaps grid); the start player loses ties; the
    start player wins ties when it wins less than 1/P (tie rules after the tie-breakers, or before with
    tie_first). A game whose every seat's 95% interval holds 1/P is fair within noise and gets "none".

    Returns players, fair (1/P), compensation (its label), kind ("none", "points", "tie rule"), seat, points,
    tie_rule, criterion, distance (of the chosen one) and distance_without, fair_within_noise, candidates (how
    many were compared), games, method; and records (findings, metric "compensated_win_share", every seat):
    shares (under it), without (no compensation) and tie_rules (under each tie rule tried). `grid` is
    seat_handicaps' result for these rows, computed when not given."""
    games = prepare(rows, lowest_wins, tie_breakers)
    grid = seat_handicaps(rows, lowest_wins, tie_breakers, n_boot, seed) if grid is None else grid
    base = win_shares(games, NONE).mean(axis=0)
    tried = candidates(grid, float(base[0]), games.players, tie_first)
    distance = {c: distance_from_fair(win_shares(games, c).mean(axis=0)) for c in tried}
    rules = [c for c in tried if c.tie_seat is not None]
    closest = min(tried, key=lambda c: (round(distance[c], 12), simplicity(c)))
    without, closest_records, *rule_records = share_records(games, [NONE, closest, *rules], n_boot, seed)
    fair = 1 / games.players
    within_noise = all(r["low"] <= fair <= r["high"] for r in without)
    best, shares = (NONE, without) if within_noise else (closest, closest_records)
    kind = "none" if best == NONE else "tie rule" if best.tie_seat is not None else "points"
    return {"players": games.players, "fair": fair, "compensation": best.label(games.tie_breakers), "kind": kind,
            "seat": best.seat, "points": best.points, "tie_rule": best.tie_rule, "criterion": CRITERION,
            "distance": distance[best], "distance_without": distance[NONE], "fair_within_noise": within_noise,
            "candidates": len(tried), "games": len(games.game_id), "method": method_text(games, n_boot),
            "shares": shares, "without": without, "tie_rules": [r for group in rule_records for r in group]}
