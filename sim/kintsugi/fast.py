"""Kintsugi, compiled: laying a batch's cards and counting pieces exactly, as numba kernels (arrays in, arrays
out). tests/test_kernels.py compares them with their numpy twins in tests/twins.py: `count_pieces` with scipy's
labelling, `lay` with a plain numpy lay."""

from __future__ import annotations

import numpy as np

from sim.kernel import helper, kernel


@kernel
def count_pieces(board, low, high, connectivity, colours):
    """(B, colours) connected groups of same-coloured cells in each game's cards' extent (low..high + 1). One
    raster scan per game: each coloured cell starts a piece of its own and joins the pieces of the neighbours of its
    colour already scanned (left and above, and the two upper diagonals with 8-connectivity); every join of two
    pieces that were apart leaves one piece fewer (union-find)."""
    batch, height, width = board.shape
    out = np.zeros((batch, colours), np.int64)
    parent = np.empty(height * width, np.int64)
    for g in range(batch):
        r0, c0 = low[g, 0], low[g, 1]
        r1, c1 = high[g, 0] + 2, high[g, 1] + 2
        for r in range(r0, r1):
            for c in range(c0, c1):
                colour = board[g, r, c]
                if colour < 0:
                    continue
                here = r * width + c
                parent[here] = here
                out[g, colour] += 1
                if c > c0 and board[g, r, c - 1] == colour:
                    out[g, colour] -= _join(parent, here, here - 1)
                if r > r0:
                    if board[g, r - 1, c] == colour:
                        out[g, colour] -= _join(parent, here, here - width)
                    if connectivity == 8:
                        if c > c0 and board[g, r - 1, c - 1] == colour:
                            out[g, colour] -= _join(parent, here, here - width - 1)
                        if c + 1 < c1 and board[g, r - 1, c + 1] == colour:
                            out[g, colour] -= _join(parent, here, here - width + 1)
    return out


@helper(_nrt=False)
def _join(parent, a, b):
    """Join the pieces of cells a and b; 1 if they were apart, else 0."""
    a, b = _root(parent, a), _root(parent, b)
    if a == b:
        return 0
    parent[a] = b
    return 1


@helper(_nrt=False)
def _root(parent, a):
    while parent[a] != a:
        parent[a] = parent[parent[a]]  # halve the path as it is walked
        a = parent[a]
    return a


# ROTATED[k, i]: the cell of a 2x2 layout (read row by row) that numpy.rot90(layout, k) shows at cell i.
ROTATED = np.array([np.rot90(np.arange(4).reshape(2, 2), k).ravel() for k in range(4)], np.int64)


@kernel
def lay(board, pos, low, high, cards, drawn, actions, offsets, action_offset, action_rotation, rotated):
    """A copy of the boards with each game's drawn card laid as its chosen action, and the new top-left cell
    and its running minimum and maximum."""
    out, top = board.copy(), pos.copy()
    new_low, new_high = low.copy(), high.copy()
    for g in range(board.shape[0]):
        lay_one(out, top, new_low, new_high, g, cards[drawn[g]], actions[g], offsets, action_offset, action_rotation,
                rotated)
    return out, top, new_low, new_high


@helper
def lay_one(board, pos, low, high, g, card, action, offsets, action_offset, action_rotation, rotated):
    """Game g's card (2, 2) laid as `action` next to pos[g], in place."""
    k = action_rotation[action]
    for axis in range(2):
        pos[g, axis] += offsets[action_offset[action], axis]
        low[g, axis] = min(low[g, axis], pos[g, axis])
        high[g, axis] = max(high[g, axis], pos[g, axis])
    for i in range(4):
        cell = rotated[k, i]
        board[g, pos[g, 0] + i // 2, pos[g, 1] + i % 2] = card[cell // 2, cell % 2]


@kernel
def random_placements(board, pos, low, high, order, cards, legal, turn, placements, offsets, action_offset,
                      action_rotation, rotated, rng):
    """The placements from `turn` on, each game's card laid at a uniformly random legal action, in place: one
    `rng.random(B)` per turn and the nth legal action (`legal`, the same in every game), n = int(draw * count),
    as the `random` policy draws (strategies.common.pick_any)."""
    codes = np.flatnonzero(legal)
    for t in range(turn, placements):
        draws = rng.random(board.shape[0])
        for g in range(board.shape[0]):
            lay_one(board, pos, low, high, g, cards[order[g, t + 1]], codes[int(draws[g] * len(codes))], offsets,
                    action_offset, action_rotation, rotated)
