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


def scoring(params) -> np.ndarray:
    """The majority rule's Params as the kernels take them: first, second, tie_pool, monochrome, and whether
    white tiles count towards a monochrome board."""
    return np.array([params.first, params.second, params.tie_pool, params.monochrome,
                     params.monochrome_with_white], np.int64)


@njit(cache=True, nogil=True)
def majority_into(counts, scoring, out):
    """rules.majority for one board or hexagon: counts (colours,) of coloured tiles -> points into out."""
    first, second, tie_pool, monochrome, with_white = scoring[0], scoring[1], scoring[2], scoring[3], scoring[4]
    top, total = 0, 0
    for c in range(len(counts)):
        top = max(top, counts[c])
        total += counts[c]
    leaders, runner = 0, 0
    for c in range(len(counts)):
        if top > 0 and counts[c] == top:
            leaders += 1
        else:
            runner = max(runner, counts[c])
    seconds = 0
    if leaders == 1 and runner > 0:
        for c in range(len(counts)):
            seconds += counts[c] == runner
    full = top == (total if with_white else 6)
    for c in range(len(counts)):
        out[c] = 0
        if top > 0 and counts[c] == top:
            if leaders > 1:
                out[c] = tie_pool // leaders
            elif full and runner == 0:
                out[c] = monochrome
            else:
                out[c] = first
        elif seconds > 0 and counts[c] == runner:
            out[c] = second // seconds


@njit(cache=True, nogil=True)
def board_counts(slots, cell, colours):
    """Coloured tiles of each colour per board (B, NB, colours) and empty holes per board on the table
    (B, NB)."""
    batch, nb, _ = slots.shape
    counts = np.zeros((batch, nb, colours), np.int8)
    empties = np.zeros((batch, nb), np.int8)
    for g in range(batch):
        for b in range(nb):
            for s in range(6):
                tile = slots[g, b, s]
                if tile == EMPTY:
                    empties[g, b] += cell[g, b] >= 0
                elif tile < colours:
                    counts[g, b, tile] += 1
    return counts, empties


@njit(cache=True, nogil=True)
def closing_points(counts, empties, colour, white, scoring):
    """(B, 6 NB): the points colour[g] scores at once if its tile (or a white tile) goes in a hole of each
    board, because that fills the board: only boards one hole from full score."""
    batch, nb, colours = counts.shape
    gain = np.zeros((batch, 6 * nb))
    last = np.zeros(colours, np.int64)
    points = np.zeros(colours, np.int64)
    for g in range(batch):
        for b in range(nb):
            if empties[g, b] != 1:
                continue
            for c in range(colours):
                last[c] = counts[g, b, c]
            if not white:
                last[colour[g]] += 1
            majority_into(last, scoring, points)
            for s in range(6):
                gain[g, 6 * b + s] = points[colour[g]]
    return gain


@njit(cache=True, nogil=True)
def empty_holes(slots, cell):
    """(B, 6 NB) bool: holes of boards on the table with no tile."""
    batch, nb, _ = slots.shape
    holes = np.zeros((batch, 6 * nb), np.bool_)
    for g in range(batch):
        for b in range(nb):
            if cell[g, b] >= 0:
                for s in range(6):
                    holes[g, 6 * b + s] = slots[g, b, s] == EMPTY
    return holes


@njit(cache=True, nogil=True)
def open_holes(slots, cell):
    """(B,): empty holes on the table."""
    batch, nb, _ = slots.shape
    count = np.zeros(batch, np.int64)
    for g in range(batch):
        for b in range(nb):
            if cell[g, b] >= 0:
                for s in range(6):
                    count[g] += slots[g, b, s] == EMPTY
    return count


@njit(cache=True, nogil=True)
def score_boards(slots, cell, scored, midgame, colours, scoring):
    """Boards on the table just filled (every hole occupied, not scored before): (B, NB) bool; their
    majority points are added to midgame (B, colours) in place."""
    batch, nb, _ = slots.shape
    full = np.zeros((batch, nb), np.bool_)
    counts = np.zeros(colours, np.int64)
    points = np.zeros(colours, np.int64)
    for g in range(batch):
        for b in range(nb):
            if cell[g, b] < 0 or scored[g, b]:
                continue
            counts[:] = 0
            filled = True
            for s in range(6):
                tile = slots[g, b, s]
                if tile == EMPTY:
                    filled = False
                    break
                if tile < colours:
                    counts[tile] += 1
            if filled:
                full[g, b] = True
                majority_into(counts, scoring, points)
                for c in range(colours):
                    midgame[g, c] += points[c]
    return full
