"""The compensation that evens every seat, or the closest one, re-scored from the recorded games (issue 30 §1).

The family: one whole or half points value per seat, in its favour (reports/handicap.py: added to its score where
the highest wins, subtracted where the lowest wins), and a tie order for the ties on score that the game's own
tie-breakers leave: none, ties to the later player, ties to the earlier player. Adding the same points to every
seat changes no game, so a points vector is shifted until its median seat (the lower middle one at an even count)
gets 0: of all vectors that score alike, that one has the smallest total adjustment (the sum of |points|).

Search, per tie order: seat by seat, each seat gets the points that bring its share closest to 1/P given the
others' (bisection on its re-scored share, which never falls as its points grow: handicap.SeatCurve), for at most
ROUNDS rounds or until no seat's points change; then ±½ point steps, one seat at a time, while the largest
|share − 1/P| falls. No grid bounds it, and its cost grows only with the logarithm of the score range. It reads
shares only, so it runs over the distinct rows of scores (handicap.distinct_scores), weighted by their games.

Choice: every seat's 95% interval (handicap.share_intervals) under no compensation, each tie order alone and each
tie order's vector, and, where that vector evens the game, under fractions of it (k/FRACTIONS of each seat's
points: smaller adjustments that may already even it). A compensation "evens" the game when every seat's interval
holds 1/P. Of those that do, the one with the smallest total adjustment is chosen (no tie order before one, then
the closest to fair); when none does, the closest (the smallest largest |share − 1/P|). So "no compensation" is
chosen only when every seat's interval holds 1/P without one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from reports.analysis import GameData, record
from reports.fmt import listing, pp, seat_name
from reports.handicap import (
    METHOD,
    Compensation,
    Games,
    SeatCurve,
    cluster_sums,
    distinct_scores,
    prepare,
    scored_shares,
    share_intervals,
    win_shares,
)

ROUNDS = 12  # most rounds of seat-by-seat bisection
POLISH = 60  # most ±½ point steps after them
FRACTIONS = 4  # the vectors tried between none and an evening search vector: k/FRACTIONS of it


@dataclass(frozen=True)
class Candidate:
    """A compensation with every seat's win share under it and its 95% interval."""
    compensation: Compensation
    shares: np.ndarray  # (P,)
    low: np.ndarray
    high: np.ndarray

    @property
    def fair(self) -> float:
        return 1 / len(self.shares)

    @property
    def gap(self) -> float:
        """The largest |share − 1/P| over the seats."""
        return float(np.abs(self.shares - self.fair).max())

    @property
    def judged(self) -> bool:
        """Whether every seat has an interval (two deals or more)."""
        return bool(np.isfinite(self.low).all() and np.isfinite(self.high).all())

    @property
    def evens(self) -> bool:
        return bool(((self.low <= self.fair) & (self.fair <= self.high)).all())

    @property
    def total(self) -> float:
        return float(sum(abs(p) for p in self.compensation.points))

    def off(self) -> list[int]:
        """The seats whose interval misses 1/P."""
        return [seat for seat in range(len(self.shares)) if not self.low[seat] <= self.fair <= self.high[seat]]


@dataclass(frozen=True)
class Found:
    """One experiment at one player count: the chosen compensation, no compensation, and each tie order's
    closest (the search's own vector)."""
    chosen: Candidate
    without: Candidate
    closest: tuple[Candidate, ...]
    games: int

    @property
    def players(self) -> int:
        return len(self.chosen.shares)

    def shown(self) -> list[tuple[Candidate, bool]]:
        """(candidate, chosen) for every compensation the report shows, the chosen first, none repeated."""
        out = [(self.chosen, True)]
        for candidate in (self.without, *self.closest):
            if all(candidate.compensation != c.compensation for c, _ in out):
                out.append((candidate, False))
        return out


def tie_orders(players: int) -> list[tuple[int, ...] | None]:
    """None, ties to the later player (the last seat first), ties to the earlier player (the start player first)."""
    return [None, tuple(range(players - 1, -1, -1)), tuple(range(players))]


def distance(games: Games, steps: np.ndarray, tie_order: tuple[int, ...] | None) -> float:
    """The largest |share − 1/P| with these half-point steps in each seat's favour."""
    shares = games.mean(scored_shares(games, games.favour + steps, tie_order))
    return float(np.abs(shares - 1 / games.players).max())


