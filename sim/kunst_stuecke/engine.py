"""Kunst Stücke, batched and steppable (the contract in sim/game.py): B games advance in lockstep, one decision
at a time; the legality and the moves are numba kernels (fast.py). The scalar, rule-by-rule twin is
reference.py, and both ask the same questions with the same numbered options (its docstring).

Every game has the same number of turns (each places or discards one piece), so turns stay in lockstep; within a
turn a phase that asks no game is passed over (`State.phase`):
- "look_before" (kind look), then "keep_before" (kind keep) where a stack was chosen;
- "slide_before" (kind slide) and "slide_to_before" (kind slide_to), in turn, while any game slides on;
- "play" (kind play), then "place" (kind place) where a piece is to be placed;
- "look_after", "keep_after", "slide_after" and "slide_to_after", as before placing.
Between them `step` starts each turn (which pieces touch their own colour then) and ends it; once every turn is
played the State is in phase "over".
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.game import Decision, Outcome, evolve, list_column, ragged_column
from sim.kunst_stuecke import fast, playout
from sim.kunst_stuecke.rules import DISCARD, NO_LOOK, PIECES, STACK_TILES, STACKS, STOP, TILES, Deal, Params
from sim.scoring import standings

CYCLE = ("start", "look_before", "keep_before", "slide_before", "slide_to_before", "play", "place", "look_after",
         "keep_after", "slide_after", "slide_to_after", "end")
assert [CYCLE.index(phase) for phase in CYCLE] == [
    playout.START, playout.LOOK_BEFORE, playout.KEEP_BEFORE, playout.SLIDE_BEFORE, playout.SLIDE_TO_BEFORE,
    playout.PLAY, playout.PLACE, playout.LOOK_AFTER, playout.KEEP_AFTER, playout.SLIDE_AFTER, playout.SLIDE_TO_AFTER,
    playout.END]


@dataclass(frozen=True)
class State:
    """B games. `step` returns a new State and never changes its argument."""

    board: np.ndarray  # (B, N * N) int8: the piece on each square N row + col (N = Params.board), -1 empty
    orient: np.ndarray  # (B, 60) int8: each piece's orientation on the board, -1 off it
    anchor: np.ndarray  # (B, 60) int16: each piece's anchor on the board
    owner: np.ndarray  # (B, 60) int8: the seat whose supply holds the piece, -1 none
    chips: np.ndarray  # (B, P) int16
    stacks: np.ndarray  # (B, 5, 6) int8: the tiles left in each stack, top first, then -1 (hidden from players)
    spaces: np.ndarray  # (B, P, 5) int8: the tile on each space of each score board, -1 free
    seen: np.ndarray  # (B, P, 30) int8: for each tile, the stack where the seat last saw it, -1 never, GONE: gone
    # from it at the seat's later look
    discards: np.ndarray  # (B, P) int16
    first_look: np.ndarray  # (B, P) int16: the turn of the seat's first look, -1 none
    looked: np.ndarray  # (B,) bool: the mover has looked this turn
    slid: np.ndarray  # (B, 60) int16: slides of each piece this turn
    start_contact: np.ndarray  # (B, 60) bool: against its own colour at the start of the turn (or when placed)
    must_touch: np.ndarray  # (B, 60) bool: slid this turn, so it must end the turn against its own colour
    placed: np.ndarray  # (B,) int16: the piece placed this turn, -1 none
    chosen: np.ndarray  # (B,) int16: the stack looked through, or the piece to slide or to place, -1 none
    stopped: np.ndarray  # (B,) bool: the mover stopped sliding in this phase
    asked: np.ndarray  # (B,) bool: the games the current phase asks
    sliding: np.ndarray  # (B, 61) bool: in a slide phase, its legal mask (found while finding who it asks)
    phase: str = "start"
    turn: int = 0
    QUESTION = ("chosen", "stopped", "asked", "sliding")  # the question being asked, not the game (sim.game.Engine)


@dataclass
class Observation:
    """What a seat may know (`observe`): the board, every supply and chip count, how many tiles are left in each
    stack, which score spaces are taken, the question asked, and its own tiles and looks; the mover, during its
    keep, the stack it looks through. Never the stacks' contents otherwise, nor the other players' tiles."""

    phase: str
    seat: int
    turn: int
    board: np.ndarray  # (B, N * N)
    orient: np.ndarray  # (B, 60)
    anchor: np.ndarray  # (B, 60)
    owner: np.ndarray  # (B, 60)
    chips: np.ndarray  # (B, P)
    stack_sizes: np.ndarray  # (B, 5)
    taken: np.ndarray  # (B, P, 5) bool: spaces holding a tile (face down, so only that)
    tiles: np.ndarray  # (B, 5): the seat's own tiles by space, -1 free
    seen: np.ndarray  # (B, 30): where the seat last saw each tile, -1 never, GONE: gone at a later look there
    looking_at: np.ndarray  # (B, 6): the stack the seat looks through (its keep only), -1 padded
    piece: np.ndarray  # (B,): the piece to place or slide, -1 none
    legal: np.ndarray
    asked: np.ndarray
    params: Params
    memo: dict = field(default_factory=dict)


def init(params: Params, deal: Deal) -> State:
    """Preparation: the dealt supplies and stacks, chips, empty boards; the batch at its first decision."""
    batch, players = len(deal.supply), params.players
    owner = np.full((batch, PIECES), -1, np.int8)
    rows = np.arange(batch)[:, None]
    for seat in range(players):
        owner[rows, deal.supply[:, seat]] = seat
    state = State(
        board=np.full((batch, params.squares), -1, np.int8), orient=np.full((batch, PIECES), -1, np.int8),
        anchor=np.zeros((batch, PIECES), np.int16), owner=owner,
        chips=np.full((batch, players), params.chips, np.int16), stacks=deal.stacks.astype(np.int8),
        spaces=np.full((batch, players, len(params.spaces)), -1, np.int8),
        seen=np.full((batch, players, TILES), -1, np.int8), discards=np.zeros((batch, players), np.int16),
        first_look=np.full((batch, players), -1, np.int16), looked=np.zeros(batch, bool),
        slid=np.zeros((batch, PIECES), np.int16), start_contact=np.zeros((batch, PIECES), bool),
        must_touch=np.zeros((batch, PIECES), bool), placed=np.full(batch, -1, np.int16),
        chosen=np.full(batch, -1, np.int16),
        stopped=np.zeros(batch, bool), asked=np.zeros(batch, bool), sliding=np.zeros((batch, PIECES + 1), bool))
    return _advance(params, evolve(state, phase="end"), "end")


def random_playout(params: Params, state: State, rng: np.random.Generator) -> State:
    """Every game played to its end with uniformly random legal answers, the `random` player's (a look half the
    time, a slide one time in ten, a discard only where no piece can be placed): the State, and the rng's, that
    stepping the batch with `random` at every seat ends in, in one compiled loop (sim/kunst_stuecke/playout.py)."""
    return _played_out(params, state, rng, planner=False)


def planner_playout(params: Params, state: State, rng: np.random.Generator) -> State:
    """Every game played to its end by the `planner` player at every seat (strategies/kunst_stuecke.Planner), in the
    same compiled loop: the State, and the rng's, that stepping the batch with it ends in."""
    return _played_out(params, state, rng, planner=True)


