"""Kintsugi invariants over random deals and random legal placements (hypothesis).

Every visible cell shows the last card laid over it; piece counts are bounded by what is visible; scoring
follows the rulebook's formula and shares the victory among the lowest scores only; determinize redraws only what
a seat cannot see, and every world it cannot tell apart from the true one is drawn, about equally often.
"""

from __future__ import annotations

from collections import Counter
from math import perm

import numpy as np
import pytest
import twins
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.kintsugi import engine, reference, rules

N_CARDS = 13
ORIGIN = engine.origin(N_CARDS)
OFFSET_OF = {0: (-1, -1), 1: (-1, 1), 2: (1, -1), 3: (1, 1)}


@st.composite
def positions(draw):
    """A small batch of games: a random deal, then `turns` random legal placements in every game."""
    players = draw(st.sampled_from(rules.PLAYER_COUNTS))
    batch = draw(st.integers(1, 4))
    turns = draw(st.integers(0, N_CARDS - 1))
    seed = draw(st.integers(0, 2**32 - 1))
    actions = draw(st.lists(st.lists(st.integers(0, 15), min_size=turns, max_size=turns),
                            min_size=batch, max_size=batch))
    guesses = draw(st.lists(st.lists(st.integers(0, 3), min_size=players, max_size=players),
                            min_size=batch, max_size=batch))
    order, colors = rules.deal(rules.Params(players=players), np.random.default_rng(seed), batch)
    return players, order, colors, np.array(actions, np.int64).reshape(batch, turns), np.array(guesses, np.int8)


def lay_out(players, order, colors, actions, connectivity=8):
    """The engine state and one reference game per game after the given placements."""
    params = rules.Params(players=players, connectivity=connectivity)
    state = engine.init(params, rules.Deal(order, colors))
    games = [reference.new_game(params, rules.Deal(order[g : g + 1], colors[g : g + 1])) for g in range(len(order))]
    for turn in range(actions.shape[1]):
        for g, game in enumerate(games):
            previous = game.placements[-1]
            dr, dc = OFFSET_OF[int(actions[g, turn]) // 4]
            reference.place(game, reference.Placement(previous.row + dr, previous.col + dc,
                                                      int(actions[g, turn]) % 4))
        state = engine.step(params, state, actions[:, turn])
    return state, games


@settings(max_examples=200, deadline=None)
@given(positions())
def test_every_visible_cell_shows_the_last_card_over_it(position) -> None:
    players, order, colors, actions, _ = position
    state, games = lay_out(players, order, colors, actions)
    cards = rules.load_deck()
    for g, game in enumerate(games):
        assert len(game.placements) == actions.shape[1] + 1
        expected: dict[tuple[int, int], int] = {}
        for card, placement in zip(order[g], game.placements):  # in the order laid, later cards on top
            layout = np.rot90(cards[card], placement.rotation)
            for i in (0, 1):
                for j in (0, 1):
                    expected[placement.row + i, placement.col + j] = int(layout[i, j])
        assert game.table == expected
        covered = np.argwhere(state.board[g] != engine.EMPTY)
        assert {(int(r) - ORIGIN, int(c) - ORIGIN) for r, c in covered} == set(expected)
        for (row, col), colour in expected.items():
            assert state.board[g, row + ORIGIN, col + ORIGIN] == colour


@settings(max_examples=200, deadline=None)
@given(positions())
def test_piece_counts_are_bounded_by_the_visible_cells(position) -> None:
    players, order, colors, actions, _ = position
    state, games = lay_out(players, order, colors, actions, connectivity=8)
    state4, games4 = lay_out(players, order, colors, actions, connectivity=4)
    eight = twins.count_pieces(state, 8)
    four = twins.count_pieces(state4, 4)
    for g in range(len(order)):
        visible = np.bincount(state.board[g][state.board[g] != engine.EMPTY], minlength=4)
        assert (eight[g][visible > 0] >= 1).all()
        assert (eight[g][visible == 0] == 0).all()
        assert (eight[g] <= visible).all()
        assert (four[g] >= eight[g]).all()
        assert (four[g] <= visible).all()
        assert eight[g].tolist() == reference.pieces(games[g])
        assert four[g].tolist() == reference.pieces(games4[g])
    # Four cells per card, the cards overlapping their predecessor in exactly one cell each.
    assert (np.count_nonzero(state.board != engine.EMPTY, axis=(1, 2)) <= 4 + 3 * actions.shape[1]).all()


def check_scoring(pieces: np.ndarray, colors: np.ndarray, guesses: np.ndarray) -> None:
    out = engine.score(pieces, colors, guesses)
    batch, players = colors.shape
    for g in range(batch):
        own = [int(pieces[g, colors[g, s]]) for s in range(players)]
        for s in range(players):
            left = (s + 1) % players
            right = guesses[g, s] == colors[g, left]
            assert out.correct[g, s] == right
            assert out.scores[g, s] == own[s] - (own[left] if right else 0)
            assert out.rank[g, s] == 1 + sum(out.scores[g] < out.scores[g, s])
        best = out.scores[g] == out.scores[g].min()
        assert np.isclose(out.win[g].sum(), 1)
        assert (out.win[g][~best] == 0).all()
        assert np.allclose(out.win[g][best], 1 / best.sum())
        result = reference.settle(pieces[g].tolist(), colors[g].tolist(), guesses[g].tolist())
        assert result.scores == out.scores[g].tolist()
        assert result.ranks == out.rank[g].tolist()
        assert np.allclose(result.wins, out.win[g])


@settings(max_examples=150, deadline=None)
@given(positions())
def test_scores_of_played_positions_follow_the_rulebook(position) -> None:
    players, order, colors, actions, guesses = position
    state, _ = lay_out(players, order, colors, actions)
    check_scoring(twins.count_pieces(state, 8), colors, guesses)


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 4).flatmap(lambda players: st.tuples(
    st.lists(st.integers(0, 12), min_size=4, max_size=4),
    st.permutations(range(4)).map(lambda colours: colours[:players]),
    st.lists(st.integers(0, 3), min_size=players, max_size=players),
)))
def test_scores_of_any_piece_counts_follow_the_rulebook(case) -> None:
    pieces, colors, guesses = case
    check_scoring(np.array([pieces]), np.array([colors], np.int8), np.array([guesses], np.int8))


