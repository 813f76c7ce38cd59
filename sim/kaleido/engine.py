"""Kaleido, batched and steppable (the contract in sim/game.py): B games advance in lockstep, one decision at a
time, with no Python loop over the batch. The scalar, rule-by-rule twin is reference.py.

A turn (rulebook, Turn Sequence) runs through these phases; `State.phase` says which one the batch is in:
- "forced": every hole is full at the start of the turn, so the mover must place a board before the tile
  (Details of a Turn, 2, Note);
- "before": the additional action just before the tile: a white tile or a board, or none;
- "tile": placing a tile (necessary);
- "after": the additional action just after the tile, for movers who took none before it;
- "rotate": after scoring, the right to turn each board scored this turn, one board at a time, lowest id
  first, while any remain.
The extra action's three phases are decisions of kind "extra"; "tile" and "rotate" are their own kinds.
A phase that asks no game of the batch is passed over. Between phases `step` does what needs no decision: it
starts each turn (who moves, which colour, and whether the mover plays, passes, is skipped or the game has
stalled), scores the boards filled this turn, ends the turn, and once every game has ended scores the
end-game hexagons; the State is then in phase "over". Games that have ended, or whose mover passes or is
skipped, are asked nothing. In the 2-player variant the colour a player places alternates with their own
tiles, so it can differ between games.

Encodings: a hole is h = 6 * board + local slot; a honeycomb cell is c = (q + R) * (2R + 1) + (r + R)
for axial (q, r) with R = params.boards + 1. An extra action is 0 (none), 1 + h (a white tile in hole h)
or 1 + H + 6 b + k (a board on the empty cell next to board b in direction k), with H = 6 * params.boards holes.
Several boards may touch the same empty cell: it is offered once, by the lowest b and then the lowest k that
reach it, so that each distinct placement is one legal option.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import polars as pl

from sim.game import Decision, Outcome, evolve, ragged_column
from sim.kaleido import fast, playout
from sim.kaleido.rules import DIRECTIONS, EMPTY, STARTING_BOARDS, WHITE, Deal, Params
from sim.scoring import standings

NONE = 0  # the extra action "none"
EXTRA = ("forced", "before", "after")  # the phases of the additional action, decisions of kind "extra"
# The phases of a turn in order, with the boundaries where nothing is asked: "start" (who moves, and what the
# turn is in each game), "score" (boards just filled) and "end" (the turn is counted; games end).
CYCLE = ("start", "forced", "before", "tile", "after", "score", "rotate", "end")
# What the current turn is in each game (State.turn_kind): the mover plays; passes, out of tiles; is skipped,
# every hole full and no board left; or the game stalls there (see _start_turn); or the game has ended.
PLAYS, PASSES, SKIPPED, STALLS, OVER = range(5)
PHASE_CODES = {"forced": 0, "before": 1, "tile": 2, "after": 3, "rotate": 4}  # the phases that ask, for fast.asked
# the compiled playout numbers the phases as these do
assert [CYCLE.index(phase) for phase in ("start", "forced", "before", "tile", "after", "score", "rotate", "end")] == [
    playout.START, playout.FORCED, playout.BEFORE, playout.TILE, playout.AFTER, playout.SCORE, playout.ROTATE,
    playout.END]
assert all(playout.ASKING[CYCLE.index(phase)] == code for phase, code in PHASE_CODES.items())
assert OVER == playout.OVER


@dataclass(frozen=True)
class Geometry:
    """Sizes and lookup tables for one Params."""

    boards: int  # NB: boards that can be in play
    radius: int  # R: the honeycomb window spans axial -R..R
    side: int  # 2R + 1
    holes: int  # H = 6 NB
    cells: int  # side ** 2
    step: np.ndarray  # (6,) cell index offset of each direction
    qr: np.ndarray  # (cells, 2) axial coordinates of each cell

    def cell(self, q, r):
        return (np.asarray(q) + self.radius) * self.side + np.asarray(r) + self.radius


@lru_cache(maxsize=32)
def geometry(params: Params) -> Geometry:
    radius = params.boards + 1
    side = 2 * radius + 1
    qr = np.stack(np.divmod(np.arange(side * side), side), axis=1) - radius
    geo = Geometry(params.boards, radius, side, 6 * params.boards, side * side,
                   DIRECTIONS[:, 0].astype(np.int64) * side + DIRECTIONS[:, 1], qr.astype(np.int16))
    geo.step.flags.writeable = geo.qr.flags.writeable = False  # shared by every caller
    return geo


@dataclass(frozen=True)
class State:
    """B games: the table and supplies, then the turn in progress. `step` returns a new State and never changes
    its argument, so a State can be kept and continued from."""

    slots: np.ndarray  # (B, NB, 6) int8: tile in each local slot: colour 0-4, WHITE, or EMPTY
    cell: np.ndarray  # (B, NB) int16: honeycomb cell of each board, -1 while still in a stock
    placer: np.ndarray  # (B, NB) int8: seat that placed each board, -1 for the starting boards
    rot: np.ndarray  # (B, NB) int8: local slot s sits at physical triangle (s + rot) % 6
    scored: np.ndarray  # (B, NB) bool
    tiles: np.ndarray  # (B, colours) int8: coloured tiles left
    whites: np.ndarray  # (B, P) int8
    stock: np.ndarray  # (B, P) int8: boards left
    midgame: np.ndarray  # (B, colours) int32: points from boards scored during play
    endgame: np.ndarray  # (B, colours) int32: points from end-game hexagons
    whites_used: np.ndarray  # (B, P) int16
    turns_played: np.ndarray  # (B, P) int16: turns in which the player placed a tile
    passes: np.ndarray  # (B, P) int16: turns in which the player passed, out of tiles
    skips: np.ndarray  # (B, P) int16: turns in which the player was skipped, every hole full and no board left
    done: np.ndarray  # (B,) bool
    stalled: np.ndarray  # (B,) bool: ended because nobody with tiles could ever open a hole again
    turn_kind: np.ndarray  # (B,) int8: what this turn is in each game: PLAYS, PASSES, SKIPPED, STALLS or OVER
    extra_taken: np.ndarray  # (B,) bool: the mover has taken this turn's additional action
    pending: np.ndarray  # (B, NB) bool: boards scored this turn that the mover has yet to be offered to turn
    asked: np.ndarray  # (B,) bool: the games the current phase asks (see asked_in)
    # Kept up to date from the table above, to spare every decision from recounting it:
    empty: np.ndarray  # (B,) int16: empty holes on the table
    filling: np.ndarray  # (B,) bool: a board on the table is full and waits to be scored
    offers: np.ndarray  # (B, H) bool: the free cells next to the table as board options 6 b + k (fast.board_offers)
    phase: str = "start"  # where the batch is in the turn (CYCLE); "over" once every game has been scored
    turn: int = 0  # turns so far (passes and skips included), the same in every game

    @property
    def boards_placed(self) -> np.ndarray:
        """(B, P) boards each seat has placed."""
        return (self.placer[:, None, :] == np.arange(self.whites.shape[1])[None, :, None]).sum(axis=2)

    @property
    def grid(self) -> np.ndarray:
        """(B, cells) int8: the board on each honeycomb cell, -1 none."""
        batch, nb = self.cell.shape
        grid = np.full((batch, (2 * nb + 3) ** 2), -1, np.int8)  # side = 2R + 1 with R = NB + 1
        games, boards = np.nonzero(self.placed)
        grid[games, self.cell[games, boards]] = boards
        return grid

    @property
    def placed(self) -> np.ndarray:
        return self.cell >= 0

    @property
    def boards_on_table(self) -> np.ndarray:
        return self.placed.sum(axis=1)


@dataclass
class Observation:
    """The whole table (Kaleido hides nothing) and the decision asked for. `phase` is "before",
    "forced" (every hole is full: a board first), "tile", "after" or "rotate" (`board` is the one that may be
    turned, -1 in games not asked). `asked` marks the games whose answer counts."""

    phase: str
    colour: np.ndarray  # (B,) the colour the mover places this turn
    seat: int
    turn: int
    state: State
    geo: Geometry
    legal: np.ndarray
    asked: np.ndarray
    board: np.ndarray


def init(params: Params, deal: Deal) -> State:
    """Set-up: two starting boards side by side; each player's tiles, white tiles and boards. Returns the batch
    at its first decision."""
    batch = len(deal.game)
    geo = geometry(params)
    players, colours, nb = params.players, params.colours, params.boards
    cell = np.full((batch, nb), -1, np.int16)
    for board, (q, r) in enumerate(STARTING_BOARDS):
        cell[:, board] = geo.cell(q, r)
    zeros = np.zeros((batch, players), np.int16)
    state = State(
        slots=np.full((batch, nb, 6), EMPTY, np.int8), cell=cell, placer=np.full((batch, nb), -1, np.int8),
        rot=np.zeros((batch, nb), np.int8), scored=np.zeros((batch, nb), bool),
        tiles=np.full((batch, colours), params.tiles, np.int8),
        whites=np.full((batch, players), params.whites_each, np.int8),
        stock=np.full((batch, players), params.boards_each, np.int8),
        midgame=np.zeros((batch, colours), np.int32), endgame=np.zeros((batch, colours), np.int32),
        whites_used=zeros, turns_played=zeros.copy(), passes=zeros.copy(), skips=zeros.copy(),
        done=np.zeros(batch, bool), stalled=np.zeros(batch, bool),
        turn_kind=np.full(batch, PLAYS, np.int8), extra_taken=np.zeros(batch, bool),
        pending=np.zeros((batch, nb), bool), asked=np.zeros(batch, bool),
        empty=np.zeros(batch, np.int16), filling=np.zeros(batch, bool), offers=np.zeros((batch, geo.holes), bool),
    )
    return begin_turn(params, state)


def begin_turn(params: Params, state: State) -> State:
    """The batch at the first decision of turn `state.turn` on the table it holds (also for tables set up by
    hand): the turn starts afresh, and turns that ask nothing are played out on the way."""
    if terminal(params, state):
        raise ValueError("the batch has ended and its end-game hexagons are scored")
    return _advance(params, evolve(state, **counted(params, state), phase="end"), "end")


def counted(params: Params, state: State) -> dict[str, np.ndarray]:
    """The State's running counts (empty, filling, offers), counted afresh from its table."""
    geo = geometry(params)
    return {"empty": fast.open_holes(state.slots, state.cell).astype(np.int16),
            "filling": fast.filling(state.slots, state.cell, state.scored),
            "offers": fast.board_offers(state.cell, geo.cells, geo.step)}


