"""Broken and Beautiful: the batched engine replayed decision by decision through the scalar reference, and a
state copied in a repair phase.

The engine plays batches with mixed lineups; a recording `choose` keeps every Decision it is asked and the
choices made. Each game is then replayed through reference.play with a decider that returns the engine's
recorded choices, checking before every decision that the reference asks the same seat the same kind of
decision (its `question`), over the same table, and allows the same choices as the engine did. The reference
derives legality from the rules (the drafting area; gold cannot be kept; the affordable broken cards) and scores
with its own code, so agreement over thousands of games with every strategy mix is strong evidence that both
implement the rulebook.

The helpers here (Record, play_recorded) are shared by the other Broken and Beautiful tests.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

from sim.broken_beautiful import engine, reference, rules
from sim.broken_beautiful.engine import SELL
from sim.broken_beautiful.rules import SCORED
from sim.game import Decision, play
from strategies.broken_beautiful import PLAYERS
from strategies.common import Table

POOL = np.array(["random", "greedy", "collector", "banker", "hater", "hater@3", "greedy-no-teapot",
                 "collector-no-tea_jar", "random-no-cup", "banker-no-plate"])


class Record(NamedTuple):
    """A finished batch: every decision in order (to replay it), the choices by kind and the final standing."""

    order: np.ndarray  # (B, C) the deck
    decisions: list  # (Decision, (B,) choices) in the order they were asked
    picks: np.ndarray  # (B, R, 2P) drafting-area slot taken at each pick
    keeps: np.ndarray  # (B, R, 2P) KEEP or SELL
    repairs: list  # per round, (B, S) card repaired at each repair turn, C = pass (also where not asked)
    state: engine.State  # the final state
    points: np.ndarray  # (B, P, len(SCORED))
    scores: np.ndarray  # (B, P)
    repaired: np.ndarray  # (B, P) repaired items
    items: np.ndarray  # (B, P) items in the collection (broken ones too, unless tie_items_count_broken is off)
    broken: np.ndarray  # (B, P) broken items
    rank: np.ndarray
    win: np.ndarray


class Recorder:
    """A `choose` callback that asks another one and notes every decision with the choices made."""

    def __init__(self, choose):
        self.choose, self.log = choose, []

    def __call__(self, decision: Decision, rng) -> np.ndarray:
        choice = self.choose(decision, rng)
        decision.observation.memo.clear()  # the strategies' scratch space: not needed to replay, and large
        self.log.append((decision, np.array(choice)))
        return choice


def record_of(params: rules.Params, order: np.ndarray, log: list, state: engine.State) -> Record:
    """The Record of a finished batch from the log of its decisions."""
    rounds, size = params.kit.rounds(params.players), params.kit.size
    by_kind: dict = {(kind, r): [] for kind in ("draft", "keep", "repair") for r in range(rounds)}
    for decision, choice in log:
        choice = np.where(decision.asked, choice, size) if decision.kind == "repair" else choice
        by_kind[decision.kind, decision.observation.round].append(choice)
    picks, keeps = (np.stack([np.stack(by_kind[kind, r], 1) for r in range(rounds)], 1).astype(np.int8)
                    for kind in ("draft", "keep"))
    repairs = [np.stack(by_kind["repair", r], 1).astype(np.int8) for r in range(rounds)]
    out = engine.outcome(params, state)
    points = np.stack([out.columns[f"points_{kind}"] for kind in SCORED], axis=2)
    return Record(order, log, picks, keeps, repairs, state, points, out.scores, out.columns["repaired"],
                  out.columns["items"], out.columns["broken"], out.rank, out.win)


def play_recorded(params: rules.Params, order: np.ndarray, lineups, rng: np.random.Generator, make=None) -> Record:
    """Play the games of `order` (B, C) to the end with the players seated as `lineups` (B, P); `make` replaces the
    catalogue's make_player (for scripted or crooked test players)."""
    catalogue = PLAYERS if make is None else dataclasses.replace(PLAYERS, make=make)
    recorder = Recorder(Table(catalogue, params, np.asarray(lineups), None).choose)
    state = play(engine, params, rules.Deal(order), recorder, rng)
    return record_of(params, order, recorder.log, state)


def play_mixed(params: rules.Params, games: int, seed: int, pool=POOL):
    rng = np.random.default_rng(seed)
    (order,) = rules.deal(params, rng, games)
    lineups = rng.choice(pool, size=(games, params.players))
    return lineups, play_recorded(params, order, lineups, rng)


