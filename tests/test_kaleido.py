"""Kaleido: set-up, the majority rule and the rulebook's examples, the honeycomb geometry against boards drawn
by hand, the turn rules on scripted positions (reference and engine), the 2-player variant, stalls, traces
and their turn events, a State copied mid-game, and the strategies.

Expected values below are worked out by hand from the rulebook (../shared/rules/kaleido.txt) and the
geometry convention, never copied from the code:
- axial (q, r); directions d0 = (+1, 0), d1 = (+1, -1), d2 = (0, -1), d3 = (-1, 0), d4 = (-1, +1), d5 = (0, +1);
- triangle k of a board faces its neighbour in direction k; a board turned to rot shows local slot s at
  triangle (s + rot) % 6;
- where X has neighbours Y (direction k) and Z (direction k + 1), the hexagon is X[k], X[k+1], Y[k+2],
  Y[k+3], Z[k+4], Z[k+5].
Boards are written as six letters by local slot: R Y G B P (red, yellow, green, blue, purple), W white,
'.' an empty hole. Engine codes (engine docstring): hole 6 * board + slot; extra action 0 none, 1 + hole a
white tile, 1 + H + 6 b + k a board next to board b in direction k (each free cell offered by its lowest b,
then k), H = 6 * boards; a honeycomb cell is (q + R)(2R + 1) + r + R, R = boards + 1.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
from collections import defaultdict
from dataclasses import replace

import numpy as np
import playback
import pytest
from playback import play_batch

from sim.errors import AtelierError, IllegalMove
from sim.game import Asker, games_of, play
from sim.kaleido import engine, reference, rules
from sim.kaleido.rules import DIRECTIONS, EMPTY, STARTING_BOARDS, WHITE, Params, majority
from sim.registry import get_game
from strategies.common import Table
from strategies.kaleido import STRATEGIES, make_player
from strategies.search import LISTED

kaleido = get_game("kaleido")

LETTERS = "RYGBPW"
HAND_DIRECTIONS = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
START_SPOTS = {(1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1), (2, 0), (2, -1), (1, 1)}  # around (0, 0) and (1, 0)


# ---------------------------------------------------------------------------------------------- helpers


def fills(text: str) -> list:
    return [None if ch == "." else LETTERS.index(ch) for ch in text]


def by_triangle(rot: int, text: str) -> str:
    """The slot letters of a board turned to `rot` that shows `text` at physical triangles 0..5."""
    slots = [""] * 6
    for k, ch in enumerate(text):
        slots[(k - rot) % 6] = ch
    return "".join(slots)


def position(params: Params, layout, *, turn: int = 0, tiles=None, whites=None, stock=None) -> reference.Game:
    """A reference game on a hand-drawn table: layout [(q, r, rot, slot letters)] in board id order.
    Full boards count as already scored."""
    game = reference.new_game(params, deal(params, 1))
    game.boards = [reference.Board(i, q, r, rot, fills(text)) for i, (q, r, rot, text) in enumerate(layout)]
    for board in game.boards:
        board.scored = board.full
    game.turn = turn
    if tiles is not None:
        game.tiles = list(tiles)
    if whites is not None:
        game.whites = list(whites)
    if stock is not None:
        game.stock = list(stock)
    return game


def cell_of(params: Params, q: int, r: int) -> int:
    radius = params.boards + 1
    return (q + radius) * (2 * radius + 1) + r + radius


def deal(params: Params, n: int) -> rules.Deal:
    return rules.deal(params, np.random.default_rng(0), n)


def start(params: Params, n: int = 1) -> engine.State:
    """n games at their first decision."""
    return engine.init(params, deal(params, n))


def engine_state(params: Params, layout, codes=None) -> engine.State:
    """The engine's State for one game on a hand-drawn table, built from the documented encodings only.
    `codes` (per board, six ints by slot) overrides the letters. Its turn is begun by engine_turn."""
    state = start(params)
    slots = np.full_like(state.slots, EMPTY)
    cell = np.full_like(state.cell, -1)
    rot = np.zeros_like(state.rot)
    for b, (q, r, turn, text) in enumerate(layout):
        cell[0, b] = cell_of(params, q, r)
        rot[0, b] = turn
        slots[0, b] = codes[b] if codes is not None else [EMPTY if f is None else f for f in fills(text)]
    scored = (slots != EMPTY).all(axis=2) & (cell >= 0)
    state = replace(state, slots=slots, cell=cell, rot=rot, scored=scored)
    return replace(state, **engine.counted(params, state))  # the running counts, for the table drawn


def white(params: Params, board: int, slot: int) -> int:
    """The engine's extra-action code of a white tile in hole (board, slot)."""
    return 1 + 6 * board + slot


def board_at(params: Params, q: int, r: int, table=STARTING_BOARDS) -> int:
    """The engine's extra-action code of a board placed at (q, r), next to a board of `table` (the boards'
    (q, r) in id order): 1 + H + 6 b + k for the lowest b, then k, whose neighbour in direction k it is."""
    return min(1 + 6 * params.boards + 6 * b + k for b, (bq, br) in enumerate(table)
               for k, (dq, dr) in enumerate(DIRECTIONS.tolist()) if (bq + dq, br + dr) == (q, r))


def next_to(params: Params, board: int, k: int) -> int:
    """The engine's extra-action code of a board next to `board` in direction k, whatever lies there."""
    return 1 + 6 * params.boards + 6 * board + k


def board_cells(params: Params, state: engine.State, mask: np.ndarray) -> set[tuple[int, int]]:
    """The (q, r) of every board placement a one-game extra mask allows."""
    boards, ks = np.divmod(np.flatnonzero(mask[1 + 6 * params.boards :]), 6)
    return {tuple((engine.geometry(params).qr[state.cell[0, b]] + DIRECTIONS[k]).tolist()) for b, k in zip(boards, ks)}


