"""Kaleido: constants, geometry, Params, setup and the majority rule.

Rulebook: ../shared/rules/kaleido.txt. Geometry (the convention the trace uses):
- Boards sit on a honeycomb in axial coordinates (q, r). Directions, in order:
  d0 = (+1, 0), d1 = (+1, -1), d2 = (0, -1), d3 = (-1, 0), d4 = (-1, +1), d5 = (0, +1).
- A board's six triangles are indexed by physical direction: triangle k's outer edge is shared with the
  neighbour in direction k.
- A board's rotation rot (0-5) puts its local slot s at physical triangle (s + rot) % 6; turning a board by
  k steps sets rot = (rot + k) % 6.
- Three boards meet at a corner when board X has neighbours in directions k and k + 1. The end-game hexagon
  there is triangles k, k+1 of X, k+2, k+3 of the neighbour in direction k and k+4, k+5 of the neighbour in
  direction k + 1 (all mod 6).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

PLAYER_COUNTS = (2, 3, 4, 5)
COLORS = ("red", "yellow", "green", "blue", "purple")
WHITE = len(COLORS)  # the code of a white tile in a hole
EMPTY = -1
DIRECTIONS = np.array([(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)], np.int16)
STARTING_BOARDS = ((0, 0), (1, 0))  # ids 0 and 1, joined side by side

# Set-up table: own-colour tiles per player (two of them become score markers), boards and white tiles.
TILES = {3: 14 - 2, 4: 13 - 2, 5: 13 - 2}
# Points per scoring. A colour scores at most once per board (at most 12) and per end-game hexagon (fewer than
# two per board), twice that for a 2-player seat: under 72 million points, well inside the engines' int32.
POINTS = (0, 1_000_000)


@dataclass(frozen=True)
class Params:
    """What a Kaleido experiment may vary."""

    players: int = field(default=3, metadata={"help": "number of players, 2-5 (2 = the two-colour variant)"})
    first: int = field(default=8, metadata={"help": "points for the most tiles on a board or hexagon",
                                            "range": POINTS})
    second: int = field(default=4, metadata={"help": "points for the second most, split (rounded down) on a tie",
                                             "range": POINTS})
    tie_pool: int = field(default=12, metadata={"help": "points split (rounded down) by a tie for first; "
                                                        "nobody else scores", "range": POINTS})
    monochrome: int = field(default=12, metadata={"help": "points when one colour fills all six holes",
                                                  "range": POINTS})
    monochrome_with_white: bool = field(
        default=False,
        metadata={"help": "the rulebook is silent on a board (or end-game hexagon) of one colour plus white tiles: "
                          "it gives 12 only when 'all the six holes are occupied by a single player'. Off: such a "
                          "board scores `first`, and nobody is second; on: it scores `monochrome`"},
    )
    hexagon_needs_full_boards: bool = field(
        default=False,
        metadata={"help": "End-game Scoring: off (the default), a hexagon scores when its own six triangles are "
                          "occupied, even if one of its three boards still has an empty hole elsewhere; on: it "
                          "scores only when all three of its boards are full ('scoring does not take place at the "
                          "game board if any hole of the game board is NOT occupied' read as covering hexagons)"},
    )

    @property
    def two_colour(self) -> bool:
        """The 2-player variant: each player plays two colours in alternation."""
        return self.players == 2

    @property
    def colours(self) -> int:
        """Colours in play; colour c belongs to seat c % players."""
        return 4 if self.two_colour else self.players

    @property
    def tiles(self) -> int:
        """Tiles of each colour in play (the 2-player variant uses the 4-player set-up)."""
        return TILES[4 if self.two_colour else self.players]

    @property
    def boards_each(self) -> int:
        return 4 if self.two_colour else 2

    @property
    def whites_each(self) -> int:
        return 4 if self.two_colour else 2

    @property
    def boards(self) -> int:
        """Every board that can be in play: the two starting boards plus the players' stocks."""
        return len(STARTING_BOARDS) + self.boards_each * self.players

    def owner(self, colour: int) -> int:
        """The seat playing a colour."""
        return colour % self.players


class Deal(NamedTuple):
    """n games' set-up. Kaleido deals nothing at random (every game starts from the same table), so a deal only
    numbers its games, which gives the batch its size."""

    game: np.ndarray  # (n,) int64: 0..n-1


def deal(params: Params, rng: np.random.Generator, n: int) -> Deal:
    """n games' set-up; draws nothing from `rng`, so the strategies' random choices start from the same seed."""
    return Deal(np.arange(n))


def facts(params: Params) -> dict:
    """What the report needs to know of these rules, recorded in the manifest (reports import no rules)."""
    own = 2 if params.two_colour else 1
    return {"colours": list(COLORS[: params.colours]), "tiles_each": own * params.tiles,
            "boards_each": params.boards_each, "whites_each": params.whites_each,
            "starting_boards": [list(qr) for qr in STARTING_BOARDS]}


def majority(counts: np.ndarray, params: Params) -> np.ndarray:
    """Scoring of one board or hexagon: counts (..., colours) of coloured tiles (white never counts) ->
    points (..., colours).

    Most tiles: `first`; second most: `second`, split (rounded down) on a tie; a tie for first splits
    `tie_pool` (rounded down) and nobody else scores; one colour in all six holes: `monochrome`."""
    top = counts.max(axis=-1, keepdims=True)
    leaders = (counts == top) & (top > 0)
    n_leaders = leaders.sum(axis=-1, keepdims=True)
    rest = np.where(leaders, 0, counts)
    runner = rest.max(axis=-1, keepdims=True)
    seconds = (rest == runner) & (runner > 0) & (n_leaders == 1)
    n_seconds = np.maximum(seconds.sum(axis=-1, keepdims=True), 1)
    lone = n_leaders == 1
    points = np.where(leaders & lone, params.first, 0) + np.where(seconds, params.second // n_seconds, 0)
    points = np.where(leaders & ~lone, params.tie_pool // np.maximum(n_leaders, 1), points)
    full = top == (6 if not params.monochrome_with_white else counts.sum(axis=-1, keepdims=True))
    return np.where(leaders & lone & full & (runner == 0), params.monochrome, points)