class Replay:
    """A decider for the reference's game g that returns the engine's recorded choices, checking on the way that
    the reference asks what the engine asked of game g, over the same table, with the same choices allowed.
    Decisions the engine did not ask of game g (its repair phase was over) are skipped: they must allow nothing
    but passing."""

    def __init__(self, params: rules.Params, record: Record, g: int):
        self.params, self.record, self.g = params, record, g
        self.size = params.kit.size
        self.steps = iter([(d, c) for d, c in record.decisions if d.asked[g]])
        self.turns: dict[int, int] = {}  # repair turns asked per round
        self.stats = {"free": 0, "surcharged": 0, "long phases": 0, "short sale": 0, "negative supply": 0}

    def same_table(self, ours, theirs) -> None:
        g = self.g
        assert (ours.round, ours.first, ours.seat, ours.rounds_left) == (theirs.round, theirs.first, theirs.seat,
                                                                           theirs.rounds_left)
        assert np.array_equal(ours.owner[0], theirs.owner[g])
        held = ours.owner[0] >= 0
        assert np.array_equal(ours.cond[0][held], theirs.cond[g][held])
        assert ours.ingots[0].tolist() == theirs.ingots[g].tolist()
        assert int(ours.supply[0]) == int(theirs.supply[g])
        assert int(ours.deck_top[0]) == int(theirs.deck_top[g])
        assert ours.draft[0].tolist() == theirs.draft[g].tolist()
        assert ours.open[0].tolist() == theirs.open[g].tolist()
        assert int(ours.card[0]) == int(theirs.card[g])
        assert ours.repairs[0].tolist() == theirs.repairs[g].tolist()
        assert bool(ours.free[0]) == bool(theirs.free[g])
        self.stats["negative supply"] += int(ours.supply[0]) < 0

    def __call__(self, game: reference.Game, phase: str, options: list[int]) -> int:
        decision = reference.question(game, phase, options)
        theirs, choices = next(self.steps)
        g, ours = self.g, decision.observation
        assert (decision.kind, decision.seat) == (theirs.kind, theirs.seat)
        assert ours.decision == decision.kind
        self.same_table(ours, theirs.observation)
        assert np.array_equal(decision.legal[0], theirs.legal[g])
        choice = int(choices[g])
        seat = decision.seat
        if decision.kind == "keep" and choice == SELL:
            self.stats["short sale"] += int(ours.supply[0]) < self.params.kit.value[ours.card[0]]
        if decision.kind == "repair":
            assert decision.legal[0, -1]  # passing is always allowed
            self.turns[ours.round] = self.turns.get(ours.round, 0) + 1
            if choice != self.size:
                done = int(ours.repairs[0, seat])
                self.stats["free"] += bool(ours.free[0]) and done == 0
                self.stats["surcharged"] += done > 0
        return choice

    def finish(self) -> None:
        """The reference ended the game: it asked every decision the engine asked of game g."""
        assert next(self.steps, None) is None
        players = self.params.players
        for r, repairs in enumerate(self.record.repairs):
            asked = self.turns.get(r, 0)
            assert asked % players == 0  # repair phases end after a whole round of turns
            self.stats["long phases"] += asked // players >= 3  # someone repaired in a second round of turns
            assert (repairs[self.g, asked:] == self.size).all()


def replay(params: rules.Params, record: Record) -> dict:
    totals: dict = {}
    state = record.state
    for g in range(len(record.order)):
        decider = Replay(params, record, g)
        game = reference.play(params, rules.Deal(record.order[g : g + 1]), decider)
        result = reference.final_result(game)
        decider.finish()
        assert game.round == record.picks.shape[1]
        for key, value in decider.stats.items():
            totals[key] = totals.get(key, 0) + value
        # the final table: owner and condition of every card, ingots, supply
        for card in range(params.kit.size):
            owner = next((s for s, col in enumerate(game.collections) if card in col), -1)
            assert state.owner[g, card] == owner, (g, card)
            if owner >= 0:
                assert state.cond[g, card] == game.collections[owner][card], (g, card)
        assert state.ingots[g].tolist() == game.ingots, g
        assert int(state.supply[g]) == game.supply, g
        assert [dict(zip(SCORED, p)) for p in record.points[g].tolist()] == result.points, g
        assert record.scores[g].tolist() == result.scores, g
        assert record.repaired[g].tolist() == result.repaired, g
        assert record.items[g].tolist() == result.items, g
        assert record.rank[g].tolist() == result.ranks, g
        assert record.win[g].tolist() == pytest.approx(result.wins), g
        totals["games"] = totals.get("games", 0) + 1
    return totals


@pytest.mark.parametrize(("players", "games", "seed"), [(2, 700, 1), (3, 700, 2), (4, 700, 3)])
def test_engine_agrees_with_reference_decision_by_decision(players: int, games: int, seed: int) -> None:
    params = rules.Params(players=players)
    lineups, record = play_mixed(params, games, seed)
    assert set(lineups.ravel()) == set(POOL)
    assert (lineups != lineups[:, :1]).any(axis=1).mean() > 0.8  # most games mix strategies
    rounds = params.kit.rounds(players)
    assert record.picks.shape == record.keeps.shape == (games, rounds, 2 * players)
    assert len(record.repairs) == rounds
    stats = replay(params, record)
    assert stats["games"] == games
    # The replay went through the rules that matter, many times.
    assert stats["free"] > 20 and stats["surcharged"] > 20 and stats["long phases"] > 20
    assert stats["short sale"] > 0
    assert stats["negative supply"] == 0


