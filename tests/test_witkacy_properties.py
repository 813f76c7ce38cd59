"""Witkacy's compiled kernels against the readable collections (sim/witkacy/collection.py), on collections built at
random by legal layings: what shows, where a card may go, what Solvent may remove, where a Gift may lie; and the
strategies' pruned search against trying every laying."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from playback import assert_playout_is_stepping

from sim.witkacy import collection as col
from sim.witkacy import fast, rules
from sim.witkacy.collection import Placed
from strategies import witkacy as players

CARDS = rules.Params().cards


@st.composite
def collections(draw, advanced: bool = False):
    """A collection of 1 to 24 cards, each laid where the overlap rule allows, at a random place in the stack."""
    cards = draw(st.permutations(range(rules.CARDS)))[: draw(st.integers(1, 24))]
    stack = [Placed(cards[0], draw(st.integers(0, 1)), 0, 0)]
    for card in cards[1:]:
        spots = col.spots(stack, advanced, correction=False)
        row, column = spots[draw(st.integers(0, len(spots) - 1))]
        stack = col.added(stack, Placed(card, draw(st.integers(0, 1)), row, column), draw(st.integers(0, len(stack))))
    return stack


def as_arrays(stack: list[Placed]) -> tuple[np.ndarray, np.ndarray]:
    """One game, one seat: (stack (1, 1, 55, 4), size (1, 1))."""
    out = np.full((1, 1, rules.MAX_STACK, 4), -1, np.int8)
    out[0, 0, : len(stack)] = stack
    return out, np.array([[len(stack)]], np.int16)


@settings(max_examples=60, deadline=None)
@given(collections(), st.booleans(), st.booleans(), st.sampled_from(["collection", "card"]))
def test_the_kernels_agree_with_the_readable_collection(stack, advanced, correction, entirely):
    array, size = as_arrays(stack)
    copies = np.zeros((1, 1, 5), np.int8)
    fast.copies(array, size, CARDS, np.array([0]), np.array([0]), copies)
    assert copies[0, 0].tolist() == col.copies_by_painting(stack, CARDS)
    spots = np.zeros((1, rules.WINDOW ** 2), bool)
    fast.spots(array, size, np.array([0]), CARDS, advanced, entirely == "card", np.array([correction]),
               np.array([True]), spots)
    top, left = col.corner(stack)
    assert np.flatnonzero(spots[0]).tolist() == sorted(rules.spot_code(top, left, *s)
                                                        for s in col.spots(stack, advanced, correction, entirely))
    removable = np.zeros((1, rules.MAX_STACK), bool)
    fast.removals(array, size, CARDS, np.array([True]), removable, False)
    assert np.flatnonzero(removable[0]).tolist() == list(col.removals(stack, CARDS))


@settings(max_examples=60, deadline=None)
@given(collections(), st.integers(0, rules.CARDS - 1), st.integers(0, 1), st.data())
def test_a_gift_may_lie_only_where_every_completed_painting_stays_complete(stack, card, side, data):
    spot = data.draw(st.sampled_from(col.spots(stack, advanced=False, correction=False)))
    array, size = as_arrays(stack)
    depths = np.zeros((1, rules.MAX_STACK + 1), bool)
    fast.gift_depths(array, size, CARDS, np.array([[0, card, side, 0]]), np.array([spot]), np.array([True]), depths)
    assert np.flatnonzero(depths[0]).tolist() == list(col.depths(stack, Placed(card, side, *spot), CARDS, keep=True))
    assert depths[0, 0]  # slid under everything, a card breaks nothing


@njit
def every_laying(board, wanted, found):
    """The strategies' search without pruning: every face at every cell around the collection."""
    code, top = fast.scratch_grids()
    n = board.size[0, 0]
    r0, c0, rows, cols = fast.paint(board.stack[0, 0], n, board.cards, code, top)
    painted = players.Painted(code, top, np.empty((4, 9), np.int64), rows, cols, n, board.stack[0, 0], r0, c0)
    for k in range(wanted.faces.shape[1]):
        found.value[0, k, 0], found.value[0, k, 1] = -np.inf, -np.inf
        for gr in range(fast.MARGIN - 1, fast.MARGIN + rows + 1):
            for gc in range(fast.MARGIN - 1, fast.MARGIN + cols + 1):
                players._try(players.Candidate(0, k, gr, gc, 0, 0, -1), painted, wanted, found)
    fast.wipe(board.stack[0, 0], n, r0, c0, code, top)