def _played_out(params: Params, state: State, rng: np.random.Generator, planner: bool) -> State:
    if terminal(params, state):
        return state
    changed = {name: getattr(state, name).copy() for name in PLAYED}
    turn = playout.play_out(*changed.values(), state.turn, CYCLE.index(state.phase), params.players * params.dealt,
                            bool(params.slide_again), bool(params.slide_placed), params.contact == "turn",
                            params.placement_contact == "corner", bool(params.contact_from_placement),
                            fast.tables(params), np.array(params.spaces, float), planner, rng)
    return evolve(state, **changed, phase="over", turn=int(turn))


PLAYED = ("board", "orient", "anchor", "owner", "chips", "stacks", "spaces", "seen", "discards", "first_look", "looked",
          "slid", "start_contact", "must_touch", "placed", "chosen", "stopped", "asked", "sliding")  # the State's
# arrays a playout changes, in its kernel's order


def terminal(params: Params, state: State) -> bool:
    return state.phase == "over"


def _kind(phase: str) -> str:
    return phase.removesuffix("_before").removesuffix("_after")


def decision(params: Params, state: State) -> Decision:
    """The decision the batch faces now: its phase's legal mask for the games it asks."""
    seat = state.turn % params.players
    obs = observe(params, state, seat)
    return Decision(_kind(state.phase), seat, obs.legal, obs.asked, obs, f"({state.phase}) at turn {state.turn}")


