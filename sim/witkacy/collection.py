"""Witkacy's collections, one game at a time and written to be read: where cards lie, what shows, which
paintings are complete, which placements and removals the rules allow, and the score.

A collection is a stack of placed cards, bottom to top: (card, side, row, col), the card covering cells (row,
col) to (row + 1, col + 1) of an unbounded grid. A cell shows the fragment of the topmost card covering it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from sim.witkacy.rules import PAINTINGS


class Placed(NamedTuple):
    card: int
    side: int  # 0 front, 1 back
    row: int
    col: int


Collection = list[Placed]  # bottom to top


def cells(placed: Placed) -> list[tuple[int, int]]:
    return [(placed.row + r, placed.col + c) for r in range(2) for c in range(2)]


def visible(collection: Collection, cards: np.ndarray) -> dict[tuple[int, int], int]:
    """Each covered cell's fragment code, from the topmost card covering it."""
    shown = {}
    for placed in collection:  # bottom to top: later cards cover earlier ones
        for r in range(2):
            for c in range(2):
                shown[(placed.row + r, placed.col + c)] = int(cards[placed.card, placed.side, r, c])
    return shown


def copies(collection: Collection, cards: np.ndarray) -> list[tuple[int, int, int]]:
    """The completed paintings: (painting, row, col) for each 2 x 2 block of visible cells (r, c) .. (r + 1, c + 1)
    showing P.UL, P.UR, P.LL and P.LR."""
    shown = visible(collection, cards)
    found = []
    for (r, c), code in sorted(shown.items()):
        if code % 4 == 0:  # an upper-left quarter
            p = code // 4
            if (shown.get((r, c + 1)), shown.get((r + 1, c)), shown.get((r + 1, c + 1))) == (4 * p + 1, 4 * p + 2,
                                                                                              4 * p + 3):
                found.append((p, r, c))
    return found


def copies_by_painting(collection: Collection, cards: np.ndarray) -> list[int]:
    counts = [0] * len(PAINTINGS)
    for painting, _, _ in copies(collection, cards):
        counts[painting] += 1
    return counts


def covered(collection: Collection) -> set[tuple[int, int]]:
    return {cell for other in collection for cell in cells(other)}


def may_add(collection: Collection, placed: Placed, advanced: bool, correction: bool,
            taken: set[tuple[int, int]] | None = None, entirely: str = "collection") -> bool:
    """Collection Expansion: the card overlaps the collection (advanced: at least 2 of its 4 cells), but does
    not lie entirely on or under it, unless Correction allows that this turn: on or under all its cards together,
    all 4 cells already covered (entirely = 'collection'), or on or under a single card, in its very place
    ('card'). Its place in the stack is free. `taken`: the collection's covered cells, when already known."""
    shared = sum(cell in (covered(collection) if taken is None else taken) for cell in cells(placed))
    if entirely == "card":
        whole = any((p.row, p.col) == (placed.row, placed.col) for p in collection)
    else:
        whole = shared == 4
    return shared >= (2 if advanced else 1) and (not whole or correction)


def corner(collection: Collection) -> tuple[int, int]:
    """The smallest row and the smallest col of the collection's cards."""
    return min(p.row for p in collection), min(p.col for p in collection)


def spots(collection: Collection, advanced: bool, correction: bool,
          entirely: str = "collection") -> list[tuple[int, int]]:
    """Where a card may go, as its top-left cell (row, col), by the overlap rule: every cell whose card would share
    a cell with the collection. Neither the card, its side nor its place in the stack matters."""
    top, left = corner(collection)
    bottom, right = max(p.row for p in collection), max(p.col for p in collection)
    taken = covered(collection)
    return [(row, col) for row in range(top - 1, bottom + 2) for col in range(left - 1, right + 2)
            if may_add(collection, Placed(-1, 0, row, col), advanced, correction, taken, entirely)]


def added(collection: Collection, placed: Placed, z: int) -> Collection:
    return [*collection[:z], placed, *collection[z:]]


def keeps_copies(before: Collection, after: Collection, cards: np.ndarray, complete=None) -> bool:
    """Every copy complete before (`complete`, when already known) is still complete after: the same painting
    at the same place."""
    return set(copies(before, cards) if complete is None else complete) <= set(copies(after, cards))


def depths(collection: Collection, placed: Placed, cards: np.ndarray, keep: bool) -> Iterator[int]:
    """The places in the stack a card may take: z = 0 slides it under everything, len(collection) lays it on top,
    anything between puts it between two cards. With `keep` (a Gift) only those that leave every completed
    painting complete."""
    complete = copies(collection, cards) if keep else None
    return (z for z in range(len(collection) + 1)
            if not keep or keeps_copies(collection, added(collection, placed, z), cards, complete))


def removals(collection: Collection, cards: np.ndarray) -> Iterator[int]:
    """Solvent: the stack positions of the cards that may be removed: the collection keeps at least one card and
    every completed painting stays complete."""
    complete = copies(collection, cards) if len(collection) > 1 else []
    return (i for i in range(len(collection)) if len(collection) > 1
            and keeps_copies(collection, [*collection[:i], *collection[i + 1:]], cards, complete))


def scores(collections: list[Collection], cards: np.ndarray) -> tuple[list[int], list[int]]:
    """Scoring: a completed painting is worth the number of its copies in all collections together; a player
    scores that for each of their copies. Returns (scores, copies per player)."""
    counts = [copies_by_painting(collection, cards) for collection in collections]
    return score_counts(counts), [sum(c) for c in counts]


def score_counts(counts: list[list[int]]) -> list[int]:
    """Scores from each player's copies of each painting."""
    worth = [sum(player[p] for player in counts) for p in range(len(PAINTINGS))]
    return [sum(n * worth[p] for p, n in enumerate(player)) for player in counts]


def winners(points: list[int], paintings: list[int]) -> list[int]:
    """The most points wins; a tie goes to the most completed paintings, then is shared."""
    best = max(zip(points, paintings, strict=True))
    return [s for s, key in enumerate(zip(points, paintings, strict=True)) if key == best]
