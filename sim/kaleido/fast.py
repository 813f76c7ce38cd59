"""Kaleido, compiled: the extra action's legal mask as a numba kernel over the batch (arrays in, arrays out),
the same booleans as engine.extra_mask's numpy (empty_holes, board_spots), which the tests compare it with."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.kaleido.rules import EMPTY


@njit(cache=True, nogil=True)
def extra_mask(slots, cell, grid, whites, stock, asked, seat, boards_only, before_tile, steps):
    """(B, 1 + H + cells): none; a white tile in an empty hole; a board on an empty cell that shares a side
    with a board on the table (np.roll's wrap-around included, as in engine.board_spots)."""
    batch, nb, _ = slots.shape
    cells = grid.shape[1]
    holes = 6 * nb
    legal = np.zeros((batch, 1 + holes + cells), np.bool_)
    for g in range(batch):
        legal[g, 0] = (not boards_only) or not asked[g]
        if not asked[g]:
            continue
        empty = 0
        for b in range(nb):
            if cell[g, b] >= 0:
                for s in range(6):
                    if slots[g, b, s] == EMPTY:
                        empty += 1
        can_white = whites[g, seat] > 0 and empty >= (2 if before_tile else 1) and not boards_only
        if can_white:
            for b in range(nb):
                if cell[g, b] >= 0:
                    for s in range(6):
                        legal[g, 1 + 6 * b + s] = slots[g, b, s] == EMPTY
        if stock[g, seat] > 0:  # from each board on the table to its six neighbours: 6 NB cells, not 6 cells
            for b in range(nb):
                if cell[g, b] < 0:
                    continue
                for k in range(6):
                    c = (cell[g, b] - steps[k]) % cells  # np.roll(occupied, -step)[c] is occupied[c + step]
                    if grid[g, c] < 0:
                        legal[g, 1 + holes + c] = True
    return legal
