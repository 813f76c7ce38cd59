"""Kunst Stücke, compiled: the engine's legality and moves as numba kernels over the batch (arrays in, arrays
out, or arrays changed in place where the engine hands over fresh copies). The board is (B, 324) piece ids by
square 18 row + col, -1 empty; a piece on the board has an orientation and an anchor (rules.py), -1 when off.

Geometry arrays (from `tables`): offsets (12, O, 8) squares of each oriented shape from its anchor (padded),
size (12,), extent (12, O, 2) height and width, distinct (12, O), and neighbours (324, 4) of each square
(-1 off the board).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from sim.kunst_stuecke.rules import PIECES, SHAPES, SIDE, SQUARES, Params

EMPTY = -1


@lru_cache(maxsize=16)
def tables(params: Params) -> tuple[np.ndarray, ...]:
    """(offsets, size, extent, distinct, neighbours) for the kernels."""
    geo = params.geometry
    count = params.orientations
    offsets = (geo.cells[:, :count, :, 0] * SIDE + geo.cells[:, :count, :, 1]).astype(np.int64)
    neighbours = np.full((SQUARES, 4), -1, np.int64)
    for square in range(SQUARES):
        r, c = divmod(square, SIDE)
        for k, (dr, dc) in enumerate(((1, 0), (-1, 0), (0, 1), (0, -1))):
            if 0 <= r + dr < SIDE and 0 <= c + dc < SIDE:
                neighbours[square, k] = (r + dr) * SIDE + c + dc
    out = (offsets, geo.size.astype(np.int64), geo.extent[:, :count].astype(np.int64),
           geo.distinct[:, :count].copy(), neighbours)
    for array in out:
        array.flags.writeable = False
    return out


@njit(cache=True, nogil=True)
def _fits(board, g, offsets, size, shape, orientation, anchor, moving):
    """Every square of the oriented shape at anchor is empty (or the moving piece's own)."""
    for i in range(size[shape]):
        held = board[g, anchor + offsets[shape, orientation, i]]
        if held != EMPTY and held != moving:
            return False
    return True


@njit(cache=True, nogil=True)
def _inside(extent, shape, orientation, anchor):
    row, col = anchor // SIDE, anchor % SIDE
    return row + extent[shape, orientation, 0] <= SIDE and col + extent[shape, orientation, 1] <= SIDE


@njit(cache=True, nogil=True)
def _touch(board, g, offsets, size, neighbours, shape, orientation, anchor, colour, moving):
    """(own, other): whether the oriented shape at anchor shares an edge with a piece of `colour`, and with a
    piece of another colour (its own squares and the moving piece excepted)."""
    own, other = False, False
    for i in range(size[shape]):
        for k in range(4):
            n = neighbours[anchor + offsets[shape, orientation, i], k]
            if n >= 0:
                held = board[g, n]
                if held != EMPTY and held != moving:
                    if held // SHAPES == colour:
                        own = True
                    else:
                        other = True
    return own, other


@lru_cache(maxsize=16)
def row_masks(params: Params) -> np.ndarray:
    """(12, O, 5) int64: each oriented shape's squares as bit masks by row (bit c: column c)."""
    geo = params.geometry
    masks = np.zeros((SHAPES, params.orientations, 5), np.int64)
    for s in range(SHAPES):
        for o in range(params.orientations):
            for r, c in geo.cells[s, o, : geo.size[s]]:
                masks[s, o, r] |= 1 << c
    masks.flags.writeable = False
    return masks


@njit(cache=True, nogil=True)
def _bitboards(board, g, occupied, beside):
    """Game g's board by row as bit masks (bit c: column c): occupied (18,) squares; beside (6, 18) the squares
    sharing an edge with a piece of colour c (row 5: of any colour)."""
    occupied[:] = 0
    beside[:] = 0
    edge = (1 << SIDE) - 1
    for square in range(SQUARES):
        p = board[g, square]
        if p < 0:
            continue
        r, c, colour = square // SIDE, square % SIDE, p // SHAPES
        bit = 1 << c
        across = ((bit << 1) | (bit >> 1)) & edge
        occupied[r] |= bit
        for k in (colour, 5):
            beside[k, r] |= across
            if r > 0:
                beside[k, r - 1] |= bit
            if r < SIDE - 1:
                beside[k, r + 1] |= bit


@njit(cache=True, nogil=True)
def _lies(occupied, beside, masks, shape, o, height, row, col, colour):
    """Placing Shapes, by row masks: on empty squares, abutting no piece or one of its own colour."""
    own, anything = 0, 0
    for i in range(height):
        m = masks[shape, o, i] << col
        if occupied[row + i] & m:
            return False
        own |= beside[colour, row + i] & m
        anything |= beside[5, row + i] & m
    return anything == 0 or own != 0


@njit(cache=True, nogil=True)
def _lie_anywhere(occupied, beside, masks, extent, distinct, piece, legal):
    """Whether the piece may lie anywhere; every way it may lie is marked in legal (O * 324,), or, with an
    empty legal, the search stops at the first."""
    shape, colour = piece % SHAPES, piece // SHAPES
    found = False
    for o in range(masks.shape[1]):
        if not distinct[shape, o]:
            continue
        height, width = extent[shape, o, 0], extent[shape, o, 1]
        for row in range(SIDE - height + 1):
            for col in range(SIDE - width + 1):
                if _lies(occupied, beside, masks, shape, o, height, row, col, colour):
                    if legal.shape[0] == 0:
                        return True
                    legal[o * SQUARES + row * SIDE + col] = True
                    found = True
    return found


@njit(cache=True, nogil=True)
def placements(board, pieces, masks, extent, distinct):
    """(B, O * 324) bool: where each game's piece (pieces[g], -1: none) may be placed, 324 o + anchor."""
    batch = board.shape[0]
    legal = np.zeros((batch, masks.shape[1] * SQUARES), np.bool_)
    occupied, beside = np.zeros(SIDE, np.int64), np.zeros((6, SIDE), np.int64)
    for g in range(batch):
        if pieces[g] >= 0:
            _bitboards(board, g, occupied, beside)
            _lie_anywhere(occupied, beside, masks, extent, distinct, pieces[g], legal[g])
    return legal


@njit(cache=True, nogil=True)
def play_mask(board, owner, seat, asked, masks, extent, distinct):
    """(B, 2 * 60): place piece p (column p) where it can lie somewhere; discard it (60 + p); for the seat's
    pieces in the games asked."""
    batch = board.shape[0]
    legal = np.zeros((batch, 2 * PIECES), np.bool_)
    occupied, beside = np.zeros(SIDE, np.int64), np.zeros((6, SIDE), np.int64)
    nowhere = np.zeros(0, np.bool_)
    for g in range(batch):
        if not asked[g]:
            continue
        _bitboards(board, g, occupied, beside)
        for p in range(PIECES):
            if owner[g, p] == seat:
                legal[g, PIECES + p] = True
                legal[g, p] = _lie_anywhere(occupied, beside, masks, extent, distinct, p, nowhere)
    return legal


@njit(cache=True, nogil=True)
def _touches_own(board, g, orient, anchor, offsets, size, neighbours, piece):
    own, _ = _touch(board, g, offsets, size, neighbours, piece % SHAPES, orient[g, piece], anchor[g, piece],
                    piece // SHAPES, piece)
    return own


@njit(cache=True, nogil=True)
def touching_own(board, orient, anchor, offsets, size, neighbours):
    """(B, 60) bool: each piece on the board shares an edge with a piece of its own colour."""
    batch = board.shape[0]
    out = np.zeros((batch, PIECES), np.bool_)
    for g in range(batch):
        for p in range(PIECES):
            if orient[g, p] >= 0:
                out[g, p] = _touches_own(board, g, orient, anchor, offsets, size, neighbours, p)
    return out


@njit(cache=True, nogil=True)
def _lay(board, g, offsets, size, shape, orientation, anchor, value):
    for i in range(size[shape]):
        board[g, anchor + offsets[shape, orientation, i]] = value


@njit(cache=True, nogil=True)
def _kept(board, g, orient, anchor, offsets, size, neighbours, must_touch, extra):
    """Every piece that must end the turn against its own colour (must_touch[g], and `extra` if >= 0) does."""
    for p in range(PIECES):
        if (must_touch[g, p] or p == extra) and not _touches_own(board, g, orient, anchor, offsets, size,
                                                                  neighbours, p):
            return False
    return True


@njit(cache=True, nogil=True)
def _destinations(board, g, orient, anchor, offsets, size, extent, neighbours, piece, must_touch, start_contact,
                  out, first_only, seen, queue):
    """Mark in out (324,) the anchors the piece may slide to: reachable by unit steps through squares where it
    fits, its own place excepted, and leaving every piece that must end the turn against its own colour (this
    one too if it started the turn so) against it. Returns how many; with first_only, stops at the first.
    seen and queue are scratch arrays of 324."""
    shape, o, start = piece % SHAPES, orient[g, piece], anchor[g, piece]
    extra = piece if start_contact[g, piece] else -1
    bound = extra >= 0
    for p in range(PIECES):
        bound |= must_touch[g, p]
    seen[:] = False
    seen[start] = True
    queue[0], head, tail, found = start, 0, 1, 0
    while head < tail:
        at = queue[head]
        head += 1
        row, col = at // SIDE, at % SIDE
        for k in range(4):
            r, c = row + (1 if k == 0 else -1 if k == 1 else 0), col + (1 if k == 2 else -1 if k == 3 else 0)
            if r < 0 or c < 0 or c >= SIDE:
                continue
            a = r * SIDE + c
            if a >= SQUARES or seen[a] or not _inside(extent, shape, o, a):
                continue
            if not _fits(board, g, offsets, size, shape, o, a, piece):
                continue
            seen[a] = True
            queue[tail] = a
            tail += 1
            ok = True
            if bound:  # try the move: every bound piece must still touch its own colour
                _lay(board, g, offsets, size, shape, o, start, EMPTY)
                _lay(board, g, offsets, size, shape, o, a, piece)
                anchor[g, piece] = a
                ok = _kept(board, g, orient, anchor, offsets, size, neighbours, must_touch, extra)
                _lay(board, g, offsets, size, shape, o, a, EMPTY)
                _lay(board, g, offsets, size, shape, o, start, piece)
                anchor[g, piece] = start
            if ok:
                out[a] = True
                found += 1
                if first_only:
                    return found
    return found


@njit(cache=True, nogil=True)
def slide_mask(board, orient, anchor, chips, seat, slid, again, must_touch, start_contact, asked, offsets, size,
               extent, neighbours):
    """(B, 61): the pieces the mover may slide now (a chip left, not slid this turn unless `again`, somewhere to
    go), and STOP (column 60)."""
    batch = board.shape[0]
    legal = np.zeros((batch, PIECES + 1), np.bool_)
    scratch, seen, queue = np.zeros(SQUARES, np.bool_), np.zeros(SQUARES, np.bool_), np.empty(SQUARES, np.int64)
    for g in range(batch):
        legal[g, PIECES] = True
        if not asked[g] or chips[g, seat] <= 0:
            continue
        for p in range(PIECES):
            if orient[g, p] >= 0 and (again or slid[g, p] == 0):
                legal[g, p] = _destinations(board, g, orient, anchor, offsets, size, extent, neighbours, p,
                                            must_touch, start_contact, scratch, True, seen, queue) > 0
    return legal


@njit(cache=True, nogil=True)
def destinations(board, orient, anchor, pieces, must_touch, start_contact, offsets, size, extent, neighbours):
    """(B, 324) bool: where each game's piece (pieces[g], -1: none) may slide to."""
    batch = board.shape[0]
    legal = np.zeros((batch, SQUARES), np.bool_)
    seen, queue = np.zeros(SQUARES, np.bool_), np.empty(SQUARES, np.int64)
    for g in range(batch):
        if pieces[g] >= 0:
            _destinations(board, g, orient, anchor, offsets, size, extent, neighbours, pieces[g], must_touch,
                          start_contact, legal[g], False, seen, queue)
    return legal


@njit(cache=True, nogil=True)
def place(board, orient, anchor, owner, start_contact, pieces, options, from_placement, offsets, size, neighbours):
    """Lay each game's piece (pieces[g] >= 0) as options[g] = 324 o + anchor (in place)."""
    for g in range(board.shape[0]):
        p = pieces[g]
        if p < 0:
            continue
        o, a = options[g] // SQUARES, options[g] % SQUARES
        _lay(board, g, offsets, size, p % SHAPES, o, a, p)
        orient[g, p], anchor[g, p], owner[g, p] = o, a, -1
        if from_placement:  # it "starts the turn" where it was placed
            start_contact[g, p] = _touches_own(board, g, orient, anchor, offsets, size, neighbours, p)


@njit(cache=True, nogil=True)
def slide(board, orient, anchor, chips, slid, must_touch, start_contact, seat, pieces, targets, offsets, size):
    """Slide each game's piece (pieces[g] >= 0) to targets[g], for a chip (in place)."""
    for g in range(board.shape[0]):
        p = pieces[g]
        if p < 0:
            continue
        shape, o = p % SHAPES, orient[g, p]
        _lay(board, g, offsets, size, shape, o, anchor[g, p], EMPTY)
        _lay(board, g, offsets, size, shape, o, targets[g], p)
        anchor[g, p] = targets[g]
        chips[g, seat] -= 1
        slid[g, p] += 1
        must_touch[g, p] |= start_contact[g, p]


@njit(cache=True, nogil=True)
def keep(stacks, spaces, seat, stack, options, asked):
    """Take tile `options // 5` of the stack looked through onto space `options % 5`; the rest close up, in
    order (in place)."""
    for g in range(stacks.shape[0]):
        if not asked[g]:
            continue
        index, space = options[g] // 5, options[g] % 5
        s = stack[g]
        spaces[g, seat, space] = stacks[g, s, index]
        for i in range(index, stacks.shape[2] - 1):
            stacks[g, s, i] = stacks[g, s, i + 1]
        stacks[g, s, stacks.shape[2] - 1] = -1


@njit(cache=True, nogil=True)
def block_labels(board, orient, anchor, offsets, size, neighbours, games):
    """Blocks (same-coloured pieces joined by shared edges) of the games marked in games (B,): label (B, 60),
    the lowest piece id of each piece's block (-1 off the board), and members (B, 60), each block's size at
    its label (0 elsewhere)."""
    batch = board.shape[0]
    label = np.full((batch, PIECES), -1, np.int64)
    members = np.zeros((batch, PIECES), np.int64)
    stack = np.empty(PIECES, np.int64)
    for g in range(batch):
        if not games[g]:
            continue
        for first in range(PIECES):
            if orient[g, first] < 0 or label[g, first] >= 0:
                continue
            label[g, first] = first
            stack[0], top = first, 1
            while top > 0:
                top -= 1
                p = stack[top]
                members[g, first] += 1
                for i in range(size[p % SHAPES]):
                    for k in range(4):
                        n = neighbours[anchor[g, p] + offsets[p % SHAPES, orient[g, p], i], k]
                        if n >= 0:
                            q = board[g, n]
                            if q >= 0 and q // SHAPES == first // SHAPES and label[g, q] < 0:
                                label[g, q] = first
                                stack[top] = q
                                top += 1
    return label, members


def blocks(board, orient, anchor, offsets, size, neighbours) -> np.ndarray:
    """(B, 60): each block's size at its lowest piece id, 0 elsewhere."""
    return block_labels(board, orient, anchor, offsets, size, neighbours, np.ones(len(board), np.bool_))[1]


@njit(cache=True, nogil=True)
def target_points(spaces, block_sizes, bonus):
    """(B, P, 5) points of each tile: its number plus the space's bonus when a block of its colour has exactly
    that many pieces (6+: six or more), else 0."""
    batch, players, count = spaces.shape
    points = np.zeros((batch, players, count), np.int64)
    for g in range(batch):
        for s in range(players):
            for j in range(count):
                tile = spaces[g, s, j]
                if tile < 0:
                    continue
                colour, wanted = tile // 6, tile % 6 + 1
                for p in range(PIECES):
                    n = block_sizes[g, p]
                    if n > 0 and p // SHAPES == colour and (n == wanted or (wanted == 6 and n >= 6)):
                        points[g, s, j] = wanted + bonus[j]
                        break
    return points
