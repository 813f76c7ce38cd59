"""Broken and Beautiful invariants over random deals, lineups and tables (hypothesis).

Ingots are conserved and, under supply_shortfall = 'partial', the supply never goes below zero; every card is
in exactly one place (the deck, sold, left over, or one collection); repaired cards stay repaired; broken
cards only mend; a deep copy of the engine's state at any decision plays on to the same games; the reference's
round log passes an audit written from the rulebook; scores of any table agree between the engines and with a
brute-force cup-and-saucer pairing; win shares sum to 1.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from playback import assert_playout_is_stepping
from test_broken_beautiful import Recorder

from sim.broken_beautiful import engine, reference, rules
from sim.broken_beautiful.engine import KEEP
from sim.broken_beautiful.rules import BROKEN, INTACT, REPAIRED, SCORED, TYPES
from sim.game import Asker, play
from strategies.broken_beautiful import PLAYERS
from strategies.common import Table

KIT = rules.load_components()
C = 46
SUPPLY = 14
POOL = ["random", "greedy", "collector", "banker", "hater", "hater@3", "greedy-no-teapot", "collector-no-tea_jar",
        "random-no-cup", "banker-no-plate"]
POTTERY = {"cup", "saucer", "plate", "bowl", "tea_jar", "vase", "teapot"}


PARTIAL = st.just("partial")


@st.composite
def setups(draw, shortfall=PARTIAL):
    players = draw(st.sampled_from(rules.PLAYER_COUNTS))
    params = rules.Params(players=players, supply_shortfall=draw(shortfall),
                          new_player_ingots=draw(st.integers(0, SUPPLY // players)),
                          tie_items_count_broken=draw(st.booleans()), trays_boxes_patterned=draw(st.booleans()))
    batch = draw(st.integers(1, 4))
    lineups = draw(st.lists(st.lists(st.sampled_from(POOL), min_size=players, max_size=players),
                            min_size=batch, max_size=batch))
    return params, np.array(lineups), draw(st.integers(0, 2**32 - 1))


def rounds_of(params: rules.Params, state: engine.State, choose, rng):
    """Step a batch to the end, yielding after each round the state and that round's (decision, choices)."""
    log = []
    while not engine.terminal(params, state):
        decision = engine.decision(params, state)
        choice = choose(decision, rng)
        log.append((decision, choice))
        before = state.round
        state = engine.step(params, state, choice)
        if state.round > before:
            yield state, log
            log = []


@settings(max_examples=40, deadline=None)
@given(setups())
def test_engine_conserves_ingots_and_cards_round_by_round(setup) -> None:
    params, lineups, seed = setup
    batch, players = lineups.shape
    rng = np.random.default_rng(seed)
    (order,) = rules.deal(params, rng, batch)
    start = engine.init(params, rules.Deal(order))
    choose = Table(PLAYERS, params, lineups, None).choose
    draft = 2 * players + 1
    rounds = KIT.rounds(players)
    kept = [set() for _ in range(batch)]
    sold = [set() for _ in range(batch)]
    leftover = [set() for _ in range(batch)]
    before = state = start
    for r, (state, log) in enumerate(rounds_of(params, start, choose, rng)):
        # the round was played to its end: the next is dealt, unless the game is over
        assert state.round == r + 1 and engine.terminal(params, state) == (r + 1 == rounds)
        assert state.dealt == min(r + 2, rounds) * draft
        if not engine.terminal(params, state):
            assert np.array_equal(state.draft, order[:, (r + 1) * draft:(r + 2) * draft])
            assert state.open.all() and (state.card == -1).all() and (state.repairs == 0).all()
        picks = np.stack([c for d, c in log if d.kind == "draft"], 1)
        keeps = np.stack([c for d, c in log if d.kind == "keep"], 1)
        assert picks.shape == keeps.shape == (batch, 2 * players)
        # ingots are conserved and the supply never goes below zero
        assert (state.ingots.sum(axis=1) + state.supply == SUPPLY).all()
        assert (state.supply >= 0).all() and (state.ingots >= 0).all()
        # every card in exactly one place
        for g in range(batch):
            dealt = order[g, r * draft:(r + 1) * draft].tolist()
            taken = [dealt[slot] for slot in picks[g]]
            assert len(set(taken)) == 2 * players
            kept[g] |= {c for c, k in zip(taken, keeps[g]) if k == KEEP}
            sold[g] |= {c for c, k in zip(taken, keeps[g]) if k != KEEP}
            leftover[g] |= set(dealt) - set(taken)
            deck = set(order[g, (r + 1) * draft:].tolist())  # the deck, or dealt for the next round
            owned = set(np.flatnonzero(state.owner[g] >= 0).tolist())
            assert owned == kept[g]
            places = [kept[g], sold[g], leftover[g], deck]
            assert sum(map(len, places)) == C
            assert set().union(*places) == set(range(C))
            assert not any(KIT.type[c] == TYPES.index("gold") for c in kept[g])
        # owners never change, repaired cards stay repaired, broken cards only mend
        had = before.owner >= 0
        assert (state.owner[had] == before.owner[had]).all()
        assert (state.cond[had & (before.cond == REPAIRED)] == REPAIRED).all()
        assert (state.cond[had & (before.cond == BROKEN)] != INTACT).all()
        # trays and boxes never break
        keeps_whole = np.isin(KIT.type, [TYPES.index("tray"), TYPES.index("box")])
        assert (state.cond[:, keeps_whole] == INTACT).all()
        before = state
    assert engine.terminal(params, state) and state.round == rounds
    by_type, scores, _, _, rank, win = engine.standing(params, state)
    assert np.allclose(win.sum(axis=1), 1)
    assert (scores == by_type.sum(axis=2)).all() and (by_type >= 0).all()
    assert ((rank >= 1) & (rank <= players)).all()
    assert ((win > 0) == (rank == 1)).all()


