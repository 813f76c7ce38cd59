"""The game contract, checked over every registered game: a new game is covered with no new test code.

Each test is parametrized from `sim.registry.GAMES` and uses only what the contract offers (GameRules,
the steppable engine, the Catalogue), never a game's own modules.
"""

from __future__ import annotations

import copy
import dataclasses
import json

import numpy as np
import polars as pl
import pytest

from sim.errors import AtelierError, IllegalMove
from sim.experiment import build_experiment
from sim.game import play
from sim.registry import GAMES, get_game
from sim.runner import Chunk, play_chunk
from strategies.common import Table

NAMES = [*sorted(GAMES), "dice"]  # dice: the test game, registered by its fixture like any new game would be
pytestmark = pytest.mark.usefixtures("dice")
ENGINE_SCHEMA = {"experiment": pl.String, "config_hash": pl.String, "game": pl.String, "players": pl.Int8,
                 "game_id": pl.Int64, "deal": pl.Int32, "lineup": pl.Int32, "seat": pl.Int8, "player": pl.Int8,
                 "strategy": pl.String, "score": pl.Int32, "rank": pl.Int8, "win": pl.Float32}


def strategies(name: str) -> list[str]:
    """The bench strategy and, where the catalogue lists whole strategies, a second one to mix lineups."""
    catalogue = get_game(name).players
    whole = [s for s in catalogue.strategies if " " not in s]
    return [catalogue.bench, *[s for s in whole if s != catalogue.bench][:1]]


def lineups(name: str, players: int, games: int, rng: np.random.Generator) -> np.ndarray:
    return rng.choice(strategies(name), size=(games, players))


def simulate(name: str, players: int, seed: int, games: int = 24) -> dict:
    spec = get_game(name)
    rng = np.random.default_rng(seed)
    seated = lineups(name, players, games, rng)
    return spec.simulate(spec.make_params(players, {}), seated, np.arange(games) // 2,
                         np.random.SeedSequence(seed, spawn_key=(0,)), np.random.SeedSequence(seed, spawn_key=(1,)))


def experiment(name: str, players: int):
    """A tiny experiment of this game, as the runner sees it."""
    return build_experiment({"game": name, "players": players, "games": 16, "seed": 3, "chunk": 16,
                             "seats": [get_game(name).players.bench] * players}, default_name="contract")


@pytest.mark.parametrize("name", NAMES)
def test_the_result_columns_follow_the_declared_schema(name: str) -> None:
    spec = get_game(name)
    players = spec.rules.player_counts[0]
    exp = experiment(name, players)
    frame = play_chunk(exp, GAMES[name], Chunk(players, 0, 0, exp.deals[players]))
    assert dict(frame.schema) == {**ENGINE_SCHEMA, **spec.rules.columns}
    assert frame.height == 16 * players
    columns = simulate(name, players, 1)
    assert set(columns) - set(ENGINE_SCHEMA) == set(spec.rules.columns)
    for column, dtype in spec.rules.columns.items():
        values = pl.Series(column, columns[column])
        assert values.cast(dtype).cast(values.dtype).equals(values), f"{column} does not fit {dtype}"


@pytest.mark.parametrize("name", NAMES)
def test_win_shares_sum_to_one_and_ranks_run_from_one(name: str) -> None:
    for players in get_game(name).rules.player_counts:
        columns = simulate(name, players, players)
        frame = pl.DataFrame({k: v for k, v in columns.items() if k in ENGINE_SCHEMA})
        per_game = frame.group_by("game").agg(pl.col("win").sum(), pl.col("rank").min().alias("best"),
                                              pl.col("rank").max().alias("worst"), pl.len())
        assert np.allclose(per_game["win"].to_numpy(), 1.0)
        assert (per_game["best"] == 1).all() and (per_game["worst"] <= players).all()
        assert (per_game["len"] == players).all()


@pytest.mark.parametrize("name", NAMES)
def test_the_same_seed_gives_the_same_data(name: str) -> None:
    players = get_game(name).rules.player_counts[-1]
    one, two = (pl.DataFrame(simulate(name, players, 5)) for _ in range(2))
    assert one.equals(two)
    other = pl.DataFrame(simulate(name, players, 6))
    assert not one.equals(other)