def seen_cards(players: int, turn: int, seat: int) -> int:
    """How many cards from the top of the deck `seat` has seen: those laid, and the one in hand if it is to move."""
    return turn + 1 + (turn < N_CARDS - 1 and turn % players == seat)


@settings(max_examples=200, deadline=None)
@given(positions(), st.integers(0, 3), st.integers(0, 2**32 - 1))
def test_a_determinized_world_keeps_what_the_seat_saw_and_deals_the_rest_again(position, seat, seed) -> None:
    players, order, colors, actions, _ = position
    seat %= players
    state, _ = lay_out(players, order, colors, actions)
    params = rules.Params(players=players)
    world = engine.determinize(params, state, seat, np.random.default_rng(seed))
    seen = seen_cards(players, actions.shape[1], seat)
    assert np.array_equal(world.order[:, :seen], order[:, :seen])  # the cards laid, and the one in hand
    assert np.array_equal(np.sort(world.order, axis=1), np.sort(order, axis=1))  # no card lost or doubled
    assert np.array_equal(world.colors[:, seat], colors[:, seat])
    assert all(len(set(row)) == players and set(row) <= set(range(rules.N_COLORS)) for row in world.colors.tolist())
    assert np.array_equal(world.board, state.board) and world.turn == state.turn
    again = engine.determinize(params, state, seat, np.random.default_rng(seed))  # drawn from its rng alone
    assert np.array_equal(again.order, world.order) and np.array_equal(again.colors, world.colors)


@pytest.mark.parametrize(("players", "seat"), [(2, 0), (2, 1), (3, 0), (3, 2), (4, 0), (4, 1)])
def test_every_world_the_seat_cannot_tell_apart_is_drawn_about_equally_often(players: int, seat: int) -> None:
    """Late in one game, copied many times and determinized at once: every order of the cards the seat has not
    seen, with every assignment of distinct colours but its own to the other seats, is drawn, about equally."""
    copies, turn = 6000, N_CARDS - 4
    params = rules.Params(players=players)
    order, colors = rules.deal(params, np.random.default_rng(players), 1)
    state = engine.init(params, rules.Deal(order.repeat(copies, axis=0), colors.repeat(copies, axis=0)))
    for action in (1, 6, 11, 12, 3, 9, 14, 4, 2)[:turn]:  # every diagonal candidate is legal
        state = engine.step(params, state, np.full(copies, action))
    world = engine.determinize(params, state, seat, np.random.default_rng(10 * players + seat))
    seen = seen_cards(players, turn, seat)
    drawn = Counter(zip(map(tuple, world.order[:, seen:].tolist()), map(tuple, world.colors.tolist())))
    worlds = perm(N_CARDS - seen) * perm(rules.N_COLORS - 1, players - 1)
    assert len(drawn) == worlds
    assert all(0.6 < count * worlds / copies < 1.4 for count in drawn.values()), sorted(drawn.values())