@settings(max_examples=40, deadline=None)
@given(setups(), st.integers(0, 200))
def test_a_deep_copy_of_any_state_plays_on_like_the_original(setup, cut: int) -> None:
    """Copy the batch's state before any decision, step both with the same choices: the same games."""
    params, lineups, seed = setup
    rng = np.random.default_rng(seed)
    deal = rules.deal(params, rng, len(lineups))
    recorder = Recorder(Table(PLAYERS, params, lineups, None).choose)
    whole = engine.outcome(params, play(engine, params, deal, recorder, rng))
    choices = [c for _, c in recorder.log]
    cut = min(cut, len(choices) - 1)
    state = engine.init(params, deal)
    for choice in choices[:cut]:
        state = engine.step(params, state, choice)
    for current in (copy.deepcopy(state), state):
        for choice in choices[cut:]:
            current = engine.step(params, current, choice)
        assert engine.terminal(params, current)
        out = engine.outcome(params, current)
        assert np.array_equal(out.scores, whole.scores) and np.array_equal(out.rank, whole.rank)
        for name, column in out.columns.items():
            assert np.array_equal(column, whole.columns[name]), name


def audit(game: reference.Game, params: rules.Params, order: list[int]) -> None:
    """Walk the round log with the rulebook in hand, keeping our own table, and check every step."""
    kit = params.kit
    kind = [TYPES[t] for t in kit.type]
    value = kit.value.tolist()
    players = params.players
    draft = 2 * players + 1
    table: list[dict[int, int]] = [{} for _ in range(players)]
    ingots = [params.new_player_ingots] * players
    supply = kit.supply - sum(ingots)
    sold, left = set(), set()
    for r, entry in enumerate(game.log):
        first = r % players
        assert entry["first"] == first
        assert entry["dealt"] == order[r * draft:(r + 1) * draft]
        assert [p["seat"] for p in entry["picks"]] == [(first + k) % players for k in range(players)] + [
            (first + k) % players for k in reversed(range(players))]
        for pick in entry["picks"]:
            seat, card = pick["seat"], pick["card"]
            if pick["action"] == "keep":
                assert kind[card] != "gold"
                table[seat][card] = INTACT
                assert pick["ingots_gained"] == 0
            else:
                paid = value[card] if params.supply_shortfall == "unlimited" else min(value[card], max(supply, 0))
                assert pick["ingots_gained"] == paid
                ingots[seat] += paid
                supply -= paid
                sold.add(card)
        (rest,) = set(entry["dealt"]) - {p["card"] for p in entry["picks"]}
        assert entry["leftover"] == rest
        left.add(rest)
        top = order[(r + 1) * draft] if (r + 1) * draft < len(order) else None
        assert entry["deck_top"] == top
        showing = [rest] + ([top] if top is not None else [])
        breaking = {kind[c] for c in showing} & POTTERY
        broken = sorted(c for col in table for c, s in col.items() if s == INTACT and kind[c] in breaking)
        assert entry["broken"] == broken
        for col in table:
            for c in broken:
                if c in col:
                    col[c] = BROKEN
        free = any(kind[c] == "gold" for c in showing)
        assert entry["free_repair"] == free
        done = [0] * players
        for rep in entry["repairs"]:
            seat, card = rep["seat"], rep["card"]
            assert table[seat].get(card) == BROKEN
            cost = 0 if free and done[seat] == 0 else value[card] + done[seat]
            assert rep["cost"] == cost <= ingots[seat]
            ingots[seat] -= cost
            supply += cost
            done[seat] += 1
            table[seat][card] = REPAIRED
        assert (entry["ingots"], entry["supply"]) == (ingots, supply)
        assert sum(ingots) + supply == kit.supply
        if params.supply_shortfall == "partial":
            assert supply >= 0
    assert game.collections == table
    kept = {c for col in table for c in col}
    places = [kept, sold, left, set(game.deck)]
    assert sum(map(len, places)) == kit.size
    assert set().union(*places) == set(range(kit.size))


