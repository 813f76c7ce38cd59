"""Kaleido, batched: B games advance in lockstep, one turn at a time, with no Python loop over the batch.
Games that have ended, or whose player to move is out of tiles, simply pass. In the 2-player variant the
colour a player places alternates with their own tiles, so it can differ between games. The scalar,
rule-by-rule twin is reference.py.

Encodings: a hole is h = 6 * board + local slot; a honeycomb cell is c = (q + R) * (2R + 1) + (r + R)
for axial (q, r) with R = params.boards + 1. An extra action is 0 (none), 1 + h (a white tile in hole h)
or 1 + H + c (a board on cell c), with H = 6 * params.boards holes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import numpy as np

from sim.batch import check_choice, strategy_groups
from sim.errors import IllegalMove
from sim.kaleido.rules import DIRECTIONS, EMPTY, STARTING_BOARDS, WHITE, Params, majority
from sim.scoring import standings

NONE = 0


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


def geometry(params: Params) -> Geometry:
    radius = params.boards + 1
    side = 2 * radius + 1
    qr = np.stack(np.divmod(np.arange(side * side), side), axis=1) - radius
    return Geometry(params.boards, radius, side, 6 * params.boards, side * side,
                    DIRECTIONS[:, 0].astype(np.int64) * side + DIRECTIONS[:, 1], qr.astype(np.int16))


@dataclass(frozen=True)
class State:
    slots: np.ndarray  # (B, NB, 6) int8: tile in each local slot: colour 0-4, WHITE, or EMPTY
    cell: np.ndarray  # (B, NB) int16: honeycomb cell of each board, -1 while still in a stock
    placer: np.ndarray  # (B, NB) int8: seat that placed each board, -1 for the starting boards
    rot: np.ndarray  # (B, NB) int8: local slot s sits at physical triangle (s + rot) % 6
    scored: np.ndarray  # (B, NB) bool
    grid: np.ndarray  # (B, cells) int8: board on each cell, -1 none
    tiles: np.ndarray  # (B, colours) int8: coloured tiles left
    whites: np.ndarray  # (B, P) int8
    stock: np.ndarray  # (B, P) int8: boards left
    midgame: np.ndarray  # (B, colours) int32: points from boards scored during play
    endgame: np.ndarray  # (B, colours) int32: points from end-game hexagons
    whites_used: np.ndarray  # (B, P) int16
    turns_played: np.ndarray  # (B, P) int16: turns in which the player placed a tile
    done: np.ndarray  # (B,) bool
    stalled: np.ndarray  # (B,) bool: ended because nobody with tiles could ever open a hole again
    turn: int = 0  # turns so far (passes and skips included), the same in every game

    def select(self, games) -> State:
        """The same state for a subset of the batch's games."""
        arrays = {f.name: getattr(self, f.name)[games] for f in fields(self) if f.name != "turn"}
        return State(**arrays, turn=self.turn)

    @property
    def boards_placed(self) -> np.ndarray:
        """(B, P) boards each seat has placed."""
        return (self.placer[:, None, :] == np.arange(self.whites.shape[1])[None, :, None]).sum(axis=2)

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
    memo: dict = field(default_factory=dict)


def init(params: Params, batch: int) -> State:
    geo = geometry(params)
    players, colours, nb = params.players, params.colours, params.boards
    cell = np.full((batch, nb), -1, np.int16)
    grid = np.full((batch, geo.cells), -1, np.int8)
    for board, (q, r) in enumerate(STARTING_BOARDS):
        cell[:, board] = geo.cell(q, r)
        grid[:, geo.cell(q, r)] = board
    zeros = np.zeros((batch, players), np.int16)
    return State(
        slots=np.full((batch, nb, 6), EMPTY, np.int8), cell=cell, placer=np.full((batch, nb), -1, np.int8),
        rot=np.zeros((batch, nb), np.int8), scored=np.zeros((batch, nb), bool), grid=grid,
        tiles=np.full((batch, colours), params.tiles, np.int8),
        whites=np.full((batch, players), params.whites_each, np.int8),
        stock=np.full((batch, players), params.boards_each, np.int8),
        midgame=np.zeros((batch, colours), np.int32), endgame=np.zeros((batch, colours), np.int32),
        whites_used=zeros, turns_played=zeros.copy(),
        done=np.zeros(batch, bool), stalled=np.zeros(batch, bool),
    )


def empty_holes(state: State) -> np.ndarray:
    """(B, H) bool: holes of boards on the table with no tile."""
    return ((state.slots == EMPTY) & state.placed[:, :, None]).reshape(len(state.slots), -1)


def board_spots(state: State, geo: Geometry) -> np.ndarray:
    """(B, cells) bool: empty cells sharing at least one side with a board on the table."""
    occupied = state.grid >= 0
    near = np.zeros_like(occupied)
    for step in geo.step:
        near |= np.roll(occupied, -step, axis=1)  # a neighbour one step away in this direction
    return near & ~occupied


