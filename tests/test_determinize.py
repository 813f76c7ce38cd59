"""What a seat observes, and the worlds it cannot tell apart (sim/game.py: `observe`, `determinize`,
GameRules.hidden), checked over every registered game with no per-game test code: the contract search players
stand on. A decision shows its seat what `observe` gives it; a determinized State shows the seat the same, gives it
the same options, changes only the hidden fields, plays on to a proper end, and is not the true State."""

from __future__ import annotations

import dataclasses

import fakegame
import numpy as np
import pytest
from test_contract import ALL, difference, every_lineup, the_fewest_and_the_most

from sim.registry import get_game

pytestmark = pytest.mark.usefixtures("dice")
SAMPLED = {0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377}  # the decisions looked at: early ones densely


def positions(name: str, players: int, seed: int, games: int = 6):
    """(params, state, decision) at the SAMPLED decisions of a batch played by the catalogue's strategies."""
    spec = get_game(name)
    params = spec.make_params(players, {})
    rng = np.random.default_rng(seed)
    deal = spec.rules.deal(params, rng, games)
    table, engine = spec.table(params, every_lineup(name, players, games, rng), deal), spec.rules.engine
    state, n = engine.init(params, deal), 0
    while not engine.terminal(params, state):
        asked = engine.decision(params, state)
        if n in SAMPLED:
            yield params, state, asked
        state, n = engine.step(params, state, table.choose(asked, np.random.default_rng([seed, n]))), n + 1


def state_fields(state) -> dict:
    return {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}


def looks_the_same(engine, rules, params, state, asked, seat: int, world) -> str | None:
    """Where the world differs from the true State in what `seat` may know, or None: its observation, its options
    where it is to act, and every field the rules do not declare hidden."""
    found = difference(engine.observe(params, world, seat), engine.observe(params, state, seat), "observation")
    if found is None and asked.seat == seat:
        there = engine.decision(params, world)
        found = (((there.kind, there.seat) != (asked.kind, asked.seat) and "decision")
                 or difference(there.legal, asked.legal, "legal") or difference(there.asked, asked.asked, "asked"))
    truth, drawn = state_fields(state), state_fields(world)
    return found or next((name for name in truth if name not in rules.hidden
                          and difference(drawn[name], truth[name], name)), None)


def other_worlds(engine, rules, params, state, seat: int, draws: int = 16) -> str | None:
    """None if determinizing for `seat` draws worlds other than the true one, and not always the same world (where
    the rules hide anything); else what is wrong."""
    rng = np.random.default_rng(seat)
    worlds = [engine.determinize(params, state, seat, rng) for _ in range(draws)]
    hidden = [tuple(state_fields(world)[name] for name in rules.hidden) for world in worlds]
    truth = tuple(state_fields(state)[name] for name in rules.hidden)
    if all(difference(h, truth, "hidden") is None for h in hidden):
        return "determinize returns the true State"
    if all(difference(h, hidden[0], "hidden") is None for h in hidden):
        return "determinize draws one world only"
    return None


@pytest.mark.parametrize("name", ALL)
def test_a_decision_shows_its_seat_what_it_observes(name: str) -> None:
    engine = get_game(name).rules.engine
    for players in the_fewest_and_the_most(name):
        for params, state, asked in positions(name, players, seed=players):
            assert difference(asked.observation, engine.observe(params, state, asked.seat), "observation") is None


@pytest.mark.parametrize("name", ALL)
def test_a_determinized_world_looks_the_same_to_its_seat(name: str) -> None:
    rules = get_game(name).rules
    assert set(rules.hidden) <= {f.name for f in dataclasses.fields(rules.engine.init(
        rules.make_params(rules.player_counts[0], {}), rules.deal(rules.make_params(rules.player_counts[0], {}),
                                                                  np.random.default_rng(0), 1)))}
    for players in the_fewest_and_the_most(name):
        rng = np.random.default_rng(players)
        for params, state, asked in positions(name, players, seed=players):
            for seat in range(players):
                world = rules.engine.determinize(params, state, seat, rng)
                found = looks_the_same(rules.engine, rules, params, state, asked, seat, world)
                assert found is None, f"seat {seat} at a {asked.kind} decision: the world's {found} differs"