@settings(max_examples=40, deadline=None)
@given(setups(shortfall=st.sampled_from(rules.SUPPLY_RULES)))
def test_reference_log_passes_an_audit_from_the_rulebook(setup) -> None:
    params, lineups, seed = setup
    rng = np.random.default_rng(seed)
    (order,) = rules.deal(params, rng, 1)
    table = Table(PLAYERS, params, lineups[:1], None)
    game = reference.play(params, rules.Deal(order), Asker(reference.question, table.choose, rng))
    result = reference.final_result(game)
    order = order[0].tolist()
    audit(game, params, order)
    assert abs(sum(result.wins) - 1) < 1e-9
    assert result.winners and all(result.ranks[s] == 1 for s in result.winners)


@cache
def best_pairing(cups: tuple[int, ...], saucers: tuple[int, ...]) -> int:
    """Brute force over every pairing of cups and saucers, one to one, unpaired allowed."""
    if not cups:
        return 0
    best = cups[0] + best_pairing(cups[1:], saucers)
    for i, multiplier in enumerate(saucers):
        best = max(best, cups[0] * multiplier + best_pairing(cups[1:], saucers[:i] + saucers[i + 1:]))
    return best


@st.composite
def tables(draw):
    players = draw(st.sampled_from(rules.PLAYER_COUNTS))
    owner = draw(st.lists(st.integers(-1, players - 1), min_size=C, max_size=C))
    cond = draw(st.lists(st.sampled_from([INTACT, BROKEN, REPAIRED]), min_size=C, max_size=C))
    ingots = draw(st.lists(st.integers(0, 9), min_size=players, max_size=players))
    return players, owner, cond, ingots, draw(st.booleans()), draw(st.booleans())


def pattern_of(card: int, patterned: bool) -> int | None:
    """components.toml: each patterned type's cards are spread over the 3 patterns in id order; trays and boxes
    are patterned only under the switch, gold cards never."""
    kind = TYPES[KIT.type[card]]
    if kind == "gold" or (kind in ("tray", "box") and not patterned):
        return None
    return (card - KIT.type.tolist().index(KIT.type[card])) % 3


@settings(max_examples=300, deadline=None)
@given(tables())
def test_any_table_scores_alike_in_both_engines(table) -> None:
    players, owner, cond, ingots, broken_count, patterned = table
    gold, tray, box = (TYPES.index(k) for k in ("gold", "tray", "box"))
    owner = [-1 if KIT.type[c] == gold else o for c, o in enumerate(owner)]  # gold is never kept
    cond = [INTACT if KIT.type[c] in (tray, box) else s for c, s in enumerate(cond)]  # nor do these break
    params = rules.Params(players=players, tie_items_count_broken=broken_count, trays_boxes_patterned=patterned)
    collections = [{c: cond[c] for c in range(C) if owner[c] == seat} for seat in range(players)]
    game = reference.Game(params, [], collections, list(ingots), SUPPLY - sum(ingots))
    result = reference.final_result(game)
    state = replace(engine.init(params, rules.Deal(np.arange(C, dtype=np.int8)[None])),
                    owner=np.array([owner], np.int8), cond=np.array([cond], np.int8),
                    ingots=np.array([ingots], np.int16), supply=np.array([SUPPLY - sum(ingots)], np.int16))
    by_type, scores, repaired, items, rank, win = engine.standing(params, state)
    assert [dict(zip(SCORED, p)) for p in by_type[0].tolist()] == result.points
    assert scores[0].tolist() == result.scores
    assert rank[0].tolist() == result.ranks
    assert np.allclose(win[0], result.wins) and np.isclose(win[0].sum(), 1)
    for seat, collection in enumerate(collections):
        whole = [c for c, s in collection.items() if s != BROKEN]
        cups = tuple(sorted(3 if collection[c] == REPAIRED else 1 for c in whole if KIT.type[c] == 0))
        saucers = tuple(sorted(3 if collection[c] == REPAIRED else 2 for c in whole if KIT.type[c] == 1))
        points = result.points[seat]
        assert points["cup"] == sum(cups)
        assert points["cup"] + points["saucer"] == best_pairing(cups, saucers)
        assert result.repaired[seat] == sum(s == REPAIRED for s in collection.values())
        assert result.items[seat] == sum(broken_count or s != BROKEN for s in collection.values())
        assert repaired[0, seat] == result.repaired[seat] and items[0, seat] == result.items[seat]
        assert 0 <= points["box"] <= 8 and points["tray"] in (0, 2, 4)
        pots = [c for c in whole if TYPES[KIT.type[c]] == "teapot"]
        assert points["teapot"] == sum(sum(pattern_of(c, patterned) == pattern_of(pot, patterned) for c in whole)
                                       * (2 if collection[pot] == REPAIRED else 1) for pot in pots)


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(rules.PLAYER_COUNTS), st.sampled_from(rules.SUPPLY_RULES), st.integers(0, SUPPLY // 4),
       st.integers(0, 2**32), st.integers(0, 60))