def centred(steps: np.ndarray) -> np.ndarray:
    """The same compensation with the median seat (the lower middle one) at 0: the smallest total |points|."""
    return steps - np.sort(steps)[(len(steps) - 1) // 2]


def balanced_steps(games: Games, tie_order: tuple[int, ...] | None) -> np.ndarray:
    """(P,) half-point steps that bring every seat closest to 1/P under the tie order: each seat's fair step given
    the others', round by round, then ±½ point steps."""
    steps = np.zeros(games.players, np.int64)
    for _ in range(ROUNDS):
        before = steps.copy()
        for seat in range(games.players):
            steps[seat] = SeatCurve(games, seat, Compensation.of_steps(steps, tie_order)).fair_step()
        if (steps == before).all():
            break
    return centred(polished(games, steps, tie_order))


def polished(games: Games, steps: np.ndarray, tie_order: tuple[int, ...] | None) -> np.ndarray:
    """Single ±1 half-point moves of one seat, the best first, while they lower the largest |share − 1/P|."""
    best = distance(games, steps, tie_order)
    moves = np.concatenate([np.eye(games.players, dtype=np.int64), -np.eye(games.players, dtype=np.int64)])
    for _ in range(POLISH):
        gaps = [distance(games, steps + move, tie_order) for move in moves]
        index = int(np.argmin(gaps))
        if round(gaps[index], 12) >= round(best, 12):
            break
        steps, best = steps + moves[index], gaps[index]
    return steps


def fractions(steps: np.ndarray) -> list[np.ndarray]:
    """The vectors between none and `steps`: k/FRACTIONS of every seat's steps, rounded, k = 1..FRACTIONS-1."""
    return [np.rint(steps * k / FRACTIONS).astype(np.int64) for k in range(1, FRACTIONS)]


def evaluated(games: Games, compensations: list[Compensation]) -> dict[Compensation, Candidate]:
    """Every seat's share under each compensation, with its interval."""
    if not compensations:
        return {}
    counts = cluster_sums(games, np.ones(len(games.game_id)))
    shares = [win_shares(games, compensation) for compensation in compensations]
    wins = np.column_stack([cluster_sums(games, s[:, seat]) for s in shares for seat in range(games.players)])
    lo, hi = share_intervals(counts, wins)
    seats = games.players
    return {compensation: Candidate(compensation, s.mean(axis=0), lo[i * seats:(i + 1) * seats],
                                    hi[i * seats:(i + 1) * seats])
            for i, (compensation, s) in enumerate(zip(compensations, shares))}


def preference(candidate: Candidate) -> tuple:
    """Evening the game first; then the smallest total adjustment, no tie order, closest to fair (when it evens),
    or the closest to fair, smallest adjustment, no tie order (when nothing does)."""
    rule = candidate.compensation.tie_order is not None
    gap = round(candidate.gap, 12)
    if candidate.evens:
        return (0, candidate.total, rule, gap)
    return (1, gap, candidate.total, rule)


def compensate(rows: pl.DataFrame, lowest_wins: bool, tie_breakers: tuple[str, ...] | list[str] = ()) -> Found:
    """The compensation that evens every seat with the smallest total adjustment, or the closest (module doc), for
    the rows of one experiment at one player count."""
    games = prepare(rows, lowest_wins, tie_breakers)
    distinct = distinct_scores(games)  # the search reads shares only
    searched = {order: balanced_steps(distinct, order) for order in tie_orders(games.players)}
    ends = [Compensation.of_steps(steps, order) for order, vector in searched.items()
            for steps in (0 * vector, vector)]
    candidates = evaluated(games, list(dict.fromkeys(ends)))
    evening = [order for order, vector in searched.items() if candidates[Compensation.of_steps(vector, order)].evens]
    between = [Compensation.of_steps(steps, order) for order in evening for steps in fractions(searched[order])]
    candidates |= evaluated(games, [c for c in dict.fromkeys(between) if c not in candidates])
    return Found(chosen=min(candidates.values(), key=preference),
                 without=candidates[Compensation.of_steps(np.zeros(games.players, np.int64))],
                 closest=tuple(candidates[Compensation.of_steps(vector, order)] for order, vector in searched.items()),
                 games=len(games.game_id))


# ---------------------------------------------------------------- records and words


def candidate_about(candidate: Candidate, lowest_wins: bool) -> dict:
    """What a compensation is, as findings records carry it: points (P numbers in each seat's favour), tie_order
    (null or seats, the first wins ties), and the score direction they are read in."""
    order = candidate.compensation.tie_order
    return {"points": [float(p) for p in candidate.compensation.points],
            "tie_order": None if order is None else list(order), "lowest_wins": lowest_wins}


def compensation_records(found: Found, data: GameData) -> list[dict]:
    """The chosen compensation (metric `compensation`: estimate the largest |share − 1/P| under it; low and high
    the least and most of it that the seats' intervals allow, low 0 exactly when it evens; `off` the seats whose
    interval misses 1/P, each with its share, interval and `off_by`, its share − 1/P) and every seat's share under
    each compensation shown (metric `compensated_win_share`, `recommended` for the chosen one's)."""
    chosen = found.chosen
    about = candidate_about(chosen, data.lowest_wins)
    low = np.maximum(chosen.low - chosen.fair, chosen.fair - chosen.high).clip(0).max()
    high = np.maximum(np.abs(chosen.low - chosen.fair), np.abs(chosen.high - chosen.fair)).max()
    off = [{"seat": seat, "estimate": float(chosen.shares[seat]), "low": float(chosen.low[seat]),
            "high": float(chosen.high[seat]), "off_by": float(chosen.shares[seat] - chosen.fair)}
           for seat in chosen.off()]
    out = [record(data, found.players, "compensation", chosen.gap, low, high, found.games, METHOD, **about,
                  evens=chosen.evens if chosen.judged else None, off=off if chosen.judged else [])]
    for candidate, recommended in found.shown():
        out += [record(data, found.players, "compensated_win_share", candidate.shares[seat], candidate.low[seat],
                       candidate.high[seat], found.games, METHOD, seat=seat,
                       **candidate_about(candidate, data.lowest_wins), evens=candidate.evens, recommended=recommended)
                for seat in range(found.players)]
    return out


def amount(points: float) -> str:
    """1.5 -> '1.5', 2.0 -> '2', 2000000.0 -> '2000000'."""
    return f"{points:.0f}" if float(points).is_integer() else f"{points:.1f}"


def changes(about: dict, brief: bool = False) -> str:
    """What players do, from a record's points, tie_order and lowest_wins: 'Player 3 adds 1.5 to their score;
    ties go to the later player' ('Player 3 adds 1.5; ...' brief), or 'no compensation'."""
    parts = []
    for seat, points in enumerate(about["points"]):
        raised = points > 0 if not about["lowest_wins"] else points < 0
        if points:
            score = "" if brief else f" {'to' if raised else 'from'} their score"
            parts.append(f"{seat_name(seat)} {'adds' if raised else 'subtracts'} {amount(abs(points))}{score}")
    words = [listing(parts)] if parts else []
    order = about["tie_order"]
    if order is not None:
        players = len(order)
        named = {tuple(range(players - 1, -1, -1)): "the later player", tuple(range(players)): "the earlier player"}
        words.append("ties go to " + named.get(tuple(order), "the first of " + ", ".join(map(seat_name, order))))
    return "; ".join(words) or "no compensation"


def phrase(compensation: dict) -> str:
    """A `compensation` record in the words a player applies (players numbered 1..P, Player 1 starts)."""
    done = changes(compensation)
    if compensation["evens"] is None:
        return "too few deals to judge a compensation: no player's share has an interval"
    if not compensation["evens"]:
        off = [f"{seat_name(r['seat'])} stays {pp(r['off_by'])} off fair" for r in compensation["off"]]
        return f"the search found no compensation in this family that evens the game: {listing(off)}; closest: {done}"
    if done == "no compensation":
        return "no compensation is needed: every player's 95% interval holds 1/P"
    return done


def brief(compensation: dict) -> str:
    """phrase() for a table cell: 'none needed', 'Player 3 subtracts 0.5; ties go to the later player' (points
    to or from the player's score), or 'none found evens it; closest: ...'."""
    done = changes(compensation, brief=True)
    if compensation["evens"] is None:
        return "too few deals to judge"
    if not compensation["evens"]:
        return f"none found evens it; closest: {done}"
    return "none needed" if done == "no compensation" else done
