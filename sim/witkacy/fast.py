"""Witkacy, compiled: the collections' geometry as numba kernels over the batch (arrays in, arrays out, or arrays
changed in place where the engine hands over fresh copies).

A collection is painted, bottom to top, into two scratch grids: `code` (each cell's visible fragment, -1
uncovered) and `top` (the stack position of the card that shows there, -1). Grid cell (r, c) is the table's
(r + top_row - MARGIN, c + left_col - MARGIN), top_row and left_col the smallest row and col of its cards. A
painted grid is wiped again cell by cell, so the scratch stays all -1 between collections.

Only the 3 x 3 blocks (2 x 2 cells each) around a card's footprint can change when it is laid or removed: copies
never share a cell, and a block is complete (a copy) when it shows P.UL, P.UR, P.LL and P.LR of one painting P.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.witkacy.rules import MAX_STACK, WINDOW

MARGIN = 2  # a card's anchor may lie one row above the collection, and a block one more
# Each card laid overlaps the collection, so it widens the collection's anchors by one row (or col) at most, and a
# collection of the deck's MAX_STACK cards spans MAX_STACK anchor rows at most. The kernels read up to two cells
# beyond a card one row past the last anchor: MARGIN + MAX_STACK + 3 cells hold that. `paint` refuses a collection
# outside these bounds (a rule bug), so that no kernel writes outside its arrays.
GRID = MARGIN + MAX_STACK + 3


@njit(cache=True, nogil=True)
def scratch_grids():
    """Empty `code` and `top` grids."""
    return np.full((GRID, GRID), -1, np.int8), np.full((GRID, GRID), -1, np.int16)


@njit(cache=True, nogil=True)
def paint(stack, n, cards, code, top):
    """Paint a collection (stack (55, 4): card, side, row, col; n cards). Returns its corner (top_row, left_col)
    and the extent of its anchors (rows, cols): grid anchors run MARGIN .. MARGIN + extent - 1."""
    if n < 1 or n > stack.shape[0]:
        raise RuntimeError("Witkacy: a collection must hold 1 to 55 cards (a rule bug)")
    r0, c0, r1, c1 = stack[0, 2], stack[0, 3], stack[0, 2], stack[0, 3]
    for i in range(1, n):
        r0, c0 = min(r0, stack[i, 2]), min(c0, stack[i, 3])
        r1, c1 = max(r1, stack[i, 2]), max(c1, stack[i, 3])
    if r1 - r0 >= MAX_STACK or c1 - c0 >= MAX_STACK:
        raise RuntimeError("Witkacy: a collection spans more rows or cols than it has cards (a rule bug)")
    for i in range(n):
        gr, gc = stack[i, 2] - r0 + MARGIN, stack[i, 3] - c0 + MARGIN
        for dr in range(2):
            for dc in range(2):
                code[gr + dr, gc + dc] = cards[stack[i, 0], stack[i, 1], dr, dc]
                top[gr + dr, gc + dc] = i
    return r0, c0, r1 - r0 + 1, c1 - c0 + 1


@njit(cache=True, nogil=True)
def wipe(stack, n, r0, c0, code, top):
    for i in range(n):
        gr, gc = stack[i, 2] - r0 + MARGIN, stack[i, 3] - c0 + MARGIN
        for dr in range(2):
            for dc in range(2):
                code[gr + dr, gc + dc] = -1
                top[gr + dr, gc + dc] = -1


@njit(cache=True, nogil=True)
def complete(code, r, c):
    """The painting of the copy whose upper-left quarter is at grid (r, c), or -1."""
    f = code[r, c]
    if f < 0 or f % 4 != 0:
        return -1
    if code[r, c + 1] == f + 1 and code[r + 1, c] == f + 2 and code[r + 1, c + 1] == f + 3:
        return f // 4
    return -1


@njit(cache=True, nogil=True)
def keeps_blocks(code, gr, gc, new, before):
    """Write the 4 fragments `new` (-2: unchanged) at grid (gr, gc); whether every block around that was complete
    (`before`, 9 paintings or -1) still is. The grid is restored."""
    old = np.empty(4, np.int8)
    for k in range(4):
        old[k] = code[gr + k // 2, gc + k % 2]
        if new[k] != -2:
            code[gr + k // 2, gc + k % 2] = new[k]
    ok = True
    for k in range(9):
        if before[k] >= 0 and complete(code, gr - 1 + k // 3, gc - 1 + k % 3) != before[k]:
            ok = False
    for k in range(4):
        code[gr + k // 2, gc + k % 2] = old[k]
    return ok


@njit(cache=True, nogil=True)
def blocks_around(code, gr, gc, out):
    for k in range(9):
        out[k] = complete(code, gr - 1 + k // 3, gc - 1 + k % 3)


# ---------------------------------------------------------------------------------------------- masks


@njit(cache=True, nogil=True)
def spots(stack, size, owner, cards, advanced, by_card, correction, active, out):
    """out (B, WINDOW ** 2): the `where` options of a card laid into collection owner[g]: its cells overlap the
    collection (advanced: at least 2 of 4) but it does not lie entirely on or under it (all 4 cells covered; with
    `by_card`, in the very place of one of its cards), unless correction[g]."""
    code, top = scratch_grids()
    need = 2 if advanced else 1
    for g in range(len(active)):
        if not active[g]:
            continue
        o = owner[g]
        n = size[g, o]
        r0, c0, rows, cols = paint(stack[g, o], n, cards, code, top)
        for ar in range(rows + 2):  # anchor rows from one above the top row
            for ac in range(cols + 2):
                gr, gc = ar - 1 + MARGIN, ac - 1 + MARGIN
                shared = (top[gr, gc] >= 0) + (top[gr, gc + 1] >= 0) + (top[gr + 1, gc] >= 0) + (
                    top[gr + 1, gc + 1] >= 0)
                whole = shared == 4 and (not by_card or on_a_card(stack[g, o], n, r0 + ar - 1, c0 + ac - 1))
                out[g, ar * WINDOW + ac] = shared >= need and (not whole or correction[g])
        wipe(stack[g, o], n, r0, c0, code, top)


@njit(cache=True, nogil=True)
def on_a_card(stack, n, row, col):
    """Whether one of the collection's n cards lies with its top-left cell at (row, col)."""
    for i in range(n):
        if stack[i, 2] == row and stack[i, 3] == col:
            return True
    return False