def extra_mask(params, state, geo, seat, asked, boards_only=False, before_tile=False) -> np.ndarray:
    """(B, 1 + H + cells): none, a white tile in an empty hole, or a board on a free spot. Before the tile,
    a white tile may not take the last empty hole: the tile must still have one."""
    holes = empty_holes(state)
    room = holes.sum(axis=1) >= (2 if before_tile else 1)
    can_white = asked & (state.whites[:, seat] > 0) & room & (not boards_only)
    can_board = asked & (state.stock[:, seat] > 0)
    none = np.broadcast_to(np.array([not boards_only]), (len(asked), 1)) | ~asked[:, None]
    return np.concatenate([none, holes & can_white[:, None],
                           board_spots(state, geo) & can_board[:, None]], axis=1)


def apply_extra(state: State, geo: Geometry, seat: int, choice: np.ndarray) -> State:
    """Carry out extra actions: a white tile from the seat's supply, or a board from its stock."""
    white = (choice >= 1) & (choice <= geo.holes)
    board = choice > geo.holes
    state = _fill(state, np.where(white, choice - 1, 0), WHITE, white)
    games = np.flatnonzero(board)
    cells = choice[games] - 1 - geo.holes
    new = state.boards_on_table[games]
    cell, grid, placer = state.cell.copy(), state.grid.copy(), state.placer.copy()
    cell[games, new] = cells
    grid[games, cells] = new
    placer[games, new] = seat
    whites, stock = state.whites.copy(), state.stock.copy()
    whites[:, seat] -= white
    stock[:, seat] -= board
    used = state.whites_used.copy()
    used[:, seat] += white
    return replace(state, cell=cell, grid=grid, placer=placer, whites=whites, stock=stock, whites_used=used)


def _fill(state: State, hole: np.ndarray, tile, mask: np.ndarray) -> State:
    """Put `tile` (one code, or one per game) in each game's `hole` where `mask` is set."""
    slots = state.slots.reshape(len(hole), -1).copy()
    games = np.flatnonzero(mask)
    slots[games, hole[games]] = np.broadcast_to(tile, hole.shape)[games]
    return replace(state, slots=slots.reshape(state.slots.shape))


def colour_counts(tiles: np.ndarray, colours: int) -> np.ndarray:
    """Coloured tiles of each colour among the last axis of `tiles` (white and empty count for nothing):
    (..., k) -> (..., colours)."""
    one_hot = np.zeros((WHITE + 2, colours), np.int8)  # row tile + 1: EMPTY (row 0) and WHITE stay zero
    one_hot[1 + np.arange(colours), np.arange(colours)] = 1
    counts = one_hot[tiles[..., 0] + 1].copy()
    for i in range(1, tiles.shape[-1]):
        counts += one_hot[tiles[..., i] + 1]
    return counts


def score_boards(params: Params, state: State) -> tuple[State, np.ndarray]:
    """Score every board just filled (all six holes occupied) by the majority rule. Returns the new
    state and (B, NB) the boards just scored."""
    full = state.placed & (state.slots != EMPTY).all(axis=2) & ~state.scored
    games, boards = np.nonzero(full)
    points = majority(colour_counts(state.slots[games, boards], params.colours), params)
    midgame = state.midgame.copy()
    np.add.at(midgame, games, points.astype(np.int32))
    return replace(state, midgame=midgame, scored=state.scored | full), full


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
    """End-game scoring: each hexagon of three mutually adjacent boards with all six triangles occupied."""
    y, _, tiles = hexagons(state, geo)
    complete = (y >= 0) & (tiles != EMPTY).all(axis=3)
    games, boards, corners = np.nonzero(complete)
    points = majority(colour_counts(tiles[games, boards, corners], params.colours), params)
    endgame = state.endgame.copy()
    np.add.at(endgame, games, points.astype(np.int32))
    return replace(state, endgame=endgame)


@dataclass(frozen=True)
class Record:
    """A finished batch: every decision (to replay it) and the final standing."""

    decisions: list  # (phase, turn, choices (B,), asked (B,)) in the order they were made
    state: State
    colour_points: np.ndarray  # (B, colours)
    scores: np.ndarray  # (B, P)
    rank: np.ndarray
    win: np.ndarray


def play(params: Params, batch: int, lineups: np.ndarray, rng: np.random.Generator, make_player) -> Record:
    """Play a batch to the end. lineups: (B, P) strategy names by seat."""
    geo = geometry(params)
    state = init(params, batch)
    seats = [_seat_players(params, s, lineups[:, s], make_player) for s in range(params.players)]
    decisions = []
    longest = (params.colours * params.tiles + 1) * params.players  # a tile per round of turns, or a stall
    while not state.done.all():
        if state.turn > longest:
            raise RuntimeError("Kaleido engine: games neither progress nor stall")
        state = play_turn(params, geo, state, seats, rng, decisions)
    state = endgame_scoring(params, state, geo)
    colour_points = state.midgame + state.endgame
    owner = np.array([params.owner(c) for c in range(params.colours)])
    scores = np.stack([colour_points[:, owner == s].sum(axis=1) for s in range(params.players)], axis=1)
    rank, win = standings(scores, lower_wins=False)
    return Record(decisions, state, colour_points, scores, rank, win)