def decision(params: Params, state: State) -> Decision:
    """The decision the batch faces now: its phase's legal mask for the games the phase asks (asked_in)."""
    seat = state.turn % params.players
    obs = observe(params, state, seat)
    kind = "extra" if state.phase in EXTRA else state.phase
    return Decision(kind, seat, obs.legal, obs.asked, obs, f"({state.phase}) at turn {state.turn}")


def observe(params: Params, state: State, seat: int) -> Observation:
    """What every seat sees, `seat` included: Kaleido hides nothing (the rulebook has no hidden component), so
    each seat observes the whole table and the decision the mover faces."""
    geo = geometry(params)
    mover = state.turn % params.players
    phase, asked = state.phase, state.asked
    board = np.full(len(asked), -1)
    if phase in EXTRA:
        legal = extra_mask(params, state, geo, mover, asked, boards_only=phase == "forced",
                           before_tile=phase == "before")
    elif phase == "tile":
        legal = fast.tile_mask(state.slots, state.cell, asked)  # compiled: empty holes, all where not asked
    elif phase == "rotate":
        legal = np.ones((len(asked), 6), bool)  # 0 to 5 steps; 0 leaves the board as it is
        board = np.where(asked, state.pending.argmax(axis=1), -1)
    else:
        raise ValueError(f"no decision in phase '{phase}'")
    return Observation(phase, colour_to_play(params, state, mover), mover, state.turn, state, geo, legal, asked, board)


