"""Kintsugi, batched: B games advance in lockstep with numpy, with no Python loop over the batch.

Every game of a batch has the same number of turns (the deck size minus the starting card), so a batch
moves one placement at a time for all games. The scalar, rule-by-rule twin is reference.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy import ndimage

from sim.batch import check_choice, strategy_groups
from sim.errors import IllegalMove
from sim.kintsugi.rules import (
    ACTION_OFFSET,
    ACTION_ROTATION,
    N_ACTIONS,
    N_COLORS,
    OFFSETS,
    Params,
    rotated_layouts,
)
from sim.scoring import standings

EMPTY = -1
NEIGHBOURS = {8: np.ones((3, 3), bool), 4: ndimage.generate_binary_structure(2, 1)}


@dataclass(frozen=True)
class State:
    board: np.ndarray  # (B, H, W) int8: colour showing at each cell, EMPTY where no card lies
    pos: np.ndarray  # (B, 2) int16: top-left cell of the card placed last
    low: np.ndarray  # (B, 2) int16: smallest row and column of any card's top-left so far
    high: np.ndarray  # (B, 2) int16: largest row and column of any card's top-left so far
    order: np.ndarray  # (B, N) int8: card ids from the top of the deck; order[:, 0] is the starting card
    colors: np.ndarray  # (B, P) int8: each seat's secret colour
    turn: int = 0  # placements made so far, the same in every game of the batch


@dataclass
class Observation:
    """What the player to move sees: the table and the card they drew. Never the colours of other seats
    or the face-down deck. Candidate action a lays the card turned as layouts[:, rotation[a]] with its
    top-left at pos + offsets[spot[a]]."""

    seat: int
    turn: int
    board: np.ndarray  # (B, H, W) int8, as State.board
    pos: np.ndarray  # (B, 2) int16: top-left cell of the previous card
    offsets: np.ndarray  # (U, 2) int16: where a card may go, relative to pos
    layouts: np.ndarray  # (B, R, 2, 2) int8: the card in hand under each rotation
    spot: np.ndarray  # (A,) index into offsets
    rotation: np.ndarray  # (A,) index into layouts
    legal: np.ndarray  # (B, A) bool
    memo: dict = field(default_factory=dict)  # scratch space shared by the strategies reading it


@dataclass(frozen=True)
class Outcome:
    pieces: np.ndarray  # (B, 4) visible pieces of each colour
    guesses: np.ndarray  # (B, P) colour each seat guessed for its left neighbour (the next seat)
    correct: np.ndarray  # (B, P) bool
    scores: np.ndarray  # (B, P)
    rank: np.ndarray  # (B, P) 1 = best
    win: np.ndarray  # (B, P) share of the victory


@dataclass(frozen=True)
class Record:
    """A finished batch: enough to replay every game (deal, choices, guesses) and its results."""

    order: np.ndarray
    colors: np.ndarray
    actions: np.ndarray  # (B, T) int8 candidate index chosen at each turn
    outcome: Outcome


def n_turns(n_cards: int) -> int:
    return n_cards - 1


def origin(n_cards: int) -> int:
    """Row and column of the starting card's top-left: far enough from the edge for every diagonal walk,
    plus one empty cell so that 4x4 neighbourhoods of any card stay on the grid."""
    return n_turns(n_cards) + 1


def init(params: Params, order: np.ndarray, colors: np.ndarray) -> State:
    """Lay the starting card (the deck's top card, unrotated) at the origin."""
    batch, n_cards = order.shape
    o = origin(n_cards)
    board = np.full((batch, 2 * o + 2, 2 * o + 2), EMPTY, np.int8)
    board[:, o : o + 2, o : o + 2] = params.cards[order[:, 0]]
    pos = np.full((batch, 2), o, np.int16)
    return State(board, pos, pos.copy(), pos.copy(), order, colors)


def legal_mask(state: State) -> np.ndarray:
    """A placement is legal when it covers exactly one fragment of the previous card (rulebook, How to Play).
    Overlap with the previous card depends only on the candidate's offset, so it is the same in every game."""
    overlap = np.clip(2 - np.abs(OFFSETS[ACTION_OFFSET]), 0, None).prod(axis=1)
    return np.broadcast_to(overlap == 1, (len(state.pos), N_ACTIONS))


def hand(state: State, params: Params) -> np.ndarray:
    """(B, R, 2, 2): the card each game's player drew, under every rotation."""
    return rotated_layouts(params.cards)[state.order[:, state.turn + 1]]


def observe(state: State, params: Params) -> Observation:
    seat = state.turn % state.colors.shape[1]
    return Observation(seat, state.turn, state.board, state.pos, OFFSETS, hand(state, params),
                       ACTION_OFFSET, ACTION_ROTATION, legal_mask(state))


def step(state: State, params: Params, actions: np.ndarray) -> State:
    """Lay each game's drawn card as its chosen candidate."""
    actions = actions.astype(np.intp)
    games = np.arange(len(actions))
    top = state.pos + OFFSETS[ACTION_OFFSET[actions]]
    layout = hand(state, params)[games, ACTION_ROTATION[actions]].reshape(-1, 4)
    rows = top[:, 0, None] + np.array([0, 0, 1, 1])
    cols = top[:, 1, None] + np.array([0, 1, 0, 1])
    board = state.board.copy()
    board[games[:, None], rows, cols] = layout
    return replace(state, board=board, pos=top, low=np.minimum(state.low, top), high=np.maximum(state.high, top),
                   turn=state.turn + 1)


def count_pieces(state: State, connectivity: int) -> np.ndarray:
    """Exact number of visible pieces of each colour, (B, 4): connected groups of same-colour cells.

    Each game is cut out of the board in a window around its cards with an empty border, and the windows
    of all games and colours are stacked into one tall image for a single labelling. Games are grouped
    by window size so that most are labelled in a small window."""
    extent = (state.high - state.low).max(axis=1) + 4  # cards span extent - 2 cells; one empty cell each side
    counts = np.zeros((len(extent), N_COLORS), np.int64)
    small = extent <= 10
    for group, size in ((small, 10), (~small, int(extent.max()))):
        if group.any():
            counts[group] = _label_counts(state.board[group], state.low[group] - 1, size, connectivity)
    return counts


def _label_counts(board: np.ndarray, corner: np.ndarray, size: int, connectivity: int) -> np.ndarray:
    size = min(size, board.shape[1])  # the smallest decks' boards are narrower than the small window
    corner = np.minimum(corner, np.array(board.shape[1:]) - size)
    windows = sliding_window_view(board, (size, size), axis=(1, 2))[np.arange(len(board)), corner[:, 0], corner[:, 1]]
    masks = windows[:, None] == np.arange(N_COLORS, dtype=np.int8)[None, :, None, None]
    # Every window's first and last rows are empty, so stacked windows never touch.
    labels, _ = ndimage.label(masks.reshape(-1, size), NEIGHBOURS[connectivity])
    # Labels are numbered in scan order, so each window's pieces are the labels beyond the highest one
    # in the windows above it.
    highest = np.maximum.accumulate(labels.reshape(len(board) * N_COLORS, -1).max(axis=1))
    return np.diff(highest, prepend=0).reshape(len(board), N_COLORS)


def score(pieces: np.ndarray, colors: np.ndarray, guesses: np.ndarray) -> Outcome:
    """Rulebook, Scoring: your pieces, minus your left neighbour's pieces if you named their colour.

    The subtracted "score" is the neighbour's piece count before guessing (the rulebook's example:
    Blue 3 - Yellow 2 = 1 while Yellow keeps 2); anything else would be circular.
    """
    own = np.take_along_axis(pieces, colors.astype(np.int64), axis=1)
    target = np.roll(colors, -1, axis=1)
    correct = guesses == target
    scores = own - correct * np.roll(own, -1, axis=1)
    rank, win = standings(scores)
    return Outcome(pieces, guesses, correct, scores, rank, win)


def play(params: Params, order: np.ndarray, colors: np.ndarray, lineups: np.ndarray,
         rng: np.random.Generator, make_player) -> Record:
    """Play a batch to the end. lineups: (B, P) strategy names by seat; make_player builds a player for
    one seat and a set of games (see strategies/kintsugi.py)."""
    state = init(params, order, colors)
    seats = [_seat_players(params, s, lineups[:, s], colors[:, s], make_player) for s in range(params.players)]
    actions = np.zeros((len(order), n_turns(order.shape[1])), np.int8)
    while state.turn < actions.shape[1]:
        obs = observe(state, params)
        actions[:, state.turn] = _decide(seats[obs.seat], obs, rng)
        for group in seats:
            for _, player in group:
                player.observe(obs, actions[:, state.turn])
        state = step(state, params, actions[:, state.turn])
    guesses = np.stack([_guesses(group, len(order), rng) for group in seats], axis=1)
    outcome = score(count_pieces(state, params.connectivity), colors, guesses)
    return Record(order, colors, actions, outcome)


def _seat_players(params, seat, names, colors, make_player):
    """One player object per distinct strategy at this seat, with the games (index or slice) it plays."""
    return [(idx, make_player(name, seat=seat, players=params.players, colors=colors[idx], idx=idx,
                              connectivity=params.connectivity))
            for name, idx in strategy_groups(names)]


def _decide(group, obs: Observation, rng: np.random.Generator) -> np.ndarray:
    actions = np.zeros(len(obs.board), np.int8)
    for idx, player in group:
        legal = obs.legal[idx]
        chosen = check_choice(player, np.asarray(player.place(obs, rng)), len(legal), N_ACTIONS,
                              f"placement at turn {obs.turn}")
        if not legal[np.arange(len(legal)), chosen].all():
            raise IllegalMove(player.name, f"placement at turn {obs.turn} covers other than one fragment")
        actions[idx] = chosen
    return actions


def _guesses(group, batch: int, rng: np.random.Generator) -> np.ndarray:
    guesses = np.zeros(batch, np.int8)
    for idx, player in group:
        guesses[idx] = check_choice(player, np.asarray(player.guess(rng)), len(np.arange(batch)[idx]), N_COLORS,
                                    "guess")
    return guesses
