"""How Witkacy's layings are valued, compiled: the kernels of the completer and its kin (strategies/witkacy.py, whose
docstring tells the valuation) and of their compiled playout (sim/witkacy/playout.py), here beside the engine they
read, since strategies import the engine and not the other way round.

The per-collection helpers are compiled without numba's runtime (sim/witkacy/fast.py tells why).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from sim.kernel import ZERO, helper, kernel
from sim.witkacy import fast
from sim.witkacy.fast import MARGIN
from sim.witkacy.rules import MAX_STACK, WINDOW

COPY = 100.0  # a completed painting's worth against a three-quarter block's
ROW_SALT, COL_SALT = np.int64(-1), np.int64(-2)  # _jitter's, for a random spot (numpy scalars: sim/kernel.py)
NO_OPTION = -1  # a plan's where or z where no laying was found: answered at random
SEARCHED = 3  # the hand's places looked at, with the display's cards, at the Search, where a hand holds 2 cards
# at most (3, not 2: the faces' numbering seeds the tie-breakers)
HELPS = 0.5  # values are whole numbers plus a tie-breaker under 0.5: a value >= 1 helps, one < 0.5 does not
ANY_FACE, NO_PLAN = -1, -2  # what a laying plan lays: whatever card is laid (a Gift's plan); no plan made yet


class Board(NamedTuple):
    """The collections a laying is sought in."""

    stack: np.ndarray  # (B, P, 55, 4): each collection bottom to top as (card, side, row, col)
    size: np.ndarray  # (B, P)
    cards: np.ndarray  # (55, 2, 2, 2): every card's fragments


class Wanted(NamedTuple):
    """What `layings` looks for, in each of n games."""

    games: np.ndarray  # (n,): the game's place in the batch
    owner: np.ndarray  # (n,): the collection laid into
    faces: np.ndarray  # (n, K, 2, 2): the faces to lay, -1 where absent
    correction: np.ndarray  # (n,): whether the laying may lie entirely on or under the collection
    weight: np.ndarray  # (n, 5): each painting's worth w
    seeds: np.ndarray  # (n,): the tie-breakers' seeds
    need: int  # cells a laying must share with the collection: 1, or 2 (the Advanced Variant)
    by_card: bool  # Correction is needed only in the very place of a card (entirely = 'card'), else wherever all 4
    # cells are covered
    sign: float  # 1: the owner's gain is sought; -1: its loss (a Gift)
    candidates: bool  # try the candidates (else only a laying picked evenly)
    neutral: bool  # where no face gains, lay each where and at a stack position picked evenly


class Found(NamedTuple):
    """The best laying of each game's faces: without Correction in slot 0, with it in slot 1."""

    value: np.ndarray  # (n, K, 2): its worth, -inf where none
    plan: np.ndarray  # (n, K, 2, 2): its where option and z


class Painted(NamedTuple):
    """One collection painted into the scratch grids (fast.paint), and scratch rows for the search."""

    code: np.ndarray  # (GRID, GRID): each cell's visible fragment, -1 uncovered
    top: np.ndarray  # (GRID, GRID): the stack position of the card that shows there, -1
    work: np.ndarray  # (4, 9): scratch rows
    rows: int  # the extent of the collection's anchors
    cols: int
    n: int  # its cards
    collection: np.ndarray  # (55, 4): its cards, bottom to top
    r0: int  # its smallest row and col: grid cell (r, c) is the table's (r + r0 - MARGIN, c + c0 - MARGIN)
    c0: int


class Candidate(NamedTuple):
    """Face k of game g laid with its top-left cell at grid (gr, gc), tried from the block at (br, bc) for painting
    p (p = -1: from no block)."""

    g: int
    k: int
    gr: int
    gc: int
    br: int
    bc: int
    p: int


@helper(_nrt=False)
def _in_place(a, b, c, d, p):
    return (a == 4 * p) + (b == 4 * p + 1) + (c == 4 * p + 2) + (d == 4 * p + 3)


