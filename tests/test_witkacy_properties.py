"""Witkacy's compiled kernels against the readable collections (sim/witkacy/collection.py), on collections built at
random by legal layings: what shows, where a card may go, what Solvent may remove, where a Gift may lie; and the
strategies' pruned search against trying every laying."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from playback import assert_playout_is_stepping

from sim.witkacy import collection as col
from sim.witkacy import fast, layings, rules
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
    painted = layings.Painted(code, top, np.empty((4, 9), np.int64), rows, cols, n, board.stack[0, 0], r0, c0)
    for k in range(wanted.faces.shape[1]):
        found.value[0, k, 0], found.value[0, k, 1] = -np.inf, -np.inf
        for gr in range(fast.MARGIN - 1, fast.MARGIN + rows + 1):
            for gc in range(fast.MARGIN - 1, fast.MARGIN + cols + 1):
                layings._try(layings.Candidate(0, k, gr, gc, 0, 0, -1), painted, wanted, found)
    fast.wipe(board.stack[0, 0], n, r0, c0, code, top)


@settings(max_examples=80, deadline=None)
@given(collections(), st.lists(st.integers(0, rules.CARDS - 1), min_size=3, max_size=3, unique=True),
       st.sampled_from([1.0, -1.0]), st.booleans(), st.booleans(), st.integers(0, 2**62))
def test_the_pruned_search_finds_the_best_laying(stack, hand, sign, correction, by_card, seed):
    """The best worth found, whole (the tie-breaker is under 0.5), and clipped at 0: a laying that gains nothing
    is as good as none. With Correction, a card lying entirely on the collection is wanted only to complete a
    painting, so there only completions are compared."""
    board = layings.Board(*as_arrays(stack), CARDS)
    faces = players._faces(CARDS, np.array([hand], np.int8))
    wanted = layings.Wanted(np.array([0]), np.array([0]), faces, np.array([correction]), np.ones((1, 5)),
                            np.array([seed]), 1, by_card, sign, True, sign > 0)
    found, best = (layings.Found(np.empty((1, 6, 2)), np.empty((1, 6, 2, 2), np.int64)) for _ in range(2))
    layings.layings(board, wanted, found)
    every_laying(board, wanted, best)
    for slot in range(1 + correction):
        pruned, full = (np.maximum(np.floor(v.value[0, :, slot].max()), 0) for v in (found, best))
        if slot == 1:
            pruned, full = (x if x >= layings.COPY else 0 for x in (pruned, full))
        assert pruned == full


def worth_by_reading(shown: dict, row: int, column: int) -> float:
    """A block's worth to the strategies, from the cells that show: COPY for a completed painting, 1 for three of a
    painting's quarters in place."""
    in_place = [sum(shown.get((row + q // 2, column + q % 2)) == 4 * p + q for q in range(4)) for p in range(5)]
    return layings.COPY if max(in_place) == 4 else 1.0 if max(in_place) == 3 else 0.0


@settings(max_examples=60, deadline=None)
@given(collections())
def test_the_strategies_value_blocks_as_the_rules_read(stack):
    array, _ = as_arrays(stack)
    code, top = fast.scratch_grids()
    r0, c0, rows, cols = fast.paint(array[0, 0], len(stack), CARDS, code, top)
    shown = col.visible(stack, CARDS)
    for r in range(fast.MARGIN - 1, fast.MARGIN + rows + 1):
        for c in range(fast.MARGIN - 1, fast.MARGIN + cols + 1):
            painting, worth = layings._block(code, r, c, np.ones(5))
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


@settings(max_examples=6, deadline=None)
@given(st.sampled_from([2, 3, 4]), st.fixed_dictionaries({k: st.sampled_from(v) for k, v in READINGS.items()}),
       st.integers(0, 2**32), st.integers(0, 60), st.sampled_from(["completer", "popular"]))
def test_the_completers_playout_ends_where_stepping_completers_ends(players, readings, seed, stepped, strategy):
    """engine.completer_playout (popular_playout: Catalogue.fused) under every reading of the rules, from the set-up
    or after `stepped` questions answered at random, against stepping a table of the strategy from there (players
    who begin to remember there, as a search's rollout players do): the same final State, the same rng state."""
    from sim.registry import get_game

    params = get_game("witkacy").make_params(players, readings)
    assert_playout_is_stepping("witkacy", params, seed, stepped, games=12, also=("active", "asked"), strategy=strategy,
                               opening="random" if stepped else None)


@pytest.mark.parametrize("phase", ["action", "stash_discard", "solvent", "gift", "gift_where", "gift_z", "where", "z",
                                   "expand_again"])
def test_the_completers_playout_starts_at_any_question(phase: str) -> None:
    """completer_playout from a question a completer never reaches on its own (a Gift's, a Solvent's, where and z
    of a card another chose: a search's rollout starts there after the option it tries), or reaches only with what
    it kept from the turn's earlier questions: as stepping completers from there."""
    from sim.registry import get_game

    spec = get_game("witkacy")
    params, engine = spec.make_params(3, {"rush_both": "optional"}), spec.rules.engine
    for seed in range(40):  # stepped as playback.opened steps them, a question at a time
        deal = spec.rules.deal(params, np.random.default_rng(seed), 1)
        state, rng = engine.init(params, deal), np.random.default_rng(seed + 1)
        choose = spec.table(params, np.full((1, 3), "random"), deal).choose
        for stepped in range(300):
            if engine.terminal(params, state):
                break
            if state.phase == phase:
                assert_playout_is_stepping("witkacy", params, seed, stepped, games=1, also=("active", "asked"),
                                           strategy="completer", opening="random")
                return
            state = engine.step(params, state, choose(engine.decision(params, state), rng))
    raise AssertionError(f"no game of 40 reached {phase}")


# ---------------------------------------------------------------------------------------------- determinize


def stepped(players: int, seed: int, questions: int, games: int = 8):
    """(params, state) after `questions` questions answered at random, from `games` deals."""
    from sim.witkacy import engine

    params = rules.Params(players=players)
    rng = np.random.default_rng(seed)
    state = engine.init(params, rules.deal(params, rng, games))
    for _ in range(questions):
        if engine.terminal(params, state):
            break
        legal = engine.decision(params, state).legal
        state = engine.step(params, state, np.argmax(rng.random(legal.shape) * legal, axis=1))
    return params, state


def secret_held(state, seat: int) -> np.ndarray:
    """(B,) whether `seat` holds its set-up hand card, not chosen to be laid."""
    return ((state.hand[:, seat] == state.secret[:, seat, None]) & (state.pending[:, 1, None] != state.secret[:, seat,
                                                                                                               None])
            ).any(axis=1)


def unseen_cards(state, game: int, seat: int) -> list[int]:
    """The cards `seat` cannot place in game `game`: the deck below its top, the other seats' held set-up cards."""
    below = state.deck[game, state.drawn[game] + 1:]
    held = [int(state.secret[game, s]) for s in range(state.hand.shape[1]) if s != seat and secret_held(state, s)[game]]
    return sorted([int(c) for c in below if c >= 0] + held)


def cards_on_table(state, game: int) -> list[int]:
    stacks = state.stack[game, :, :, 0]
    return sorted(int(c) for c in np.concatenate([state.deck[game, state.drawn[game]:], state.hand[game].ravel(),
                                                  state.display[game], stacks.ravel()]) if c >= 0)


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(0, 400))
def test_a_determinized_world_redeals_only_the_unseen_cards(players, seed, questions):
    """The world holds every card once, as the true State does; the deck below its top and the other seats' held
    set-up cards are a permutation of the true ones; everything else the seat sees stays where it is, and the sides
    up change only among cards whose side it never saw, their count of backs kept."""
    from sim.witkacy import engine

    params, state = stepped(players, seed, questions)
    for seat in range(players):
        world = engine.determinize(params, state, seat, np.random.default_rng(seed))
        for game in range(len(state.deck)):
            assert cards_on_table(world, game) == cards_on_table(state, game)
            assert len(set(cards_on_table(world, game))) == len(cards_on_table(world, game))
            assert unseen_cards(world, game, seat) == unseen_cards(state, game, seat)
            top = state.drawn[game] + 1
            assert (world.deck[game, :top] == state.deck[game, :top]).all()
            for other in range(players):
                keep = (state.hand[game, other] != state.secret[game, other]) | ~secret_held(state, other)[game]
                keep |= other == seat
                assert (world.hand[game, other][keep] == state.hand[game, other][keep]).all()
            side_unseen = np.zeros(rules.CARDS, bool)
            side_unseen[unseen_cards(state, game, seat)] = True
            side_unseen[[int(state.secret[game, s]) for s in range(players) if s != seat]] = True
            side_unseen &= ~state.returned[game]
            assert (world.up[game][~side_unseen] == state.up[game][~side_unseen]).all()
            assert world.up[game][side_unseen].sum() == state.up[game][side_unseen].sum()
        assert (world.secret[:, seat] == state.secret[:, seat]).all()


def games_of(state, games: np.ndarray):
    """The State of the games `games` of the batch (repeated as often as named), its arrays fresh copies."""
    from sim.game import evolve

    return evolve(state, **{f.name: getattr(state, f.name)[games] for f in dataclasses.fields(state)
                            if isinstance(getattr(state, f.name), np.ndarray)})


def small_position():
    """(params, state) of one 2-player game late in play, 1 to 4 cards below the deck's top, seat 1 holding a card
    it is made to have been dealt at the set-up (random play lays that card early: a real one is rarely held so
    late)."""
    from sim.witkacy import engine

    params = rules.Params(players=2)
    rng = np.random.default_rng(1)
    state = engine.init(params, rules.deal(params, rng, 16))
    while True:
        below = state.left - 1
        game = np.flatnonzero((below >= 1) & (below <= 4) & (state.hand[:, 1, 0] >= 0) & (state.pending[:, 0] < 0))
        if len(game):
            one = games_of(state, game[:1])
            one.secret[0, 1] = one.hand[0, 1, 0]
            return params, one
        legal = engine.decision(params, state).legal
        state = engine.step(params, state, np.argmax(rng.random(legal.shape) * legal, axis=1))


def test_every_consistent_world_is_drawn_at_a_small_position():
    """Over 6000 draws at a small position every order of the unseen cards among their places appears, each about
    as often, and every card whose side the seat never saw shows each side."""
    from itertools import permutations

    from sim.witkacy import engine

    params, state = small_position()
    draws = 6000
    many = games_of(state, np.zeros(draws, np.int64))
    worlds = engine.determinize(params, many, 0, np.random.default_rng(0))
    below = slice(int(state.drawn[0]) + 1, int(state.drawn[0]) + int(state.left[0]))
    placed = np.concatenate([worlds.deck[:, below], worlds.secret[:, 1:]], axis=1)
    assert (worlds.hand[:, 1, 0] == worlds.secret[:, 1]).all()
    cards = unseen_cards(state, 0, 0)
    orders, counts = np.unique(placed, axis=0, return_counts=True)
    assert {tuple(order) for order in orders.tolist()} == set(permutations(cards))
    assert counts.min() > 0.5 * draws / len(counts)
    unseen_sides = np.array(cards)[~state.returned[0, cards]]
    sides = worlds.up[:, unseen_sides]
    assert ((sides == 0).any(axis=0) & (sides == 1).any(axis=0)).all()
    assert (sides.sum(axis=1) == state.up[0, unseen_sides].sum()).all()


def test_only_the_seat_to_act_observes_its_options():
    """The legal options follow from the mover's hand: another seat's observation holds none, the mover's the
    decision's."""
    from sim.witkacy import engine

    params, state = stepped(3, 0, 10)
    mover = engine.decision(params, state).seat
    for seat in range(3):
        seen = engine.observe(params, state, seat)
        assert (seen.legal is None and seen.asked is None) == (seat != mover)
    assert (engine.observe(params, state, mover).legal == state.legal).all()
