"""Kunst Stücke, compiled: the engine's legality and moves as numba kernels over the batch (arrays in, arrays
out, or arrays changed in place where the engine hands over fresh copies). The board is (B, N * N) piece ids by
square N row + col (N = Params.board), -1 empty; a piece on the board has an orientation and an anchor
(rules.py), -1 when off.

The kernels take two named tuples: `Geo` (the board's side and the shapes' geometry, from `tables`) and `Turn`
(the state a slide reads and changes, from the engine). Every bound they rely on comes from the data: an
oriented shape spans at most `masks.shape[2]` rows (the data's longest), at most 8 squares (rules.SIZES, checked
when the shapes are read), and a board row fits an int64 bit row (rules.BOARD_RANGE).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from sim.game import read_only
from sim.kernel import ZERO, helper, kernel
from sim.kunst_stuecke.rules import DISCARD, GONE, PIECES, SHAPES, Params

EMPTY = -1
VACANT = np.int64(EMPTY)  # EMPTY for kernels' calls: a literal would compile the callee again (sim/kernel.py)
BESIDE_ANY = 5  # the row of `beside` for pieces of any colour


class Geo(NamedTuple):
    """The board and the shapes in every orientation O (offsets, size, extent, distinct as in rules.Geometry)."""

    side: int  # the board is side x side squares
    offsets: np.ndarray  # (12, O, 8) int64: squares of each oriented shape from its anchor, side row + col (padded)
    size: np.ndarray  # (12,) int64
    extent: np.ndarray  # (12, O, 2) int64: height and width
    distinct: np.ndarray  # (12, O) bool: the orientations offered
    neighbours: np.ndarray  # (side * side, 4) int64: the squares sharing an edge with each square, -1 off the board
    masks: np.ndarray  # (12, O, H) int64: each oriented shape's squares by row as bit masks (bit c: column c)
    row: np.ndarray  # (side * side,) int64: each square's row (a lookup: no division in the searches)
    col: np.ndarray  # (side * side,) int64


class Turn(NamedTuple):
    """What a turn's slides and placement read and change, for the batch: the kernels move pieces to try them, and
    put them back (the engine hands over copies)."""

    board: np.ndarray  # (B, side * side)
    orient: np.ndarray  # (B, 60)
    anchor: np.ndarray  # (B, 60)
    owner: np.ndarray  # (B, 60): the seat holding each piece off the board, -1 none
    chips: np.ndarray  # (B, P)
    slid: np.ndarray  # (B, 60): slides of each piece this turn
    placed: np.ndarray  # (B,): the piece placed this turn, -1 none
    must_touch: np.ndarray  # (B, 60): slid, so bound to end the turn against its own colour
    start_contact: np.ndarray  # (B, 60): against its own colour when the turn began (or when placed)
    seat: int
    again: bool  # a piece may slide more than once a turn
    slide_placed: bool  # the piece placed this turn may slide
    lookahead: bool  # contact "turn": a piece parted from its colour may wait for one more action to mend it
    to_place: bool  # the placement is still to come (a slide phase before it)
    corner: bool  # a placed piece abuts pieces it meets corner to corner too (Params.placement_contact)


@lru_cache(maxsize=16)
def tables(params: Params) -> Geo:
    geo, side, count = params.geometry, params.board, params.orientations
    offsets = (geo.cells[:, :count, :, 0] * side + geo.cells[:, :count, :, 1]).astype(np.int64)
    neighbours = np.full((side * side, 4), -1, np.int64)
    for square in range(side * side):
        r, c = divmod(square, side)
        for k, (dr, dc) in enumerate(((1, 0), (-1, 0), (0, 1), (0, -1))):
            if 0 <= r + dr < side and 0 <= c + dc < side:
                neighbours[square, k] = (r + dr) * side + c + dc
    extent = geo.extent[:, :count].astype(np.int64)
    masks = np.zeros((SHAPES, count, int(extent[:, :, 0].max())), np.int64)
    for s in range(SHAPES):
        for o in range(count):
            for r, c in geo.cells[s, o, : geo.size[s]]:
                masks[s, o, r] |= 1 << c
    squares = np.arange(side * side)
    out = Geo(side, offsets, geo.size.astype(np.int64), extent, geo.distinct[:, :count].copy(), neighbours, masks,
              squares // side, squares % side)
    for array in out[1:]:
        array.flags.writeable = False
    return out


@helper(_nrt=False)
def _fits(board, g, offsets, size, shape, orientation, anchor, moving):
    """Every square of the oriented shape at anchor is empty (or the moving piece's own)."""
    for i in range(size[shape]):
        held = board[g, anchor + offsets[shape, orientation, i]]
        if held != EMPTY and held != moving:
            return False
    return True


@helper(_nrt=False)
def _touches_own(board, g, orient, anchor, offsets, size, neighbours, piece):
    """Whether the piece on the board shares an edge with another piece of its colour."""
    shape, o, at = piece % SHAPES, orient[g, piece], anchor[g, piece]
    for i in range(size[shape]):
        for k in range(4):
            n = neighbours[at + offsets[shape, o, i], k]
            if n >= 0:
                held = board[g, n]
                if held != EMPTY and held != piece and held // SHAPES == piece // SHAPES:
                    return True
    return False


@helper(_nrt=False)
def _bitboards(board, g, side, corner, occupied, beside):
    """Game g's board by row as bit masks (bit c: column c): occupied (1, side) squares; beside (6, side) the
    squares a placed piece abuts a piece of colour c on (row BESIDE_ANY: of any colour): sharing an edge, or,
    with `corner`, a corner too."""
    occupied[:] = 0
    beside[:] = 0
    edge = (1 << side) - 1
    for square in range(side * side):
        p = board[g, square]
        if p < 0:
            continue
        r, c, colour = square // side, square % side, p // SHAPES
        bit = 1 << c
        across = ((bit << 1) | (bit >> 1)) & edge
        occupied[0, r] |= bit
        for k in (colour, BESIDE_ANY):
            beside[k, r] |= across
            above_below = (bit | across) if corner else bit
            if r > 0:
                beside[k, r - 1] |= above_below
            if r < side - 1:
                beside[k, r + 1] |= above_below


@helper(_nrt=False)
def _near(board, g, orient, anchor, geo, parted, count, near):
    """near (count, side): the squares sharing an edge with each of the first `count` pieces of `parted`."""
    side, offsets, size, neighbours = geo.side, geo.offsets, geo.size, geo.neighbours
    for j in range(count):
        near[j] = 0
        p = parted[j]
        shape, o, at = p % SHAPES, orient[g, p], anchor[g, p]
        for i in range(size[shape]):
            for k in range(4):
                n = neighbours[at + offsets[shape, o, i], k]
                if n >= 0:
                    near[j, n // side] |= 1 << (n % side)


@helper(inline="always")
def _hits(rows, k, row, masks, shape, o, height):
    """Bit col set where the oriented shape with its top-left at (row, col) covers a square set in rows[k] (bit c:
    column c), for every col at once."""
    hit = 0
    for i in range(height):
        m, r, b = masks[shape, o, i], rows[k, row + i], 0
        while m:
            if m & 1:
                hit |= r >> b
            m, b = m >> 1, b + 1
    return hit


@helper(_nrt=False)
def _lie_anywhere(side, masks, extent, distinct, occupied, beside, near, count, need, piece, legal):
    """Whether the piece may lie anywhere, and, where `count` parted pieces wait to be mended, against each of
    them (near), being of their colour `need`; every way it may lie is marked in legal (O * side * side,), or,
    with an empty legal, the search stops at the first. Placing Shapes: on empty squares (occupied (1, side)),
    abutting no piece or one of its own colour (beside); each row of anchors is judged at once, by bit masks."""
    shape, colour = piece % SHAPES, piece // SHAPES
    if count > 0 and colour != need:
        return False
    found = False
    for o in range(masks.shape[1]):
        if not distinct[shape, o]:
            continue
        height, width = extent[shape, o, 0], extent[shape, o, 1]
        span = (1 << (side - width + 1)) - 1  # the cols where the shape fits on the board
        for row in range(side - height + 1):
            cols = span & ~_hits(occupied, 0, row, masks, shape, o, height)
            if cols == 0:
                continue
            cols &= ~_hits(beside, BESIDE_ANY, row, masks, shape, o, height) | \
                _hits(beside, colour, row, masks, shape, o, height)
            for j in range(count):
                cols &= _hits(near, j, row, masks, shape, o, height)
            if cols == 0:
                continue
            if legal.shape[0] == 0:
                return True
            found = True
            for col in range(side - width + 1):
                if (cols >> col) & 1:
                    legal[o * side * side + row * side + col] = True
    return found


@helper(_nrt=False)
def _parted_of(board, g, orient, anchor, offsets, size, neighbours, bound, out):
    """The pieces marked in bound (60,) that touch no piece of their colour, into out; how many."""
    count = 0
    for p in range(PIECES):
        if bound[p] and not _touches_own(board, g, orient, anchor, offsets, size, neighbours, p):
            out[count] = p
            count += 1
    return count


@helper(_nrt=False)
def _common_colour(ids, count):
    """The colour all `count` pieces of ids share; -1 if they do not (or there are none)."""
    colour = ids[0] // SHAPES if count > 0 else -1
    for j in range(count):
        if ids[j] // SHAPES != colour:
            return -1
    return colour


@kernel
def placements(t, pieces, geo):
    """(B, O * side * side) bool: where each game's piece (pieces[g], -1: none) may be placed, side^2 o + anchor
    (placements_of)."""
    batch = t.board.shape[0]
    legal = np.zeros((batch, geo.masks.shape[1] * geo.side * geo.side), np.bool_)
    w = _scratch(geo.side)
    for g in range(batch):
        if pieces[g] >= 0:
            placements_of(t, g, pieces[g], geo, w, legal[g])
    return legal


@helper(inline="always")  # its callers' loop: no call per game
def placements_of(t, g, piece, geo, w, legal):
    """Placing Shapes (Course of play, 1): marks in legal (O * side * side,), cleared, where game g's piece may
    be placed: where it may lie, and, while slid pieces are parted from their colour, after which the turn can
    still end legally (_placing_ends)."""
    _bitboards(t.board, g, geo.side, t.corner, w.occupied, w.beside)
    _lie_anywhere(geo.side, geo.masks, geo.extent, geo.distinct, w.occupied, w.beside, w.near, ZERO, VACANT, piece,
                  legal)
    count = _parted_of(t.board, g, t.orient, t.anchor, geo.offsets, geo.size, geo.neighbours, t.must_touch[g], w.ids)
    if count > 0:
        mends = t.lookahead and _slide_mends(t, g, geo, w, count, t.must_touch[g], w.swept)
        for option in range(legal.shape[0]):
            if legal[option] and not (mends and _clear_of(geo, piece, option, w.swept)):
                legal[option] = _placing_ends(t, g, piece, option, geo, w, mends)


@kernel
def play_mask(t, asked, geo):
    """(B, 2 * 60): place piece p (column p), discard it (60 + p), for the seat's pieces in the games asked
    (plays_of)."""
    batch = t.board.shape[0]
    legal = np.zeros((batch, 2 * PIECES), np.bool_)
    w = _scratch(geo.side)
    for g in range(batch):
        if asked[g]:
            plays_of(t, g, geo, w, legal[g])
    return legal


@helper(inline="always")  # its callers' loop: no call per game
def plays_of(t, g, geo, w, legal):
    """Course of play: the seat MUST place or discard a shape. Marks in legal (2 * 60,), cleared, game g's pieces
    that may be placed somewhere (column p) and those it may discard (60 + p): any, but while slid pieces are
    parted from their colour, only so that the turn can still end legally (contact "turn")."""
    side, masks, extent, distinct = geo.side, geo.masks, geo.extent, geo.distinct  # once: a tuple's array is
    # counted at every use
    owner, lies = t.owner, w.lies
    _bitboards(t.board, g, side, t.corner, w.occupied, w.beside)
    count = _parted_of(t.board, g, t.orient, t.anchor, geo.offsets, geo.size, geo.neighbours, t.must_touch[g], w.ids)
    discard = count == 0 or (t.lookahead and _slide_mends(t, g, geo, w, count, t.must_touch[g], w.swept))
    for p in range(PIECES):
        if owner[g, p] != t.seat:
            continue
        legal[PIECES + p] = discard
        if count == 0:
            legal[p] = _lie_anywhere(side, masks, extent, distinct, w.occupied, w.beside, w.near, ZERO, VACANT, p,
                                     w.nowhere)
            continue
        lies[:] = False
        _lie_anywhere(side, masks, extent, distinct, w.occupied, w.beside, w.near, ZERO, VACANT, p, lies)
        for option in range(lies.shape[0]):
            if lies[option] and ((discard and _clear_of(geo, p, option, w.swept))
                                 or _placing_ends(t, g, p, option, geo, w, discard)):
                legal[p] = True
                break


@helper(_nrt=False)
def _placing_ends(t, g, piece, option, geo, w, mends):
    """Whether the turn can still end legally after game g's piece is laid as option (side^2 o + anchor), slid
    pieces being parted from their colour now and `mends` whether one more slide would mend them now: none is
    parted then, or (contact "turn") one more slide mends them all (reference.can_end). A piece of a colour no
    bound piece has can neither mend one nor help a slide to: then only `mends` can hold, if it still does."""
    board, orient, anchor, placed = t.board, t.orient, t.anchor, t.placed
    if not mends and not _kin_to_bound(t.must_touch, g, piece):
        return False
    squares = geo.side * geo.side
    o, a, before, was = option // squares, option % squares, placed[g], anchor[g, piece]
    _lay(board, g, geo.offsets, geo.size, piece % SHAPES, o, a, piece)
    orient[g, piece], anchor[g, piece], placed[g] = o, a, piece
    count = _parted_of(board, g, orient, anchor, geo.offsets, geo.size, geo.neighbours, t.must_touch[g], w.ids)
    ends = count == 0 or (t.lookahead and _slide_mends(t, g, geo, w, count, t.must_touch[g], w.nowhere))
    _lay(board, g, geo.offsets, geo.size, piece % SHAPES, o, a, VACANT)
    orient[g, piece], anchor[g, piece], placed[g] = EMPTY, was, before
    return ends


@helper(_nrt=False)
def touching_own_of(board, g, orient, anchor, offsets, size, neighbours, out):
    """out (60,): each piece of game g's board shares an edge with a piece of its own colour (Sliding Shapes: a
    shape that starts the turn abutting its own colour must end it so)."""
    for p in range(PIECES):
        out[p] = orient[g, p] >= 0 and _touches_own(board, g, orient, anchor, offsets, size, neighbours, p)


@kernel(_nrt=False)
def _lay(board, g, offsets, size, shape, orientation, anchor, value):
    for i in range(size[shape]):
        board[g, anchor + offsets[shape, orientation, i]] = value


class Scratch(NamedTuple):
    """Work arrays of one slide search, and of the search for one more slide inside it (trial_)."""

    fit: np.ndarray  # (side,) int64: the anchors where the sliding piece lies clear of the others, by row as bit masks
    reach: np.ndarray  # (side,) int64: those it reaches by unit steps, likewise
    seen: np.ndarray  # (side * side,) bool
    queue: np.ndarray  # (side * side,) int64: the anchors to visit
    came_from: np.ndarray  # (side * side,) int64: the anchor each was reached from
    cursor: np.ndarray  # (3,) int64: a breadth-first search's place (_next_step)
    bound: np.ndarray  # (60,) bool
    ids: np.ndarray  # (60,) int64
    occupied: np.ndarray  # (1, side) int64
    beside: np.ndarray  # (6, side) int64
    near: np.ndarray  # (60, side) int64
    nowhere: np.ndarray  # (0,) bool: _lie_anywhere's legal where it only asks whether a piece fits
    lies: np.ndarray  # (8 * side * side,) bool: where a piece may lie
    trial_occupied: np.ndarray  # (1, side) int64
    trial_fit: np.ndarray  # (side,) int64
    trial_reach: np.ndarray  # (side,) int64
    trial_seen: np.ndarray  # (side * side,) bool
    trial_queue: np.ndarray  # (side * side,) int64
    trial_ids: np.ndarray  # (60,) int64
    trial_movable: np.ndarray  # (60,) bool
    trial_from: np.ndarray  # (side * side,) int64: the anchor each was reached from
    trial_cursor: np.ndarray  # (3,) int64
    swept: np.ndarray  # (side * side,) bool: the squares a mending slide passes over


@helper
def _scratch(side):
    squares = side * side
    return Scratch(np.zeros(side, np.int64), np.zeros(side, np.int64), np.zeros(squares, np.bool_),
                   np.empty(squares, np.int64), np.empty(squares, np.int64), np.zeros(3, np.int64),
                   np.zeros(PIECES, np.bool_), np.empty(PIECES, np.int64), np.zeros((1, side), np.int64),
                   np.zeros((6, side), np.int64),
                   np.zeros((PIECES, side), np.int64), np.zeros(0, np.bool_), np.zeros(8 * squares, np.bool_),
                   np.zeros((1, side), np.int64), np.zeros(side, np.int64), np.zeros(side, np.int64),
                   np.zeros(squares, np.bool_), np.empty(squares, np.int64), np.empty(PIECES, np.int64),
                   np.zeros(PIECES, np.bool_), np.empty(squares, np.int64), np.zeros(3, np.int64),
                   np.zeros(squares, np.bool_))


@helper(_nrt=False)
def _reachable(board, g, geo, piece, o, start, occupied, fit, reach):
    """reach (side,), by row as bit masks (bit c: column c): the anchors game g's piece in orientation o reaches
    from anchor start by unit steps through anchors where it lies on the board clear of the other pieces; start
    among them. The rows are swept down and up, one beyond those reached, until nothing more is reached; fit
    (side,) holds the anchors where it lies, and occupied (1, side) the squares the others hold, of the rows
    swept (only those are read)."""
    side, shape = geo.side, piece % SHAPES
    height, width = geo.extent[shape, o, 0], geo.extent[shape, o, 1]
    span, last = (1 << (side - width + 1)) - 1, side - height
    reach[:] = 0
    first = geo.row[start]
    reach[first] = 1 << geo.col[start]
    top, bottom, known, laid = first, first, 0, 0  # the rows reached; bit r: fit[r], occupied[0, r] filled
    grown = True
    while grown:
        grown = False
        row = max(top - 1, 0)
        while row <= min(bottom + 1, last):
            known, laid = _fit_row(board, g, geo, piece, o, row, span, height, known, laid, occupied, fit)
            if _spread(fit, reach, row, last):
                grown, top, bottom = True, min(top, row), max(bottom, row)
            row += 1
        row = min(bottom + 1, last)
        while row >= max(top - 1, 0):
            known, laid = _fit_row(board, g, geo, piece, o, row, span, height, known, laid, occupied, fit)
            if _spread(fit, reach, row, last):
                grown, top, bottom = True, min(top, row), max(bottom, row)
            row -= 1


@helper(inline="always")
def _fit_row(board, g, geo, piece, o, row, span, height, known, laid, occupied, fit):
    """fit[row]: the anchors of the row where the piece lies clear of the others, found once (bit r of known:
    fit[r] found; of laid: occupied[0, r], the squares the others hold); known and laid after."""
    if (known >> row) & 1:
        return known, laid
    side = geo.side
    for r in range(row, row + height):
        if not (laid >> r) & 1:
            bits = 0
            for c in range(side):
                held = board[g, r * side + c]
                if held != EMPTY and held != piece:
                    bits |= 1 << c
            occupied[0, r] = bits
            laid |= 1 << r
    fit[row] = span & ~_hits(occupied, 0, row, geo.masks, piece % SHAPES, o, height)
    return known | (1 << row), laid


@helper(inline="always")
def _spread(fit, reach, row, last):
    """Adds to reach[row] the anchors of fit[row] one step from those reached in its row or the rows beside it, and
    those along the row from them; whether it grew."""
    cols = reach[row]
    if row > 0:
        cols |= reach[row - 1]
    if row < last:
        cols |= reach[row + 1]
    cols &= fit[row]
    cols = _run_fill(cols, fit[row])
    if cols == reach[row]:
        return False
    reach[row] = cols
    return True


@helper(inline="always")
def _run_fill(seeds, free):
    """The bits of free (bit c: column c) in the runs of free that hold a bit of seeds (a subset of free): the
    seeds spread both ways by steps of 1, 2, 4, 8 and 16 at once, each step across bits free that far."""
    up, down, up_free, down_free = seeds, seeds, free, free
    for shift in (1, 2, 4, 8, 16):
        up |= up_free & (up << shift)
        down |= down_free & (down >> shift)
        up_free &= up_free << shift
        down_free &= down_free >> shift
    return up | down


@helper(_nrt=False)
def _first_step(seen, queue, start, cursor):
    """Begins a breadth-first search of the anchors a piece slides to from anchor start (_next_step)."""
    seen[:] = False
    seen[start] = True
    queue[0] = start
    cursor[0], cursor[1], cursor[2] = 0, 1, 0  # the anchor being left (in queue), the queue's end, its next side


@helper(_nrt=False)
def _next_step(board, g, geo, piece, o, seen, queue, came_from, cursor):
    """The next anchor the piece in orientation o reaches by unit steps through anchors where it fits, breadth
    first, marked in seen and its previous one in came_from (side^2,); -1 once there is none."""
    side, shape = geo.side, piece % SHAPES
    height, width = geo.extent[shape, o, 0], geo.extent[shape, o, 1]
    while cursor[0] < cursor[1]:
        at = queue[cursor[0]]
        row, col = geo.row[at], geo.col[at]
        while cursor[2] < 4:
            k = cursor[2]
            cursor[2] += 1
            r, c = row + (1 if k == 0 else -1 if k == 1 else 0), col + (1 if k == 2 else -1 if k == 3 else 0)
            if r < 0 or c < 0 or r + height > side or c + width > side:
                continue
            a = r * side + c
            if seen[a] or not _fits(board, g, geo.offsets, geo.size, shape, o, a, piece):
                continue
            seen[a] = True
            came_from[a] = at
            queue[cursor[1]] = a
            cursor[1] += 1
            return a
        cursor[0] += 1
        cursor[2] = 0
    return EMPTY


@helper(_nrt=False)
def _mendable(t, g, geo, count, w):
    """Whether one piece of the mover's, placed now, can lie against all `count` parted pieces (w.ids): they
    share a colour, and one of the mover's pieces of that colour fits against each."""
    colour = _common_colour(w.ids, count)
    if colour < 0:
        return False
    _bitboards(t.board, g, geo.side, t.corner, w.occupied, w.beside)
    _near(t.board, g, t.orient, t.anchor, geo, w.ids, count, w.near)
    nowhere = w.nowhere
    for q in range(colour * SHAPES, (colour + 1) * SHAPES):
        if t.owner[g, q] == t.seat and _lie_anywhere(geo.side, geo.masks, geo.extent, geo.distinct, w.occupied,
                                                     w.beside, w.near, count, colour, q, nowhere):
            return True
    return False


@kernel(_nrt=False)
def _move(board, g, orient, anchor, offsets, size, piece, to):
    shape, o, start = piece % SHAPES, np.int64(orient[g, piece]), np.int64(anchor[g, piece])
    _lay(board, g, offsets, size, shape, o, start, VACANT)
    _lay(board, g, offsets, size, shape, o, to, piece)
    anchor[g, piece] = to


@helper(_nrt=False)
def _kin_to_bound(must_touch, g, piece):
    """Whether some piece of game g bound to end the turn against its colour is of the piece's colour."""
    kin = False
    for p in range(piece // SHAPES * SHAPES, (piece // SHAPES + 1) * SHAPES):
        kin |= must_touch[g, p]
    return kin


@helper(_nrt=False)
def _clear_of(geo, piece, option, swept):
    """Whether the piece laid as option (side^2 o + anchor) covers none of the squares marked in swept."""
    squares = geo.side * geo.side
    o, a, clear = option // squares, option % squares, True
    for i in range(geo.size[piece % SHAPES]):
        clear &= not swept[a + geo.offsets[piece % SHAPES, o, i]]
    return clear


@helper(_nrt=False)
def _slide_mends(t, g, geo, w, count, bound, swept):
    """Whether one more slide, for a chip, leaves none of the pieces marked in bound (60,) parted from its colour,
    the `count` parted now being w.ids (reference.slide_mends): a piece that may slide, of their colour (it may be
    one of them, with slide_again), reaching a place against every other parted piece, parting no bound piece.
    Where it does and swept (side^2,) is not empty, the squares the slide found passes over are marked there: a
    placement clear of them leaves that slide possible, and mending (a placement only adds contacts)."""
    board, orient, anchor, start_contact = t.board, t.orient, t.anchor, t.start_contact
    side, offsets, size, extent, neighbours, masks = geo.side, geo.offsets, geo.size, geo.extent, geo.neighbours, \
        geo.masks
    ids, movable, near, occupied, fit, reach = w.ids, w.trial_movable, w.near, w.trial_occupied, w.trial_fit, \
        w.trial_reach
    if t.chips[g, t.seat] <= 0:
        return False
    _near(board, g, orient, anchor, geo, ids, count, near)
    _movable(t, g, movable)
    for piece in range(PIECES):
        if not movable[piece]:
            continue
        kin = True
        for j in range(count):
            kin &= ids[j] == piece or ids[j] // SHAPES == piece // SHAPES
        if not kin:
            continue
        shape, o, start = piece % SHAPES, orient[g, piece], np.int64(anchor[g, piece])
        height, width = extent[shape, o, 0], extent[shape, o, 1]
        _reachable(board, g, geo, piece, o, start, occupied, fit, reach)
        reach[geo.row[start]] &= ~(1 << geo.col[start])
        for row in range(side - height + 1):
            cols = reach[row]
            if cols == 0:
                continue
            for j in range(count):  # against every other parted piece, the squares beside it (near)
                if ids[j] != piece:
                    cols &= _hits(near, j, row, masks, shape, o, height)
            for col in range(side - width + 1):
                if not (cols >> col) & 1:
                    continue
                a = row * side + col
                _move(board, g, orient, anchor, offsets, size, piece, a)
                was = bound[piece]
                bound[piece] |= start_contact[g, piece]
                apart = _parted_of(board, g, orient, anchor, offsets, size, neighbours, bound, w.trial_ids)
                bound[piece] = was
                _move(board, g, orient, anchor, offsets, size, piece, start)
                if apart == 0:
                    if swept.shape[0] > 0:
                        _first_step(w.trial_seen, w.trial_queue, start, w.trial_cursor)
                        while _next_step(board, g, geo, piece, o, w.trial_seen, w.trial_queue, w.trial_from,
                                         w.trial_cursor) != a:
                            pass
                        _sweep(geo, piece, o, start, a, w.trial_from, swept)
                    return True
    return False


@helper(_nrt=False)
def _sweep(geo, piece, o, start, end, came_from, swept):
    """Mark in swept (side^2,), cleared, the squares the piece in orientation o covers on its way from anchor start
    to end (came_from: each anchor's previous one); nothing where swept is empty."""
    if swept.shape[0] == 0:
        return
    swept[:] = False
    a = end
    while True:
        for i in range(geo.size[piece % SHAPES]):
            swept[a + geo.offsets[piece % SHAPES, o, i]] = True
        if a == start:
            return
        a = came_from[a]


@helper(_nrt=False)
def _slide_ends(t, g, geo, w, piece, count):
    """Contact "turn", just after game g's piece was tried where `count` bound pieces (w.bound) are parted from
    their colour (w.ids): whether one more action mends them all -- the placement, if still to come (_mendable),
    or one more slide, this one paid for (reference.can_end)."""
    if t.to_place and _mendable(t, g, geo, count, w):
        return True
    t.chips[g, t.seat] -= 1
    t.slid[g, piece] += 1
    mends = _slide_mends(t, g, geo, w, count, w.bound, w.nowhere)
    t.chips[g, t.seat] += 1
    t.slid[g, piece] -= 1
    return mends


@helper(_nrt=False)
def _destinations(t, g, geo, w, which, found, out):
    """For each piece marked in which (60,), found[p]: how many anchors it may slide to, each marked in out
    (side^2,); with an empty out, 1 at most (the search stops at the first). A destination is reachable by unit
    steps through squares where the piece fits, not its own place, and the turn can still end legally there:
    every bound piece (slid, or this one if it started the turn against its colour) is against its colour, or
    (contact "turn") one more action can mend all that are not (_slide_ends). Where only the first is wanted,
    one that leaves every bound piece against its colour is looked for first: it needs no look ahead; nor is it
    looked for where a slid piece of another colour is parted (only a piece of its colour, coming against it, can
    mend it)."""
    must_touch, start_contact, bound = t.must_touch, t.start_contact, w.bound
    first_only = out.shape[0] == 0
    slid_bound = False
    for p in range(PIECES):
        slid_bound |= must_touch[g, p]
        bound[p] = must_touch[g, p]
    apart_colours = 0  # bit c: a slid piece of colour c is parted
    for j in range(_parted_of(t.board, g, t.orient, t.anchor, geo.offsets, geo.size, geo.neighbours, bound, w.ids)
                   if slid_bound else 0):
        apart_colours |= 1 << (w.ids[j] // SHAPES)
    looks_ahead = t.lookahead and not first_only
    for piece in range(PIECES):
        if not which[piece]:
            continue
        bound[piece] |= start_contact[g, piece]
        anything_bound = slid_bound or start_contact[g, piece]
        hopeless = not looks_ahead and apart_colours & ~(1 << (piece // SHAPES)) != 0
        found[piece] = 0 if hopeless else _reach(t, g, geo, w, piece, anything_bound, looks_ahead, out)
        if first_only and found[piece] == 0 and anything_bound and t.lookahead:
            found[piece] = _reach(t, g, geo, w, piece, anything_bound, t.lookahead, out)
        bound[piece] = must_touch[g, piece]


@helper(_nrt=False)
def _reach(t, g, geo, w, piece, anything_bound, lookahead, out):
    """_destinations for one piece, the bound pieces marked in w.bound: how many anchors it may slide to, marked in
    out (1 at most, with an empty out); a destination that parts a bound piece from its colour counts only with
    `lookahead`, where one more action can mend all that are parted (_slide_ends). The first is looked for
    breadth first, the nearest being the likeliest to keep contact; all of them by rows of anchors at once."""
    board, orient, anchor = t.board, t.orient, t.anchor
    side, extent = geo.side, geo.extent
    shape, o, start = piece % SHAPES, orient[g, piece], np.int64(anchor[g, piece])
    if out.shape[0] == 0:
        _first_step(w.seen, w.queue, start, w.cursor)
        a = _next_step(board, g, geo, piece, o, w.seen, w.queue, w.came_from, w.cursor)
        while a != EMPTY and anything_bound and not _slide_keeps(t, g, geo, w, piece, a, lookahead):
            a = _next_step(board, g, geo, piece, o, w.seen, w.queue, w.came_from, w.cursor)
        return 0 if a == EMPTY else 1
    height, width, fit, reach, occupied = extent[shape, o, 0], extent[shape, o, 1], w.fit, w.reach, w.occupied
    _reachable(board, g, geo, piece, o, start, occupied, fit, reach)
    reach[geo.row[start]] &= ~(1 << geo.col[start])
    count = 0
    for row in range(side - height + 1):
        cols = reach[row]
        for col in range(side - width + 1):
            if (cols >> col) & 1 and (not anything_bound or _slide_keeps(t, g, geo, w, piece, row * side + col,
                                                                         lookahead)):
                count += 1
                out[row * side + col] = True
    return count


@helper(_nrt=False)
def _slide_keeps(t, g, geo, w, piece, a, lookahead):
    """Whether, game g's piece slid to anchor a, every bound piece (w.bound) is against its colour, or, with
    `lookahead`, one more action can mend all that are not (_slide_ends)."""
    board, orient, anchor, offsets, size = t.board, t.orient, t.anchor, geo.offsets, geo.size
    start = np.int64(anchor[g, piece])
    _move(board, g, orient, anchor, offsets, size, piece, a)
    apart = _parted_of(board, g, orient, anchor, offsets, size, geo.neighbours, w.bound, w.ids)
    ends = apart == 0 or (lookahead and _slide_ends(t, g, geo, w, piece, apart))
    _move(board, g, orient, anchor, offsets, size, piece, start)
    return ends


@kernel
def slide_mask(t, asked, geo):
    """(B, 61): the pieces the mover may slide now (slides_of), and STOP (column 60)."""
    batch = t.board.shape[0]
    legal = np.zeros((batch, PIECES + 1), np.bool_)
    which, found, nowhere, w = np.zeros(PIECES, np.bool_), np.zeros(PIECES, np.int64), np.zeros(0, np.bool_), \
        _scratch(geo.side)
    for g in range(batch):
        slides_of(t, g, asked[g], geo, w, which, found, nowhere, legal)
    return legal


@helper(_nrt=False)
def slides_of(t, g, asked, geo, w, which, found, nowhere, legal):
    """Sliding Shapes: into legal[g] (61,), cleared, game g's pieces the mover may slide now, if asked (a chip
    left, not slid this turn unless `again`, not just placed unless `slide_placed`, somewhere to go), and STOP
    (column 60) unless the turn may not end so (must_slide). (The whole mask and a game, not a row view: a view
    costs a reference count per game.)"""
    for p in range(PIECES):
        legal[g, p] = False
    legal[g, PIECES] = not must_slide(t, g, geo, w)
    if asked and t.chips[g, t.seat] > 0:
        _movable(t, g, which)
        _destinations(t, g, geo, w, which, found, nowhere)
        for p in range(PIECES):
            legal[g, p] = which[p] and found[p] > 0


@helper(_nrt=False)
def must_slide(t, g, geo, w):
    """Whether game g's mover may not stop sliding: the placement is made and a slid piece is still parted from
    its colour (contact "turn": a slide is then always left to mend it)."""
    return not t.to_place and _parted_of(t.board, g, t.orient, t.anchor, geo.offsets, geo.size, geo.neighbours,
                                         t.must_touch[g], w.ids) > 0


@helper(inline="always", _nrt=False)
def _movable(t, g, into):
    """into[p]: whether game g's piece p may slide this turn, wherever it could go: on the board, not slid this
    turn unless `again`, not just placed unless `slide_placed`."""
    orient, slid, placed = t.orient, t.slid, t.placed  # once: numba counts a reference at every use of a tuple's
    for p in range(PIECES):
        into[p] = orient[g, p] >= 0 and (t.again or slid[g, p] == 0) and (t.slide_placed or p != placed[g])


@helper(_nrt=False)
def may_slide(t, g, geo, w, which, found, movable, nowhere):
    """Whether slides_of would offer game g's mover some piece (asked): the search stops at the first. movable:
    (60,) scratch."""
    if t.chips[g, t.seat] <= 0:
        return False
    _movable(t, g, movable)
    for p in range(PIECES):
        if movable[p]:
            destinations_of(t, g, p, geo, w, which, found, nowhere)
            if found[p] > 0:
                return True
    return False


@kernel
def destinations(t, pieces, geo):
    """(B, side^2) bool: where each game's piece (pieces[g], -1: none) may slide to."""
    batch = t.board.shape[0]
    legal = np.zeros((batch, geo.side * geo.side), np.bool_)
    which, found, w = np.zeros(PIECES, np.bool_), np.zeros(PIECES, np.int64), _scratch(geo.side)
    for g in range(batch):
        if pieces[g] >= 0:
            destinations_of(t, g, pieces[g], geo, w, which, found, legal[g])
    return legal


@helper(_nrt=False)
def destinations_of(t, g, piece, geo, w, which, found, legal):
    """Sliding Shapes: marks in legal (side^2,), cleared, where game g's piece may slide to."""
    which[:] = False
    which[piece] = True
    _destinations(t, g, geo, w, which, found, legal)


@kernel
def place(board, orient, anchor, owner, start_contact, pieces, options, from_placement, geo):
    """Lay each game's piece (pieces[g] >= 0) as options[g] = side^2 o + anchor (in place)."""
    for g in range(board.shape[0]):
        if pieces[g] >= 0:
            place_one(board, orient, anchor, owner, start_contact, g, pieces[g], options[g], from_placement, geo)


@helper(_nrt=False)
def place_one(board, orient, anchor, owner, start_contact, g, p, option, from_placement, geo):
    """Placing Shapes: lay game g's piece p as option = side^2 o + anchor (in place)."""
    squares = geo.side * geo.side
    o, a = option // squares, option % squares
    _lay(board, g, geo.offsets, geo.size, p % SHAPES, o, a, p)
    orient[g, p], anchor[g, p], owner[g, p] = o, a, -1
    if from_placement:  # it "starts the turn" where it was placed
        start_contact[g, p] = _touches_own(board, g, orient, anchor, geo.offsets, geo.size, geo.neighbours, p)


@kernel
def slide(t, pieces, targets, geo):
    """Slide each game's piece (pieces[g] >= 0) to targets[g], for a chip (in place, in t's arrays)."""
    for g in range(t.board.shape[0]):
        if pieces[g] >= 0:
            slide_one(t, g, pieces[g], targets[g], geo)


@helper(_nrt=False)
def slide_one(t, g, p, target, geo):
    """Sliding Shapes: slide game g's piece p to target, for a chip (in place, in t's arrays); it is bound to end
    the turn against its colour if it started the turn so."""
    _move(t.board, g, t.orient, t.anchor, geo.offsets, geo.size, p, target)
    t.chips[g, t.seat] -= 1
    t.slid[g, p] += 1
    t.must_touch[g, p] |= t.start_contact[g, p]


@kernel
def keep(stacks, spaces, seat, stack, options, asked):
    """Take tile `options // 5` of the stack looked through onto space `options % 5`; the rest close up, in
    order (in place)."""
    for g in range(stacks.shape[0]):
        if asked[g]:
            keep_one(stacks, spaces, g, seat, stack[g], options[g])


@helper(_nrt=False)
def keep_one(stacks, spaces, g, seat, s, option):
    """Drawing target tiles: game g's tile `option // 5` of stack s onto space `option % 5`; the rest close up."""
    index, space = option // 5, option % 5
    spaces[g, seat, space] = stacks[g, s, index]
    for i in range(index, stacks.shape[2] - 1):
        stacks[g, s, i] = stacks[g, s, i + 1]
    stacks[g, s, stacks.shape[2] - 1] = -1


@kernel
def block_labels(board, orient, anchor, geo, games):
    """Blocks (same-coloured pieces joined by shared edges) of the games marked in games (B,): label (B, 60),
    the lowest piece id of each piece's block (-1 off the board), and members (B, 60), each block's size at
    its label (0 elsewhere)."""
    label = np.full((board.shape[0], PIECES), -1, np.int64)
    members = np.zeros((board.shape[0], PIECES), np.int64)
    stack = np.empty(PIECES, np.int64)
    for g in range(board.shape[0]):
        if games[g]:
            blocks_of(board, orient, anchor, geo, g, label[g], members[g], stack)
    return label, members


@helper
def blocks_of(board, orient, anchor, geo, g, label, members, stack):
    """block_labels of game g, into its rows label and members (60,), which it sets whole; stack is scratch (60,)."""
    offsets, size, neighbours = geo.offsets, geo.size, geo.neighbours
    label[:] = -1
    members[:] = 0
    for first in range(PIECES):
        if orient[g, first] < 0 or label[first] >= 0:
            continue
        label[first] = first
        stack[0], top = first, 1
        while top > 0:
            top -= 1
            p = stack[top]
            members[first] += 1
            for i in range(size[p % SHAPES]):
                for k in range(4):
                    n = neighbours[anchor[g, p] + offsets[p % SHAPES, orient[g, p], i], k]
                    if n >= 0:
                        q = board[g, n]
                        if q >= 0 and q // SHAPES == first // SHAPES and label[q] < 0:
                            label[q] = first
                            stack[top] = q
                            top += 1


def blocks(board, orient, anchor, geo) -> np.ndarray:
    """(B, 60): each block's size at its lowest piece id, 0 elsewhere. block_labels is handed read-only views, as
    the strategies hand it theirs, so that it compiles once: numba types a read-only array apart."""
    every = np.ones(len(board), np.bool_)
    return block_labels(*(read_only(array) for array in (board, orient, anchor)), geo, read_only(every))[1]


@kernel
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


@kernel
def start_turn(board, orient, anchor, geo, looked, slid, start_contact, must_touch, placed, chosen, stopped):
    """A turn begins in every game (in place)."""
    for g in range(board.shape[0]):
        start_turn_of(board, g, orient, anchor, geo, looked, slid, start_contact, must_touch, placed, chosen, stopped)


@helper(_nrt=False)
def start_turn_of(board, g, orient, anchor, geo, looked, slid, start_contact, must_touch, placed, chosen, stopped):
    """A turn begins in game g: which pieces start it against their own colour (Sliding Shapes), and nothing
    looked at, slid, placed or chosen yet."""
    touching_own_of(board, g, orient, anchor, geo.offsets, geo.size, geo.neighbours, start_contact[g])
    looked[g], placed[g], chosen[g], stopped[g] = False, -1, -1, False
    slid[g, :] = 0
    must_touch[g, :] = False


@helper(_nrt=False)
def asks_look(looked, spaces, stacks, g, seat):
    """Drawing target tiles: game g's mover may look through a stack once a turn, with a free space on its score
    board and a stack not empty."""
    if looked[g]:
        return False
    free = False
    for space in range(spaces.shape[2]):
        free |= spaces[g, seat, space] < 0
    offered = False
    for s in range(stacks.shape[1]):
        offered |= stacks[g, s, 0] >= 0
    return free and offered


@kernel
def look_asked(looked, spaces, stacks, seat):
    """(B,) the games whose mover may look (asks_look)."""
    out = np.zeros(len(looked), np.bool_)
    for g in range(len(looked)):
        out[g] = asks_look(looked, spaces, stacks, g, seat)
    return out


@helper(_nrt=False)
def looks_of(stacks, g, legal):
    """legal (5,): the stacks of game g that may be looked through, those not empty."""
    for s in range(stacks.shape[1]):
        legal[s] = stacks[g, s, 0] >= 0


@kernel
def look_mask(stacks, asked):
    """(B, 6): the stacks the games asked may look through (looks_of), and no look (column 5) everywhere."""
    batch, count = stacks.shape[0], stacks.shape[1]
    legal = np.zeros((batch, count + 1), np.bool_)
    for g in range(batch):
        legal[g, count] = True
        if asked[g]:
            looks_of(stacks, g, legal[g])
    return legal


@helper(_nrt=False)
def look_at(seen, first_look, stacks, g, seat, stack, turn):
    """Drawing target tiles: game g's mover looks through a stack; it remembers where each tile it saw lay, that
    a tile it saw there before is gone (GONE), and the turn of its first look."""
    for tile in range(seen.shape[2]):
        if seen[g, seat, tile] == stack:
            seen[g, seat, tile] = GONE
    for i in range(stacks.shape[2]):
        tile = stacks[g, stack, i]
        if tile >= 0:
            seen[g, seat, tile] = stack
    if first_look[g, seat] < 0:
        first_look[g, seat] = turn


@kernel
def look(seen, first_look, stacks, seat, choices, turn, games):
    """The looks of the games marked in games, at stacks choices (in place)."""
    for g in range(len(games)):
        if games[g]:
            look_at(seen, first_look, stacks, g, seat, choices[g], turn)


@helper(_nrt=False)
def keeps_of(stacks, spaces, g, seat, stack, legal):
    """legal (30,): tile i of the stack looked through onto free space j of the mover's score board, 5 i + j."""
    count = spaces.shape[2]
    for i in range(stacks.shape[2]):
        for j in range(count):
            legal[count * i + j] = stacks[g, stack, i] >= 0 and spaces[g, seat, j] < 0


@kernel
def keep_mask(stacks, spaces, seat, chosen, asked):
    """(B, 30): the keeps of the games asked (keeps_of), of the stack each chose."""
    legal = np.zeros((stacks.shape[0], stacks.shape[2] * spaces.shape[2]), np.bool_)
    for g in range(stacks.shape[0]):
        if asked[g]:
            keeps_of(stacks, spaces, g, seat, max(chosen[g], 0), legal[g])
    return legal


@helper(_nrt=False)
def discard_one(owner, discards, g, seat, piece):
    """Placing Shapes: a player must always play (or discard) a shape; a discarded one leaves the game."""
    owner[g, piece] = -1
    discards[g, seat] += 1


@kernel
def discard(owner, discards, seat, choices, games):
    """The discards (choice DISCARD + piece) of the games marked in games (in place)."""
    for g in range(len(games)):
        if games[g]:
            discard_one(owner, discards, g, seat, choices[g] - DISCARD)