@pytest.mark.parametrize("name", ALL)
def test_determinize_draws_worlds_other_than_the_true_one(name: str) -> None:
    rules = get_game(name).rules
    players = rules.player_counts[0]
    params, state, _ = next(positions(name, players, seed=7))
    for seat in range(players):
        if rules.hidden:
            assert other_worlds(rules.engine, rules, params, state, seat) is None
        else:  # nothing hidden: the only world is the true one
            assert difference(rules.engine.determinize(params, state, seat, np.random.default_rng(0)), state,
                              "state") is None


@pytest.mark.parametrize("name", ALL)
def test_play_goes_on_from_a_determinized_world_to_a_proper_end(name: str) -> None:
    rules = get_game(name).rules
    engine = rules.engine
    for players in the_fewest_and_the_most(name):
        rng = np.random.default_rng(players)
        for params, state, asked in positions(name, players, seed=players + 10):
            world = engine.determinize(params, state, asked.seat, rng)
            while not engine.terminal(params, world):
                legal = engine.decision(params, world).legal
                world = engine.step(params, world, np.argmax(rng.random(legal.shape) * legal, axis=1))
            assert np.allclose(engine.outcome(params, world).win.sum(axis=1), 1.0)


def test_a_determinize_that_returns_the_true_state_is_caught(monkeypatch) -> None:
    rules = get_game("dice").rules
    params, state, _ = next(positions("dice", 3, seed=1))
    monkeypatch.setattr(fakegame, "determinize", lambda params, state, seat, rng: state)
    assert other_worlds(fakegame, rules, params, state, 0) == "determinize returns the true State"


def test_a_determinize_that_changes_what_the_seat_sees_is_caught() -> None:
    """A world that throws the seat's own die again, or a die already decided, is told apart."""
    rules = get_game("dice").rules
    params, state, asked = next(p for p in positions("dice", 3, seed=1) if p[2].seat == 1)
    own = dataclasses.replace(state, final=state.final.copy())
    own.final[:, 1] = own.final[:, 1] % params.sides + 1
    assert looks_the_same(fakegame, rules, params, state, asked, 1, own) == "observation.die"
    decided = dataclasses.replace(state, final=state.final.copy())
    decided.final[:, 0] = decided.final[:, 0] % params.sides + 1
    assert looks_the_same(fakegame, rules, params, state, asked, 1, decided) is not None


def drawn_alike(engine, rules, params, state, seat: int) -> str | None:
    """None if the world `determinize` draws for `seat` from a stream is the same whether the truth is `state` or
    another world `seat` cannot tell from it: the draw reads only what the seat sees. Else the hidden field that
    differs."""
    other = engine.determinize(params, state, seat, np.random.default_rng(99))
    one, two = (state_fields(engine.determinize(params, truth, seat, np.random.default_rng(5)))
                for truth in (state, other))
    return next((name for name in rules.hidden if difference(one[name], two[name], name)), None)


@pytest.mark.parametrize("name", ALL)
def test_a_determinized_world_depends_only_on_what_its_seat_sees(name: str) -> None:
    rules = get_game(name).rules
    for players in the_fewest_and_the_most(name):
        for params, state, asked in positions(name, players, seed=players + 20):
            for seat in range(players):
                found = drawn_alike(rules.engine, rules, params, state, seat)
                assert found is None, f"seat {seat} at a {asked.kind} decision: the world's {found} follows the truth"


def test_a_determinize_that_reads_the_true_hidden_dice_is_caught(monkeypatch) -> None:
    """Each unseen die moved on from its true face by a random step: every world as likely as before, but drawn from
    the truth, so a search's choice could follow it."""
    rules = get_game("dice").rules
    params, state, _ = next(positions("dice", 3, seed=1))
    fair = fakegame.determinize

    def shifted(params, state, seat, rng):
        world = fair(params, state, seat, rng)
        step = rng.integers(0, params.sides, size=world.final.shape)
        moved = np.where(world.final != state.final, (state.final + step) % params.sides + 1, world.final)
        return dataclasses.replace(world, final=moved)

    monkeypatch.setattr(fakegame, "determinize", shifted)
    assert drawn_alike(fakegame, rules, params, state, 0) == "final"
