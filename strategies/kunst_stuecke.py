"""Kunst Stücke players, batched. A turn asks up to six kinds of question (sim/kunst_stuecke/reference.py): look
(a stack, or none), keep (a tile and a space), slide (a piece, or stop), slide_to (where), play (a piece to place,
or one to discard) and place (orientation and anchor). A player sees the board, the supplies, the chip counts,
how many tiles each stack holds and its own tiles and looks; never the others' tiles.

How the planner values a placement and a tile is compiled with the engine (sim/kunst_stuecke/playout.py, "the
planner"), whose playout plays a table of planners (`engine.planner_playout`).
"""

from __future__ import annotations

import numpy as np

from sim.errors import AtelierError
from sim.kernel import kernel
from sim.kunst_stuecke import fast
from sim.kunst_stuecke.playout import (  # random's, which its playout draws  # the planner's valuation
    LOOK_CHANCE,
    SLIDE_CHANCE,
    placement_values,
    tile_values,
    wanted_colours,
)
from sim.kunst_stuecke.rules import DISCARD, NO_LOOK, PIECES, SHAPES, STACK_TILES, STOP
from strategies.common import Catalogue, parse_knob, pick_any, pick_best

STRATEGIES = {
    "random": "a random legal placement, discarding only when none exists; looks half the time; slides rarely",
    "planner": "takes targets the board and the pieces left can still reach (a likely one on its best free space, "
               "an unlikely one on its worst), grows blocks towards them and seals them at the exact size (knob: the "
               "turn of its first look, 0)",
    "slider": "planner, plus chips: slides a lone piece of a colour it aims at to where it values the block best "
              "(even where no block of that colour lies), or a piece out of a block one over its target's size",
    "spoiler": "planner, but lays the colours it does not aim at against the largest blocks others are growing",
}
BENCH_STRATEGY = "planner"


class Player:
    """Random play; the other strategies override the decisions they think about."""

    def __init__(self, name: str, *, seat: int, idx, params, knob: float | None):
        self.name, self.seat, self.idx, self.params, self.knob = name, seat, idx, params, knob

    def look(self, obs, rng):
        legal = obs.legal[self.idx]
        stacks = pick_any(legal[:, :NO_LOOK], rng)
        return np.where(rng.random(len(legal)) < LOOK_CHANCE, stacks, NO_LOOK)

    def keep(self, obs, rng):
        return pick_any(obs.legal[self.idx], rng)

    def slide(self, obs, rng):
        """A random piece one time in ten, or whenever it may not stop (a slid piece still parted from its colour
        after placing)."""
        legal = obs.legal[self.idx]
        piece = pick_any(legal[:, :STOP], rng)
        slides = (rng.random(len(legal)) < SLIDE_CHANCE) | ~legal[:, STOP]
        return np.where(slides & legal[:, :STOP].any(axis=1), piece, STOP)

    def slide_to(self, obs, rng):
        return pick_any(obs.legal[self.idx], rng)

    def play(self, obs, rng):
        legal = obs.legal[self.idx]
        placeable = legal[:, :DISCARD]
        return np.where(placeable.any(axis=1), pick_any(placeable, rng), DISCARD + pick_any(legal[:, DISCARD:], rng))

    def place(self, obs, rng):
        return pick_any(obs.legal[self.idx], rng)


class Planner(Player):
    def look(self, obs, rng):
        """From the knob's turn on, a look whenever it may: the stack with the most tiles."""
        legal = obs.legal[self.idx]
        sizes = obs.stack_sizes[self.idx].astype(float)
        best = pick_best(sizes, legal[:, :NO_LOOK], rng)
        return np.where(obs.turn >= (self.knob or 0), best, NO_LOOK)

    def keep(self, obs, rng):
        """The tile likeliest to be met; on the best free space if it is likely, else on the worst."""
        board = self.board(obs)
        tiles = obs.looking_at[self.idx].astype(np.int64)
        value = tile_values(tiles, board["label"], board["members"], obs.owner[self.idx].astype(np.int64),
                             self.seat)
        free = obs.tiles[self.idx] < 0
        bonus = np.array(self.params.spaces, float)
        best_space = np.argmax(np.where(free, bonus, -np.inf), axis=1)
        worst_space = np.argmin(np.where(free, bonus, np.inf), axis=1)
        tile = pick_best(value, tiles >= 0, rng)
        likely = value[np.arange(len(tile)), tile] >= 2
        return 5 * tile + np.where(likely, best_space, worst_space)

    def slide(self, obs, rng):
        """It never slides, so it never has to; where another's slide left it a piece it must move on (a search's
        rollout), a random slide."""
        legal = obs.legal[self.idx]
        if legal[:, STOP].all():
            return np.full(len(legal), STOP)
        return np.where(legal[:, STOP], STOP, super().slide(obs, rng))

    def play(self, obs, rng):
        """A piece of a colour it holds a tile of, if one can be placed; else any placeable piece; a discard only
        when none can be placed."""
        legal = obs.legal[self.idx]
        placeable = legal[:, :DISCARD]
        wanted = wanted_colours(obs.tiles[self.idx].astype(np.int64))  # (n, 5)
        colour = np.arange(PIECES) // SHAPES
        value = wanted[:, colour].astype(float)
        choice = pick_best(value, placeable, rng)
        return np.where(placeable.any(axis=1), choice, DISCARD + pick_any(legal[:, DISCARD:], rng))

    def place(self, obs, rng):
        board = self.board(obs)
        legal = obs.legal[self.idx]
        value = placement_values(obs.board[self.idx], board["label"], board["members"], obs.piece[self.idx],
                                  legal, obs.tiles[self.idx].astype(np.int64), self.spoils, self.geo(),
                                  np.full(len(legal), -1))
        return pick_best(value, legal, rng)

    spoils = False  # whether colours it does not aim at go against the largest blocks

    def geo(self) -> fast.Geo:
        return fast.tables(self.params)

    def board(self, obs) -> dict:
        """Block labels and sizes of this player's games, once per observation (the games asked only)."""
        if "blocks" not in obs.memo:
            label, members = fast.block_labels(obs.board, obs.orient, obs.anchor, self.geo(), obs.asked)
            obs.memo["blocks"] = label, members
        label, members = obs.memo["blocks"]
        return {"label": label[self.idx], "members": members[self.idx]}