def determinize(params: Params, state: State, seat: int, rng: np.random.Generator) -> State:
    """The State itself: nothing in Kaleido is hidden, so the only world a seat cannot tell from the true one is
    the true one."""
    return state


def asked_in(params: Params, state: State, phase: str) -> np.ndarray:
    """(B,) the games a phase asks: movers who play this turn; for the extra action before or after the tile
    only those who have not taken it yet, and "forced" only where every hole is full; for "rotate" the games
    with a board still to be offered."""
    if phase not in PHASE_CODES:
        return np.zeros(len(state.done), bool)
    return fast.asked(PHASE_CODES[phase], state.turn_kind, state.extra_taken, state.empty, state.pending)


def step(params: Params, state: State, choice: np.ndarray) -> State:
    """Apply the batch's choices for the decision it faces (used where it asks), then advance to the next
    decision."""
    seat = state.turn % params.players
    phase, asked = state.phase, state.asked
    choice = np.where(asked, np.asarray(choice), 0)
    if phase == "tile":  # Placing a tile: one of the mover's colour in an empty hole
        slots, tiles, empty, filling = state.slots.copy(), state.tiles.copy(), state.empty.copy(), state.filling.copy()
        fast.place_tiles(slots, tiles, empty, filling, choice, colour_to_play(params, state, seat), asked)
        return _advance(params, evolve(state, slots=slots, tiles=tiles, empty=empty, filling=filling), phase)
    if phase == "rotate":  # Rotating a game board: turn the board on offer by `choice` steps
        rot, pending = state.rot.copy(), state.pending.copy()
        fast.rotate_offered(rot, pending, asked, choice)
        return _advance(params, evolve(state, rot=rot, pending=pending), "score")  # the next board, if any
    if phase not in EXTRA:
        raise ValueError(f"no decision in phase '{phase}'")
    state = apply_extra(state, geometry(params), seat, choice)  # Additional action (NONE where not asked)
    return _advance(params, evolve(state, extra_taken=state.extra_taken | (asked & (choice != NONE))), phase)