def observe(params: Params, state: State, seat: int) -> Observation:
    """What `seat` may know now, acting or not: everything face up (the board, the supplies, which are turned face
    up at Preparation, the chips), how many tiles are left in each stack and which score spaces are taken (the
    tiles lie face down, Drawing target tiles), the question being asked and its legal mask (all public: the
    board, the stacks' sizes, the taken spaces and the piece the mover chose), and the seat's own tiles and
    looks; the stack being looked through only to the mover, during its keep."""
    mover, kind, asked, batch = state.turn % params.players, _kind(state.phase), state.asked, len(state.asked)
    looking = np.full((batch, STACK_TILES), -1, np.int8)
    if kind == "keep" and seat == mover:
        looking = np.where(asked[:, None], state.stacks[np.arange(batch), np.maximum(state.chosen, 0)], -1)
    piece = np.where(asked & (kind in ("place", "slide_to")), state.chosen, -1)
    return Observation(state.phase, seat, state.turn, state.board, state.orient, state.anchor, state.owner,
                       state.chips, (state.stacks >= 0).sum(axis=2), state.spaces >= 0, state.spaces[:, seat],
                       state.seen[:, seat], looking, piece, legal_mask(params, state, kind, mover), asked, params)


def determinize(params: Params, state: State, seat: int, rng: np.random.Generator) -> State:
    """The same games with the target tiles `seat` cannot see dealt again: the stacks' contents and order, and the
    tiles face down on the other seats' score boards (Preparation: the stacks lie face down; Drawing target
    tiles: a look shows one stack to the mover only, a kept tile lies face down). Every stack keeps its size and
    every score board its taken spaces; the seat's own tiles, and the stack it looks through during its keep, stay.

    What the seat knows of the rest is its `seen`: where it last saw each tile, and which tiles it saw in a stack
    and found gone at a later look of it. Tiles never move between stacks, they only leave them for score boards,
    so a stack it looked through holds only tiles it saw there at its last look (less those taken since), a stack
    it never looked through only tiles it never saw, and a tile found gone lies on another seat's board. The draw
    is uniform among the assignments that agree with that: each stack it looked through gets a uniformly random
    ordered choice of its size among the tiles last seen there (not its own), each other stack in turn one among
    the unseen tiles left, and the other seats' taken spaces a random arrangement of the tiles left over (the
    number of ways to finish does not depend on the earlier choices, so drawing in turn keeps the draw uniform).
    The true State is one such assignment, so one always exists. Not conditioned on, as the State does not keep
    it: the public record of which stack each other seat drew from, and when. The other seats' own `seen` is
    theirs and stays as it is (no rule reads it; in a drawn world it may name a tile's stack wrongly)."""
    sizes = (state.stacks >= 0).sum(axis=2)
    shown = _shown_stack(params, state, seat)
    stacks = np.where(shown[:, :, None], state.stacks, -1).astype(np.int8)
    own = _tiles_in(state.spaces[:, seat])
    last_seen = np.where(own | _tiles_in(stacks), -2, state.seen[:, seat])  # -2: where it is, the seat knows
    looked = (state.seen[:, seat][:, None, :] == np.arange(STACKS)[None, :, None]).any(axis=2)
    for stack in range(STACKS):
        _draw_into(stacks, stack, last_seen == stack, sizes[:, stack], looked[:, stack] & ~shown[:, stack], rng)
    for stack in range(STACKS):
        unseen = (last_seen == -1) & ~_tiles_in(stacks)
        _draw_into(stacks, stack, unseen, sizes[:, stack], ~looked[:, stack] & ~shown[:, stack], rng)
    spaces = state.spaces.copy()
    others = (np.arange(params.players) != seat)[None, :, None] & (state.spaces >= 0)
    _deal(spaces.reshape(len(spaces), -1), others.reshape(len(spaces), -1), ~own & ~_tiles_in(stacks), rng)
    return evolve(state, stacks=stacks, spaces=spaces)


