"""Kaleido players, batched. Each turn asks up to four decisions: an extra action before the tile (or a
board, when every hole is full), the tile, an extra action after it, and how far to turn each board just
scored. The three extra actions are decisions of kind "extra"; the Observation's `phase` says which ("before",
"forced" or "after"). Players see the whole table; Kaleido hides nothing.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sim.errors import AtelierError
from sim.game import games_of
from sim.kaleido import fast
from sim.kaleido.engine import NONE, State, colour_counts, hexagons
from sim.kaleido.fast import GREEDY, HOARDER, MAJORITY
from sim.kaleido.rules import EMPTY, majority
from sim.kernel import NO, YES, helper, kernel
from strategies.common import Catalogue, nth_allowed, pick_any, pick_best

STRATEGIES = {
    "random": "uniformly random legal choices; takes an extra action half the time",
    "greedy": "the tile (and white tile) with the best immediate points; a board only when forced",
    "majority": "greedy, but plays where it can still take first place and avoids boards where it cannot",
    "rotator": "greedy, and turns each board it scores to make the most of end-game hexagons",
    "hoarder": "greedy, but plays a white tile only to close a board that pays it first place (before or after "
               "its tile), and avoids leaving a board one hole from full",
}
BENCH_STRATEGY = "greedy"


def own_and_rest(counts: np.ndarray, colour: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split counts (n, ..., colours) into the colour's own (n, ...) and the best of the others."""
    mine = np.arange(counts.shape[-1]) == colour.reshape(-1, *[1] * (counts.ndim - 1))
    return np.where(mine, counts, 0).sum(axis=-1), np.where(mine, -1, counts).max(axis=-1)


class Player:
    """Greedy play; the other strategies override one decision or the value of a hole (KIND, _hole_choices)."""

    KIND = GREEDY

    def __init__(self, name: str, *, seat: int, idx, params):
        self.name, self.seat, self.idx, self.params = name, seat, idx, params  # idx: the player's games

    def extra(self, obs, rng):
        """A board only when forced, on the most crowded spot; after the tile, a white tile that closes a
        board for points, else nothing."""
        legal, holes = obs.legal[self.idx], obs.geo.holes
        if obs.phase == "forced":
            crowd = fast.touching(obs.state.cell[self.idx], obs.geo.cells, obs.geo.step)
            return 1 + holes + pick_best(crowd, legal[:, 1 + holes :], rng)
        choice = np.full(len(legal), NONE)
        if obs.phase == "after":
            best, worth = self.best_hole(obs, legal[:, 1 : 1 + holes], True, rng)
            take = (worth > 0) & legal[np.arange(len(best)), 1 + best]
            choice[take] = 1 + best[take]
        return choice

    def tile(self, obs, rng):
        return self.best_hole(obs, obs.legal[self.idx], False, rng)[0]

    def rotate(self, obs, rng):
        return np.zeros(len(obs.legal[self.idx]), np.intp)

    def best_hole(self, obs, legal, white: bool, rng) -> tuple[np.ndarray, np.ndarray]:
        """(the best of the legal holes (n, 6 NB) for the player's tile, or a white tile; its value), pick_best's
        choice draw for draw."""
        state = obs.state
        return _hole_choices(state.slots[self.idx], state.cell[self.idx], obs.colour[self.idx], white, self.KIND,
                             fast.scoring(self.params), self.params.colours, np.ascontiguousarray(legal),
                             rng.random(len(legal)))


class Random(Player):
    def extra(self, obs, rng):
        """Half the time (always, when forced) a uniformly random extra action; otherwise none."""
        return _random_extra(obs.legal[self.idx].view(np.uint8), rng)

    def tile(self, obs, rng):
        return pick_any(obs.legal[self.idx], rng)

    def rotate(self, obs, rng):
        return rng.integers(0, 6, len(obs.legal[self.idx]))


class Majority(Player):
    KIND = MAJORITY


class Rotator(Player):
    def rotate(self, obs, rng):
        """Turn the board just scored to the rotation worth most in end-game hexagons: own points from the
        complete hexagons it is part of, plus half a point per own tile in the incomplete ones."""
        state = obs.state
        value = _rotation_values(state.slots[self.idx], state.rot[self.idx], state.cell[self.idx], obs.geo.cells,
                                 obs.geo.step, obs.board[self.idx], obs.colour[self.idx], self.params.colours,
                                 fast.scoring(self.params))
        value[:, 0] += 1e-6  # leave the board as it is unless turning it helps
        return pick_best(value, np.ones(value.shape, bool), rng)

    def rotation_values_numpy(self, obs) -> np.ndarray:
        """The numpy twin of _rotation_values (B, 6) for this player's games, kept for the tests."""
        board = obs.board[self.idx]
        asked = np.flatnonzero(board >= 0)
        value = np.zeros((len(board), 6))
        games = np.arange(len(obs.board))[self.idx][asked]
        state = games_of(obs.state, games)
        rows = np.arange(len(asked))
        for steps in range(6):
            turned = state.rot.copy()
            turned[rows, board[asked]] = (turned[rows, board[asked]] + steps) % 6
            value[asked, steps] = self.hexagon_value(replace(state, rot=turned), obs.geo, board[asked],
                                                     obs.colour[games])
        return value

    def hexagon_value(self, state: State, geo, board: np.ndarray, colour: np.ndarray) -> np.ndarray:
        """(n,): the value to `colour` (n,) of the hexagons that include `board` (n,)."""
        y, z, tiles = hexagons(state, geo)
        mine = board[:, None, None]
        involved = (y >= 0) & ((np.arange(y.shape[1])[None, :, None] == mine) | (y == mine) | (z == mine))
        counts = colour_counts(tiles, self.params.colours)
        own = 0.5 * own_and_rest(counts, colour)[0]
        complete = involved & (tiles != EMPTY).all(axis=3)
        points = majority(counts[complete], self.params)
        own[complete] = points[np.arange(len(points)), np.broadcast_to(colour[:, None, None], complete.shape)[complete]]
        return (own * involved).sum(axis=(1, 2))