@pytest.mark.parametrize("name", NAMES)
def test_a_state_copied_mid_game_continues_like_the_uninterrupted_game(name: str) -> None:
    spec = get_game(name)
    rules, players = spec.rules, spec.rules.player_counts[-1]
    params = spec.make_params(players, {})
    rng = np.random.default_rng(11)
    deal = rules.deal(params, rng, 12)
    table, choices = Table(spec.players, params, lineups(name, players, 12, rng), rules.secrets(deal)), []

    def recording(decision, rng):
        choices.append(table.choose(decision, rng))
        return choices[-1]

    whole = rules.engine.outcome(params, play(rules.engine, params, deal, recording, rng))
    state = rules.engine.init(params, deal)
    for choice in choices[: len(choices) // 2]:
        state = rules.engine.step(params, state, choice)
    kept = copy.deepcopy(state)
    for start in (state, kept):
        current = start
        for choice in choices[len(choices) // 2:]:
            assert not rules.engine.terminal(current)
            current = rules.engine.step(params, current, choice)
        assert rules.engine.terminal(current)
        finished = rules.engine.outcome(params, current)
        assert np.array_equal(finished.scores, whole.scores)
        assert np.array_equal(finished.win, whole.win)


@pytest.mark.parametrize("name", NAMES)
def test_a_trace_narrates_and_replays_through_the_reference_to_the_engines_scores(name: str) -> None:
    spec = get_game(name)
    players = spec.rules.player_counts[0]
    params = spec.make_params(players, {})
    seated = [strategies(name)[s % len(strategies(name))] for s in range(players)]
    trace = json.loads(json.dumps(spec.trace(params, seated, 4)))
    assert (trace["game"], trace["players"], trace["seed"], trace["strategies"]) == (name, players, 4, seated)
    assert spec.rules.narrate(trace).strip()
    rng = np.random.default_rng(4)  # the engine, given the trace's seed, plays the very same game
    deal = spec.rules.deal(params, rng, 1)
    table = Table(spec.players, params, np.array([seated]), spec.rules.secrets(deal))
    state = play(spec.rules.engine, params, deal, table.choose, rng)
    assert list(spec.rules.replay(trace)) == spec.rules.engine.outcome(params, state).scores[0].tolist()


@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_strategy_is_refused(name: str) -> None:
    with pytest.raises(AtelierError, match="no-such-player"):
        get_game(name).check_strategy("no-such-player")


class Crooked:
    """Answers every decision with a choice no rule allows."""

    def __init__(self, name: str, games: np.ndarray):
        self.name, self.n = name, len(games)

    def __getattr__(self, kind: str):
        return lambda observation, rng: np.full(self.n, 10**6)


@pytest.mark.parametrize("name", NAMES)
def test_an_illegal_choice_is_named(name: str) -> None:
    spec = get_game(name)
    players = spec.rules.player_counts[0]
    params = spec.make_params(players, {})
    bench = spec.players.bench

    def make(strategy, *, seat, params, games, secret):
        return Crooked(strategy, games) if strategy == "crooked" else spec.players.make(
            strategy, seat=seat, params=params, games=games, secret=secret)

    crooked = dataclasses.replace(spec.players, make=make)
    seated = np.array([["crooked"] * players, [bench] * players] * 3)
    deal = spec.rules.deal(params, np.random.default_rng(0), 6)
    table = Table(crooked, params, seated, spec.rules.secrets(deal))
    with pytest.raises(IllegalMove, match="strategy 'crooked' returned an illegal move"):
        play(spec.rules.engine, params, deal, table.choose, np.random.default_rng(0))


@pytest.mark.parametrize("name", NAMES)
def test_the_manifest_facts_are_plain_data(name: str) -> None:
    rules = get_game(name).rules
    for players in rules.player_counts:
        facts = rules.facts(rules.make_params(players, {}))
        assert json.loads(json.dumps(facts)) == facts and facts