def random_playout(params: Params, state: State, rng: np.random.Generator) -> State:
    """Every game played to its end with uniformly random legal answers, the `random` player's (an extra action
    half the time, always when forced): the State, and the rng's, that stepping the batch with `random` at every
    seat ends in, in one compiled loop (sim/kaleido/playout.py), rotations included."""
    return _played_out(params, state, rng, greedy=False)


def greedy_playout(params: Params, state: State, rng: np.random.Generator) -> State:
    """Every game played to its end by the `greedy` player at every seat (strategies/kaleido.Player), in the same
    compiled loop: the State, and the rng's, that stepping the batch with it ends in."""
    return _played_out(params, state, rng, greedy=True)


def _played_out(params: Params, state: State, rng: np.random.Generator, greedy: bool) -> State:
    if terminal(params, state):
        return state
    geo = geometry(params)
    changed = {name: getattr(state, name).copy() for name in PLAYED}
    owner = colour_owners(params)
    turn = playout.play_out(*changed.values(), owner, params.two_colour, fast.scoring(params), geo.cells, geo.step,
                            state.turn, CYCLE.index(state.phase), longest_game(params), greedy, rng)
    return evolve(state, **changed, phase="over", turn=int(turn))


PLAYED = ("slots", "cell", "placer", "rot", "scored", "tiles", "whites", "stock", "midgame", "endgame", "whites_used",
          "turns_played", "passes", "skips", "done", "stalled", "turn_kind", "extra_taken", "pending", "asked", "empty",
          "filling", "offers")  # the State's arrays a playout changes, in its kernel's order