def spots_of(params: Params, state: engine.State) -> set[tuple[int, int]]:
    radius = params.boards + 1
    cells = np.flatnonzero(engine.board_spots(state, engine.geometry(params))[0])
    return {(int(c) // (2 * radius + 1) - radius, int(c) % (2 * radius + 1) - radius) for c in cells}


def assert_same(state: engine.State, game: reference.Game) -> None:
    """The engine's one-game state equals the reference game."""
    mine = reference.to_state(game)
    for name in ("slots", "cell", "placer", "rot", "scored", "grid", "tiles", "whites", "stock", "midgame", "endgame",
                 "boards_placed", "whites_used", "turns_played", "stalled"):
        assert np.array_equal(getattr(state, name), getattr(mine, name)), name


class Script:
    """A reference decider that plays given answers and logs what it was asked. The answers are written as
    options, for reading: extras None, ("white", board, slot) or ("board", q, r), tiles (board, slot), rotations
    steps; each is handed to the reference as the engine's code, which must be among the options it offers."""

    def __init__(self, extras=(), tiles=(), rotations=()):
        self.extras, self.tiles, self.rotations = list(extras), list(tiles), list(rotations)
        self.asked: list = []

    def __call__(self, game: reference.Game, phase: str, options: list[int]) -> int:
        if phase == "tile":
            self.asked.append("tile")
            board, slot = self.tiles.pop(0)
            assert (board, slot) in game.empty_holes()
            code = 6 * board + slot
        elif phase == "rotate":
            self.asked.append(("rotate", game.asking))
            code = self.rotations.pop(0)
        else:
            self.asked.append(phase)
            choice = self.extras.pop(0)
            assert choice in reference.extra_options(game, phase)
            code = reference.encode_extras(game, [choice])[0]
        assert code in options
        return code


def finish(game: reference.Game, decider) -> reference.Result:
    """A game set up by hand, played on to its end as reference.play plays one: its turns until the game is
    over, then the end-game scoring; the final standing."""
    while not game.over:
        reference.play_turn(game, decider)
    reference.endgame_scoring(game)
    return reference.final_result(game)


class Answering:
    """An engine player that answers every kind of decision with its `answer(obs)`."""

    def extra(self, obs, rng):
        return self.answer(obs)

    def tile(self, obs, rng):
        return self.answer(obs)

    def rotate(self, obs, rng):
        return self.answer(obs)


class Answers(Answering):
    """An engine player for a batch of one: answers from a queue per phase, logs phases and legal masks."""

    def __init__(self, name: str = "script", **queues):
        self.name, self.queues = name, {phase: list(q) for phase, q in queues.items()}
        self.asked: list = []
        self.legal: list = []

    def answer(self, obs):
        self.asked.append(obs.phase if obs.phase != "rotate" else ("rotate", int(obs.board[0])))
        self.legal.append(obs.legal[0].copy())
        return np.array([self.queues[obs.phase].pop(0)], np.intp)


def seated(params: Params, player) -> Table:
    """A table for a batch of one with `player` in every seat: its choose asks `player` and checks the answers
    as in every game."""
    names = np.array([[player.name] * params.players])
    return Table(replace(kaleido.players, make=lambda name, **_: player), params, names, None)


def engine_turn(params: Params, state: engine.State, player) -> tuple[engine.State, list]:
    """Turn `state.turn` of a batch of one, begun afresh on the table `state` holds, with `player` in every
    seat; the batch after it (at the next turn's first decision, or over), and the decisions asked (kind,
    phase)."""
    table, decisions, turn = seated(params, player), [], state.turn
    state = engine.begin_turn(params, state)
    while not engine.terminal(params, state) and state.turn == turn:
        decision = engine.decision(params, state)
        decisions.append((decision.kind, decision.observation.phase))
        state = engine.step(params, state, table.choose(decision, np.random.default_rng(0)))
    return state, decisions


# ---------------------------------------------------------------------------------------------- set-up


def test_conventions_and_set_up_follow_the_rulebook() -> None:
    assert rules.DIRECTIONS.tolist() == [list(d) for d in HAND_DIRECTIONS]
    assert rules.STARTING_BOARDS == ((0, 0), (1, 0))
    assert rules.COLORS == ("red", "yellow", "green", "blue", "purple")
    assert (WHITE, EMPTY) == (5, -1)
    assert rules.PLAYER_COUNTS == (2, 3, 4, 5)
    # Set-up table: 14 tiles in a 3-player game, 13 with 4 or 5, two of them score markers; 2 boards, 2 whites.
    for players, tiles, colours, each in [(3, 12, 3, 2), (4, 11, 4, 2), (5, 11, 5, 2), (2, 11, 4, 4)]:
        params = Params(players=players)
        assert (params.tiles, params.colours, params.boards_each, params.whites_each) == (tiles, colours, each, each)
        assert params.boards == 2 + players * each
        game = reference.new_game(params, deal(params, 1))
        assert [(b.id, b.q, b.r, b.rot, b.slots) for b in game.boards] == [(0, 0, 0, 0, [None] * 6),
                                                                          (1, 1, 0, 0, [None] * 6)]
        assert game.tiles == [tiles] * colours
        assert game.whites == game.stock == [each] * players
        assert game.midgame == game.endgame == [0] * colours
        assert not game.over and game.turn == 0
        assert_same(start(params), game)
        state = start(params, 3)
        assert state.placed.sum(axis=1).tolist() == [2, 2, 2] and not state.done.any()
        # Kaleido deals nothing at random: a deal only sizes the batch and draws nothing.
        rng = np.random.default_rng(5)
        assert len(rules.deal(params, rng, 7).game) == 7 and rng.random() == np.random.default_rng(5).random()
        # The first decision: the start player's extra action before the tile, in every game.
        assert (state.phase, state.turn) == ("before", 0)
        first = engine.decision(params, state)
        assert (first.kind, first.seat, first.asked.tolist()) == ("extra", 0, [True] * 3)


def test_engine_cell_encoding_is_the_documented_one() -> None:
    params = Params(players=5)
    geo = engine.geometry(params)
    radius = params.boards + 1
    assert (geo.radius, geo.side, geo.holes, geo.cells) == (radius, 2 * radius + 1, 6 * params.boards,
                                                            (2 * radius + 1) ** 2)
    for q, r in [(0, 0), (1, 0), (-3, 2), (radius, -radius), (-radius, radius)]:
        assert int(geo.cell(q, r)) == cell_of(params, q, r)
        assert geo.qr[cell_of(params, q, r)].tolist() == [q, r]
    for k, (dq, dr) in enumerate(HAND_DIRECTIONS):
        assert geo.step[k] == cell_of(params, dq, dr) - cell_of(params, 0, 0)


@pytest.mark.parametrize("overrides", [{"first": -1}, {"second": -4}, {"tie_pool": -12}, {"monochrome": -2},
                                       {"first": 1_000_001}, {"monochrome": 10**20}])
def test_points_outside_0_to_a_million_are_refused(overrides) -> None:
    ((key, value),) = overrides.items()
    with pytest.raises(AtelierError, match=f"^parameter '{key}' must be between 0 and 1000000, got {value}$"):
        kaleido.make_params(3, overrides)


def test_params_come_from_make_params() -> None:
    params = kaleido.make_params(4, {"first": 10, "monochrome_with_white": True})
    assert params == Params(players=4, first=10, monochrome_with_white=True)
    with pytest.raises(AtelierError, match="not allowed"):
        kaleido.make_params(6, {})


# ---------------------------------------------------------------------------------------------- majority rule


def counts_of(text: str, colours: int = 5) -> np.ndarray:
    """Coloured tiles per colour on a board or hexagon written in letters (white never counts)."""
    return np.array([text.count(LETTERS[c]) for c in range(colours)])


MAJORITY = {
    # six fills -> points R Y G B P
    "example 1: red most, white second does not count, green second": ("RRRWWG", [8, 0, 4, 0, 0]),
    "example 2: purple first, white ignored, yellow and green split 4": ("PPPWYG", [0, 2, 2, 0, 8]),
    "two tie for first: 12 split, nobody else": ("RRYYGW", [6, 6, 0, 0, 0]),
    "three tie for first: 4 each": ("RRYYGG", [4, 4, 4, 0, 0]),
    "five tie for first: 12 // 5 = 2": ("RYGBPW", [2, 2, 2, 2, 2]),
    "four tie for first: 3 each": ("RYGBWW", [3, 3, 3, 3, 0]),
    "three tie for second: 4 // 3 = 1": ("RRRYGB", [8, 1, 1, 1, 0]),
    "four tie for second: 1 each": ("RRYGBP", [8, 1, 1, 1, 1]),
    "one clear second": ("BBBBYY", [0, 4, 0, 8, 0]),
    "one colour in all six holes": ("GGGGGG", [0, 0, 12, 0, 0]),
    "one colour plus white: first only": ("GGGGGW", [0, 0, 8, 0, 0]),
    "a single tile among whites": ("WWWWWY", [0, 8, 0, 0, 0]),
    "all white: nobody": ("WWWWWW", [0, 0, 0, 0, 0]),
    # End-game examples: three players with two each share 12; purple 8 and three players with one each.
    "end-game: red, blue, purple two each": ("RRBBPP", [4, 0, 0, 4, 4]),
    "end-game: purple 8, red green yellow 1 each": ("PPPRGY", [1, 1, 1, 0, 8]),
    "end-game: red 8, blue 4": ("RRRRBB", [8, 0, 0, 4, 0]),
}


@pytest.mark.parametrize("case", list(MAJORITY))
def test_majority_rule(case: str) -> None:
    text, expected = MAJORITY[case]
    assert majority(counts_of(text), Params(players=5)).tolist() == expected


def test_majority_is_batched_over_leading_axes() -> None:
    cases = list(MAJORITY.values())
    counts = np.array([counts_of(text) for text, _ in cases]).reshape(2, -1, 5)
    expected = np.array([points for _, points in cases]).reshape(2, -1, 5)
    assert np.array_equal(majority(counts, Params(players=5)), expected)


def test_monochrome_with_white_switch() -> None:
    params = Params(players=5, monochrome_with_white=True)
    assert majority(counts_of("GGGGGW"), params).tolist() == [0, 0, 12, 0, 0]
    assert majority(counts_of("WWWWWY"), params).tolist() == [0, 12, 0, 0, 0]
    assert majority(counts_of("GGGGGG"), params).tolist() == [0, 0, 12, 0, 0]
    assert majority(counts_of("GGGGGY"), params).tolist() == [0, 4, 8, 0, 0]  # a second colour: no bonus
    assert majority(counts_of("WWWWWW"), params).tolist() == [0] * 5


def test_majority_points_come_from_params() -> None:
    params = Params(players=5, first=10, second=5, tie_pool=9, monochrome=20)
    assert majority(counts_of("RRRWWG"), params).tolist() == [10, 0, 5, 0, 0]
    assert majority(counts_of("RRYYGW"), params).tolist() == [4, 4, 0, 0, 0]  # 9 // 2
    assert majority(counts_of("PPPPYG"), params).tolist() == [0, 2, 2, 0, 10]  # 5 // 2
    assert majority(counts_of("BBBBBB"), params).tolist() == [0, 0, 0, 20, 0]
    assert majority(counts_of("BBBBBW"), params).tolist() == [0, 0, 0, 10, 0]


# ---------------------------------------------------------------------------------------------- geometry

ROOT3 = math.sqrt(3)


def centre(q: int, r: int) -> tuple[float, float]:
    """Board centres on the plane, pointy-top hexagons of circumradius 1: d0 east, then anticlockwise."""
    return ROOT3 * (q + r / 2), -1.5 * r


def outer_corners(q: int, r: int, k: int) -> frozenset:
    """The two outer vertices of triangle k of the board at (q, r): its outer edge faces direction k."""
    x, y = centre(q, r)
    return frozenset((round(x + math.cos(math.radians(60 * k + d)), 6) + 0.0,
                      round(y + math.sin(math.radians(60 * k + d)), 6) + 0.0) for d in (-30, 30))


def drawn_hexagons(cells: list[tuple[int, int]]) -> set[frozenset]:
    """Hexagons found by drawing: a vertex touched by triangles of three boards, 2 triangles from each."""
    touching = defaultdict(set)
    for b, (q, r) in enumerate(cells):
        for k in range(6):
            for vertex in outer_corners(q, r, k):
                touching[vertex].add((b, k))
    return {frozenset(tris) for tris in touching.values() if len({b for b, _ in tris}) == 3}


def test_the_drawing_puts_direction_k_at_60k_degrees_and_neighbours_share_triangles_k_and_k_plus_3() -> None:
    for k, (dq, dr) in enumerate(HAND_DIRECTIONS):
        x, y = centre(dq, dr)
        assert math.isclose(math.hypot(x, y), ROOT3)
        assert math.isclose(math.atan2(y, x) % (2 * math.pi), math.radians(60 * k) % (2 * math.pi))
        # The neighbour in direction k shares exactly one edge: our triangle k and its triangle k + 3.
        shared = [(a, b) for a in range(6) for b in range(6) if outer_corners(0, 0, a) == outer_corners(dq, dr, b)]
        assert shared == [(k, (k + 3) % 6)]
        assert (-dq, -dr) == HAND_DIRECTIONS[(k + 3) % 6]


def tri(*pairs: tuple[int, int]) -> frozenset:
    return frozenset(pairs)


RING = [(0, 0), (1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]  # a centre and its six neighbours d0..d5
LAYOUTS = {
    "three boards above": ([(0, 0), (1, 0), (1, -1)],
                           [tri((0, 0), (0, 1), (1, 2), (1, 3), (2, 4), (2, 5))]),
    "three boards below": ([(0, 0), (1, 0), (0, 1)],
                           [tri((0, 5), (0, 0), (2, 1), (2, 2), (1, 3), (1, 4))]),
    "a line has none": ([(0, 0), (1, 0), (2, 0)], []),
    "two apart": ([(0, 0), (1, 0), (-1, 0), (2, -1)], []),
    "rhombus": ([(0, 0), (1, 0), (1, -1), (2, -1)],
                [tri((0, 0), (0, 1), (1, 2), (1, 3), (2, 4), (2, 5)),
                 tri((1, 1), (1, 2), (3, 3), (3, 4), (2, 5), (2, 0))]),
    "ring": (RING, [
        tri((0, 0), (0, 1), (1, 2), (1, 3), (2, 4), (2, 5)),
        tri((0, 1), (0, 2), (2, 3), (2, 4), (3, 5), (3, 0)),
        tri((0, 2), (0, 3), (3, 4), (3, 5), (4, 0), (4, 1)),
        tri((0, 3), (0, 4), (4, 5), (4, 0), (5, 1), (5, 2)),
        tri((0, 4), (0, 5), (5, 0), (5, 1), (6, 2), (6, 3)),
        tri((0, 5), (0, 0), (6, 1), (6, 2), (1, 3), (1, 4)),
    ]),
}


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_hexagons_of_hand_drawn_tables(name: str) -> None:
    cells, expected = LAYOUTS[name]
    assert drawn_hexagons(cells) == set(expected)
    params = Params(players=5)
    rng = np.random.default_rng(len(name))
    rots = rng.integers(0, 6, len(cells)).tolist()

    # Reference: each corner exactly once, X's triangles k and k + 1, Y's k + 2, k + 3 and Z's k + 4, k + 5.
    game = position(params, [(q, r, rot, "......") for (q, r), rot in zip(cells, rots)])
    triples = reference.hexagon_triples(game)
    found = [tri(*((b.id, (k + i) % 6) for b, k in triple for i in (0, 1))) for triple in triples]
    assert len(found) == len(set(found)) == len(expected)
    assert set(found) == set(expected)
    for (x, k), (y, ky), (z, kz) in triples:
        assert (y.q - x.q, y.r - x.r) == HAND_DIRECTIONS[k] and ky == (k + 2) % 6
        assert (z.q - x.q, z.r - x.r) == HAND_DIRECTIONS[(k + 1) % 6] and kz == (k + 4) % 6

    # Engine: slots hold 10 * board + slot so each hexagon's tiles say where they came from.
    codes = [[10 * b + s for s in range(6)] for b in range(len(cells))]
    state = engine_state(params, [(q, r, rot, "") for (q, r), rot in zip(cells, rots)], codes)
    y, z, tiles = engine.hexagons(state, engine.geometry(params))
    corners = np.argwhere(y[0] >= 0)
    assert len(corners) == len(expected)
    seen = set()
    for x, k in corners:
        where = [(int(c) // 10, (int(c) % 10 + rots[int(c) // 10]) % 6) for c in tiles[0, x, k]]
        yy, zz = int(y[0, x, k]), int(z[0, x, k])
        assert where == [(x, k), (x, (k + 1) % 6), (yy, (k + 2) % 6), (yy, (k + 3) % 6),
                         (zz, (k + 4) % 6), (zz, (k + 5) % 6)]
        assert (cells[yy][0] - cells[x][0], cells[yy][1] - cells[x][1]) == HAND_DIRECTIONS[k]
        assert (cells[zz][0] - cells[x][0], cells[zz][1] - cells[x][1]) == HAND_DIRECTIONS[(k + 1) % 6]
        seen.add(tri(*where))
    assert seen == set(expected)


def test_rotation_puts_local_slot_s_at_triangle_s_plus_rot() -> None:
    params = Params(players=3)
    for rot in range(6):
        for slot in range(6):
            text = "".join("R" if s == slot else "." for s in range(6))
            board = reference.Board(0, 0, 0, rot, fills(text))
            assert [board.triangle(k) for k in range(6)] == [0 if k == (slot + rot) % 6 else None for k in range(6)]
            state = engine_state(params, [(0, 0, rot, text), (1, 0, 0, "......")])
            shown = engine.triangles(state)[0, 0].tolist()
            assert shown == [0 if k == (slot + rot) % 6 else EMPTY for k in range(6)]
    assert by_triangle(2, "RYGBPW") == "GBPWRY"  # turned two steps, slot 0 shows at triangle 2


def test_to_state_is_the_documented_engine_state() -> None:
    params = Params(players=4)
    layout = [(0, 0, 1, "RY.GWB"), (1, 0, 5, "......"), (1, -1, 0, "RRRRRR"), (-1, 1, 3, "W.....")]
    game = position(params, layout, tiles=[3, 4, 5, 6], whites=[0, 1, 2, 2], stock=[1, 1, 2, 0], turn=7)
    game.midgame = [8, 0, 0, 4]
    mine = engine_state(params, layout)
    theirs = reference.to_state(game)
    for name in ("slots", "cell", "rot", "scored", "grid"):
        assert np.array_equal(getattr(mine, name), getattr(theirs, name)), name
    assert theirs.tiles.tolist() == [[3, 4, 5, 6]] and theirs.stock.tolist() == [[1, 1, 2, 0]]
    assert theirs.midgame.tolist() == [[8, 0, 0, 4]] and theirs.turn == 7


def test_boards_must_share_a_side_with_the_table() -> None:
    params = Params(players=3)
    game = reference.new_game(params, deal(params, 1))
    assert set(game.board_spots()) == START_SPOTS
    assert spots_of(params, start(params)) == START_SPOTS
    options = reference.extra_options(game, "before")
    assert {(q, r) for kind, q, r in filter(None, options) if kind == "board"} == START_SPOTS
    script = Script(extras=[("board", 2, 0)], tiles=[(0, 0)])
    reference.play_turn(game, script)
    after = START_SPOTS - {(2, 0)} | {(3, 0), (3, -1), (2, 1)}
    assert set(game.board_spots()) == after
    state, _ = engine_turn(params, start(params), Answers(before=[board_at(params, 2, 0)], tile=[0]))
    assert spots_of(params, state) == after
    assert_same(state, game)


# ---------------------------------------------------------------------------------------------- end-game scoring


def hexagon_table(hole: str) -> list:
    """Five boards, three corners (5 players). By physical triangle:
    H1 = 0[0] 0[1] 1[2] 1[3] 2[4] 2[5] = P P P R G Y       -> purple 8, red, green, yellow 1 each
    H2 = 1[1] 1[2] 3[3] 3[4] 2[5] 2[0] = R P R W Y R       -> red 8, purple and yellow 2 each
    H3 = 1[0] 1[1] 4[2] 4[3] 3[4] 3[5] = G R `hole` B W B  -> scores only when 4[2] is filled
    Board 2 keeps three empty holes outside its hexagons; it never scores by itself."""
    return [(0, 0, 0, by_triangle(0, "PPYGBR")), (1, 0, 3, by_triangle(3, "GRPRWY")),
            (1, -1, 0, by_triangle(0, "R...GY")), (2, -1, 1, by_triangle(1, "YYRRWB")),
            (2, 0, 4, by_triangle(4, f"GG{hole}BRR"))]


@pytest.mark.parametrize(("hole", "expected"), [(".", [9, 3, 1, 0, 10]),  # H1 + H2
                                                ("G", [9, 3, 7, 6, 10]),  # + H3: G G R B B W, green and blue 6
                                                ])
def test_endgame_scores_complete_hexagons_only(hole: str, expected: list) -> None:
    params = Params(players=5)
    game = position(params, hexagon_table(hole))
    reference.endgame_scoring(game)
    assert game.endgame == expected
    assert game.midgame == [0] * 5
    state = engine.endgame_scoring(params, engine_state(params, hexagon_table(hole)), engine.geometry(params))
    assert state.endgame[0].tolist() == expected
    assert state.midgame[0].tolist() == [0] * 5


@pytest.mark.parametrize(("hole", "expected"), [(".", [0] * 5),  # H1 and H2 take triangles from board 2
                                                ("G", [0, 0, 6, 6, 0]),  # H3 alone: boards 1, 3 and 4 are full
                                                ])
def test_under_hexagon_needs_full_boards_a_hexagon_beside_an_empty_hole_does_not_score(hole: str, expected) -> None:
    params = Params(players=5, hexagon_needs_full_boards=True)
    game = position(params, hexagon_table(hole))
    reference.endgame_scoring(game)
    assert game.endgame == expected
    assert game.hexagons == ([{"boards": [1, 3, 4], "points": {"green": 6, "blue": 6}}] if hole == "G" else [])
    state = engine.endgame_scoring(params, engine_state(params, hexagon_table(hole)), engine.geometry(params))
    assert state.endgame[0].tolist() == expected


def test_rotating_a_board_changes_the_endgame() -> None:
    # Three boards: the hexagon is 0[0] 0[1] 1[2] 1[3] 2[4] 2[5].
    params = Params(players=3)
    # Board 0's slots RRYYGG turned to rot show slots -rot and 1 - rot (mod 6) at triangles 0 and 1; board 1
    # shows G G, board 2 Y Y. rot 0: R R G G Y Y, three-way tie. rot 2: G G -> green 4, yellow 2.
    # rot 3: Y G -> green and yellow 3 each, tie. rot 4: Y Y -> yellow 4, green 2.
    for rot, expected in [(0, [4, 4, 4]), (2, [0, 4, 8]), (3, [0, 6, 6]), (4, [0, 8, 4])]:
        layout = [(0, 0, rot, "RRYYGG"), (1, 0, 0, "GGGGGG"), (1, -1, 0, "YYYYYY")]
        game = position(params, layout)
        reference.endgame_scoring(game)
        assert game.endgame == expected, rot
        assert game.hexagons == [{"boards": [0, 1, 2], "points": {c: p for c, p in zip(rules.COLORS, expected) if p}}]
        state = engine.endgame_scoring(params, engine_state(params, layout), engine.geometry(params))
        assert state.endgame[0].tolist() == expected, rot


# ---------------------------------------------------------------------------------------------- turn rules


def test_a_tile_every_turn_and_one_extra_action_before_or_after() -> None:
    params = Params(players=3)
    game = reference.new_game(params, deal(params, 1))
    script = Script(extras=[("white", 0, 0), None, ("board", 2, 0), ("board", -1, 0)],
                    tiles=[(0, 1), (1, 0), (3, 5)])
    for _ in range(3):
        reference.play_turn(game, script)
    # Red: a white tile before the tile, so no second chance after it. Yellow: nothing before, a board after.
    # Green: a board before, then its tile in that new board.
    assert script.asked == ["before", "tile", "before", "tile", "after", "before", "tile"]
    assert [b.slots for b in game.boards] == [fills("WR...."), fills("Y....."), fills("......"), fills(".....G")]
    assert [(b.q, b.r) for b in game.boards] == [(0, 0), (1, 0), (2, 0), (-1, 0)]
    assert (game.tiles, game.whites, game.stock) == ([11, 11, 11], [1, 2, 2], [2, 1, 1])
    assert (game.boards_placed, game.whites_used, game.turns_played) == ([0, 1, 1], [1, 0, 0], [1, 1, 1])
    assert game.turn == 3
    assert game.events == [
        {"type": "turn", "turn": 0, "seat": 0, "color": "red"},
        {"type": "tile", "seat": 0, "color": "white", "board": 0, "slot": 0, "white": True},
        {"type": "tile", "seat": 0, "color": "red", "board": 0, "slot": 1, "white": False},
        {"type": "turn", "turn": 1, "seat": 1, "color": "yellow"},
        {"type": "tile", "seat": 1, "color": "yellow", "board": 1, "slot": 0, "white": False},
        {"type": "board", "seat": 1, "board": 2, "q": 2, "r": 0},
        {"type": "turn", "turn": 2, "seat": 2, "color": "green"},
        {"type": "board", "seat": 2, "board": 3, "q": -1, "r": 0},
        {"type": "tile", "seat": 2, "color": "green", "board": 3, "slot": 5, "white": False},
    ]

    third = board_at(params, -1, 0, [(0, 0), (1, 0), (2, 0)])
    player = Answers(before=[white(params, 0, 0), 0, third], tile=[1, 6, 23], after=[board_at(params, 2, 0)])
    state = start(params)
    kinds = []
    for _ in range(3):
        state, decisions = engine_turn(params, state, player)
        kinds += [kind for kind, _ in decisions]
    assert player.asked == ["before", "tile", "before", "tile", "after", "before", "tile"]
    assert kinds == ["extra", "tile", "extra", "tile", "extra", "extra", "tile"]
    assert_same(state, game)
    assert state.turn == 3


def test_a_white_tile_before_the_tile_may_not_take_the_last_hole() -> None:
    params = Params(players=3)
    geo = engine.geometry(params)
    boards = [f"board {q} {r}" for q, r in sorted(START_SPOTS)]
    for text, holes in [("RYGRY.", [(1, 5)]), ("RYGR..", [(1, 4), (1, 5)])]:
        layout = [(0, 0, 0, "RRYYGG"), (1, 0, 0, text)]
        game = position(params, layout)
        before = reference.extra_options(game, "before")
        expected_whites = [] if len(holes) == 1 else [("white", b, s) for b, s in holes]
        assert [o for o in before if o and o[0] == "white"] == expected_whites
        assert before[0] is None and sorted(f"{o[0]} {o[1]} {o[2]}" for o in before[1:] if o[0] == "board") == boards
        after = reference.extra_options(game, "after")  # after the tile a white tile may fill any hole left
        assert [o for o in after if o and o[0] == "white"] == [("white", b, s) for b, s in holes]
        state = engine_state(params, layout)
        for before_tile, allowed in [(True, expected_whites), (False, [("white", b, s) for b, s in holes])]:
            mask = engine.extra_mask(params, state, geo, 0, np.array([True]), before_tile=before_tile)[0]
            assert mask[0]
            assert np.flatnonzero(mask[1 : 1 + geo.holes]).tolist() == [6 * b + s for _, b, s in allowed]
            assert board_cells(params, state, mask) == START_SPOTS
            assert mask[1 + geo.holes :].sum() == len(START_SPOTS)  # each spot once


FULL = [(0, 0, 0, "RRYYGG"), (1, 0, 0, "YYGGRR")]


def test_when_every_hole_is_full_the_mover_must_place_a_board_first() -> None:
    params = Params(players=3)
    game = position(params, FULL)
    options = reference.extra_options(game, "forced")
    assert sorted(options) == sorted(("board", q, r) for q, r in START_SPOTS)  # no "nothing", no white tile
    script = Script(extras=[("board", 0, 1)], tiles=[(2, 3)])
    reference.play_turn(game, script)
    assert script.asked == ["forced", "tile"]  # the board was the extra action: nothing after the tile
    assert (game.boards[2].q, game.boards[2].r, game.boards[2].slots) == (0, 1, fills("...R.."))
    assert game.stock == [1, 2, 2] and game.tiles == [11, 12, 12]

    player = Answers(forced=[board_at(params, 0, 1)], tile=[15])
    state, decisions = engine_turn(params, engine_state(params, FULL), player)
    assert player.asked == ["forced", "tile"] and decisions == [("extra", "forced"), ("tile", "tile")]
    forced = player.legal[0]
    assert not forced[0] and not forced[1 : 1 + 6 * params.boards].any()
    assert board_cells(params, engine_state(params, FULL), forced) == START_SPOTS
    assert forced.sum() == len(START_SPOTS)
    assert_same(state, game)


def test_with_every_hole_full_and_no_board_the_turn_is_skipped() -> None:
    params = Params(players=3)
    game = position(params, FULL, stock=[0, 2, 0])
    script = Script()
    reference.play_turn(game, script)
    assert script.asked == [] and game.turn == 1
    assert game.tiles == [12, 12, 12] and game.turns_played == [0, 0, 0]
    assert not game.stalled and not game.over
    state = replace(engine_state(params, FULL), stock=np.array([[0, 2, 0]], np.int8))
    state, decisions = engine_turn(params, state, Answers())
    assert decisions == [] and state.turn == 1
    assert not state.done[0] and not state.stalled[0]
    assert state.skips.tolist() == [[1, 0, 0]] and state.passes.tolist() == [[0, 0, 0]]
    assert game.events == [{"type": "turn", "turn": 0, "seat": 0, "color": "red"}, {"type": "skip", "seat": 0}]
    assert_same(state, game)
    assert state.phase == "forced"  # the engine goes on to yellow's turn, the next that asks anything
    # Yellow, with boards, must now place one.
    assert reference.extra_options(game, "forced")[0][0] == "board"


def test_a_player_out_of_tiles_passes() -> None:
    params = Params(players=3)
    game = reference.new_game(params, deal(params, 1))
    game.tiles = [0, 5, 5]
    script = Script()
    reference.play_turn(game, script)
    assert script.asked == [] and game.turn == 1 and not game.over
    assert game.turns_played == [0, 0, 0] and game.tiles == [0, 5, 5]
    state = replace(start(params), tiles=np.array([[0, 5, 5]], np.int8))
    state, decisions = engine_turn(params, state, Answers())
    assert decisions == [] and not state.done[0] and state.turn == 1
    assert state.passes.tolist() == [[1, 0, 0]] and state.skips.tolist() == [[0, 0, 0]]
    assert game.events == [{"type": "turn", "turn": 0, "seat": 0, "color": "red"}, {"type": "pass", "seat": 0}]
    assert_same(state, game)


def test_the_game_ends_when_every_coloured_tile_is_placed() -> None:
    params = Params(players=3)
    game = reference.new_game(params, deal(params, 1))
    game.tiles = [1, 1, 1]
    script = Script(extras=[None] * 6, tiles=[(0, 0), (0, 1), (1, 0)])
    result = finish(game, script)
    assert game.over and game.turn == 3 and not game.stalled
    assert game.whites == [2, 2, 2]  # white tiles left over change nothing
    assert result.scores == [0, 0, 0] and result.winners == [0, 1, 2] and result.wins == pytest.approx([1 / 3] * 3)
    state = replace(start(params), tiles=np.array([[1, 1, 1]], np.int8))
    player = Answers(before=[0] * 3, tile=[0, 1, 6], after=[0] * 3)
    for _ in range(3):
        assert not state.done[0]
        state, _ = engine_turn(params, state, player)
    assert state.done[0] and not state.stalled[0]
    assert engine.terminal(params, state) and state.turn_kind.tolist() == [engine.OVER]
    assert_same(state, game)


@pytest.mark.parametrize("order", ["white first", "tile first"])
def test_two_boards_filled_in_one_turn_both_score_and_may_both_be_turned(order: str) -> None:
    params = Params(players=3)
    layout = [(0, 0, 4, "RRYGR."), (1, 0, 0, "YYGWR.")]
    game = position(params, layout)
    if order == "white first":
        # Two holes, so the white tile may go first: board 0 gets it, red's tile closes board 1.
        # Board 0: R R Y G R W -> red 8, yellow and green 2 each. Board 1: Y Y G W R R -> red and yellow tie: 6 each.
        script = Script(extras=[("white", 0, 5)], tiles=[(1, 5)], rotations=[3, 5])
        expected, asked = [14, 8, 2], ["before", "tile"]
        engine_answers = {"before": [white(params, 0, 5)], "tile": [11]}
    else:
        # Board 0: R R Y G R R -> red 8, yellow and green 2 each. Board 1: Y Y G W R W -> yellow 8, green, red 2.
        script = Script(extras=[None, ("white", 1, 5)], tiles=[(0, 5)], rotations=[3, 5])
        expected, asked = [10, 10, 4], ["before", "tile", "after"]
        engine_answers = {"before": [0], "tile": [5], "after": [white(params, 1, 5)]}
    reference.play_turn(game, script)
    assert script.asked == [*asked, ("rotate", 0), ("rotate", 1)]
    assert game.midgame == expected
    assert [b.scored for b in game.boards] == [True, True]
    assert [b.rot for b in game.boards] == [1, 5]  # 4 + 3 and 0 + 5, mod 6
    assert [e for e in game.events if e["type"] == "rotate"] == [{"type": "rotate", "board": 0, "steps": 3},
                                                                {"type": "rotate", "board": 1, "steps": 5}]
    scores = [e for e in game.events if e["type"] == "score"]
    assert [s["board"] for s in scores] == [0, 1]
    assert sum(sum(s["points"].values()) for s in scores) == sum(expected)

    player = Answers(**engine_answers, rotate=[3, 5])
    state, decisions = engine_turn(params, engine_state(params, layout), player)
    assert player.asked == [*asked, ("rotate", 0), ("rotate", 1)]
    assert decisions == [("extra" if p in engine.EXTRA else p, p) for p in [*asked, "rotate", "rotate"]]
    assert_same(state, game)


# ---------------------------------------------------------------------------------------------- 2 players


def test_two_player_variant_alternates_colours_and_scores_by_colour() -> None:
    params = Params(players=2)
    assert [params.owner(c) for c in range(params.colours)] == [0, 1, 0, 1]
    game = reference.new_game(params, deal(params, 1))
    assert (game.tiles, game.whites, game.stock) == ([11] * 4, [4, 4], [4, 4])
    script = Script(extras=[None] * 8, tiles=[(0, s) for s in range(4)])
    seen = []
    for _ in range(4):
        seen.append((game.colour, game.seat))
        reference.play_turn(game, script)
    assert seen == [(0, 0), (1, 1), (2, 0), (3, 1)]  # red (A), yellow (B), green (A), blue (B)
    assert game.boards[0].slots == fills("RYGB..")

    # A board of R G Y B W + red's tile: red 8, yellow, green and blue split 4 -> 1 each.
    # Player A (red + green) 9, player B (yellow + blue) 2.
    layout = [(0, 0, 0, "RGYBW."), (1, 0, 0, "......")]
    game = position(params, layout, tiles=[1, 0, 0, 0])
    result = finish(game, Script(extras=[None, None], tiles=[(0, 5)], rotations=[0]))
    assert game.midgame == [8, 1, 1, 1]
    assert result.colour_points == [8, 1, 1, 1]
    assert (result.scores, result.ranks, result.winners, result.wins) == ([9, 2], [1, 2], [0], [1.0, 0.0])
    game.midgame = [8, 4, 0, 4]  # A 8 + 0, B 4 + 4: a tie shares the victory
    result = reference.final_result(game)
    assert (result.scores, result.ranks, result.winners, result.wins) == ([8, 8], [1, 1], [0, 1], [0.5, 0.5])


def test_two_player_engine_alternates_colours_and_sums_them() -> None:
    params = Params(players=2)
    turns = []

    class Watch:
        def __init__(self, inner):
            self.inner, self.name = inner, inner.name

        def extra(self, obs, rng):
            return self.inner.extra(obs, rng)

        def tile(self, obs, rng):
            for g in np.arange(len(obs.asked))[self.inner.idx]:  # this player's games
                if obs.asked[g]:
                    turns.append((int(g), obs.turn, int(obs.colour[g]), obs.seat))
            return self.inner.tile(obs, rng)

        def rotate(self, obs, rng):
            return self.inner.rotate(obs, rng)

    lineups = np.array([["greedy", "random"], ["random", "rotator"]] * 10)
    record = play_batch("kaleido", params, deal(params, 20), lineups, np.random.default_rng(3),
                        lambda name, **kw: Watch(make_player(name, **kw)))
    assert {turn for _, turn, _, _ in turns} >= set(range(44))
    assert all(seat == turn % 2 and colour % 2 == seat for _, turn, colour, seat in turns)
    # "They cannot put 2 tiles of the same color successively": each player's own tiles alternate colours,
    # starting with their first colour, even across skipped turns.
    for g in range(20):
        for seat in (0, 1):
            placed = [colour for game, _, colour, s in turns if game == g and s == seat]
            assert placed == [seat + 2 * (i % 2) for i in range(len(placed))], (g, seat)
    points = record.state.midgame + record.state.endgame
    assert np.array_equal(record.outcome.scores,
                          np.stack([points[:, 0] + points[:, 2], points[:, 1] + points[:, 3]], 1))
    finished = ~record.state.stalled
    assert finished.sum() >= 10
    assert (record.state.tiles[finished] == 0).all() and (record.state.turns_played[finished] == 22).all()


# ---------------------------------------------------------------------------------------------- stalls


STALL = [(0, 0, 0, "RRYYGG"), (1, 0, 0, "YYRRGG"), (1, -1, 0, "GGYYYW")]  # hexagon R R R R Y W: red 8, yellow 4


def test_a_hand_built_stall_ends_the_game_and_is_scored() -> None:
    params = Params(players=3)
    # Every hole is full; red and yellow still hold tiles but no boards; green has boards but no tiles.
    game = position(params, STALL, tiles=[3, 2, 0], stock=[0, 0, 2])
    script = Script()
    result = finish(game, script)
    assert game.stalled and game.over and script.asked == []
    assert game.tiles == [3, 2, 0]
    assert game.endgame == [8, 4, 0] and result.scores == [8, 4, 0] and result.winners == [0]
    assert game.events == [{"type": "turn", "turn": 0, "seat": 0, "color": "red"}, {"type": "stall", "seat": 0}]
    state = replace(engine_state(params, STALL), tiles=np.array([[3, 2, 0]], np.int8),
                    stock=np.array([[0, 0, 2]], np.int8))
    state, decisions = engine_turn(params, state, Answers())
    assert decisions == [] and state.done[0] and state.stalled[0]
    assert engine.terminal(params, state)  # the engine scores the end-game hexagons as the batch ends
    assert state.endgame[0].tolist() == [8, 4, 0]
    assert engine.outcome(params, state).scores.tolist() == [[8, 4, 0]]


def test_no_stall_while_someone_with_tiles_holds_a_board() -> None:
    params = Params(players=3)
    game = position(params, STALL, tiles=[3, 2, 0], stock=[0, 1, 2])
    reference.play_turn(game, Script())
    assert not game.stalled and not game.over and game.turn == 1  # red is skipped; yellow can open holes
    state = replace(engine_state(params, STALL), tiles=np.array([[3, 2, 0]], np.int8),
                    stock=np.array([[0, 1, 2]], np.int8))
    state, _ = engine_turn(params, state, Answers())
    assert not state.done[0] and not state.stalled[0]
    assert state.skips.tolist() == [[1, 0, 0]] and (state.phase, state.turn) == ("forced", 1)


def test_stalls_found_by_play_are_flagged_ended_and_scored() -> None:
    params = Params(players=3)
    seed = next(s for s in range(40) if kaleido.trace(params, ["hoarder"] * 3, s)["stalled"])
    record = kaleido.trace(params, ["hoarder"] * 3, seed)
    assert all(None not in board["slots"] for board in record["boards"])  # every hole full
    tiles = sum(not e["white"] for e in record["events"] if e["type"] == "tile")
    assert tiles < 3 * params.tiles  # coloured tiles were left over
    assert "The game stalls" in kaleido.rules.narrate(record)
    assert record["events"][-1]["type"] == "stall" and record["events"][-2]["type"] == "turn"
    played = play_batch("kaleido", params, deal(params, 1), np.array([["hoarder"] * 3]), np.random.default_rng(seed))
    assert played.state.stalled[0] and played.state.done[0]
    assert played.outcome.scores[0].tolist() == record["scores"]
    assert played.state.endgame[0].sum() == sum(sum(h["points"].values()) for h in record["endgame"])

    lineups = np.array([["hoarder", "hoarder", "greedy"]] * 40)
    out = kaleido.simulate(params, lineups, np.arange(40), np.random.SeedSequence(0), np.random.SeedSequence(5))
    direct = play_batch("kaleido", params, deal(params, 40), lineups, np.random.default_rng(np.random.SeedSequence(5)))
    stalled = out["stalled"].reshape(40, 3)
    assert (stalled == stalled[:, :1]).all()
    assert np.array_equal(stalled[:, 0], direct.state.stalled)
    assert 0 < stalled[:, 0].sum() < 40
    turns = out["turns"].reshape(40, 3)
    # A seat places one coloured tile per turn: a stalled game leaves someone short of 12 turns.
    assert np.array_equal((turns < params.tiles).any(axis=1), stalled[:, 0])


# ---------------------------------------------------------------------------------------------- traces


def rulebook_points(fills_: list, colours: int, params: Params) -> list[int]:
    """The scoring procedure as the rulebook words it, one board or hexagon of six filled holes."""
    counts = [fills_.count(c) for c in range(colours)]
    points = [0] * colours
    levels = sorted({n for n in counts if n > 0}, reverse=True)
    if not levels:
        return points
    leaders = [c for c in range(colours) if counts[c] == levels[0]]
    if len(leaders) > 1:
        for c in leaders:
            points[c] = params.tie_pool // len(leaders)
        return points
    if len(levels) == 1 and (counts[leaders[0]] == 6 or params.monochrome_with_white):
        points[leaders[0]] = params.monochrome
        return points
    points[leaders[0]] = params.first
    if len(levels) > 1:
        seconds = [c for c in range(colours) if counts[c] == levels[1]]
        for c in seconds:
            points[c] = params.second // len(seconds)
    return points


def audit(record: dict) -> dict:
    """Re-play a trace's events on a fresh table and re-score it, by drawing: nothing from atelier's engines.
    Turns are audited against the rulebook too: seats in order, one own tile and at most one extra action per
    turn, and a pass, skip or stall only where the rules call for one."""
    params = Params(**record["params"])
    players = params.players
    names = [*rules.COLORS[: params.colours], "white"]
    boards = {0: [0, 0, 0, [None] * 6], 1: [1, 0, 0, [None] * 6]}  # id -> q, r, rot, slots
    midgame = [0] * params.colours
    pending: set[int] = set()  # full, not yet scored
    turnable: set[int] = set()  # scored just now: the mover may turn them
    tiles_left = dict.fromkeys(names[:-1], params.tiles)
    stock, placed = [params.boards_each] * players, [0] * players  # boards left; own tiles placed, per seat
    turn: dict = {}  # the turn in progress: its event, tiles, extra actions, and whether it began with no hole
    events = record["events"]

    def close(turn: dict) -> None:
        if turn and turn["plays"]:
            assert turn["tiles"] == 1 and turn["extras"] <= 1, turn

    for at, event in enumerate(events):
        kind = event["type"]
        full = all(None not in board[3] for board in boards.values())
        if kind == "turn":
            close(turn)
            number, seat = event["turn"], event["seat"]
            assert number == (turn["event"]["turn"] + 1 if turn else 0) and seat == number % players
            own = [c for c in names[:-1] if names.index(c) % players == seat]  # 2 players: two colours, alternating
            assert event["color"] == own[placed[seat] % len(own)]
            turn = {"event": event, "tiles": 0, "extras": 0, "plays": True, "full": full}
            turnable.clear()  # the right to turn a board is never carried over to later turns
            continue
        assert turn, "every event belongs to a turn"
        seat, colour = turn["event"]["seat"], turn["event"]["color"]
        if kind in ("pass", "skip", "stall"):
            assert event["seat"] == seat and (turn["tiles"], turn["extras"]) == (0, 0)
            turn["plays"] = False
            if kind == "pass":
                assert tiles_left[colour] == 0  # "a player who has run out of tiles must pass"
            else:
                assert tiles_left[colour] > 0 and full and stock[seat] == 0  # every hole full, no board
            if kind == "stall":  # nobody who still has tiles holds a board: the game ends here
                assert all(stock[names.index(c) % players] == 0 for c, n in tiles_left.items() if n > 0)
                assert at == len(events) - 1 and record["stalled"]
            continue
        if kind in ("board", "tile"):
            assert event["seat"] == seat
            turnable.clear()
            if kind == "board" or event["white"]:
                turn["extras"] += 1
            else:
                assert event["color"] == colour
                assert turn["extras"] == 1 or not turn["full"]  # every hole full: a board before the tile
                turn["tiles"] += 1
                tiles_left[colour] -= 1
                placed[seat] += 1
        if kind == "board":
            stock[seat] -= 1
            assert stock[seat] >= 0
            assert event["board"] == len(boards)
            assert any((event["q"] - q, event["r"] - r) in HAND_DIRECTIONS for q, r, _, _ in boards.values())
            assert all((event["q"], event["r"]) != (q, r) for q, r, _, _ in boards.values())
            boards[event["board"]] = [event["q"], event["r"], 0, [None] * 6]
        elif kind == "tile":
            slots = boards[event["board"]][3]
            assert slots[event["slot"]] is None, "a hole holds one tile"
            slots[event["slot"]] = "white" if event["white"] else event["color"]
            if None not in slots:
                pending.add(event["board"])
        elif kind == "score":
            pending.remove(event["board"])
            turnable.add(event["board"])
            codes = [names.index(s) for s in boards[event["board"]][3]]
            points = rulebook_points(codes, params.colours, params)
            assert event["points"] == {names[c]: p for c, p in enumerate(points) if p}
            midgame = [m + p for m, p in zip(midgame, points)]
        elif kind == "rotate":
            assert event["board"] in turnable
            boards[event["board"]][2] = (boards[event["board"]][2] + event["steps"]) % 6
        else:
            raise AssertionError(f"unknown event {event}")
    close(turn)
    assert not pending
    assert record["stalled"] == (events[-1]["type"] == "stall")
    assert record["stalled"] or not any(tiles_left.values())  # the game ends when every coloured tile is placed
    ids = sorted(boards)
    cells = [tuple(boards[b][:2]) for b in ids]
    endgame, hexagons = [0] * params.colours, []
    for hexagon in drawn_hexagons(cells):
        shown = [boards[b][3][(k - boards[b][2]) % 6] for b, k in hexagon]
        if None in shown:
            continue
        points = rulebook_points([names.index(s) for s in shown], params.colours, params)
        endgame = [e + p for e, p in zip(endgame, points)]
        hexagons.append((sorted({b for b, _ in hexagon}), {names[c]: p for c, p in enumerate(points) if p}))
    scores = [sum(midgame[c] + endgame[c] for c in range(params.colours) if c % params.players == s)
              for s in range(params.players)]
    return {"boards": [{"id": b, "q": boards[b][0], "r": boards[b][1], "rot": boards[b][2], "slots": boards[b][3]}
                       for b in ids],
            "hexagons": sorted(hexagons, key=str), "scores": scores,
            "winners": [s for s in range(params.players) if scores[s] == max(scores)]}


TRACE_CASES = [
    (2, ["rotator", "hoarder"], 0),
    (3, ["greedy", "majority", "random"], 1),
    (4, ["random", "rotator", "greedy", "hoarder"], 2),
    (5, ["majority", "random", "rotator", "hoarder", "greedy"], 3),
    (3, ["hoarder"] * 3, 4),
]


@pytest.mark.parametrize(("players", "strategies", "seed"), TRACE_CASES)
def test_trace_is_json_ready_and_survives_an_independent_audit(players, strategies, seed) -> None:
    params = Params(players=players)
    record = json.loads(json.dumps(kaleido.trace(params, strategies, seed)))
    assert set(record) == {"game", "players", "seed", "strategies", "params", "colors", "events", "boards",
                           "endgame", "scores", "winners", "stalled"}
    assert (record["game"], record["players"], record["seed"], record["strategies"]) == \
        ("kaleido", players, seed, strategies)
    assert record["params"]["players"] == players and Params(**record["params"]) == params
    colours = list(rules.COLORS[: params.colours])
    assert record["colors"] == [colours[s :: players] for s in range(players)]
    fields = {"tile": {"type", "seat", "color", "board", "slot", "white"}, "board": {"type", "seat", "board", "q", "r"},
              "score": {"type", "board", "points"}, "rotate": {"type", "board", "steps"},
              "turn": {"type", "turn", "seat", "color"}, "pass": {"type", "seat"}, "skip": {"type", "seat"},
              "stall": {"type", "seat"}}
    kinds = set()
    for event in record["events"]:
        assert set(event) == fields[event["type"]]
        kinds.add(event["type"])
        if "seat" in event:
            assert 0 <= event["seat"] < players
        if event["type"] == "tile":
            if event["white"]:
                assert event["color"] == "white"
            else:
                assert event["color"] in colours and event["seat"] == colours.index(event["color"]) % players
        if event["type"] == "rotate":
            assert 1 <= event["steps"] <= 5
    assert {"turn", "tile", "board", "score"} <= kinds
    assert record["events"][0] == {"type": "turn", "turn": 0, "seat": 0, "color": colours[0]}
    checked = audit(record)
    assert checked["boards"] == record["boards"]
    assert checked["hexagons"] == sorted(((h["boards"], h["points"]) for h in record["endgame"]), key=str)
    assert checked["scores"] == record["scores"]
    assert checked["winners"] == record["winners"]
    colored = sum(not e["white"] for e in record["events"] if e["type"] == "tile")
    assert colored == params.colours * params.tiles or record["stalled"]
    assert kaleido.rules.replay(record) == record["scores"]


def test_narrate_tells_the_game_and_the_winners() -> None:
    record = kaleido.trace(Params(players=4), ["greedy", "random", "rotator", "hoarder"], 6)
    text = kaleido.rules.narrate(record)
    assert text.startswith("Kaleido, 4 players, seed 6")
    assert "Winner(s): " + ", ".join(f"seat {s}" for s in record["winners"]) in text
    assert "Scores: " + ", ".join(f"seat {s} {v}" for s, v in enumerate(record["scores"])) in text
    for event in record["events"]:
        if event["type"] == "board":
            assert f"seat {event['seat']} places board {event['board']} at ({event['q']}, {event['r']})" in text
    tiles = [e for e in record["events"] if e["type"] == "tile"]
    assert text.count(" puts a ") == len(tiles)
    for seat, strategy in enumerate(record["strategies"]):
        assert f"seat {seat} ({strategy}) plays" in text
    # Every turn is told, with what ends it early: a pass or a skip.
    turns = [e for e in record["events"] if e["type"] == "turn"]
    assert [line for line in text.splitlines() if line.startswith("Turn ")] == \
        [f"Turn {e['turn'] + 1}: seat {e['seat']} ({record['strategies'][e['seat']]}), {e['color']}" for e in turns]
    kinds = [e["type"] for e in record["events"]]
    assert text.count(" is out of tiles and passes") == kinds.count("pass")
    assert text.count(": the turn is skipped") == kinds.count("skip")


TURN_CASES = [*TRACE_CASES,  # (2, rotator and hoarder, 0) has no pass, skip or stall
              (3, ["hoarder"] * 3, 1),  # passes, a skip and a stall
              (3, ["rotator", "hoarder", "random"], 1), (5, ["greedy"] * 5, 1)]


@pytest.mark.parametrize(("players", "strategies", "seed"), TURN_CASES)
def test_trace_turn_events_are_where_the_engine_counts_them(players, strategies, seed) -> None:
    """Every turn of a trace starts with a `turn` event, and its passes, skips and stall are the ones the batched
    engine counts when it plays the same game (the same seed)."""
    params = Params(players=players)
    events = kaleido.trace(params, strategies, seed)["events"]
    table, decided = Table(kaleido.players, params, np.array([strategies]), None), set()

    def choose(decision, rng):
        decided.add(decision.observation.turn)  # the turns in which the engine asked the mover anything
        return table.choose(decision, rng)

    state = play(engine, params, deal(params, 1), choose, np.random.default_rng(seed))
    assert events[0]["type"] == "turn"
    turns = [e for e in events if e["type"] == "turn"]
    assert [(e["turn"], e["seat"]) for e in turns] == [(t, t % players) for t in range(state.turn)]
    # Each turn's events run from its `turn` event to the next one: a pass, skip or stall ends a turn at once.
    starts = [i for i, e in enumerate(events) if e["type"] == "turn"] + [len(events)]
    kinds = {t: [e["type"] for e in events[a + 1 : b]] for t, (a, b) in enumerate(itertools.pairwise(starts))}
    quiet = {t for t, inside in kinds.items() if inside and inside[0] in ("pass", "skip", "stall")}
    assert all(len(kinds[t]) == 1 for t in quiet)
    assert quiet == set(range(state.turn)) - decided  # the engine asked nothing in exactly those turns
    for seat in range(players):
        of_seat = [kinds[e["turn"]][0] for e in turns if e["seat"] == seat]
        assert of_seat.count("pass") == state.passes[0, seat]
        assert of_seat.count("skip") == state.skips[0, seat]
        assert len(of_seat) - of_seat.count("pass") - of_seat.count("skip") - of_seat.count("stall") == \
            state.turns_played[0, seat]
    stall = [e for e in events if e["type"] == "stall"]
    assert len(stall) == state.stalled[0]
    assert not stall or (events[-1] == stall[0] and stall[0]["seat"] == (state.turn - 1) % players)


def as_list(column) -> list:
    return column.to_list() if hasattr(column, "to_list") else np.asarray(column).tolist()


def same_state(a: engine.State, b: engine.State) -> bool:
    return all(np.array_equal(getattr(a, f), getattr(b, f)) if isinstance(getattr(a, f), np.ndarray)
               else getattr(a, f) == getattr(b, f) for f in engine.State.__dataclass_fields__)


@pytest.mark.parametrize("phase", ["forced", "before", "tile", "after", "rotate"])
def test_a_state_copied_mid_game_plays_on_to_the_same_game(phase: str) -> None:
    params = Params(players=3)
    lineups = np.random.default_rng(11).choice(sorted(STRATEGIES), size=(40, 3))
    played = play_batch("kaleido", params, deal(params, 40), lineups, np.random.default_rng(11))
    choices = [choice for _, _, choice in played.choices]
    # The same game once more from the start with the recorded choices, up to the batch's first `phase` after
    # the first third of its decisions.
    state = engine.init(params, deal(params, 40))
    at = 0
    while at < len(choices) // 3 or state.phase != phase:
        state = engine.step(params, state, choices[at])
        at += 1
    assert state.phase == phase and 0 < state.turn and not state.done.all()
    copied, kept = copy.deepcopy(state), copy.deepcopy(state)

    def finish(state: engine.State) -> engine.State:
        for choice in choices[at:]:
            assert not engine.terminal(params, state)
            state = engine.step(params, state, choice)
        assert engine.terminal(params, state)
        return state

    first, second = finish(state), finish(copied)
    assert same_state(state, kept) and same_state(copied, kept)  # step never changes its argument
    for end in (first, second):
        assert same_state(end, played.state)
        out = engine.outcome(params, end)
        for name in ("scores", "rank", "win"):
            assert np.array_equal(getattr(out, name), getattr(played.outcome, name)), name
        for name, column in out.columns.items():
            assert as_list(column) == as_list(played.outcome.columns[name]), name


# ---------------------------------------------------------------------------------------------- simulate


def test_simulate_returns_one_row_per_game_and_seat() -> None:
    params = Params(players=2)
    lineups = np.array([["greedy", "random"], ["majority", "rotator"], ["hoarder", "greedy"]] * 4)
    out = kaleido.simulate(params, lineups, np.arange(12), np.random.SeedSequence(1), np.random.SeedSequence(2))
    assert set(out) == {"game", "seat", "strategy", "score", "rank", "win", "midgame_points", "endgame_points",
                        "boards_placed", "whites_used", "turns", "stalled", "board_q", "board_r"}
    assert all(len(column) == 24 for column in out.values())
    assert out["game"].tolist() == [g for g in range(12) for _ in range(2)]
    assert out["seat"].tolist() == [0, 1] * 12
    assert out["strategy"].tolist() == lineups.ravel().tolist()
    assert np.array_equal(out["score"], out["midgame_points"] + out["endgame_points"])
    assert np.allclose(out["win"].reshape(12, 2).sum(axis=1), 1)
    stalled = out["stalled"].reshape(12, 2)[:, 0]
    assert ((out["turns"].reshape(12, 2) == 22) | stalled[:, None]).all()  # 11 tiles of each of two colours
    assert (out["turns"].reshape(12, 2)[stalled] < 22).any(axis=1).all()
    assert ((out["boards_placed"] >= 0) & (out["boards_placed"] <= 4)).all()
    assert ((out["whites_used"] >= 0) & (out["whites_used"] <= 4)).all()
    record = play_batch("kaleido", params, deal(params, 12), lineups, np.random.default_rng(np.random.SeedSequence(2)))
    assert np.array_equal(out["score"].reshape(12, 2), record.outcome.scores)
    assert np.array_equal(out["rank"].reshape(12, 2), record.outcome.rank)
    assert {name: out[name].dtype for name in kaleido.rules.columns if name not in ("board_q", "board_r")} == \
        {"midgame_points": np.int32, "endgame_points": np.int32, "boards_placed": np.int8, "whites_used": np.int8,
         "turns": np.int8, "stalled": np.bool_}
    assert out["board_q"].dtype == out["board_r"].dtype == kaleido.rules.columns["board_q"]
    # board_q, board_r: where each seat's boards went, in the order placed (board ids rise as boards go down).
    geo = engine.geometry(params)
    for row, (q_list, r_list) in enumerate(zip(out["board_q"].to_list(), out["board_r"].to_list())):
        g, seat = divmod(row, 2)
        mine = np.flatnonzero(record.state.placer[g] == seat)
        assert len(mine) == out["boards_placed"][row]
        assert list(zip(q_list, r_list)) == [tuple(geo.qr[record.state.cell[g, b]].tolist()) for b in mine]
    assert out["boards_placed"].sum() > 0


def test_points_beyond_int16_score_exactly_in_both_engines() -> None:
    """40,000 points for first place: a seat's total passes 32,767, where an int16 score would wrap negative."""
    params = kaleido.make_params(3, {"first": 40_000, "monochrome": 1_000_000})
    strategies = ["greedy", "majority", "rotator"]
    for seed in range(3):
        record = kaleido.trace(params, strategies, seed)
        assert audit(record)["scores"] == record["scores"]
        out = kaleido.simulate(params, np.array([strategies]), np.zeros(1, np.int64), np.random.SeedSequence(0),
                               np.random.SeedSequence(seed))
        assert out["score"].dtype == np.int32
        assert out["score"].tolist() == record["scores"]
        assert max(record["scores"]) > 32_767 and min(record["scores"]) >= 0
        assert out["rank"].tolist() == [1 + sum(o > s for o in record["scores"]) for s in record["scores"]]
        assert np.array_equal(out["score"], out["midgame_points"] + out["endgame_points"])


# ---------------------------------------------------------------------------------------------- strategies


def test_strategy_names() -> None:
    assert set(STRATEGIES) == set(kaleido.players.strategies) - set(LISTED) == {"random", "greedy", "majority",
                                                                                 "rotator", "hoarder"}
    assert kaleido.players.bench in STRATEGIES
    for name in STRATEGIES:
        kaleido.check_strategy(name)
        assert make_player(name, seat=0, params=Params(), games=slice(None), secret=None).name == name
    with pytest.raises(AtelierError, match="unknown Kaleido strategy 'psychic'; known: random, greedy"):
        kaleido.check_strategy("psychic")
    with pytest.raises(AtelierError, match="psychic"):
        play_batch("kaleido", Params(), deal(Params(), 2), np.array([["greedy", "psychic", "random"]] * 2),
                   np.random.default_rng(0))


class Crooked(Answering):
    """Plays the first legal option, except `bad(n)` for the phase it cheats in."""

    def __init__(self, name: str, idx, phase: str, bad):
        self.name, self.idx, self.phase, self.bad = name, idx, phase, bad  # idx: its games

    def answer(self, obs):
        legal = obs.legal[self.idx]
        return self.bad(len(legal)) if obs.phase == self.phase else legal.argmax(axis=1)


P3 = Params(players=3)
H3 = 6 * P3.boards
ILLEGAL = {
    # position (layout, supplies), phase, bad choice, what the error says
    "tile in an occupied hole": ([(0, 0, 0, "R....."), (1, 0, 0, "......")], {}, "tile", 0, "not allowed"),
    "white tile in the last hole before the tile": (
        [(0, 0, 0, "RRYYGG"), (1, 0, 0, "RYGRY.")], {}, "before", white(P3, 1, 5), "not allowed"),
    "board next to a board not on the table": ([(0, 0, 0, "......"), (1, 0, 0, "......")], {}, "before",
                                               next_to(P3, 2, 0), "not allowed"),
    "board on a spot offered by a lower board": ([(0, 0, 0, "......"), (1, 0, 0, "......")], {}, "before",
                                                 next_to(P3, 1, 4), "not allowed"),
    "board on a board": ([(0, 0, 0, "......"), (1, 0, 0, "......")], {}, "before", board_at(P3, 1, 0),
                         "not allowed"),
    "nothing when a board is forced": (FULL, {}, "forced", 0, "not allowed"),
    "white tile when forced": (FULL, {}, "forced", white(P3, 0, 0), "not allowed"),
    "white tile with none left": ([(0, 0, 0, "......"), (1, 0, 0, "......")], {"whites": [0, 2, 2]}, "before",
                                  white(P3, 0, 3), "not allowed"),
    "board with none left": ([(0, 0, 0, "......"), (1, 0, 0, "......")], {"stock": [0, 2, 2]}, "after",
                             board_at(P3, 2, 0), "not allowed"),
    "tile out of range": ([(0, 0, 0, "......"), (1, 0, 0, "......")], {}, "tile", H3, f"outside 0..{H3 - 1}"),
    "turn by 6": ([(0, 0, 0, "RRYYG."), (1, 0, 0, "......")], {}, "rotate", 6, "outside 0..5"),
    "float tile": ([(0, 0, 0, "......"), (1, 0, 0, "......")], {}, "tile", 1.0, "must be"),
}


def crooked_choice(value):
    def bad(n):
        return np.full(n, value)

    return bad


@pytest.mark.parametrize("case", list(ILLEGAL))
def test_illegal_choices_raise_illegal_move_naming_the_strategy(case: str) -> None:
    layout, supplies, phase, value, detail = ILLEGAL[case]
    crooked = Crooked("crooked", slice(None), phase, crooked_choice(value))
    kind = "extra" if phase in engine.EXTRA else phase  # the error names the decision's kind

    game = position(P3, layout, **supplies)
    state = replace(engine_state(P3, layout), **{k: np.array([v], np.int8) for k, v in supplies.items()})
    with pytest.raises(IllegalMove) as err:
        engine_turn(P3, state, crooked)
    assert err.value.strategy == "crooked" and detail in str(err.value)
    assert f"{kind} choice" in str(err.value)
    decider = Asker(reference.question, seated(P3, crooked).choose, np.random.default_rng(0))
    with pytest.raises(IllegalMove, match="strategy 'crooked'") as err:
        reference.play_turn(game, decider)
    assert detail in str(err.value) and f"{kind} choice" in str(err.value)


def test_the_reference_refuses_an_illegal_choice_from_an_unchecked_choose() -> None:
    def scripted(game, phase, options):  # a decider that never looks at its options
        return 0

    unchecked = Asker(reference.question, lambda decision, rng: np.zeros(1, np.intp), np.random.default_rng(0))
    for decider in (unchecked, scripted):  # strategies and scripts are checked at the same place
        game = position(P3, [(0, 0, 0, "R....."), (1, 0, 0, "......")])
        with pytest.raises(IllegalMove, match=r"strategy 'reference'.*tile choice 0 at turn 0 is not allowed"):
            reference.play_turn(game, decider)


def test_a_cheat_in_some_games_of_a_batch_is_caught_and_named() -> None:
    def factory(name, *, seat, params, games, secret):
        if name == "crooked":  # always hole 0: fine the first time at most, then taken
            return Crooked(name, games, "tile", crooked_choice(0))
        return make_player(name, seat=seat, params=params, games=games, secret=secret)

    lineups = np.array([["greedy", "crooked", "random"]] * 4 + [["greedy", "random", "majority"]] * 4)
    with pytest.raises(IllegalMove, match="strategy 'crooked'") as err:
        play_batch("kaleido", P3, deal(P3, 8), lineups, np.random.default_rng(0), factory)
    assert err.value.strategy == "crooked"


def lineups_with(hero: str, other: str, games: int, players: int) -> tuple[np.ndarray, np.ndarray]:
    seat = np.arange(games) % players  # the hero sits in every seat equally often
    lineups = np.full((games, players), other, dtype=object)
    lineups[np.arange(games), seat] = hero
    return lineups.astype(str), seat


@pytest.mark.parametrize(("players", "games"), [(2, 400), (3, 1500), (4, 600), (5, 600)])
def test_greedy_beats_random(players: int, games: int) -> None:
    # Greedy's edge is smallest with 3 players (about 0.13 of a win above 1/3), hence the larger sample there.
    params = Params(players=players)
    lineups, seat = lineups_with("greedy", "random", games, players)
    record = play_batch("kaleido", params, deal(params, games), lineups, np.random.default_rng(40 + players))
    share = record.outcome.win[np.arange(games), seat]
    # 4 standard errors above the fair share 1/P is far beyond chance.
    assert share.mean() - 4 * share.std(ddof=1) / np.sqrt(games) > 1 / players
    assert np.allclose(record.outcome.win.sum(axis=1), 1)


def test_rotator_turns_boards_to_its_endgame_advantage() -> None:
    games, players = 300, 3
    params = Params(players=players)
    lineups, seat = lineups_with("rotator", "greedy", games, players)
    record = play_batch("kaleido", params, deal(params, games), lineups, np.random.default_rng(8))
    endgame = record.state.endgame.astype(float)
    hero = endgame[np.arange(games), seat]
    others = (endgame.sum(axis=1) - hero) / (players - 1)
    gain = hero - others
    assert gain.mean() - 4 * gain.std(ddof=1) / np.sqrt(games) > 0
    # Greedy never turns a board; with greedy everywhere seats end up level on end-game points.
    level = play_batch("kaleido", params, deal(params, games), np.full((games, players), "greedy"),
                       np.random.default_rng(8))
    base = level.state.endgame.astype(float)
    gap = base[np.arange(games), seat] - (base.sum(axis=1) - base[np.arange(games), seat]) / (players - 1)
    assert gain.mean() - gap.mean() > 4 * np.sqrt(gain.var(ddof=1) / games + gap.var(ddof=1) / games)


# ------------------------------------------------------------- the engine against the reference, game by game
# The engine plays batches with mixed lineups; each game is replayed through the reference with the engine's
# choices (tests/playback.py, the replay tests/test_differential.py runs for every game: the same questions with
# exactly the engine's legal masks, the same standings). Here the game's own checks of each question: the
# reference's options decoded from the documented encodings (the engine's module docstring: hole h = 6 * board +
# slot; extra action 0 none, 1 + h a white tile in hole h, 1 + H + 6 b + k a board next to board b in direction k;
# a board's cell (q + R) * (2R + 1) + (r + R), R = params.boards + 1), the very State the strategies are shown; and
# at the end the table, supplies, points and the stalled flag.

ALL_STRATEGIES = np.array(sorted(STRATEGIES))


def decode_extra(game, code: int):
    """An engine extra-action code as a reference option, from the documented encoding alone: 1 + h a white
    tile in hole h, 1 + H + 6 b + k a board next to board b in direction k."""
    holes = 6 * game.params.boards
    if code == 0:
        return None
    if code <= holes:
        return ("white", *divmod(code - 1, 6))
    board, k = divmod(code - 1 - holes, 6)
    dq, dr = rules.DIRECTIONS[k].tolist()
    return ("board", game.boards[board].q + dq, game.boards[board].r + dr)


def one_game(params: rules.Params) -> rules.Deal:
    """The deal of one game for the reference (Kaleido deals nothing: every game starts alike)."""
    return rules.deal(params, np.random.default_rng(0), 1)


def decode_cell(params: rules.Params, cell: int) -> tuple[int, int]:
    radius = params.boards + 1
    q, r = divmod(int(cell), 2 * radius + 1)
    return q - radius, r - radius


def asked_of(decision):
    """What the replay's checks keep of each engine question: its turn, each game's mover's colour and board."""
    obs = decision.observation
    assert obs.legal is decision.legal and obs.asked is decision.asked and obs.seat == decision.seat
    assert decision.asked.any()  # a phase that asks no game is passed over
    assert decision.kind == ("extra" if obs.phase in engine.EXTRA else obs.phase)
    return obs.turn, obs.colour, obs.board.copy()


def options_watch(g: int, phases: list[str]):
    """A Replay's watch for game g: the question's moment, and the reference's options read in the encodings."""
    def watch(game: reference.Game, phase: str, options: list[int], ours, asked: playback.Asked) -> None:
        turn, colour, board = asked.kept
        assert (asked.phase, turn) == (phase, game.turn), g
        assert (colour[g], asked.seat) == (game.colour, game.seat), g
        phases.append(phase)
        if phase in engine.EXTRA:
            extras = reference.extra_options(game, phase)  # the reference's codes are theirs, in order
            assert len(set(options)) == len(options)
            assert [decode_extra(game, code) for code in options] == extras
            assert decode_extra(game, int(asked.choice[g])) in extras
        elif phase == "tile":
            assert {6 * b + s for b, s in game.empty_holes()} == set(options), (g, game.turn)
        else:
            assert set(options) == set(range(6))
            assert board[g] == game.asking

    return watch


def play_recorded(params: rules.Params, lineups: np.ndarray, seed: int):
    """The batch played by the engine, every question recorded (playback.Recorder); its final State."""
    recorder = playback.Recorder(Table(kaleido.players, params, lineups, None), asked_of)
    deal = rules.deal(params, np.random.default_rng(0), len(lineups))
    return play(engine, params, deal, recorder, np.random.default_rng(seed)), recorder


def check_game(params: rules.Params, state: engine.State, g: int, game: reference.Game) -> None:
    """Game g's end in the engine is the reference's: the table, every supply and tally, the passes and skips,
    the stalled flag and the points of each colour (its scores, ranks and win shares: playback.assert_standings)."""
    assert game.over
    placed = np.flatnonzero(state.cell[g] >= 0).tolist()
    assert placed == [b.id for b in game.boards] == list(range(len(game.boards))), g
    for b in game.boards:
        assert decode_cell(params, state.cell[g, b.id]) == (b.q, b.r), (g, b.id)
        assert state.rot[g, b.id] == b.rot, (g, b.id)
        assert state.slots[g, b.id].tolist() == [rules.EMPTY if s is None else s for s in b.slots], (g, b.id)
        assert state.scored[g, b.id] == b.scored == b.full, (g, b.id)
    placer = [-1, -1] + [e["seat"] for e in game.events if e["type"] == "board"]
    assert state.placer[g, : len(placer)].tolist() == placer, g
    unplaced = state.cell[g] < 0
    assert (state.placer[g, unplaced] == -1).all()
    assert (state.slots[g, unplaced] == rules.EMPTY).all() and (state.rot[g, unplaced] == 0).all()
    for name in ("tiles", "whites", "stock", "midgame", "endgame", "boards_placed", "whites_used", "turns_played"):
        assert getattr(state, name)[g].tolist() == getattr(game, name), (g, name)
    mine = reference.to_state(game)
    for name in ("passes", "skips"):
        assert getattr(state, name)[g].tolist() == getattr(mine, name)[0].tolist(), (g, name)
    assert state.stalled[g] == game.stalled, g
    assert (state.midgame[g] + state.endgame[g]).tolist() == game.result.colour_points, g


@pytest.mark.parametrize(("players", "games", "seed"), [(2, 160, 1), (3, 160, 2), (4, 160, 3), (5, 160, 4)])
def test_engine_agrees_with_reference_decision_by_decision(players: int, games: int, seed: int) -> None:
    params = rules.Params(players=players)
    lineups = np.random.default_rng(100 + seed).choice(ALL_STRATEGIES, size=(games, players))
    assert set(lineups.ravel()) == set(ALL_STRATEGIES)
    assert (lineups != lineups[:, :1]).any(axis=1).mean() > 0.8  # most games mix strategies
    state, recorder = play_recorded(params, lineups, seed)
    outcome, phases = engine.outcome(params, state), []
    turns = {"pass": 0, "skip": 0}
    for g in range(games):
        game = reference.new_game(params, one_game(params))
        replay = playback.Replay(reference.question, recorder.log, g, options_watch(g, phases))
        while not game.over:  # reference.play, counting the turns in which nobody is asked anything
            if game.tiles[game.colour] == 0:
                turns["pass"] += 1
            elif not game.empty_holes() and game.stock[game.seat] == 0:
                turns["skip"] += 1
            reference.play_turn(game, replay)
        reference.endgame_scoring(game)
        game.result = reference.final_result(game)
        assert replay.done(), (g, "the engine asked more than the reference")
        check_game(params, state, g, game)
        playback.assert_standings(kaleido.rules, outcome, g, reference.scores(game))
    # The replays went through every kind of decision, white tiles and boards both before and after the tile.
    assert set(phases) == {"forced", "before", "tile", "after", "rotate"}
    holes = 6 * params.boards
    taken = {(phase, kind): 0 for phase in ("before", "after") for kind in ("white", "board")}
    for asked in recorder.log:
        if asked.phase in ("before", "after"):
            choice = asked.choice
            taken[asked.phase, "white"] += int(((choice >= 1) & (choice <= holes) & asked.asked).sum())
            taken[asked.phase, "board"] += int(((choice > holes) & asked.asked).sum())
    assert min(taken.values()) > 0, taken
    assert min(turns.values()) > 0 and state.stalled.any(), turns
    # The engine counts the same passes and skips (the turn in which a game stalls is counted as neither).
    assert (state.passes.sum(), state.skips.sum() + state.stalled.sum()) == (turns["pass"], turns["skip"])
    assert state.endgame.sum() > 0 and state.midgame.sum() > 0


def test_stalled_games_agree_with_reference() -> None:
    """Hoarders in a 3-player game often fill every hole with nobody holding tiles and a board."""
    params = rules.Params(players=3)
    rng = np.random.default_rng(9)
    lineups = np.where(rng.random((60, 3)) < 0.8, "hoarder", rng.choice(ALL_STRATEGIES, size=(60, 3)))

    def check(state, outcome, g, game):
        check_game(params, state, g, game)
        if game.stalled:
            assert not game.empty_holes()
            assert sum(game.tiles) > 0
            assert all(game.stock[params.owner(c)] == 0 for c, t in enumerate(game.tiles) if t > 0)

    deal = rules.deal(params, np.random.default_rng(0), len(lineups))
    state, _ = playback.against_reference("kaleido", params, deal, lineups, np.random.default_rng(9), check,
                                          keep=asked_of, watch=lambda g: options_watch(g, []))
    assert 5 <= state.stalled.sum() < 60


def test_hexagon_needs_full_boards_agrees_with_reference_and_changes_results() -> None:
    """The same batch under both readings of a hexagon beside an empty hole (the strategies do not read the
    switch, so the tables end alike), replayed decision by decision through the reference under each: only
    end-game points differ, never upwards, and in some games the winner changes."""
    lineups = np.random.default_rng(17).choice(ALL_STRATEGIES, size=(150, 4))
    ends = {}
    for needs_full in (False, True):
        params = rules.Params(players=4, hexagon_needs_full_boards=needs_full)
        deal = rules.deal(params, np.random.default_rng(0), len(lineups))
        state, _ = playback.against_reference(
            "kaleido", params, deal, lineups, np.random.default_rng(17),
            lambda state, outcome, g, game, params=params: check_game(params, state, g, game),
            keep=asked_of, watch=lambda g: options_watch(g, []))
        ends[needs_full] = state, engine.outcome(params, state)
    (default, plain), (switched, strict) = ends[False], ends[True]
    assert np.array_equal(default.slots, switched.slots)
    assert np.array_equal(default.midgame, switched.midgame)
    assert (switched.endgame <= default.endgame).all()
    assert (switched.endgame < default.endgame).any(axis=1).mean() > 0.1
    assert (strict.win != plain.win).any(axis=1).sum() > 0


TRACE_CASES = [(2, ["rotator", "random"], 0), (3, ["greedy", "majority", "hoarder"], 1),
               (5, ["greedy"] * 5, 4), (3, ["hoarder"] * 3, 5)]


@pytest.mark.parametrize(("players", "strategies", "seed"), TRACE_CASES)
def test_trace_is_the_game_the_engine_plays_with_the_same_seed(players, strategies, seed) -> None:
    params = rules.Params(players=players)
    record = kaleido.trace(params, strategies, seed)
    played = play_batch("kaleido", params, rules.deal(params, np.random.default_rng(0), 1), np.array([strategies]),
                        np.random.default_rng(seed))
    state = played.state
    assert record["scores"] == played.outcome.scores[0].tolist()
    assert record["winners"] == np.flatnonzero(played.outcome.win[0] > 0).tolist()
    assert kaleido.rules.replay(record) == record["scores"]
    assert record["stalled"] == bool(state.stalled[0])
    assert len(record["boards"]) == int(state.placed[0].sum())
    for board in record["boards"]:
        b = board["id"]
        assert decode_cell(params, state.cell[0, b]) == (board["q"], board["r"])
        assert board["rot"] == state.rot[0, b]
        names = [None if s == rules.EMPTY else "white" if s == rules.WHITE else rules.COLORS[s]
                 for s in state.slots[0, b]]
        assert board["slots"] == names
    midgame = dict.fromkeys(rules.COLORS[: params.colours], 0)
    for event in record["events"]:
        if event["type"] == "score":
            for colour, points in event["points"].items():
                midgame[colour] += points
    assert list(midgame.values()) == state.midgame[0].tolist()
    endgame = dict.fromkeys(rules.COLORS[: params.colours], 0)
    for hexagon in record["endgame"]:
        for colour, points in hexagon["points"].items():
            endgame[colour] += points
    assert list(endgame.values()) == state.endgame[0].tolist()


def shown_watch(g: int):
    """A Replay's watch for game g: the reference shows the strategies the very State and observation the engine
    showed them at this question."""
    def watch(game: reference.Game, phase: str, options: list[int], ours, asked: playback.Asked) -> None:
        state, engine_obs = asked.kept
        theirs, mine = games_of(state, [g]), reference.to_state(game, phase)
        for name in engine.State.__dataclass_fields__:
            same = np.array_equal if isinstance(getattr(mine, name), np.ndarray) else lambda a, b: a == b
            assert same(getattr(mine, name), getattr(theirs, name)), (g, state.turn, phase, name)
        obs = ours.observation
        assert (obs.phase, obs.seat, obs.turn) == (engine_obs.phase, engine_obs.seat, engine_obs.turn)
        assert (obs.colour[0], obs.board[0]) == (engine_obs.colour[g], engine_obs.board[g])

    return watch


@pytest.mark.parametrize("players", rules.PLAYER_COUNTS)
def test_the_reference_shows_the_strategies_the_engines_state(players: int) -> None:
    params = rules.Params(players=players)
    lineups = np.random.default_rng(players).choice(ALL_STRATEGIES, size=(12, players))

    def same_end(final, outcome, g, game):
        theirs, mine = games_of(final, [g]), reference.to_state(game)
        for name in ("slots", "rot", "midgame", "endgame", "passes", "skips", "stalled", "done", "turn_kind"):
            assert np.array_equal(getattr(mine, name), getattr(theirs, name)), (g, name)

    deal = rules.deal(params, np.random.default_rng(0), len(lineups))
    playback.against_reference("kaleido", params, deal, lineups, np.random.default_rng(players), same_end,
                               keep=lambda decision: (decision.observation.state, decision.observation),
                               watch=shown_watch)
