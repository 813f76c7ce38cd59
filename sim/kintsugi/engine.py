"""Kintsugi, batched: B games advance in lockstep with numpy, with no Python loop over the batch.

Every game of a batch has the same number of turns (the deck size minus the starting card), so a batch
moves one placement at a time for all games; then each seat in turn guesses its left neighbour's colour.
The engine is steppable (the contract in sim/game.py). The scalar, rule-by-rule twin is reference.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from sim.game import Decision, Outcome, evolve, shuffled_after
from sim.kintsugi import fast
from sim.kintsugi.rules import (
    ACTION_OFFSET,
    ACTION_ROTATION,
    N_ACTIONS,
    N_COLORS,
    OFFSETS,
    Deal,
    Params,
    rotated_layouts,
)
from sim.scoring import standings

EMPTY = -1


@dataclass(frozen=True)
class State:
    board: np.ndarray  # (B, H, W) int8: colour showing at each cell, EMPTY where no card lies
    pos: np.ndarray  # (B, 2) int16: top-left cell of the card placed last
    low: np.ndarray  # (B, 2) int16: smallest row and column of any card's top-left so far
    high: np.ndarray  # (B, 2) int16: largest row and column of any card's top-left so far
    order: np.ndarray  # (B, N) int8: card ids from the top of the deck; order[:, 0] is the starting card
    colors: np.ndarray  # (B, P) int8: each seat's secret colour
    guesses: np.ndarray  # (B, P) int8: the colour each seat named for its left neighbour, -1 before it guesses
    turn: int = 0  # decisions made so far, the same in every game: N - 1 placements, then one guess per seat


@dataclass
class Observation:
    """What a seat sees while cards are laid: the table, the cards laid so far, its own colour and, for the seat to
    move, the card it drew. Never the colours of other seats or the face-down deck. Candidate action a lays the card
    turned as layouts[:, rotation[a]] with its top-left at pos + offsets[spot[a]]."""

    SHARED = ("offsets", "spot", "rotation")  # the arrays with no batch axis: the same in every game
    seat: int  # the seat to move
    turn: int
    board: np.ndarray  # (B, H, W) int8, as State.board
    pos: np.ndarray  # (B, 2) int16: top-left cell of the previous card
    offsets: np.ndarray  # (U, 2) int16: where a card may go, relative to pos
    layouts: np.ndarray | None  # (B, R, 2, 2) int8: the card in hand under each rotation; None for a seat not to
    # move, as the drawn card is the mover's alone until it is laid (rulebook, How to Play)
    spot: np.ndarray  # (A,) index into offsets
    rotation: np.ndarray  # (A,) index into layouts
    legal: np.ndarray  # (B, A) bool: the same for any card in hand, so no secret
    laid: np.ndarray  # (B, turn + 1) int8: the cards laid so far, the starting card first, each seen face up
    color: np.ndarray | None  # (B,) int8: the observing seat's own colour; None in what every seat is shown
    memo: dict = field(default_factory=dict)  # scratch space shared by the strategies reading it


@dataclass
class GuessView:
    """What a seat sees when the seats guess: the finished table, every card laid and its own colour. The guess is
    the colour the guessing seat names for its left neighbour (the next seat); any of the four colours may be
    named. The guesses are said at once (rulebook, Game End), so no seat sees another's."""

    seat: int  # the seat to guess
    board: np.ndarray  # (B, H, W) int8, as State.board
    legal: np.ndarray  # (B, 4) bool
    laid: np.ndarray  # (B, N) int8: the whole deck, in the order it was laid
    color: np.ndarray  # (B,) int8: the observing seat's own colour


def n_turns(n_cards: int) -> int:
    return n_cards - 1


def origin(n_cards: int) -> int:
    """Row and column of the starting card's top-left: far enough from the edge for every diagonal walk,
    plus one empty cell so that 4x4 neighbourhoods of any card stay on the grid."""
    return n_turns(n_cards) + 1