class Slider(Planner):
    def slide(self, obs, rng):
        """A lone piece of a colour it aims at (with a tile of 2 or more), to slide where slide_to values it best,
        which need not join a block; or, from a block one piece over a tile's size, a piece at its end, to slide
        out (to another block of its colour, or away, for a later slide or the placement to bring back to its
        colour, where the contact rule demands it). Where it may not stop, any piece that may slide."""
        legal = obs.legal[self.idx]
        board = self.board(obs)
        tiles = obs.tiles[self.idx].astype(np.int64)
        candidates = _lone_wanted(board["label"], board["members"], tiles) | _spare_ends(
            obs.board[self.idx], obs.orient[self.idx], obs.anchor[self.idx], board["label"], board["members"], tiles,
            self.geo())
        movable = legal[:, :STOP] & candidates
        forced = pick_any(legal[:, :STOP], rng)
        return np.where(movable.any(axis=1), pick_any(movable, rng), np.where(legal[:, STOP], STOP, forced))

    def slide_to(self, obs, rng):
        """Where the slid piece makes the best block (valued as a placement, the piece lifted first)."""
        legal = obs.legal[self.idx]
        board = self.board(obs)
        piece = np.where(obs.asked[self.idx], obs.piece[self.idx], -1)
        lifted = np.where(obs.board[self.idx] == piece[:, None], -1, obs.board[self.idx])
        orient = np.maximum(obs.orient[self.idx][np.arange(len(piece)), np.maximum(piece, 0)], 0).astype(np.int64)
        value = placement_values(lifted, board["label"], board["members"], piece, legal,
                                  obs.tiles[self.idx].astype(np.int64), False, self.geo(), orient)
        return pick_best(value, legal, rng)


class Spoiler(Planner):
    spoils = True


@kernel
def _lone_wanted(label, members, tiles):
    """(n, 60): pieces alone in their block, of a colour the player holds an unmet tile of (size 2 or more)."""
    n = label.shape[0]
    out = np.zeros((n, PIECES), np.bool_)
    for g in range(n):
        for p in range(PIECES):
            if label[g, p] != p or members[g, p] != 1:
                continue
            for j in range(tiles.shape[1]):
                tile = tiles[g, j]
                if tile >= 0 and tile // STACK_TILES == p // SHAPES and tile % STACK_TILES + 1 >= 2:
                    out[g, p] = True
    return out


@kernel
def _spare_ends(board, orient, anchor, label, members, tiles, geo):
    """(n, 60): pieces at an end of a block one piece larger than a tile of its colour the player holds (they
    share an edge with exactly one piece of their colour), whose sliding out would leave the block at size."""
    n, offsets, size, neighbours = label.shape[0], geo.offsets, geo.size, geo.neighbours
    out = np.zeros((n, PIECES), np.bool_)
    for g in range(n):
        for p in range(PIECES):
            if label[g, p] < 0:
                continue
            over = False
            for j in range(tiles.shape[1]):
                tile = tiles[g, j]
                over |= (tile >= 0 and tile // STACK_TILES == p // SHAPES and tile % STACK_TILES + 1 < 6
                         and members[g, label[g, p]] == tile % STACK_TILES + 2)
            if not over:
                continue
            first, alone = -1, True  # the one same-coloured neighbour, and whether it is the only one
            for i in range(size[p % SHAPES]):
                for d in range(4):
                    m = neighbours[anchor[g, p] + offsets[p % SHAPES, orient[g, p], i], d]
                    if m < 0 or board[g, m] < 0 or board[g, m] == p or board[g, m] // SHAPES != p // SHAPES:
                        continue
                    if first < 0:
                        first = board[g, m]
                    alone &= board[g, m] == first
            out[g, p] = first >= 0 and alone
    return out


CLASSES = {"random": Player, "planner": Planner, "slider": Slider, "spoiler": Spoiler}
KNOBS = {"planner": 0.0, "slider": 0.0, "spoiler": 0.0}  # the turn of the first look


def parse_strategy(name: str) -> tuple[str, float | None]:
    base, knob = parse_knob(name, KNOBS.get(name.partition("@")[0]), (0, 1000))
    if base not in CLASSES:
        raise AtelierError(f"unknown Kunst Stücke strategy '{name}'; known: {', '.join(CLASSES)}")
    return base, knob


def make_player(name: str, *, seat: int, params, games, secret=None) -> Player:
    """A Kunst Stücke player for one seat in `games`; the targets a seat takes are its own knowledge, in the
    observations, so `secret` is None."""
    base, knob = parse_strategy(name)
    return CLASSES[base](name, seat=seat, idx=games, params=params, knob=knob)


PLAYERS = Catalogue(STRATEGIES, BENCH_STRATEGY, make_player, parse_strategy, uniform=frozenset({"random"}),
                    searched=frozenset({"look", "keep", "play", "place"}),  # slides are left to the policy: a
                    # hundred a game, mostly to stop
                    search_width=4,  # placements run to a thousand
                    fused={"planner": "planner_playout"})  # Planner's answers, compiled in sim/kunst_stuecke/playout.py