def _shown_stack(params: Params, state: State, seat: int) -> np.ndarray:
    """(B, 5) bool: the stack `seat` looks through now, during its keep."""
    if _kind(state.phase) != "keep" or state.turn % params.players != seat:
        return np.zeros((len(state.asked), STACKS), bool)
    return state.asked[:, None] & (state.chosen[:, None] == np.arange(STACKS)[None, :])


def _tiles_in(places: np.ndarray) -> np.ndarray:
    """(B, 30) bool: the tiles that lie in places (B, ...), -1 for none."""
    found = np.zeros((len(places), TILES + 1), bool)
    np.put_along_axis(found, places.reshape(len(places), -1).astype(np.int64) % (TILES + 1), True, axis=1)
    return found[:, :TILES]


def _random_order(chosen: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(B, 30): the tiles marked in chosen (B, 30) first, in a uniformly random order, then the others."""
    return np.argsort(np.where(chosen, rng.random(chosen.shape), 2.0), axis=1)


def _draw_into(stacks, stack: int, candidates, sizes, games, rng: np.random.Generator) -> None:
    """Fill the stack, in the games marked, with a uniformly random ordered choice of its size among the
    candidate tiles (B, 30) (in place)."""
    drawn = _random_order(candidates, rng)[:, :STACK_TILES]
    fill = games[:, None] & (np.arange(STACK_TILES)[None, :] < sizes[:, None])
    stacks[:, stack] = np.where(fill, drawn, stacks[:, stack])


def _deal(places, free, tiles, rng: np.random.Generator) -> None:
    """Lay the tiles marked (B, 30) on the places marked free (B, n), as many in each game, in a uniformly random
    order (in place)."""
    order, slots = _random_order(tiles, rng), np.argsort(~free, axis=1, kind="stable")
    games, at = np.nonzero(np.arange(free.shape[1])[None, :] < free.sum(axis=1)[:, None])
    places[games, slots[games, at]] = order[games, at]


def legal_mask(params: Params, state: State, kind: str, seat: int) -> np.ndarray:
    """(B, options) of the question of this kind, numbered as in reference.py, for the games asked."""
    asked = state.asked
    geo = fast.tables(params)
    if kind == "look":
        return fast.look_mask(state.stacks, asked)
    if kind == "keep":
        return fast.keep_mask(state.stacks, state.spaces, seat, state.chosen, asked)
    if kind == "slide":
        return state.sliding
    if kind == "slide_to":  # the kernel moves pieces to try them: it gets copies
        return fast.destinations(_turn(params, state, seat, state.phase), _chosen(state), geo)
    if kind == "play":
        return fast.play_mask(_turn(params, state, seat, state.phase), asked, geo)
    if kind == "place":
        return fast.placements(_turn(params, state, seat, state.phase), _chosen(state), geo)
    raise ValueError(f"no decision in phase '{state.phase}'")


def slide_mask(params: Params, state: State, seat: int, asked: np.ndarray, phase: str) -> np.ndarray:
    """(B, 61): the pieces the mover may slide in this phase, and STOP (refused after placing while a slid piece
    is parted from its colour)."""
    return fast.slide_mask(_turn(params, state, seat, phase), asked, fast.tables(params))


def _turn(params: Params, state: State, seat: int, phase: str) -> fast.Turn:
    """The kernels' view of the turn in a phase, with copies of the arrays they move pieces in to try them (board,
    orient, anchor, chips, slid, placed, must_touch): `step` keeps the copies a slide moved."""
    return fast.Turn(state.board.copy(), state.orient.copy(), state.anchor.copy(), state.owner, state.chips.copy(),
                     state.slid.copy(), state.placed.copy(), state.must_touch.copy(), state.start_contact, int(seat),
                     bool(params.slide_again), bool(params.slide_placed), params.contact == "turn",
                     phase.endswith("_before"), params.placement_contact == "corner")


def _chosen(state: State) -> np.ndarray:
    return np.where(state.asked, state.chosen, -1).astype(np.int64)


def step(params: Params, state: State, choice: np.ndarray) -> State:
    """Apply the batch's choices for the decision it faces (used where it asks), then advance."""
    seat, phase, asked = state.turn % params.players, state.phase, state.asked
    choice = np.where(asked, np.asarray(choice), 0).astype(np.int64)
    kind = _kind(phase)
    geo = fast.tables(params)
    if kind == "look":
        look = asked & (choice != NO_LOOK)
        seen, first = state.seen.copy(), state.first_look.copy()
        fast.look(seen, first, state.stacks, seat, choice, state.turn, look)
        state = evolve(state, seen=seen, first_look=first, looked=state.looked | look,
                       chosen=np.where(look, choice, -1).astype(np.int16))
        return _advance(params, state, phase)
    if kind == "keep":
        stacks, spaces = state.stacks.copy(), state.spaces.copy()
        fast.keep(stacks, spaces, seat, state.chosen.astype(np.int64), choice, asked)
        state = evolve(state, stacks=stacks, spaces=spaces, chosen=np.full(len(asked), -1, np.int16))
        return _advance(params, state, phase)
    if kind == "slide":
        stop = asked & (choice == STOP)
        state = evolve(state, stopped=state.stopped | stop,
                       chosen=np.where(asked & ~stop, choice, -1).astype(np.int16))
        return _advance(params, state, phase)
    if kind == "slide_to":
        moved = _turn(params, state, seat, phase)
        fast.slide(moved, _chosen(state), choice, geo)
        state = evolve(state, board=moved.board, anchor=moved.anchor, chips=moved.chips, slid=moved.slid,
                       must_touch=moved.must_touch, chosen=np.full(len(asked), -1, np.int16))
        return _advance(params, state, CYCLE[CYCLE.index(phase) - 2])  # back to the slide question
    if kind == "play":
        discard = asked & (choice >= DISCARD)
        owner, discards = state.owner.copy(), state.discards.copy()
        fast.discard(owner, discards, seat, choice, discard)
        state = evolve(state, owner=owner, discards=discards,
                       chosen=np.where(asked & ~discard, choice, -1).astype(np.int16))
        return _advance(params, state, phase)
    if kind == "place":
        board, orient, anchor = state.board.copy(), state.orient.copy(), state.anchor.copy()
        owner, contact = state.owner.copy(), state.start_contact.copy()
        fast.place(board, orient, anchor, owner, contact, _chosen(state), choice, params.contact_from_placement, geo)
        state = evolve(state, board=board, orient=orient, anchor=anchor, owner=owner, start_contact=contact,
                       placed=np.where(asked, state.chosen, state.placed).astype(np.int16),
                       chosen=np.full(len(asked), -1, np.int16))
        return _advance(params, state, phase)
    raise ValueError(f"no decision in phase '{phase}'")