@kernel(_nrt=False)
def _block(code, r, c, weight):
    """(the painting the block at (r, c) completes, or -1; its worth): a completed painting COPY * w, three of a
    painting's quarters in place w (three in place include the first or the second cell)."""
    a, b, d, e = code[r, c], code[r, c + 1], code[r + 1, c], code[r + 1, c + 1]
    if a >= 0 and a % 4 == 0 and _in_place(a, b, d, e, a // 4) == 4:
        return a // 4, COPY * weight[a // 4]
    if a >= 0 and a % 4 == 0 and _in_place(a, b, d, e, a // 4) == 3:
        return -1, weight[a // 4]
    if b >= 0 and b % 4 == 1 and _in_place(a, b, d, e, b // 4) == 3:
        return -1, weight[b // 4]
    return -1, 0.0


@helper(_nrt=False)
def _around(code, gr, gc, weight, painting):
    """The 9 blocks' worth; painting[k] the painting complete in block k, or -1."""
    total = 0.0
    for k in range(9):
        painting[k], worth = _block(code, gr - 1 + k // 3, gc - 1 + k % 3, weight)
        total += worth
    return total


@helper(_nrt=False)
def _jitter(seed, a, b):
    """A tie-breaker in [0, 0.5) from a game's seed and an option, so that equal values are picked evenly."""
    x = np.uint64(seed) ^ (np.uint64(a) * np.uint64(0x9E3779B97F4A7C15))
    x ^= np.uint64(b) * np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(31)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(29)
    return (x >> np.uint64(11)) * (0.5 / 2.0**53)


@kernel
def layings(board, wanted, found):
    """For each game g (of the batch: wanted.games[g]) and face k, the best laying into collection owner[g]:
    value[g, k, 0] and plan[g, k, 0] (its where option and z) without Correction, value[g, k, 1] and plan[g, k, 1]
    with it where correction[g]; value -inf where the face is absent (`found`; the other names are `wanted`'s).

    Only candidates are tried, yet the best is found. A gain (sign 1) needs a block that shows, after the card, 3
    or 4 quarters of one painting in place: the card brings 1 of them (2 with a whole half), so the block already
    shows the rest (`votes`); a laying is tried from each block where it would gain. A loss to the owner (sign -1,
    a Gift) needs the card over a cell of a three-quarter block, and is tried from each such block. Any other
    laying changes nothing or loses. With `neutral`, where no face gains without Correction, each face is laid
    where and at a stack position picked evenly (_anywhere), so that equal worth goes to a laying picked evenly, not
    to a candidate that gains nothing. Otherwise a face that gains nothing keeps value -inf. Without `candidates`
    only that laying picked evenly is tried."""
    code, top = fast.scratch_grids()
    paintings = wanted.weight.shape[1]
    votes = np.zeros((fast.GRID, fast.GRID, paintings, 2), np.int8)
    marked = np.zeros((fast.GRID, fast.GRID), np.bool_)
    voted = np.empty((4 * MAX_STACK, 2), np.int64)
    support = np.empty((4, paintings, 4 * MAX_STACK), np.int64)  # blocks that may gain, by painting (_supports)
    supported = np.empty((4, paintings), np.int64)
    lay_each(board, wanted, found, code, top, votes, marked, voted, support, supported, np.empty((4, 9), np.int64))


@helper(_nrt=False)
def lay_each(board, wanted, found, code, top, votes, marked, voted, support, supported, work):
    """layings' loop, given its scratch arrays. Compiled without numba's runtime, it counts no references to the
    named tuples' arrays and the rows it takes (as in sim/witkacy/fast.py): they were a fifth of completer's time."""
    games, owner, faces, _, weight, seeds, need, _, sign, candidates, neutral = wanted
    value = found.value
    paintings = weight.shape[1]
    for g in range(len(owner)):
        o = owner[g]
        n = board.size[games[g], o]
        collection = board.stack[games[g], o]
        r0, c0, rows, cols = fast.paint(collection, n, board.cards, code, top)
        painted = Painted(code, top, work, rows, cols, n, collection, r0, c0)
        count = _vote(collection, n, r0, c0, code, top, votes, marked, voted) if candidates else 0
        _supports(votes, voted, count, support, supported)
        for k in range(faces.shape[1]):
            value[g, k, 0], value[g, k, 1] = -np.inf, -np.inf
            if faces[g, k, 0, 0] < 0 or not candidates:
                continue
            if sign < 0:  # a cell of a three-quarter block covered
                for p in range(paintings):
                    for i in range(supported[3, p]):
                        v = support[3, p, i]
                        for corner in range(9):
                            _try(Candidate(g, k, voted[v, 0] - 1 + corner // 3, voted[v, 1] - 1 + corner % 3,
                                           voted[v, 0], voted[v, 1], p), painted, wanted, found)
                continue
            for j in range(4):  # face cell j in place in a block that shows enough of its painting
                f = faces[g, k, j // 2, j % 2]
                p, q = f // 4, f % 4
                half = faces[g, k, j // 2, 1 - j % 2] == f + (1 if j % 2 == 0 else -1) and q % 2 == j % 2
                if half and j % 2 == 1:
                    continue  # a half is tried from its left quarter
                level = q // 2 if half else 2
                for i in range(supported[level, p]):
                    v = support[level, p, i]
                    _try(Candidate(g, k, voted[v, 0] + q // 2 - j // 2, voted[v, 1] + q % 2 - j % 2, voted[v, 0],
                                   voted[v, 1], p), painted, wanted, found)
        gains = False
        for k in range(faces.shape[1]):
            gains |= value[g, k, 0] >= 1
        if neutral and not gains:  # no face gains: one laying picked evenly, for each
            anywhere = _random_spot(top, rows, cols, need, seeds[g])
            for k in range(faces.shape[1]):
                if faces[g, k, 0, 0] >= 0:
                    _anywhere(Candidate(g, k, anywhere // fast.GRID, anywhere % fast.GRID, -1, -1, -1), painted,
                              wanted, found)
        for v in range(count):
            votes[voted[v, 0], voted[v, 1]] = 0
            marked[voted[v, 0], voted[v, 1]] = False
        fast.wipe(collection, n, r0, c0, code, top)


@helper(_nrt=False)
def _supports(votes, voted, count, support, supported):
    """support[level, p]: the voted blocks (indices into voted) short of complete where painting p may gain: level
    0, an upper half (a front's) needs one of p's lower quarters in place; level 1, a lower half one of its upper
    quarters; level 2, a single quarter two others; level 3 lists the three-quarter blocks."""
    supported[:] = 0
    for v in range(count):
        for p in range(votes.shape[2]):
            upper, lower = votes[voted[v, 0], voted[v, 1], p, 0], votes[voted[v, 0], voted[v, 1], p, 1]
            shown = upper + lower
            if shown == 0 or shown == 4:
                continue
            for level, gains in enumerate((lower >= 1, upper >= 1, shown >= 2, shown == 3)):
                if gains:
                    support[level, p, supported[level, p]] = v
                    supported[level, p] += 1


@helper(_nrt=False)
def _vote(stack, n, r0, c0, code, top, votes, marked, voted):
    """Each showing cell's fragment votes for the block where it would be in place, under its painting and the
    block's row it belongs in; the blocks voted for are listed in `voted`. Returns how many."""
    count = 0
    for i in range(n):
        gr, gc = stack[i, 2] - r0 + MARGIN, stack[i, 3] - c0 + MARGIN
        for j in range(4):
            r, c = gr + j // 2, gc + j % 2
            if top[r, c] != i:
                continue
            f = code[r, c]
            br, bc = r - f % 4 // 2, c - f % 4 % 2
            if not marked[br, bc]:
                marked[br, bc] = True
                voted[count, 0], voted[count, 1] = br, bc
                count += 1
            votes[br, bc, f // 4, f % 4 // 2] += 1
    return count


@helper(_nrt=False)
def _overlap(top, gr, gc, rows, cols):
    """How many cells a card at grid (gr, gc) shares with the collection."""
    if gr < MARGIN - 1 or gc < MARGIN - 1 or gr > MARGIN + rows or gc > MARGIN + cols:
        return 0
    shared = 0
    for j in range(4):
        shared += top[gr + j // 2, gc + j % 2] >= 0
    return shared


@helper(_nrt=False)
def _random_spot(top, rows, cols, need, seed):
    """A cell where the overlap rule lets a card go without Correction (grid row * GRID + col), picked evenly by
    the seed: drawn among the cells around the collection until one fits (most do), or else counted out."""
    for attempt in range(32):
        gr = MARGIN - 1 + int(_jitter(seed, attempt, ROW_SALT) * 2 * (rows + 2))
        gc = MARGIN - 1 + int(_jitter(seed, attempt, COL_SALT) * 2 * (cols + 2))
        if need <= _overlap(top, gr, gc, rows, cols) < 4:
            return gr * fast.GRID + gc
    count, nth = 0, -1
    for _ in range(2):  # count them, then find the nth
        for gr in range(MARGIN - 1, MARGIN + rows + 1):
            for gc in range(MARGIN - 1, MARGIN + cols + 1):
                if need <= _overlap(top, gr, gc, rows, cols) < 4:
                    if nth == 0:
                        return gr * fast.GRID + gc
                    count += 1
                    nth -= 1
        nth = int(_jitter(seed, ROW_SALT, ROW_SALT) * 2 * count)
    return -1


@helper(_nrt=False)
def _change(code, top, face, gr, gc, start, weight, before, painting, after_p, old):
    """(worth after minus before, broken): the face laid at (gr, gc) from stack position `start`; broken if a
    completed painting around (painting, 9) would not be complete after. The grid is restored."""
    for j in range(4):
        old[j] = code[gr + j // 2, gc + j % 2]
        if top[gr + j // 2, gc + j % 2] < start:
            code[gr + j // 2, gc + j % 2] = face[j // 2, j % 2]
    after = _around(code, gr, gc, weight, after_p)
    for j in range(4):
        code[gr + j // 2, gc + j % 2] = old[j]
    broken = False
    for b in range(9):
        broken |= painting[b] >= 0 and after_p[b] != painting[b]
    return after - before, broken


@helper(_nrt=False)
def _keep(g, k, first, v, spot, starts, i, count, n, seeds, value, plan):
    """Keep a laying worth v (with its tie-breaker) in the slots from `first` on where it is the best so far: its
    where option, and a stack position picked evenly within its range."""
    last = starts[i + 1] - 1 if i + 1 < count else n
    for slot in range(first, 2):
        if v > value[g, k, slot]:
            value[g, k, slot], plan[g, k, slot, 0] = v, spot
            plan[g, k, slot, 1] = starts[i] + int(_jitter(seeds[g], spot, k) * 2 * (last - starts[i] + 1))


@helper(inline="always")  # inlined: a call passing named tuples of arrays cost 16%
def _try(at, painted, wanted, found):
    """The candidate `at`, if the overlap rule allows (lying entirely on or under the collection only with
    correction[g]): each range of stack positions that shows the same cells, the best kept in `found` as _layings
    tells. A candidate from the block at (br, bc) (p >= 0) counts only where it changes that block the right way:
    painting p shown there 3 or 4 times (sign 1; 4 for a card lying entirely on the collection, which only
    Correction allows and which is wanted only to complete a painting), or fewer (sign -1). A card lies entirely
    on the collection where all 4 of its cells are covered, or with `by_card` only in the very place of a card."""
    g, k, gr, gc, br, bc, p = at
    shared = _overlap(painted.top, gr, gc, painted.rows, painted.cols)
    whole = shared == 4 and (not wanted.by_card or fast.on_a_card(painted.collection, painted.n, gr - MARGIN +
                                                                  painted.r0, gc - MARGIN + painted.c0))
    if shared < wanted.need or (whole and not wanted.correction[g]):
        return
    code, top, work, n = painted.code, painted.top, painted.work, painted.n
    faces, weight, seeds, sign = wanted.faces, wanted.weight, wanted.seeds, wanted.sign
    value, plan = found
    enough = 4 if whole else 3
    if p >= 0 and sign > 0 and _at_most(code, faces[g, k], gr, gc, br, bc, p) < enough:
        return
    painting, after_p, starts, old = work[0], work[1], work[2], work[3]
    count = _depth_starts(top, gr, gc, starts)
    spot = (gr - MARGIN + 1) * WINDOW + gc - MARGIN + 1
    before = np.nan
    for i in range(count):
        if p >= 0 and (_shown_after(code, top, faces[g, k], gr, gc, starts[i], br, bc, p) >= enough) != (sign > 0):
            continue
        if before != before:
            before = _around(code, gr, gc, weight[g], painting)
        change, broken = _change(code, top, faces[g, k], gr, gc, starts[i], weight[g], before, painting, after_p, old)
        if broken or (p >= 0 and sign * change < 1):
            continue
        v = sign * change + _jitter(seeds[g], k * WINDOW * WINDOW + spot, starts[i])
        _keep(g, k, 1 if whole else 0, v, spot, starts, i, count, n, seeds, value, plan)


@helper(inline="always")  # inlined: a call passing named tuples of arrays cost 16%
def _anywhere(at, painted, wanted, found):
    """The candidate `at`, where the overlap rule allows it without Correction: a range of stack positions picked
    evenly, or z = 0 where that one loses worth (slid under everything, the card covers nothing that shows, so it
    loses nothing). Kept in both slots of `found`."""
    g, k, gr, gc = at.g, at.k, at.gr, at.gc
    code, top, work, n = painted.code, painted.top, painted.work, painted.n
    faces, weight, seeds = wanted.faces, wanted.weight, wanted.seeds
    value, plan = found
    painting, after_p, starts, old = work[0], work[1], work[2], work[3]
    count = _depth_starts(top, gr, gc, starts)
    spot = (gr - MARGIN + 1) * WINDOW + gc - MARGIN + 1
    before = _around(code, gr, gc, weight[g], painting)
    i = int(_jitter(seeds[g], spot, -1 - k) * 2 * count)
    change, broken = _change(code, top, faces[g, k], gr, gc, starts[i], weight[g], before, painting, after_p, old)
    if broken or change < 0:
        i = 0
        change, _ = _change(code, top, faces[g, k], gr, gc, ZERO, weight[g], before, painting, after_p, old)
    _keep(g, k, ZERO, change + _jitter(seeds[g], k * WINDOW * WINDOW + spot, starts[i]), spot, starts, i, count,
          n, seeds, value, plan)


@helper(_nrt=False)
def _at_most(code, face, gr, gc, br, bc, p):
    """The most quarters of painting p the block at (br, bc) can show in place with the face at (gr, gc), whatever
    its stack position: each cell in place now, or in place on the card where the card covers it."""
    shown = 0
    for s in range(4):
        r, c = br + s // 2, bc + s % 2
        on_card = 0 <= r - gr < 2 and 0 <= c - gc < 2
        shown += code[r, c] == 4 * p + s or (on_card and face[r - gr, c - gc] == 4 * p + s)
    return shown


@helper(_nrt=False)
def _shown_after(code, top, face, gr, gc, start, br, bc, p):
    """How many quarters of painting p the block at (br, bc) shows in place once the face lies at (gr, gc) from
    stack position `start`."""
    shown = 0
    for s in range(4):
        r, c = br + s // 2, bc + s % 2
        f = code[r, c]
        if 0 <= r - gr < 2 and 0 <= c - gc < 2 and top[r, c] < start:
            f = face[r - gr, c - gc]
        shown += f == 4 * p + s
    return shown


@helper(_nrt=False)
def _depth_starts(top, gr, gc, starts):
    """The smallest z of each range of stack positions that shows the same cells of a card at (gr, gc): 0, and
    one above each covering card. Returns how many, sorted into starts."""
    count = 1
    starts[0] = 0
    for j in range(4):
        t = top[gr + j // 2, gc + j % 2] + 1
        at = count
        while at > 0 and starts[at - 1] > t:  # insertion, keeping them sorted and distinct
            at -= 1
        if t <= 0 or starts[at - 1] == t:
            continue
        for i in range(count, at, -1):
            starts[i] = starts[i - 1]
        starts[at] = t
        count += 1
    return count


@kernel
def removal_values(stack, size, games, owner, weight, cards, out):
    """out[g, i]: the change in worth of collection owner[g] of game games[g] without its card i, where Solvent may
    remove it (left as it was elsewhere)."""
    code, top = fast.scratch_grids()
    painting, after_p, new = np.empty(9, np.int64), np.empty(9, np.int64), np.empty(4, np.int8)
    old = np.empty(4, np.int8)
    for g in range(len(owner)):
        o = owner[g]
        n = size[games[g], o]
        collection = stack[games[g], o]
        if n < 2:
            continue
        r0, c0, _, _ = fast.paint(collection, n, cards, code, top)
        for i in range(n):
            gr, gc = collection[i, 2] - r0 + MARGIN, collection[i, 3] - c0 + MARGIN
            fast.beneath(collection, i, r0, c0, cards, top, new)
            before = _around(code, gr, gc, weight[g], painting)
            for j in range(4):
                old[j] = code[gr + j // 2, gc + j % 2]
                if new[j] != -2:
                    code[gr + j // 2, gc + j % 2] = new[j]
            after = _around(code, gr, gc, weight[g], after_p)
            for j in range(4):
                code[gr + j // 2, gc + j % 2] = old[j]
            broken = False
            for b in range(9):
                broken |= painting[b] >= 0 and after_p[b] != painting[b]
            if not broken:
                out[g, i] = after - before
        fast.wipe(collection, n, r0, c0, code, top)