def init(params: Params, deal: Deal) -> State:
    """Lay the starting card (the deck's top card, unrotated) at the origin."""
    order, colors = deal
    batch, n_cards = order.shape
    o = origin(n_cards)
    board = np.full((batch, 2 * o + 2, 2 * o + 2), EMPTY, np.int8)
    board[:, o : o + 2, o : o + 2] = params.cards[order[:, 0]]
    pos = np.full((batch, 2), o, np.int16)
    return State(board, pos, pos.copy(), pos.copy(), order, colors, np.full(colors.shape, -1, np.int8))


def legal_mask(state: State) -> np.ndarray:
    """A placement is legal when it covers exactly one fragment of the previous card (rulebook, How to Play).
    Overlap with the previous card depends only on the candidate's offset, so it is the same in every game."""
    overlap = np.clip(2 - np.abs(OFFSETS[ACTION_OFFSET]), 0, None).prod(axis=1)
    return np.broadcast_to(overlap == 1, (len(state.pos), N_ACTIONS))


def hand(state: State, params: Params) -> np.ndarray:
    """(B, R, 2, 2): the card each game's player drew, under every rotation."""
    return rotated_layouts(params.cards)[state.order[:, state.turn + 1]]


def observe(params: Params, state: State, seat: int) -> Observation | GuessView:
    """What `seat` may know now: the table and every card laid (face up), its own colour, and, if it is to lay a
    card, the card it drew (rulebook, Setup and How to Play)."""
    placements = n_turns(state.order.shape[1])
    laid, color = state.order[:, : state.turn + 1], state.colors[:, seat]
    if state.turn >= placements:
        legal = np.ones((len(state.order), N_COLORS), bool)
        return GuessView(state.turn - placements, state.board, legal, laid, color)
    mover = state.turn % state.colors.shape[1]
    return Observation(mover, state.turn, state.board, state.pos, OFFSETS,
                       hand(state, params) if seat == mover else None, ACTION_OFFSET, ACTION_ROTATION,
                       legal_mask(state), laid, color)


def decision(params: Params, state: State) -> Decision:
    """A placement by the seat to move while cards remain (How to Play); then each seat's guess (Scoring)."""
    asked = np.ones(len(state.order), bool)
    placements = n_turns(state.order.shape[1])
    seat = state.turn % state.colors.shape[1] if state.turn < placements else state.turn - placements
    obs = observe(params, state, seat)
    if state.turn >= placements:
        return Decision("guess", seat, obs.legal, asked, obs)
    # What the mover sees but its colour becomes public as the card is laid: the table, and the card now on it.
    return Decision("place", seat, obs.legal, asked, obs, f"at turn {state.turn}", public=replace(obs, color=None))


def determinize(params: Params, state: State, seat: int, rng: np.random.Generator) -> State:
    """The games with what `seat` cannot see redrawn, uniformly among what agrees with what it has seen.

    The other seats' colours: the rulebook's Setup deals each seat a different colour face down and they are never
    shown, so they are drawn again as a uniformly random assignment of distinct colours other than the seat's own
    (the set-aside colours among them). No placement rules out a colour, so every such assignment agrees with what
    the seat has seen; weighing them by how the others played is a guesser's judgement, not the rules'.
    The deck: the cards laid stay, and so does the card in hand where `seat` is to move (How to Play: the mover
    draws it; it is seen by no one else until laid); the rest of the face-down deck is shuffled uniformly.
    """
    placements = n_turns(state.order.shape[1])
    seen = state.turn + 1 + (state.turn < placements and state.turn % state.colors.shape[1] == seat)
    return evolve(state, order=shuffled_after(state.order, seen, rng),
                  colors=other_colors_redrawn(state.colors, seat, rng))