def play_turn(params, geo, state: State, seats, rng, decisions) -> State:
    """One turn in every game: an optional extra action, a tile, the other chance at the extra action,
    scoring, and the right to turn each board just scored."""
    seat = state.turn % params.players
    colour = colour_to_play(params, state, seat)
    games = np.arange(len(colour))
    moving = ~state.done & (state.tiles[games, colour] > 0)
    no_hole = ~empty_holes(state).any(axis=1)
    skip = moving & no_hole & (state.stock[:, seat] == 0)
    stuck = _stalled(params, state) & skip
    acting = moving & ~skip
    forced = acting & no_hole

    def ask(phase, legal, asked, board=None):
        if not asked.any():
            return np.zeros(len(asked), np.intp)
        obs = Observation(phase, colour, seat, state.turn, state, geo, legal, asked,
                          np.full(len(asked), -1) if board is None else board)
        choice = _decide(seats[seat], obs, rng)
        decisions.append((phase, state.turn, choice, asked))
        return choice

    before = np.where(forced, ask("forced", extra_mask(params, state, geo, seat, forced, boards_only=True), forced),
                      NONE)
    free_choice = acting & ~forced
    before = np.where(free_choice, ask("before", extra_mask(params, state, geo, seat, free_choice, before_tile=True),
                                          free_choice),
                      before)
    state = apply_extra(state, geo, seat, np.where(acting, before, NONE))
    hole = ask("tile", empty_holes(state) | ~acting[:, None], acting)
    state = _fill(state, hole, colour, acting)
    tiles = state.tiles.copy()
    tiles[games, colour] -= acting
    state = replace(state, tiles=tiles)
    later = acting & (before == NONE)
    after = ask("after", extra_mask(params, state, geo, seat, later), later)
    state = apply_extra(state, geo, seat, np.where(later, after, NONE))
    state, fresh = score_boards(params, state)
    state = _turn_boards(params, geo, state, fresh, ask)
    played = state.turns_played.copy()
    played[:, seat] += acting
    done = state.done | stuck | (state.tiles.sum(axis=1) == 0)
    return replace(state, turns_played=played, done=done, stalled=state.stalled | stuck, turn=state.turn + 1)


def colour_to_play(params: Params, state: State, seat: int) -> np.ndarray:
    """(B,) the colour `seat` places now. In the 2-player variant a player "cannot put 2 tiles of the same
    color successively": their colours alternate with the tiles they place, so a skipped turn changes
    nothing."""
    if not params.two_colour:
        return np.full(len(state.tiles), seat)
    return np.where(state.turns_played[:, seat] % 2 == 0, seat, seat + params.players)


def _turn_boards(params, geo, state: State, fresh: np.ndarray, ask) -> State:
    """Rotating a game board: the active player may turn each board scored this turn, lowest id first."""
    while fresh.any():
        asked = fresh.any(axis=1)
        board = np.where(asked, fresh.argmax(axis=1), -1)
        steps = ask("rotate", np.ones((len(asked), 6), bool), asked, board)
        games = np.flatnonzero(asked)
        rot = state.rot.copy()
        rot[games, board[games]] = (rot[games, board[games]] + steps[games]) % 6
        state = replace(state, rot=rot)
        fresh = fresh.copy()
        fresh[games, board[games]] = False
    return state


def _stalled(params: Params, state: State) -> np.ndarray:
    """(B,) True where every player who still has coloured tiles has no board left and every hole is
    full: no turn can ever open a hole again, so the game cannot go on."""
    owner = np.array([params.owner(c) for c in range(params.colours)])
    stuck = (state.tiles == 0) | (state.stock[:, owner] == 0)
    return stuck.all(axis=1) & ~empty_holes(state).any(axis=1)


def _seat_players(params, seat, names, make_player):
    return [(idx, make_player(name, seat=seat, idx=idx, params=params)) for name, idx in strategy_groups(names)]


def _decide(group, obs: Observation, rng: np.random.Generator) -> np.ndarray:
    """Ask each strategy for its games' choices; check the ones that count against the legal mask."""
    choices = np.zeros(len(obs.legal), np.intp)
    for idx, player in group:
        legal, asked = obs.legal[idx], obs.asked[idx]
        choice = check_choice(player, np.asarray(getattr(player, obs.phase if obs.phase in ("tile", "rotate")
                                                         else "extra")(obs, rng)),
                              len(legal), legal.shape[1], f"{obs.phase} choice at turn {obs.turn}")
        if not legal[np.arange(len(legal)), choice][asked].all():
            raise IllegalMove(player.name, f"{obs.phase} choice at turn {obs.turn} is not allowed")
        choices[idx] = np.where(asked, choice, 0)
    return choices
