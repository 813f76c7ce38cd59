"""Witkacy, compiled: the collections' geometry as numba kernels over the batch (arrays in, arrays out, or arrays
changed in place where the engine hands over fresh copies).

A collection is painted, bottom to top, into two scratch grids: `code` (each cell's visible fragment, -1
uncovered) and `top` (the stack position of the card that shows there, -1). Grid cell (r, c) is the table's
(r + top_row - MARGIN, c + left_col - MARGIN), top_row and left_col the smallest row and col of its cards. A
painted grid is wiped again cell by cell, so the scratch stays all -1 between collections.

Only the 3 x 3 blocks (2 x 2 cells each) around a card's footprint can change when it is laid or removed: copies
never share a cell, and a block is complete (a copy) when it shows P.UL, P.UR, P.LL and P.LR of one painting P.

The per-collection helpers allocate nothing and are compiled without numba's runtime (`_nrt=False`), so that no
reference is counted for the arrays they are handed and the rows they take: called for every game at every
question, those atomic counts were half of the random playout's time (sim/witkacy/playout.py). `_nrt` is a private
jit option; numba issue #2350 shows it for the same purpose. Such a helper never returns an array: a caller with
the runtime would take the reference it returns as its own, and free the array.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from sim.bits import popcount
from sim.kernel import ONE, helper, kernel
from sim.witkacy.rules import MAX_STACK, WINDOW

MARGIN = 2  # a card's anchor may lie one row above the collection, and a block one more
# Each card laid overlaps the collection, so it widens the collection's anchors by one row (or col) at most, and a
# collection of the deck's MAX_STACK cards spans MAX_STACK anchor rows at most. The kernels read up to two cells
# beyond a card one row past the last anchor: MARGIN + MAX_STACK + 3 cells hold that. `paint` refuses a collection
# outside these bounds (a rule bug), so that no kernel writes outside its arrays.
GRID = MARGIN + MAX_STACK + 3


@kernel
def scratch_grids():
    """Empty `code` and `top` grids."""
    return np.full((GRID, GRID), -1, np.int8), np.full((GRID, GRID), -1, np.int16)


@kernel(_nrt=False)
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


@helper(_nrt=False)
def wipe(stack, n, r0, c0, code, top):
    for i in range(n):
        gr, gc = stack[i, 2] - r0 + MARGIN, stack[i, 3] - c0 + MARGIN
        for dr in range(2):
            for dc in range(2):
                code[gr + dr, gc + dc] = -1
                top[gr + dr, gc + dc] = -1


@kernel(_nrt=False)
def complete(code, r, c):
    """The painting of the copy whose upper-left quarter is at grid (r, c), or -1."""
    f = code[r, c]
    if f < 0 or f % 4 != 0:
        return -1
    if code[r, c + 1] == f + 1 and code[r + 1, c] == f + 2 and code[r + 1, c + 1] == f + 3:
        return f // 4
    return -1


@helper(_nrt=False)
def keeps_blocks(code, gr, gc, new, before):
    """Write the 4 fragments `new` (-2: unchanged) at grid (gr, gc); whether every block around that was complete
    (`before`, 9 paintings or -1) still is. The grid is restored."""
    o0, o1, o2, o3 = code[gr, gc], code[gr, gc + 1], code[gr + 1, gc], code[gr + 1, gc + 1]
    for k in range(4):
        if new[k] != -2:
            code[gr + k // 2, gc + k % 2] = new[k]
    ok = True
    for k in range(9):
        if before[k] >= 0 and complete(code, gr - 1 + k // 3, gc - 1 + k % 3) != before[k]:
            ok = False
    code[gr, gc], code[gr, gc + 1], code[gr + 1, gc], code[gr + 1, gc + 1] = o0, o1, o2, o3
    return ok


@helper(_nrt=False)
def blocks_around(code, gr, gc, out):
    for k in range(9):
        out[k] = complete(code, gr - 1 + k // 3, gc - 1 + k % 3)


# ---------------------------------------------------------------------------------------------- masks
# Each question's options for one collection (or one game) come as their codes in ascending order: `out[:k]`, k
# returned. The batch kernels below mark them in the engine's masks; the random playout draws among them.


@helper(_nrt=False)
def spot_rows(stack, n, need, by_card, correction, masks, rows):
    """The `where` options of a card laid into a collection (stack, n cards), as bits: rows[ar] bit ac for the code
    ar * WINDOW + ac. Its cells overlap the collection (at least `need` of 4) but it does not lie entirely on or
    under it (all 4 cells covered; with `by_card`, in the very place of one of its cards), unless `correction`.
    Returns how many rows it wrote (the collection's anchor rows and one more on each side).

    `masks` (2 * GRID uint64, zero, and left zero) holds for each grid row the cells the collection covers (bit c:
    column c) and the cells where one of its cards lies, so that each row of anchors is judged in a few word
    operations."""
    r0, c0, r1, c1 = stack[0, 2], stack[0, 3], stack[0, 2], stack[0, 3]
    for i in range(1, n):
        r0, c0 = min(r0, stack[i, 2]), min(c0, stack[i, 3])
        r1, c1 = max(r1, stack[i, 2]), max(c1, stack[i, 3])
    height, width = r1 - r0 + 3, c1 - c0 + 3
    if height > MAX_STACK + 2 or width > MAX_STACK + 2:
        raise RuntimeError("Witkacy: a collection spans more rows or cols than it has cards (a rule bug)")
    one = np.uint64(1)
    for i in range(n):
        gr, gc = stack[i, 2] - r0 + MARGIN, np.uint64(stack[i, 3] - c0 + MARGIN)
        masks[gr] |= np.uint64(3) << gc
        masks[gr + 1] |= np.uint64(3) << gc
        masks[GRID + gr] |= one << gc
    shift, window = np.uint64(MARGIN - 1), (one << np.uint64(width)) - one  # anchor col 0 is grid col MARGIN - 1
    for ar in range(height):  # anchor rows from one above the top row
        gr = ar - 1 + MARGIN
        a, b = masks[gr], masks[gr] >> one  # bit c: the anchor's upper cells (gr, c) and (gr, c + 1) are covered
        c, d = masks[gr + 1], masks[gr + 1] >> one
        enough = a | b | c | d if need == 1 else (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)
        whole = a & b & c & d
        if by_card:
            whole &= masks[GRID + gr]
        legal = enough if correction else enough & ~whole
        rows[ar] = (legal >> shift) & window
    for gr in range(MARGIN - 1, MARGIN + height - 1):
        masks[gr], masks[GRID + gr] = 0, 0
    return height


@helper(_nrt=False)
def spot_count(rows, height):
    """How many spots spot_rows found."""
    k = 0
    for ar in range(height):
        k += popcount(rows[ar])
    return k


@helper(_nrt=False)
def nth_spot(rows, nth):
    """The code of the nth spot spot_rows found, codes ascending (nth < spot_count)."""
    for ar in range(len(rows)):
        k = popcount(rows[ar])
        if nth < k:
            bits = rows[ar]
            for _ in range(nth):
                bits &= bits - np.uint64(1)
            return ar * WINDOW + np.int64(trailing_zeros(bits))
        nth -= k
    raise RuntimeError("Witkacy: a spot asked for beyond the spots found (a bug)")


@helper(_nrt=False)
def on_a_card(stack, n, row, col):
    """Whether one of the collection's n cards lies with its top-left cell at (row, col)."""
    for i in range(n):
        if stack[i, 2] == row and stack[i, 3] == col:
            return True
    return False


@helper(_nrt=False)
def depth_codes(stack, n, cards, card, side, row, col, code, top, before, new, out):
    """The places z in a collection's stack where the card (card, side) at (row, col) leaves every completed painting
    of that collection complete (a Gift's z)."""
    r0, c0, _, _ = paint(stack, n, cards, code, top)
    gr, gc = row - r0 + MARGIN, col - c0 + MARGIN
    blocks_around(code, gr, gc, before)
    k = 0
    for z in range(n + 1):  # the card shows where no card from position z up covers the cell
        for q in range(4):
            new[q] = cards[card, side, q // 2, q % 2] if top[gr + q // 2, gc + q % 2] < z else -2
        if keeps_blocks(code, gr, gc, new, before):
            out[k] = z
            k += 1
    wipe(stack, n, r0, c0, code, top)
    return k


@helper(_nrt=False)
def removal_codes(stack, size, cards, first, code, top, before, new, out):
    """The cards Solvent may remove in one game (stack (P, 55, 4), size (P,)), as MAX_STACK * owner + position: the
    collection keeps a card and every completed painting stays complete. With `first`, only the first found (enough
    to know Solvent is possible)."""
    k = 0
    for o in range(size.shape[0]):
        n = size[o]
        if n < 2:
            continue
        r0, c0, _, _ = paint(stack[o], n, cards, code, top)
        for i in range(n):
            gr, gc = stack[o, i, 2] - r0 + MARGIN, stack[o, i, 3] - c0 + MARGIN
            blocks_around(code, gr, gc, before)
            keeps = none_complete(before)  # else what it covers decides
            if not keeps:
                beneath(stack[o], i, r0, c0, cards, top, new)
                keeps = keeps_blocks(code, gr, gc, new, before)
            if keeps:
                out[k] = o * MAX_STACK + i
                k += 1
                if first:
                    break
        wipe(stack[o], n, r0, c0, code, top)
        if first and k:
            break
    return k


@helper(_nrt=False)
def none_complete(blocks):
    for k in range(9):
        if blocks[k] >= 0:
            return False
    return True


@helper(_nrt=False)
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


@kernel
def spots(stack, size, owner, cards, advanced, by_card, correction, active, out):
    """out (B, WINDOW ** 2): the `where` options (spot_rows) of a card laid into collection owner[g]."""
    masks, rows = np.zeros(2 * GRID, np.uint64), np.empty(MAX_STACK + 2, np.uint64)
    for g in range(len(active)):
        if active[g]:
            o = owner[g]
            for ar in range(spot_rows(stack[g, o], size[g, o], 2 if advanced else 1, by_card, correction[g], masks,
                                      rows)):
                bits = rows[ar]
                while bits:
                    out[g, ar * WINDOW + np.int64(trailing_zeros(bits))] = True
                    bits &= bits - np.uint64(1)


@kernel
def gift_depths(stack, size, cards, pending, spot, active, out):
    """out (B, MAX_STACK + 1): the places in the stack for the pending card (owner, card, side) at spot (row, col)
    (depth_codes)."""
    code, top = scratch_grids()
    before, new, found = np.empty(9, np.int64), np.empty(4, np.int8), np.empty(MAX_STACK + 1, np.int64)
    for g in range(len(active)):
        if active[g]:
            o = pending[g, 0]
            for j in range(depth_codes(stack[g, o], size[g, o], cards, pending[g, 1], pending[g, 2], spot[g, 0],
                                       spot[g, 1], code, top, before, new, found)):
                out[g, found[j]] = True


@kernel
def removals(stack, size, cards, active, out, first):
    """out (B, P * MAX_STACK): the cards Solvent may remove (removal_codes)."""
    code, top = scratch_grids()
    before, new = np.empty(9, np.int64), np.empty(4, np.int8)
    found = np.empty(size.shape[1] * MAX_STACK, np.int64)
    for g in range(len(active)):
        if active[g]:
            for j in range(removal_codes(stack[g], size[g], cards, first, code, top, before, new, found)):
                out[g, found[j]] = True


@helper(_nrt=False)
def count_copies(stack, n, cards, code, top, out):
    """out (5,): a collection's completed copies by painting."""
    r0, c0, rows, cols = paint(stack, n, cards, code, top)
    out[:] = 0
    for r in range(MARGIN, MARGIN + rows + 1):
        for c in range(MARGIN, MARGIN + cols + 1):
            p = complete(code, r, c)
            if p >= 0:
                out[p] += 1
    wipe(stack, n, r0, c0, code, top)


@kernel
def copies(stack, size, cards, games, owners, out):
    """out[g, o] (5 counts) recounted for each (games[i], owners[i])."""
    code, top = scratch_grids()
    for i in range(len(games)):
        g, o = games[i], owners[i]
        count_copies(stack[g, o], size[g, o], cards, code, top, out[g, o])


# ---------------------------------------------------------------------------------------------- moves


@helper(_nrt=False)
def insert_card(stack, size, o, card, side, row, col, z):
    """Add a card into one game's collection o (stack (P, 55, 4), size (P,)) at stack position z."""
    n = size[o]
    if n >= stack.shape[1] or not 0 <= z <= n:
        raise RuntimeError("Witkacy: a card laid beyond its collection's stack (a rule bug)")
    for j in range(n, z, -1):
        for q in range(4):
            stack[o, j, q] = stack[o, j - 1, q]
    stack[o, z, 0], stack[o, z, 1], stack[o, z, 2], stack[o, z, 3] = card, side, row, col
    size[o] = n + 1


@helper(_nrt=False)
def lay_card(stack, size, o, card, side, row, col, z, cards, code, top, before, after, copies):
    """insert_card, and the collection's completed copies (copies, 5 counts) brought up to date from the 3 x 3 blocks
    around the card, the only ones it can change: only the 4 x 4 cells they cover are painted, into the scratch
    grids' corner, grid (r, c) the table's (row - 1 + r, col - 1 + c)."""
    n = size[o]
    for i in range(n):
        dr, dc = stack[o, i, 2] - row + 1, stack[o, i, 3] - col + 1
        if -1 <= dr <= 3 and -1 <= dc <= 3:
            for q in range(4):
                r, c = dr + q // 2, dc + q % 2
                if 0 <= r < 4 and 0 <= c < 4:
                    code[r, c], top[r, c] = cards[stack[o, i, 0], stack[o, i, 1], q // 2, q % 2], i
    blocks_around(code, ONE, ONE, before)
    for q in range(4):  # the card shows where no card from position z up covers the cell
        if top[1 + q // 2, 1 + q % 2] < z:
            code[1 + q // 2, 1 + q % 2] = cards[card, side, q // 2, q % 2]
    blocks_around(code, ONE, ONE, after)
    for k in range(9):
        if before[k] >= 0:
            copies[before[k]] -= 1
        if after[k] >= 0:
            copies[after[k]] += 1
    insert_card(stack, size, o, card, side, row, col, z)
    for r in range(4):
        for c in range(4):
            code[r, c], top[r, c] = -1, -1


@helper(_nrt=False)
def remove_card(stack, size, o, position):
    n = size[o]
    if not 0 <= position < n:
        raise RuntimeError("Witkacy: a card removed from beyond its collection's stack (a rule bug)")
    for j in range(position, n - 1):
        for q in range(4):
            stack[o, j, q] = stack[o, j + 1, q]
    for q in range(4):
        stack[o, n - 1, q] = -1
    size[o] = n - 1


@kernel
def insert(stack, size, games, owner, card, side, row, col, z):
    """Add each game's card into collection owner at stack position z."""
    for i in range(len(games)):
        insert_card(stack[games[i]], size[games[i]], owner[i], card[i], side[i], row[i], col[i], z[i])


@kernel
def remove(stack, size, games, owner, position):
    for i in range(len(games)):
        remove_card(stack[games[i]], size[games[i]], owner[i], position[i])


@kernel
def options(legal, active):
    """(several, first): whether each active row (uint8) allows two options or more, and its first (-1: none, or
    not active)."""
    n, k = legal.shape
    several, first = np.zeros(n, np.bool_), np.full(n, -1, np.int64)
    for g in range(n):
        if not active[g]:
            continue
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