def test_the_random_playout_ends_where_stepping_random_players_ends(players, shortfall, ingots, seed, stepped):
    """engine.random_playout under every supply rule and any starting ingots, from the set-up or after `stepped`
    questions, against stepping the batch with `random` at every seat: the same final State, and the rng left in the
    same state (tests/test_contract.py holds every game's playout so under the default Params)."""
    params = rules.Params(players=players, supply_shortfall=shortfall, new_player_ingots=ingots)
    assert engine.terminal(params, assert_playout_is_stepping("broken_beautiful", params, seed, stepped, games=16))


@settings(max_examples=40, deadline=None)
@given(setups(), st.integers(0, 200), st.integers(0, 2**32 - 1))
def test_a_determinized_world_moves_only_the_deck_below_its_top_card(setup, cut: int, seed: int) -> None:
    """At any decision, for every seat: the world's deck is the same cards, the ones dealt and the top card where
    they were, the cards below the top card in some order; the seat's observation is the same, the true State is
    left as it was, and every seat gets the same world from the same stream (no seat holds a secret)."""
    params, lineups, deal_seed = setup
    rng = np.random.default_rng(deal_seed)
    state = engine.init(params, rules.deal(params, rng, len(lineups)))
    table = Table(PLAYERS, params, lineups, None)
    for _ in range(cut):
        if engine.terminal(params, state):
            break
        state = engine.step(params, state, table.choose(engine.decision(params, state), rng))
    truth = copy.deepcopy(state)
    seen = state.dealt + 1  # the cards dealt, then the top card of the deck
    worlds = [engine.determinize(params, state, seat, np.random.default_rng(seed)) for seat in range(params.players)]
    for seat, world in enumerate(worlds):
        assert np.array_equal(world.order[:, :seen], truth.order[:, :seen])
        assert np.array_equal(np.sort(world.order[:, seen:], axis=1), np.sort(truth.order[:, seen:], axis=1))
        assert same_observation(engine.observe(params, world, seat), engine.observe(params, truth, seat))
        assert np.array_equal(world.order, worlds[0].order)
    assert np.array_equal(state.order, truth.order)


def same_observation(ours: engine.Observation, theirs: engine.Observation) -> bool:
    return all(np.array_equal(getattr(ours, name), getattr(theirs, name)) for name in vars(ours) if name != "memo")


def at_round(players: int, target: int, copies: int) -> tuple[rules.Params, engine.State]:
    """`copies` of one game, each at the first pick of round `target`, every seat taking its first legal option."""
    params = rules.Params(players=players)
    order = rules.deal(params, np.random.default_rng(players), 1).order
    state = engine.init(params, rules.Deal(np.repeat(order, copies, axis=0)))
    while state.round < target or state.phase != engine.DRAFT:
        state = engine.step(params, state, engine.decision(params, state).legal.argmax(axis=1))
    return params, state


@pytest.mark.parametrize("players, target, orders", [(2, 7, 120), (3, 5, 6)])
def test_every_order_of_a_small_unseen_deck_is_drawn_about_as_often(players: int, target: int, orders: int):
    """In the next-to-last round at 2 players (5 cards below the top card) and the last at 3 players (3 cards), a
    batch of 4000 copies of one game determinized at once: every order of the unseen cards appears, and each unseen card
    lies in each hidden slot about equally often."""
    params, state = at_round(players, target, copies=4000)
    hidden = engine.determinize(params, state, 0, np.random.default_rng(5)).order[:, state.dealt + 1:]
    assert len({tuple(row) for row in hidden}) == orders
    unseen = np.sort(state.order[0, state.dealt + 1:])
    share = (hidden[:, :, None] == unseen).mean(axis=0)  # (slot, card)
    assert np.abs(share - 1 / len(unseen)).max() < 0.05


def test_nothing_is_left_to_draw_in_the_last_round_at_four_players() -> None:
    """At 4 players the last round deals 45 of the 46 cards: the last one shows on top of the deck, so the only
    world is the true one."""
    params, state = at_round(4, 4, 3)
    assert state.dealt + 1 == C
    assert np.array_equal(engine.determinize(params, state, 2, np.random.default_rng(0)).order, state.order)
