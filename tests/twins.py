"""Numpy twins of compiled kernels, written the plain way: tests compare each kernel with its twin.

`count_pieces` labels a batch of Kintsugi boards with scipy's `ndimage.label` (the compiled
sim/kintsugi/fast.count_pieces must give the same counts), `lay` lays Kintsugi cards as fast.lay does, and
`pick_best` draws ties as strategies.common.pick_best does, and `score_after` values a Broken and Beautiful seat's
cards on rules.tally and rules.points, as the compiled sim/broken_beautiful/fast.seat_scores does.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy import ndimage

from sim.broken_beautiful.rules import TEA_JAR, TEAPOT, TYPES, Tally, points
from sim.kintsugi.engine import hand
from sim.kintsugi.rules import ACTION_OFFSET, ACTION_ROTATION, N_COLORS, OFFSETS

NEIGHBOURS = {8: np.ones((3, 3), bool), 4: ndimage.generate_binary_structure(2, 1)}


def pick_best(score: np.ndarray, allowed: np.ndarray, rng: np.random.Generator, lowest: bool = False):
    """The numpy twin of strategies.common.pick_best: the same draws and the same answers."""
    score = np.where(allowed, -score if lowest else score, -np.inf)
    ties = score >= score.max(axis=1, keepdims=True) - 1e-9
    nth = (rng.random(len(score)) * ties.sum(axis=1)).astype(np.int64)  # the nth tie, counting from 0
    return (np.cumsum(ties, axis=1) > nth[:, None]).argmax(axis=1)


def lay(params, state, actions: np.ndarray) -> tuple[np.ndarray, ...]:
    """The numpy twin of kintsugi fast.lay: (board, pos, low, high) after laying each drawn card."""
    games = np.arange(len(actions))
    top = state.pos + OFFSETS[ACTION_OFFSET[actions]]
    layout = hand(state, params)[games, ACTION_ROTATION[actions]].reshape(-1, 4)
    rows = top[:, 0, None] + np.array([0, 0, 1, 1])
    cols = top[:, 1, None] + np.array([0, 1, 0, 1])
    board = state.board.copy()
    board[games[:, None], rows, cols] = layout
    return board, top, np.minimum(state.low, top), np.maximum(state.high, top)


def count_pieces(state, connectivity: int) -> np.ndarray:
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


def score_after(t: Tally, seat: int, cards: np.ndarray, ingots: np.ndarray, kit, repaired: bool = False):
    """Seat's end score, (n, K), if each of `cards` (n, K) joined its collection unbroken (or, with
    `repaired`, were one of its broken cards mended) while it held `ingots` (n, K); card -1 adds nothing.
    `t` is the tally of the same n games."""
    real = cards >= 0
    kind = np.where(real, kit.type[cards], -1)
    pattern = np.where(real, kit.pattern[cards], -1)
    add = (kind[..., None] == np.arange(len(TYPES))).astype(np.int16)
    add_pattern = (pattern[..., None] == np.arange(kit.patterns)).astype(np.int16)
    add_pot = add_pattern * (kind == TEAPOT)[..., None]
    whole, rep, broken, pattern_n, pots, pots_rep = (a[:, seat, None] for a in t)
    new = Tally(whole + add, rep + repaired * add, broken - repaired * add, pattern_n + add_pattern, pots + add_pot,
                pots_rep + repaired * add_pot)
    rivals = np.delete(t.whole[..., TEA_JAR], seat, axis=1).max(axis=1, initial=0)[:, None]
    return points(new, ingots, rivals, kit).sum(axis=-1)