def other_colors_redrawn(colors: np.ndarray, seat: int, rng: np.random.Generator) -> np.ndarray:
    """(B, P): `seat` keeps its colour; the others get a uniformly random ordered choice of the rest."""
    own = colors[:, seat, None] == np.arange(N_COLORS)
    rest = np.argsort(np.where(own, 2.0, rng.random(own.shape)), axis=1)  # the seat's own colour last
    redrawn = colors.copy()
    redrawn[:, np.arange(colors.shape[1]) != seat] = rest[:, : colors.shape[1] - 1]
    return redrawn


def step(params: Params, state: State, choice: np.ndarray) -> State:
    """Lay each game's drawn card as its chosen candidate, or record the guess of the seat asked."""
    placements = n_turns(state.order.shape[1])
    if state.turn >= placements:
        guesses = state.guesses.copy()
        guesses[:, state.turn - placements] = choice
        return evolve(state, guesses=guesses, turn=state.turn + 1)
    board, pos, low, high = fast.lay(state.board, state.pos, state.low, state.high, params.cards,
                                     np.ascontiguousarray(state.order[:, state.turn + 1]), choice.astype(np.int64),
                                     OFFSETS, ACTION_OFFSET, ACTION_ROTATION, fast.ROTATED)
    return evolve(state, board=board, pos=pos, low=low, high=high, turn=state.turn + 1)


def random_playout(params: Params, state: State, rng: np.random.Generator) -> State:
    """The placements left, each at a uniformly random legal action, in one compiled loop: the State, and the
    rng's, that stepping a table of random placers gives. It stops at the guesses: a guess is each player's own
    judgement (the `uniform` guesser never names its own colour), which the table then asks for."""
    placements = n_turns(state.order.shape[1])
    if state.turn >= placements:
        return state
    board, pos, low, high = state.board.copy(), state.pos.copy(), state.low.copy(), state.high.copy()
    fast.random_placements(board, pos, low, high, state.order, params.cards, legal_mask(state)[0], state.turn,
                           placements, OFFSETS, ACTION_OFFSET, ACTION_ROTATION, fast.ROTATED, rng)
    return evolve(state, board=board, pos=pos, low=low, high=high, turn=placements)


def terminal(params: Params, state: State) -> bool:
    """Every card is laid and every seat has guessed."""
    return state.turn == n_turns(state.order.shape[1]) + state.colors.shape[1]


def outcome(params: Params, state: State) -> Outcome:
    """The final scores, and each seat's colour, own pieces, guess and whether it was right."""
    pieces = fast.count_pieces(state.board, state.low, state.high, params.connectivity, N_COLORS)
    scored = score(pieces, state.colors, state.guesses)
    own = np.take_along_axis(pieces, state.colors.astype(np.int64), axis=1)
    columns = {"color": state.colors, "pieces": own.astype(np.int16), "guess": state.guesses,
               "guess_correct": scored.correct, "target_color": np.roll(state.colors, -1, axis=1)}
    return Outcome(scored.scores, scored.rank, scored.win, columns)


class Scored(NamedTuple):
    correct: np.ndarray  # (B, P) bool: the seat named its left neighbour's colour
    scores: np.ndarray  # (B, P)
    rank: np.ndarray  # (B, P) 1 = best
    win: np.ndarray  # (B, P) share of the victory


def score(pieces: np.ndarray, colors: np.ndarray, guesses: np.ndarray) -> Scored:
    """Rulebook, Scoring: your pieces, minus your left neighbour's pieces if you named their colour.

    The subtracted "score" is the neighbour's piece count before guessing (the rulebook's example:
    Blue 3 - Yellow 2 = 1 while Yellow keeps 2); anything else would be circular.
    """
    own = np.take_along_axis(pieces, colors.astype(np.int64), axis=1)
    correct = guesses == np.roll(colors, -1, axis=1)
    scores = own - correct * np.roll(own, -1, axis=1)
    return Scored(correct, scores, *standings(scores))