def terminal(params: Params, state: State) -> bool:
    """Every game of the batch has ended and been scored."""
    return state.phase == "over"


def outcome(params: Params, state: State) -> Outcome:
    """The most points wins; tied players share the victory (End-game Scoring). In the 2-player variant a
    player adds up the points of both colours. Own columns, by seat: points from boards and from hexagons,
    boards placed, white tiles used, turns with a tile, whether the game stalled, and where the seat's boards
    went."""
    owner = colour_owners(params)

    def by_seat(per_colour):
        return np.stack([per_colour[:, owner == s].sum(axis=1) for s in range(params.players)], axis=1)

    scores = by_seat(state.midgame + state.endgame)
    rank, win = standings(scores, lower_wins=False)
    columns = {
        "midgame_points": by_seat(state.midgame).astype(np.int32),
        "endgame_points": by_seat(state.endgame).astype(np.int32),
        "boards_placed": state.boards_placed.astype(np.int8),
        "whites_used": state.whites_used.astype(np.int8),
        "turns": state.turns_played.astype(np.int8),
        "stalled": state.stalled,
        **board_positions(params, state),
    }
    return Outcome(scores, rank, win, columns)


def board_positions(params: Params, state: State) -> dict[str, pl.Series]:
    """`board_q`, `board_r`: list columns (B * P rows, game-major) with the axial position of every board the
    seat placed, in the order placed (board ids are handed out in that order)."""
    geo = geometry(params)
    batch, players = state.whites.shape
    games, boards = np.nonzero(state.placer >= 0)  # row-major: game by game, boards in id order
    row = games * players + state.placer[games, boards]
    order = np.argsort(row, kind="stable")  # each (game, seat) row's boards, still in id order
    offsets = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=batch * players))]).astype(np.int32)
    at = geo.qr[state.cell[games, boards][order]].astype(np.int8)
    return {name: ragged_column(name, offsets, at[:, axis]) for axis, name in enumerate(("board_q", "board_r"))}


def _advance(params: Params, state: State, last: str) -> State:
    """The batch at its next decision after phase `last`. Phases that ask no game are passed over, and the
    boundaries are carried out on the way: "start" begins a turn (or, once every game has ended, scores the
    end-game hexagons: phase "over"), "score" scores the boards just filled, "end" ends the turn."""
    at = CYCLE.index(last)
    while True:
        at = (at + 1) % len(CYCLE)
        phase = CYCLE[at]
        if phase == "start":
            if state.done.all():
                over = np.full(len(state.done), OVER, np.int8)
                return evolve(endgame_scoring(params, state, geometry(params)), phase="over", turn_kind=over,
                               asked=np.zeros(len(state.done), bool))
            state = _start_turn(params, state)
        elif phase == "score":
            state = score_boards(params, state)
        elif phase == "end":
            state = _end_turn(params, state)
        else:
            asked = asked_in(params, state, phase)
            if asked.any():
                return evolve(state, phase=phase, asked=asked)


def _start_turn(params: Params, state: State) -> State:
    """Each game's turn: the mover plays, or passes when out of tiles ("a player who has run out of tiles must
    pass their turn"), or is skipped when every hole is full and they have no board ("the player's turn will
    be skipped"), or the game stalls there: every player who still has coloured tiles has no board left
    either, so no turn can ever open a hole again and the game cannot go on."""
    if state.turn > longest_game(params):
        raise RuntimeError("Kaleido engine: games neither progress nor stall")
    seat = state.turn % params.players
    owner = colour_owners(params)
    kind = fast.start_turn(state.tiles, state.stock, state.empty, state.done,
                           colour_to_play(params, state, seat), seat, owner)  # compiled
    return evolve(state, turn_kind=kind, extra_taken=np.zeros(len(kind), bool))