class Hoarder(Player):
    KIND = HOARDER

    def extra(self, obs, rng):
        """Greedy's extra actions, but a white tile only to close a board it wins, before or after."""
        if obs.phase != "before":
            return super().extra(obs, rng)
        return super().extra(_as_phase(obs, "after"), rng)


@kernel
def _random_extra(legal, rng):
    """Random's extra action, compiled: a draw per game says whether to act (under 0.5, or where "none" is not
    allowed), then a uniformly random action (pick_any's draw) in each game that acts and has one. `legal` as
    uint8, like pick_any's."""
    n, k = legal.shape
    act = rng.random(n)
    count = np.zeros(n, np.int64)
    rows = 0
    for i in range(n):
        options = 0
        for j in range(1, k):
            options += legal[i, j]
        count[i] = options if (act[i] < 0.5 or not legal[i, NONE]) else 0
        rows += count[i] > 0
    draws = rng.random(rows)
    choice = np.full(n, NONE, np.intp)
    r = 0
    for i in range(n):
        if count[i] > 0:
            choice[i] = 1 + nth_allowed(legal[i, 1:], int(draws[r] * count[i]), NO)
            r += 1
    return choice


@kernel
def _hole_choices(slots, cell, colour, white, kind, scoring, colours, legal, draws):
    """(choice, its value) for n games: pick_best (draw for draw) over legal (n, 6 NB) of each hole's value to the
    player (fast.choose_hole)."""
    n, nb = cell.shape
    choice, worth, value, legal_in = np.empty(n, np.intp), np.empty(n), np.empty(nb), np.empty(nb, np.int64)
    bins, count, points = np.zeros(fast.BINS, np.int64), np.zeros(colours, np.int64), np.zeros(colours, np.int64)
    _choose_holes(slots, cell, colour, white, kind, scoring, legal, draws, choice, worth, value, legal_in, bins, count,
                  points)
    return choice, worth


@helper(_nrt=False)
def _choose_holes(slots, cell, colour, white, kind, scoring, legal, draws, choice, worth, value, legal_in, bins, count,
                  points):
    """_hole_choices' loop, given its arrays: without numba's runtime, fast.choose_hole is inlined at no cost."""
    for g in range(len(choice)):
        choice[g], worth[g] = fast.choose_hole(slots, cell, g, colour[g], white, kind, scoring, legal, g, draws[g],
                                               value, legal_in, bins, count, points)


@kernel
def _rotation_values(slots, rot, cell, cells, steps, board, colour, colours, scoring):
    """(n, 6): for each game's offered board (-1: none, all zeros) turned by 0 to 5 steps, Rotator's value of
    the end-game hexagons it is part of (Rotator.hexagon_value): own points from the complete ones, half a
    point per own tile in the others."""
    n, nb, _ = slots.shape
    value = np.zeros((n, 6))
    grid = np.full(cells, -1, np.int8)
    bins = np.zeros(fast.BINS, np.int64)
    points = np.zeros(colours, np.int64)
    turned = np.zeros(nb, np.int8)
    for g in range(n):
        mine = board[g]
        if mine < 0:
            continue
        fast.lay_boards(grid, cell, g, YES)
        for t in range(6):
            for b in range(nb):
                turned[b] = rot[g, b] + (t if b == mine else 0)
            for x in range(nb):
                for k in range(6):
                    y, z = fast.hexagon_at(grid, cell, steps, g, x, k)
                    if y < 0 or (x != mine and y != mine and z != mine):
                        continue
                    fast.tally_hexagon(slots, turned, g, x, y, z, k, bins)
                    if bins[0] == 0:
                        fast.majority_into(bins[1 : colours + 1], scoring, points)
                        value[g, t] += points[colour[g]]
                    else:
                        value[g, t] += 0.5 * bins[colour[g] + 1]
        fast.lay_boards(grid, cell, g, NO)
    return value


def _as_phase(obs, phase: str):
    return replace(obs, phase=phase)


CLASSES = {"random": Random, "greedy": Player, "majority": Majority, "rotator": Rotator, "hoarder": Hoarder}


def check_strategy(name: str) -> None:
    if name not in CLASSES:
        raise AtelierError(f"unknown Kaleido strategy '{name}'; known: {', '.join(CLASSES)}")


def make_player(name: str, *, seat: int, params, games, secret=None) -> Player:
    """A Kaleido player for one seat in `games` (an index array or a slice of the batch); Kaleido has no
    secrets."""
    check_strategy(name)
    return CLASSES[name](name, seat=seat, idx=games, params=params)


PLAYERS = Catalogue(STRATEGIES, BENCH_STRATEGY, make_player, check_strategy, uniform=frozenset({"random"}),
                    fused={"greedy": "greedy_playout"})  # Player's answers, compiled in sim/kaleido/playout.py