def test_unlimited_supply_and_new_player_ingots_agree_with_reference() -> None:
    params = rules.Params(players=3, supply_shortfall="unlimited", new_player_ingots=1)
    _, record = play_mixed(params, 300, 7)
    stats = replay(params, record)
    assert stats["games"] == 300
    assert stats["negative supply"] > 0  # the bank did pay beyond its ingots
    assert stats["free"] > 0 and stats["surcharged"] > 0


def test_a_deck_that_runs_out_agrees_with_reference(tmp_path: Path) -> None:
    """45 cards (one box fewer) at 4 players: five drafts of nine empty the deck before the last breakage."""
    text = rules.DEFAULT_COMPONENTS.read_text().replace("box = { count = 2", "box = { count = 1")
    path = tmp_path / "45.toml"
    path.write_text(text)
    params = rules.Params(players=4, components=str(path), tie_items_count_broken=False)
    assert params.kit.size == 45 and params.kit.rounds(4) == 5
    _, record = play_mixed(params, 200, 8)
    last_tops = [d.observation.deck_top for d, _ in record.decisions if d.kind == "repair" and
                 d.observation.round == 4]
    assert last_tops and all((top == -1).all() for top in last_tops)
    assert replay(params, record)["games"] == 200


def test_trays_and_boxes_without_a_pattern_agree_with_reference_and_change_results() -> None:
    """trays_boxes_patterned off, replayed through the reference; then the final tables of a default batch scored
    both ways by both engines: without their pattern, trays and boxes take points from the teapots beside them,
    never add any, and some winners change."""
    plain = rules.Params(players=3, trays_boxes_patterned=False)
    _, record = play_mixed(plain, 300, 11)
    assert replay(plain, record)["games"] == 300
    _, played = play_mixed(rules.Params(players=3), 300, 11)
    by_type, _, _, _, _, win = engine.standing(plain, played.state)
    teapot = SCORED.index("teapot")
    assert np.array_equal(np.delete(by_type, teapot, 2), np.delete(played.points, teapot, 2))
    assert (by_type[..., teapot] <= played.points[..., teapot]).all()
    fewer = (by_type[..., teapot] < played.points[..., teapot]).any(axis=1)
    assert fewer.mean() > 0.3
    assert (win != played.win).any(axis=1).sum() > 0
    state = played.state
    for g in np.flatnonzero(fewer)[:40]:
        for params, points in ((plain, by_type[g]), (rules.Params(players=3), played.points[g])):
            held = [{c: int(state.cond[g, c]) for c in np.flatnonzero(state.owner[g] == seat)} for seat in range(3)]
            game = reference.Game(params, [], held, state.ingots[g].tolist(), int(state.supply[g]))
            assert [dict(zip(SCORED, p)) for p in points.tolist()] == reference.final_result(game).points, g


@pytest.mark.parametrize(("players", "overrides"), [(3, {}), (2, {"supply_shortfall": "unlimited"}), (4, {})])
def test_a_state_copied_in_round_2s_repair_phase_plays_on_to_the_same_game(players: int, overrides: dict) -> None:
    """The contract's promise for search players: a State is a value. Stepping a deep copy taken mid-game with
    the same choices ends in the same game as the uninterrupted run, and stepping it leaves the original as it
    was."""
    params = rules.Params(players=players, **overrides)
    _, whole = play_mixed(params, 200, 90 + players)
    choices = [c for _, c in whole.decisions]
    at = next(i for i, (d, _) in enumerate(whole.decisions) if d.kind == "repair" and d.observation.round == 1)
    state = engine.init(params, rules.Deal(whole.order))
    for choice in choices[:at]:
        state = engine.step(params, state, choice)
    assert (state.phase, state.round, state.turn) == ("repair", 1, 0)
    kept = copy.deepcopy(state)
    frozen = {f.name: copy.deepcopy(getattr(state, f.name)) for f in dataclasses.fields(state)}
    for start in (kept, state):
        current = start
        for (decision, choice) in whole.decisions[at:]:
            asked = engine.decision(params, current)
            assert (asked.kind, asked.seat) == (decision.kind, decision.seat)
            assert np.array_equal(asked.legal, decision.legal) and np.array_equal(asked.asked, decision.asked)
            current = engine.step(params, current, choice)
        assert engine.terminal(params, current)
        for field in ("owner", "cond", "ingots", "supply"):
            assert np.array_equal(getattr(current, field), getattr(whole.state, field)), field
        out = engine.outcome(params, current)
        assert np.array_equal(out.scores, whole.scores) and np.array_equal(out.win, whole.win)
        for f in dataclasses.fields(state):  # the copy's steps never touched the state it was copied from
            value = getattr(state, f.name)
            same = np.array_equal(value, frozen[f.name]) if isinstance(value, np.ndarray) else value == frozen[f.name]
            assert same, f.name