def colour_owners(params: Params) -> np.ndarray:
    """(colours,) the seat playing each colour."""
    return np.array([params.owner(c) for c in range(params.colours)])


def longest_game(params: Params) -> int:
    """The most turns a game can take: a tile per round of turns, or a stall."""
    return (params.colours * params.tiles + 1) * params.players


def _end_turn(params: Params, state: State) -> State:
    """Count the turn; a game ends when every coloured tile is placed (End of Game), or when it stalls."""
    played, passes, skips = state.turns_played.copy(), state.passes.copy(), state.skips.copy()
    done, stalled = state.done.copy(), state.stalled.copy()
    fast.end_turn(state.turn_kind, state.tiles, played, passes, skips, done, stalled, state.turn % params.players)
    return evolve(state, turns_played=played, passes=passes, skips=skips, done=done, stalled=stalled,
                   turn=state.turn + 1)


def empty_holes(state: State) -> np.ndarray:
    """(B, H) bool: holes of boards on the table with no tile."""
    return fast.tile_mask(state.slots, state.cell, np.ones(len(state.slots), bool))  # compiled


def board_spots(state: State, geo: Geometry) -> np.ndarray:
    """(B, cells) bool: empty cells sharing at least one side with a board on the table."""
    occupied = state.grid >= 0
    near = np.zeros_like(occupied)
    for step in geo.step:
        near |= np.roll(occupied, -step, axis=1)  # a neighbour one step away in this direction
    return near & ~occupied


def extra_mask(params, state, geo, seat, asked, boards_only=False, before_tile=False) -> np.ndarray:
    """(B, 1 + 2H): none, a white tile in an empty hole, or a board on a free spot. Before the tile, a white
    tile may not take the last empty hole: the tile must still have one."""
    return fast.extra_mask(state.slots, state.cell, state.empty, state.offers, state.whites, state.stock, asked, seat,
                           boards_only, before_tile)  # compiled


def extra_mask_numpy(params, state, geo, seat, asked, boards_only=False, before_tile=False) -> np.ndarray:
    """The numpy twin of extra_mask, kept for the tests."""
    holes = empty_holes(state)
    room = holes.sum(axis=1) >= (2 if before_tile else 1)
    can_white = asked & (state.whites[:, seat] > 0) & room & (not boards_only)
    can_board = asked & (state.stock[:, seat] > 0)
    none = np.broadcast_to(np.array([not boards_only]), (len(asked), 1)) | ~asked[:, None]
    return np.concatenate([none, holes & can_white[:, None], first_reach(state, geo) & can_board[:, None]], axis=1)


def first_reach(state: State, geo: Geometry) -> np.ndarray:
    """(B, H) bool: for each board b on the table and direction k (column 6 b + k), whether the cell next to it
    is a free spot (board_spots) that no lower (b, k) reaches."""
    batch = len(state.cell)
    reach = np.where(state.placed[..., None], state.cell[..., None] + geo.step, 0).reshape(batch, -1)
    free = state.placed.repeat(6, axis=1) & np.take_along_axis(board_spots(state, geo), reach, axis=1)
    order = np.arange(reach.shape[1])
    earlier = (reach[:, :, None] == reach[:, None, :]) & free[:, None, :] & (order[None, :] < order[:, None])
    return free & ~earlier.any(axis=2)


def apply_extra(state: State, geo: Geometry, seat: int, choice: np.ndarray) -> State:
    """Carry out extra actions: a white tile from the seat's supply, or a board from its stock. Copies only
    what the batch's choices change."""
    white = (choice >= 1) & (choice <= geo.holes)
    board = choice > geo.holes
    changed = {}
    if white.any():
        changed.update(slots=state.slots.copy(), whites=state.whites.copy(), whites_used=state.whites_used.copy())
    if board.any():
        changed.update(cell=state.cell.copy(), placer=state.placer.copy(), stock=state.stock.copy(),
                       offers=state.offers.copy())
    if not changed:
        return state
    state = evolve(state, empty=state.empty.copy(), filling=state.filling.copy(), **changed)
    fast.apply_extra(choice, seat, state.slots, state.cell, state.placer, state.whites, state.stock,
                     state.whites_used, state.empty, state.filling, state.offers, geo.cells, geo.step)  # in place
    return state


