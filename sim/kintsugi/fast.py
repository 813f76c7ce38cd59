"""Kintsugi, compiled: laying a batch's cards and counting pieces exactly, as numba kernels (arrays in, arrays
out). tests/test_kernels.py compares them with their numpy twins in tests/twins.py: `count_pieces` with scipy's
labelling, `lay` with a plain numpy lay."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def count_pieces(board, low, high, connectivity, colours):
    """(B, colours) connected groups of same-coloured cells in each game's cards' extent (low..high + 1)."""
    batch, height, width = board.shape
    out = np.zeros((batch, colours), np.int64)
    seen = np.zeros((height, width), np.bool_)
    stack = np.empty((height * width, 2), np.int64)
    for g in range(batch):
        r0, c0 = low[g, 0], low[g, 1]
        r1, c1 = high[g, 0] + 2, high[g, 1] + 2
        for r in range(r0, r1):
            for c in range(c0, c1):
                seen[r, c] = False
        for r in range(r0, r1):
            for c in range(c0, c1):
                colour = board[g, r, c]
                if colour < 0 or seen[r, c]:
                    continue
                out[g, colour] += 1
                seen[r, c] = True
                top = 0
                stack[0, 0], stack[0, 1] = r, c
                top = 1
                while top > 0:
                    top -= 1
                    y, x = stack[top, 0], stack[top, 1]
                    for dy in range(-1, 2):
                        for dx in range(-1, 2):
                            if dy == 0 and dx == 0:
                                continue
                            if connectivity == 4 and dy != 0 and dx != 0:
                                continue
                            yy, xx = y + dy, x + dx
                            if yy < r0 or yy >= r1 or xx < c0 or xx >= c1:
                                continue
                            if not seen[yy, xx] and board[g, yy, xx] == colour:
                                seen[yy, xx] = True
                                stack[top, 0], stack[top, 1] = yy, xx
                                top += 1
    return out


# ROTATED[k, i]: the cell of a 2x2 layout (read row by row) that numpy.rot90(layout, k) shows at cell i.
ROTATED = np.array([np.rot90(np.arange(4).reshape(2, 2), k).ravel() for k in range(4)], np.int64)


@njit(cache=True, nogil=True)
def lay(board, pos, low, high, cards, drawn, actions, offsets, action_offset, action_rotation, rotated):
    """A copy of the boards with each game's drawn card laid as its chosen action, and the new top-left cell
    and its running minimum and maximum."""
    out, top = board.copy(), pos.copy()
    new_low, new_high = low.copy(), high.copy()
    for g in range(board.shape[0]):
        lay_one(out, top, new_low, new_high, g, cards[drawn[g]], actions[g], offsets, action_offset, action_rotation,
                rotated)
    return out, top, new_low, new_high


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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