def asked_in(params: Params, state: State, phase: str) -> np.ndarray:
    """(B,) the games a phase asks: a look where one is possible; a keep where a stack was chosen; a slide
    where the mover has not stopped and some piece may slide; a slide_to or a place where a piece was chosen;
    every game's play."""
    kind, seat, batch = _kind(phase), state.turn % params.players, len(state.looked)
    if kind == "look":
        return fast.look_asked(state.looked, state.spaces, state.stacks, seat)
    if kind == "keep":
        return state.chosen >= 0
    if kind == "slide":
        return state.sliding[:, :PIECES].any(axis=1)
    if kind in ("slide_to", "place"):
        return state.chosen >= 0
    if kind == "play":
        return np.ones(batch, bool)
    return np.zeros(batch, bool)


def _advance(params: Params, state: State, last: str) -> State:
    """The batch at its next decision after phase `last`; "start" begins a turn (or ends the game: phase
    "over"), "end" counts it."""
    at = CYCLE.index(last)
    while True:
        at = (at + 1) % len(CYCLE)
        phase = CYCLE[at]
        if phase == "start":
            if state.turn >= params.players * params.dealt:
                return evolve(state, phase="over", asked=np.zeros(len(state.looked), bool))
            state = _start_turn(params, state)
        elif phase == "end":
            state = evolve(state, turn=state.turn + 1)
        else:
            if phase == "look_after":  # the slides after placing are asked afresh
                state = evolve(state, stopped=np.zeros_like(state.stopped))
            if _kind(phase) == "slide":
                seat = state.turn % params.players
                state = evolve(state, sliding=slide_mask(params, state, seat, ~state.stopped, phase))
            asked = asked_in(params, state, phase)
            if asked.any():
                return evolve(state, phase=phase, asked=asked)