@settings(max_examples=80, deadline=None)
@given(collections(), st.lists(st.integers(0, rules.CARDS - 1), min_size=3, max_size=3, unique=True),
       st.sampled_from([1.0, -1.0]), st.booleans(), st.booleans(), st.integers(0, 2**62))
def test_the_pruned_search_finds_the_best_laying(stack, hand, sign, correction, by_card, seed):
    """The best worth found, whole (the tie-breaker is under 0.5), and clipped at 0: a laying that gains nothing
    is as good as none. With Correction, a card lying entirely on the collection is wanted only to complete a
    painting, so there only completions are compared."""
    board = players.Board(*as_arrays(stack), CARDS)
    faces = players._faces(CARDS, np.array([hand], np.int8))
    wanted = players.Wanted(np.array([0]), np.array([0]), faces, np.array([correction]), np.ones((1, 5)),
                            np.array([seed]), 1, by_card, sign, True, sign > 0)
    found, best = (players.Found(np.empty((1, 6, 2)), np.empty((1, 6, 2, 2), np.int64)) for _ in range(2))
    players._layings(board, wanted, found)
    every_laying(board, wanted, best)
    for slot in range(1 + correction):
        pruned, full = (np.maximum(np.floor(v.value[0, :, slot].max()), 0) for v in (found, best))
        if slot == 1:
            pruned, full = (x if x >= players.COPY else 0 for x in (pruned, full))
        assert pruned == full


def worth_by_reading(shown: dict, row: int, column: int) -> float:
    """A block's worth to the strategies, from the cells that show: COPY for a completed painting, 1 for three of a
    painting's quarters in place."""
    in_place = [sum(shown.get((row + q // 2, column + q % 2)) == 4 * p + q for q in range(4)) for p in range(5)]
    return players.COPY if max(in_place) == 4 else 1.0 if max(in_place) == 3 else 0.0


@settings(max_examples=60, deadline=None)
@given(collections())
def test_the_strategies_value_blocks_as_the_rules_read(stack):
    array, _ = as_arrays(stack)
    code, top = fast.scratch_grids()
    r0, c0, rows, cols = fast.paint(array[0, 0], len(stack), CARDS, code, top)
    shown = col.visible(stack, CARDS)
    for r in range(fast.MARGIN - 1, fast.MARGIN + rows + 1):
        for c in range(fast.MARGIN - 1, fast.MARGIN + cols + 1):
            painting, worth = players._block(code, r, c, np.ones(5))
            row, column = r - fast.MARGIN + r0, c - fast.MARGIN + c0
            assert worth == worth_by_reading(shown, row, column)
            assert (painting >= 0) == ((painting, row, column) in col.copies(stack, CARDS))



READINGS = {"advanced": [False, True], "entirely": ["collection", "card"], "stash_draw": ["any", "deck"],
            "rush_draw": ["deck", "any"], "rush_both": ["forced", "optional"],
            "gift_from": ["display", "display_and_deck"], "end_count": ["deck_and_display", "deck"]}


@settings(max_examples=8, deadline=None)
@given(st.sampled_from([2, 3, 4]), st.fixed_dictionaries({k: st.sampled_from(v) for k, v in READINGS.items()}),
       st.integers(0, 2**32), st.integers(0, 40))
def test_the_random_playout_ends_where_stepping_random_players_ends(players, readings, seed, stepped):
    """engine.random_playout under every reading of the rules, from the set-up or after `stepped` questions,
    against stepping the batch with the `random` strategy at every seat (tests/test_contract.py holds every game's
    playout so under the default Params): the same final State, and the rng left in the same state."""
    from sim.registry import get_game

    params = get_game("witkacy").make_params(players, readings)
    assert_playout_is_stepping("witkacy", params, seed, stepped, also=("active", "asked"))
