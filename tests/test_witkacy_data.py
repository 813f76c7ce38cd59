"""Witkacy: what the deck check accepts, both engines play, and alike. Deck files at the edges of what the check
allows (every half one painting, every half in one row, one loose quarter only, ...) are played by the batched
engine and replayed through the reference (tests/test_boundscheck.py plays them with numba's bounds checks on);
and a rule bug raises an error instead of writing outside an array."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_witkacy import POOL, replay_agrees

from sim.game import play
from sim.registry import get_game
from sim.witkacy import engine, fast, rules
from sim.witkacy.checks import LOWER, PAINTINGS, SIDES_PER_DECK, UPPER, edge_decks, side_grids, write_deck
from strategies.common import Table

witkacy = get_game("witkacy")
@pytest.fixture(scope="module")
def decks(tmp_path_factory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("decks")
    return {name: write_deck(folder, cards) for name, cards in edge_decks().items()}


def test_the_edge_decks_pass_the_deck_check(decks):
    for name, path in decks.items():
        cards = witkacy.make_params(3, {"deck": path}).cards
        assert len({card.tobytes() for card in cards}) == SIDES_PER_DECK, name



@pytest.mark.parametrize("name", list(edge_decks()))
def test_an_edge_deck_plays_alike_in_both_engines(decks, name):
    for players in rules.PLAYER_COUNTS:
        params = witkacy.make_params(players, {"deck": decks[name]})
        rng = np.random.default_rng(players)
        deal = rules.deal(params, rng, 4)
        lineups = rng.choice(POOL, size=(4, players))
        replay_agrees(params, deal, lineups, rng)


def test_a_deck_whose_every_half_is_one_painting_deals_and_plays(decks):
    """The issue's case: every starting card clashes with the first seat's, so the set-up shuffles back 220 cards
    (rules.RETURNS) and then keeps one; the command once aborted with heap corruption."""
    args = ["play", "witkacy", "--players", "4", "--strategies", "random,completer,popular,saboteur", "--seed", "2",
            "--json", "--param", f"deck={decks['every half A']}"]
    done = subprocess.run([sys.executable, "-c", "from sim.cli import app; app()", *args], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads(done.stdout)
    assert sum(fate == "returned" for *_, fate in record["dealt"]) == 220
    assert len(record["dealt"]) == 2 * 4 + 220
    params = witkacy.make_params(4, {"deck": decks["every half A"]})
    played = witkacy.deal_and_play(params, record["strategies"], 2)
    assert played.outcome.scores[0].tolist() == record["final"]["scores"]


# ---------------------------------------------------------------------------------------------- any valid deck


@st.composite
def sides(draw, quarters: tuple[str, str]) -> list:
    """The sides allowed by a corner of the deck check: halves of one, two or all paintings, in one row or
    either, loose quarters of one kind or either."""
    halves = draw(st.sampled_from(["A", "E", "CD", PAINTINGS]))
    rows = draw(st.sampled_from([(0,), (1,), (0, 1)]))
    loose = draw(st.sampled_from([(0,), (1,), (0, 1)]))
    return side_grids(quarters, halves, rows, loose)


@st.composite
def decks_at_the_edges(draw) -> list:
    fronts, backs = draw(sides(UPPER)), draw(sides(LOWER))
    pairs = draw(st.lists(st.tuples(st.integers(0, len(fronts) - 1), st.integers(0, len(backs) - 1)),
                          min_size=SIDES_PER_DECK, max_size=SIDES_PER_DECK, unique=True))
    return [(fronts[f], backs[b]) for f, b in pairs]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow, HealthCheck.data_too_large])
@given(decks_at_the_edges(), st.sampled_from(rules.PLAYER_COUNTS), st.booleans(), st.integers(0, 2**32))
def test_any_deck_the_check_accepts_plays_alike_in_both_engines(tmp_path, cards, players, advanced, seed):
    params = witkacy.make_params(players, {"deck": write_deck(tmp_path, cards), "advanced": advanced})
    rng = np.random.default_rng(seed)
    deal = rules.deal(params, rng, 2)
    replay_agrees(params, deal, rng.choice(POOL, size=(2, players)), rng)


# ---------------------------------------------------------------------------------------------- rule bugs fail safely


def test_a_rule_bug_that_empties_a_collection_raises_instead_of_corrupting_memory(monkeypatch):
    """The mutant that lets Solvent take a collection's last card: the next kernel to read that collection
    refuses it with an error."""
    def lax_removals(stack, size, cards, active, out, first):
        for g in np.flatnonzero(active):
            for owner in range(size.shape[1]):
                out[g, owner * rules.MAX_STACK: owner * rules.MAX_STACK + size[g, owner]] = True

    monkeypatch.setattr(engine.fast, "removals", lax_removals)
    params = rules.Params(players=2)
    rng = np.random.default_rng(0)
    with pytest.raises(RuntimeError, match="a collection must hold 1 to 55 cards"):
        play(engine, params, rules.deal(params, rng, 60), Table(witkacy.players, params, np.full((60, 2), "random"),
                                                                None).choose, rng)


def test_a_question_without_a_legal_option_raises(monkeypatch):
    monkeypatch.setitem(engine.LEGAL, "where", lambda params, state: np.zeros((len(state.active), 9), bool))
    params = rules.Params(players=2)
    rng = np.random.default_rng(0)
    with pytest.raises(RuntimeError, match="no legal option at where"):
        play(engine, params, rules.deal(params, rng, 2), Table(witkacy.players, params, np.full((2, 2), "random"),
                                                               None).choose, rng)


def one_collection(placed: list[tuple[int, int, int, int]]) -> tuple[np.ndarray, np.ndarray]:
    stack = np.full((1, 1, rules.MAX_STACK, 4), -1, np.int8)
    stack[0, 0, : len(placed)] = np.reshape(placed, (-1, 4))
    return stack, np.array([[len(placed)]], np.int16)


def test_the_kernels_refuse_a_collection_outside_their_bounds():
    cards = rules.Params().cards
    code, top = fast.scratch_grids()
    empty, _ = one_collection([])
    with pytest.raises(RuntimeError, match="1 to 55 cards"):
        fast.paint(empty[0, 0], 0, cards, code, top)
    apart, _ = one_collection([(0, 0, 0, 0), (1, 0, 55, 0)])  # 56 anchor rows: no legal collection of 2 spans that
    with pytest.raises(RuntimeError, match="spans more rows"):
        fast.paint(apart[0, 0], 2, cards, code, top)
    full, size = one_collection([(c, 0, 0, 0) for c in range(55)])
    one = np.array([0])
    with pytest.raises(RuntimeError, match="beyond its collection's stack"):
        fast.insert(full, size, one, np.array([0]), one, one, one, one, np.array([55]))
    with pytest.raises(RuntimeError, match="beyond its collection's stack"):
        fast.remove(full, size, one, np.array([0]), np.array([55]))
    several, first = fast.options(np.array([[0, 0, 0], [0, 1, 1]], np.uint8), np.array([True, False]))
    assert first.tolist() == [-1, -1] and not several.any()  # none found; a game not asked is not looked at