def _start_turn(params: Params, state: State) -> State:
    begun = {name: getattr(state, name).copy() for name in BEGUN}
    fast.start_turn(state.board, state.orient, state.anchor, fast.tables(params), *begun.values())
    return evolve(state, **begun)


BEGUN = ("looked", "slid", "start_contact", "must_touch", "placed", "chosen", "stopped")  # what a turn's start sets


def block_sizes(params: Params, state: State) -> np.ndarray:
    """(B, 60): each block's size at its lowest piece id."""
    return fast.blocks(state.board, state.orient, state.anchor, fast.tables(params))


def outcome(params: Params, state: State) -> Outcome:
    """The most points from correct target tiles wins; ties share the victory. Own columns, by seat: targets
    taken and correct, target points, chips left, discards, the turn of the first look (-1 none), the sizes of
    the blocks it aimed at (its tiles' numbers in space order; 6 means 6+), and for each of the five spaces
    the size of its tile (0 free) and whether the tile was correct."""
    points = fast.target_points(state.spaces.astype(np.int64), block_sizes(params, state),
                                np.array(params.spaces, np.int64))
    scores = points.sum(axis=2).astype(np.int32)
    rank, win = standings(scores, lower_wins=False)
    taken = state.spaces >= 0
    batch, players, count = state.spaces.shape
    aims = np.where(taken, state.spaces % 6 + 1, 0).reshape(batch * players, count)
    offsets = np.concatenate([[0], np.cumsum(taken.reshape(batch * players, count).sum(axis=1))]).astype(np.int32)
    columns = {
        "targets_taken": taken.sum(axis=2).astype(np.int8),
        "targets_correct": (points > 0).sum(axis=2).astype(np.int8),
        "target_points": scores,
        "chips_left": state.chips.astype(np.int16),
        "discards": state.discards.astype(np.int8),
        "first_look": state.first_look.astype(np.int16),
        "aimed_sizes": ragged_column("aimed_sizes", offsets, aims[taken.reshape(aims.shape)].astype(np.int8)),
        "space_sizes": list_column("space_sizes", aims.astype(np.int8)),
        "space_correct": list_column("space_correct", (points > 0).reshape(batch * players, count)),
    }
    return Outcome(scores, rank, win, columns)