@njit(cache=True, nogil=True)
def gift_depths(stack, size, cards, pending, spot, active, out):
    """out (B, MAX_STACK + 1): the places in the stack where the pending card (owner, card, side) at spot (row,
    col) leaves every completed painting of that collection complete."""
    code, top = scratch_grids()
    before, new = np.empty(9, np.int64), np.empty(4, np.int8)
    for g in range(len(active)):
        if not active[g]:
            continue
        o, card, side = pending[g, 0], pending[g, 1], pending[g, 2]
        n = size[g, o]
        r0, c0, _, _ = paint(stack[g, o], n, cards, code, top)
        gr, gc = spot[g, 0] - r0 + MARGIN, spot[g, 1] - c0 + MARGIN
        blocks_around(code, gr, gc, before)
        for z in range(n + 1):  # the card shows where no card from position z up covers the cell
            for k in range(4):
                new[k] = cards[card, side, k // 2, k % 2] if top[gr + k // 2, gc + k % 2] < z else -2
            out[g, z] = keeps_blocks(code, gr, gc, new, before)
        wipe(stack[g, o], n, r0, c0, code, top)


@njit(cache=True, nogil=True)
def removals(stack, size, cards, active, out, first):
    """out (B, P * MAX_STACK): the cards Solvent may remove: the collection keeps a card and every completed
    painting stays complete. With `first`, only the first found in each game (enough to know Solvent is possible)."""
    code, top = scratch_grids()
    before, new = np.empty(9, np.int64), np.empty(4, np.int8)
    for g in range(len(active)):
        if not active[g]:
            continue
        for o in range(size.shape[1]):
            n = size[g, o]
            if n < 2:
                continue
            r0, c0, _, _ = paint(stack[g, o], n, cards, code, top)
            for i in range(n):
                gr, gc = stack[g, o, i, 2] - r0 + MARGIN, stack[g, o, i, 3] - c0 + MARGIN
                beneath(stack[g, o], i, r0, c0, cards, top, new)
                blocks_around(code, gr, gc, before)
                out[g, o * MAX_STACK + i] = keeps_blocks(code, gr, gc, new, before)
                if first and out[g, o * MAX_STACK + i]:
                    break
            wipe(stack[g, o], n, r0, c0, code, top)
            if first and out[g, o * MAX_STACK: (o + 1) * MAX_STACK].any():
                break


@njit(cache=True, nogil=True)
def beneath(stack, i, r0, c0, cards, top, new):
    """new (4): what card i's cells would show without it: where it shows, the next card down (or -1, nothing);
    -2 where it does not show."""
    gr, gc = stack[i, 2] - r0 + MARGIN, stack[i, 3] - c0 + MARGIN
    for k in range(4):
        new[k] = -2
        if top[gr + k // 2, gc + k % 2] == i:
            new[k] = -1
            for j in range(i - 1, -1, -1):
                dr, dc = gr + k // 2 - (stack[j, 2] - r0 + MARGIN), gc + k % 2 - (stack[j, 3] - c0 + MARGIN)
                if 0 <= dr < 2 and 0 <= dc < 2:
                    new[k] = cards[stack[j, 0], stack[j, 1], dr, dc]
                    break


@njit(cache=True, nogil=True)
def copies(stack, size, cards, games, owners, out):
    """out[g, o] (5 counts) recounted for each (games[i], owners[i]): the completed copies by painting."""
    code, top = scratch_grids()
    for i in range(len(games)):
        g, o = games[i], owners[i]
        n = size[g, o]
        r0, c0, rows, cols = paint(stack[g, o], n, cards, code, top)
        out[g, o, :] = 0
        for r in range(MARGIN, MARGIN + rows + 1):
            for c in range(MARGIN, MARGIN + cols + 1):
                p = complete(code, r, c)
                if p >= 0:
                    out[g, o, p] += 1
        wipe(stack[g, o], n, r0, c0, code, top)


# ---------------------------------------------------------------------------------------------- moves


@njit(cache=True, nogil=True)
def insert(stack, size, games, owner, card, side, row, col, z):
    """Add each game's card into collection owner at stack position z."""
    for i in range(len(games)):
        g, o = games[i], owner[i]
        n = size[g, o]
        if n >= stack.shape[2] or not 0 <= z[i] <= n:
            raise RuntimeError("Witkacy: a card laid beyond its collection's stack (a rule bug)")
        for j in range(n, z[i], -1):
            stack[g, o, j] = stack[g, o, j - 1]
        stack[g, o, z[i], 0], stack[g, o, z[i], 1] = card[i], side[i]
        stack[g, o, z[i], 2], stack[g, o, z[i], 3] = row[i], col[i]
        size[g, o] = n + 1


@njit(cache=True, nogil=True)
def remove(stack, size, games, owner, position):
    for i in range(len(games)):
        g, o = games[i], owner[i]
        n = size[g, o]
        if not 0 <= position[i] < n:
            raise RuntimeError("Witkacy: a card removed from beyond its collection's stack (a rule bug)")
        for j in range(position[i], n - 1):
            stack[g, o, j] = stack[g, o, j + 1]
        stack[g, o, n - 1] = -1
        size[g, o] = n - 1



@njit(cache=True, nogil=True)
def options(legal):
    """(several, first): whether each row (uint8) allows two options or more, and its first (-1: none)."""
    n, k = legal.shape
    several, first = np.zeros(n, np.bool_), np.full(n, -1, np.int64)
    for g in range(n):
        found = 0
        for j in range(k):
            if legal[g, j]:
                if found == 0:
                    first[g] = j
                found += 1
                if found == 2:
                    several[g] = True
                    break
    return several, first