def colour_counts(tiles: np.ndarray, colours: int) -> np.ndarray:
    """Coloured tiles of each colour among the last axis of `tiles` (white and empty count for nothing):
    (..., k) -> (..., colours)."""
    one_hot = np.zeros((WHITE + 2, colours), np.int8)  # row tile + 1: EMPTY (row 0) and WHITE stay zero
    one_hot[1 + np.arange(colours), np.arange(colours)] = 1
    counts = one_hot[tiles[..., 0] + 1].copy()
    for i in range(1, tiles.shape[-1]):
        counts += one_hot[tiles[..., i] + 1]
    return counts


def score_boards(params: Params, state: State) -> State:
    """Scoring: every board just filled (all six holes occupied) scores by the majority rule. They become the
    boards the mover may turn (Rotating a game board)."""
    midgame = state.midgame.copy()
    full = fast.score_boards(state.slots, state.cell, state.scored, state.filling, midgame, params.colours,
                             fast.scoring(params))
    return evolve(state, midgame=midgame, scored=state.scored | full, pending=full,
                  filling=np.zeros_like(state.filling))


def triangles(state: State) -> np.ndarray:
    """(B, NB, 6): the tile at each board's physical triangle k: slot (k - rot) % 6."""
    k = (np.arange(6)[None, None, :] - state.rot[..., None]) % 6
    return np.take_along_axis(state.slots, k, axis=2)


def hexagons(state: State, geo: Geometry) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every corner where three boards meet, seen from its lowest-numbered board X with neighbours Y in
    direction k and Z in direction k + 1. Returns Y and Z ids (B, NB, 6), -1 where there is none, and the
    six tiles of each hexagon (B, NB, 6, 6), in the order X[k], X[k+1], Y[k+2], Y[k+3], Z[k+4], Z[k+5]."""
    batch, nb = state.cell.shape
    games = np.arange(batch)[:, None, None]
    at = np.where(state.placed[..., None], state.cell[..., None] + geo.step, 0)  # (B, NB, 6) neighbour cells
    neighbour = np.where(state.placed[..., None], state.grid[games, at], -1)
    y, z = neighbour, np.roll(neighbour, -1, axis=2)
    me = np.arange(nb)[None, :, None]
    corner = (y >= 0) & (z >= 0) & (me < y) & (me < z)
    tri = triangles(state)
    k = np.arange(6)
    tiles = np.stack([tri[:, :, k], tri[:, :, (k + 1) % 6],
                      tri[games, np.maximum(y, 0), (k + 2) % 6], tri[games, np.maximum(y, 0), (k + 3) % 6],
                      tri[games, np.maximum(z, 0), (k + 4) % 6], tri[games, np.maximum(z, 0), (k + 5) % 6]], axis=3)
    return np.where(corner, y, -1), np.where(corner, z, -1), tiles


def endgame_scoring(params: Params, state: State, geo: Geometry) -> State:
    """End-game scoring: each hexagon of three mutually adjacent boards with all six triangles occupied (the
    corners that `hexagons` finds), and its three boards full under `hexagon_needs_full_boards`."""
    endgame = state.endgame.copy()
    fast.endgame_scoring(state.slots, state.rot, state.cell, geo.cells, geo.step, endgame, fast.scoring(params))
    return evolve(state, endgame=endgame)


def colour_to_play(params: Params, state: State, seat: int) -> np.ndarray:
    """(B,) the colour `seat` places now. In the 2-player variant a player "cannot put 2 tiles of the same
    color successively": their colours alternate with the tiles they place, so a skipped turn changes
    nothing."""
    return fast.colours_to_play(state.turns_played, seat, params.players, params.two_colour)  # compiled
