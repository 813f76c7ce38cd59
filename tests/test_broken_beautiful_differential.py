"""Broken and Beautiful: the batched engine replayed decision by decision through the scalar reference, and
batch = singles.

The engine plays batches with mixed lineups; a recording wrapper keeps every observation it hands out. Each
game is then replayed through reference.play_round with a decider that returns the engine's recorded choices
(Record.picks, .keeps, .repairs), checking before every decision that the reference's table and legal set
equal the engine's. The reference derives legality from the rules (the drafting area; gold cannot be kept;
the affordable broken cards) and scores with its own code, so agreement over thousands of games with every
strategy mix is strong evidence that both implement the rulebook.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sim.broken_beautiful import engine, reference, rules
from sim.broken_beautiful.engine import KEEP, SELL
from sim.broken_beautiful.rules import SCORED
from strategies.broken_beautiful import make_player

POOL = np.array(["random", "greedy", "collector", "banker", "hater", "hater@3", "greedy-no-teapot",
                 "collector-no-tea_jar", "random-no-cup", "banker-no-plate"])


class Recorder:
    """Wraps a real player and notes every observation the engine hands out (once per decision)."""

    def __init__(self, player, log: list):
        self.player, self.log, self.name = player, log, player.name

    def note(self, obs) -> None:
        if not self.log or self.log[-1][0] is not obs:
            # obs.repairs is updated in place during a repair phase: keep a copy
            self.log.append((obs, obs.repairs.copy(), obs.legal.copy()))

    def draft(self, obs, rng):
        self.note(obs)
        return self.player.draft(obs, rng)

    def keep(self, obs, rng):
        self.note(obs)
        return self.player.keep(obs, rng)

    def repair(self, obs, rng):
        self.note(obs)
        return self.player.repair(obs, rng)


def play_recorded(params: rules.Params, games: int, seed: int, pool=POOL):
    rng = np.random.default_rng(seed)
    order = rules.deal(rng, games, params)
    lineups = rng.choice(pool, size=(games, params.players))
    log: list = []

    def factory(name, **kwargs):
        return Recorder(make_player(name, **kwargs), log)

    record = engine.play(params, order, lineups, rng, factory)
    return lineups, record, log


def split_log(log: list, record: engine.Record, players: int) -> list[dict]:
    """Per round: the draft and keep observations of each pick and the observation of each repair turn."""
    rounds, picks = record.picks.shape[1:]
    out, at = [], 0
    for r in range(rounds):
        entry = {"draft": [], "keep": [], "repair": []}
        for _ in range(picks):
            for decision in ("draft", "keep"):
                obs = log[at][0]
                assert (obs.decision, obs.round) == (decision, r)
                entry[decision].append(log[at])
                at += 1
        for _ in range(record.repairs[r].shape[1]):
            assert (log[at][0].decision, log[at][0].round) == ("repair", r)
            entry["repair"].append(log[at])
            at += 1
        out.append(entry)
    assert at == len(log)
    return out


class Replay:
    """A reference decider for game g that returns the engine's recorded choices, checking on the way that the
    reference sees the same table and allows the same choices as the engine did."""

    def __init__(self, params: rules.Params, record: engine.Record, rounds: list[dict], g: int):
        self.params, self.record, self.rounds, self.g = params, record, rounds, g
        self.size = params.kit.size
        self.pick = self.step = 0
        self.stats = {"free": 0, "surcharged": 0, "long phases": 0, "short sale": 0, "negative supply": 0}

    def same_table(self, game: reference.Game, obs, repairs=None) -> None:
        g = self.g
        owner = np.full(self.size, -1)
        cond = np.zeros(self.size)
        for seat, collection in enumerate(game.collections):
            for card, state in collection.items():
                owner[card], cond[card] = seat, state
        assert np.array_equal(obs.owner[g], owner)
        held = owner >= 0
        assert np.array_equal(obs.cond[g][held], cond[held])
        assert obs.ingots[g].tolist() == game.ingots
        assert int(obs.supply[g]) == game.supply
        assert int(obs.deck_top[g]) == (game.deck[0] if game.deck else -1)
        assert obs.round == game.round and obs.first == game.first
        self.stats["negative supply"] += game.supply < 0

    def draft(self, game, seat, dealt, area):
        obs, _, legal = self.rounds[game.round]["draft"][self.pick]
        g = self.g
        self.same_table(game, obs)
        assert obs.seat == seat
        assert obs.draft[g].tolist() == dealt
        assert {dealt[i] for i in np.flatnonzero(legal[g])} == set(area)
        return dealt[self.record.picks[g, game.round, self.pick]]

    def keep(self, game, seat, dealt, area, card):
        obs, _, legal = self.rounds[game.round]["keep"][self.pick]
        g = self.g
        self.same_table(game, obs)
        assert (obs.seat, int(obs.card[g])) == (seat, card)
        allowed = {SELL} | ({KEEP} if game.kind(card) != "gold" else set())  # gold cards must be sold
        assert set(np.flatnonzero(legal[g]).tolist()) == allowed
        choice = self.record.keeps[g, game.round, self.pick]
        self.pick += 1
        if choice == SELL:
            self.stats["short sale"] += game.supply < game.value(card)
        return choice == KEEP

    def repair(self, game, seat, dealt, affordable, done, free):
        obs, repairs, legal = self.rounds[game.round]["repair"][self.step]
        g = self.g
        self.same_table(game, obs)
        assert obs.seat == seat
        assert repairs[g].tolist() == done
        assert bool(obs.free[g]) == free
        assert legal[g, -1]  # passing is always allowed
        offered = np.flatnonzero(legal[g, :-1])
        assert set(offered.tolist()) == set(affordable)
        cost = engine.repair_cost(self.params, offered, repairs[g : g + 1, seat], obs.free[g : g + 1])[0]
        assert dict(zip(offered.tolist(), cost.tolist())) == affordable
        choice = int(self.record.repairs[game.round][g, self.step])
        self.step += 1
        if choice == self.size:
            return None
        self.stats["free"] += free and done[seat] == 0
        self.stats["surcharged"] += done[seat] > 0
        return choice

    def end_round(self, r: int) -> None:
        """The reference ended the repair phase: whatever the engine asked after that must be passes, with
        nothing but passing allowed."""
        steps = self.record.repairs[r][self.g]
        players = self.params.players
        assert self.step % players == 0
        self.stats["long phases"] += self.step // players >= 3  # someone repaired in a second round of turns
        assert (steps[self.step :] == self.size).all()
        for _, _, legal in self.rounds[r]["repair"][self.step :]:
            assert not legal[self.g, :-1].any()
        assert self.pick == 2 * players
        self.pick = self.step = 0


def replay(params: rules.Params, record: engine.Record, log: list) -> dict:
    rounds = split_log(log, record, params.players)
    totals: dict = {}
    state = record.state
    for g in range(len(record.order)):
        game = reference.new_game(params, record.order[g])
        decider = Replay(params, record, rounds, g)
        while not reference.over(game):
            reference.play_round(game, decider)
            decider.end_round(game.round - 1)
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
        result = reference.final_result(game)
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
    lineups, record, log = play_recorded(params, games, seed)
    assert set(lineups.ravel()) == set(POOL)
    assert (lineups != lineups[:, :1]).any(axis=1).mean() > 0.8  # most games mix strategies
    rounds = params.kit.rounds(players)
    assert record.picks.shape == record.keeps.shape == (games, rounds, 2 * players)
    assert len(record.repairs) == rounds
    stats = replay(params, record, log)
    assert stats["games"] == games
    # The replay went through the rules that matter, many times.
    assert stats["free"] > 20 and stats["surcharged"] > 20 and stats["long phases"] > 20
    assert stats["short sale"] > 0
    assert stats["negative supply"] == 0


def test_unlimited_supply_and_new_player_ingots_agree_with_reference() -> None:
    params = rules.Params(players=3, supply_shortfall="unlimited", new_player_ingots=1)
    _, record, log = play_recorded(params, 300, 7)
    stats = replay(params, record, log)
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
    _, record, log = play_recorded(params, 200, 8)
    last_tops = [obs.deck_top for obs, _, _ in split_log(log, record, 4)[-1]["repair"]]
    assert all((top == -1).all() for top in last_tops)
    assert replay(params, record, log)["games"] == 200


class Scripted:
    """Replays the recorded choices of one seat in the games (rows of the record) it plays."""

    def __init__(self, name: str, seat: int, rows: np.ndarray, record: engine.Record, players: int):
        self.name, self.seat, self.rows, self.record, self.players = name, seat, rows, record, players
        self.calls: dict[int, int] = {}

    def draft(self, obs, rng):
        assert obs.seat == self.seat
        pick = int((~obs.open[0]).sum())  # slots already taken this round
        return self.record.picks[self.rows, obs.round, pick].astype(np.int64)

    def keep(self, obs, rng):
        pick = int((~obs.open[0]).sum()) - 1
        return self.record.keeps[self.rows, obs.round, pick].astype(np.int64)

    def repair(self, obs, rng):
        # This seat's n-th turn of the round is repair step n * P + its place after the first player.
        n = self.calls.get(obs.round, 0)
        self.calls[obs.round] = n + 1
        step = n * self.players + (self.seat - obs.first) % self.players
        return self.record.repairs[obs.round][self.rows, step].astype(np.int64)


def scripted_factory(record: engine.Record):
    def make(name, *, seat, players, idx, params):
        rows = np.arange(len(record.order))[idx]
        return Scripted(name, seat, rows, record, players)

    return make


FIELDS = ("points", "scores", "repaired", "items", "rank", "win", "picks", "keeps")


@pytest.mark.parametrize(("players", "overrides"), [(3, {}), (4, {"supply_shortfall": "unlimited"}),
                                                    (2, {"new_player_ingots": 2})])
def test_a_batch_equals_its_games_played_one_by_one(players: int, overrides: dict) -> None:
    params = rules.Params(players=players, **overrides)
    _, recorded, _ = play_recorded(params, 150, 60 + players)
    rng = np.random.default_rng(0)
    names = rng.choice(["script-a", "script-b", "script-c"], size=(150, players))
    batch = engine.play(params, recorded.order, names, rng, scripted_factory(recorded))
    for field in FIELDS:
        assert np.array_equal(getattr(batch, field), getattr(recorded, field)), field
    for r, choices in enumerate(batch.repairs):
        assert np.array_equal(choices, recorded.repairs[r]), r
    for field in ("owner", "cond", "ingots", "supply"):
        assert np.array_equal(getattr(batch.state, field), getattr(recorded.state, field)), field

    singles = []
    for g in range(len(names)):
        alone = engine.Record(recorded.order[g : g + 1], recorded.picks[g : g + 1], recorded.keeps[g : g + 1],
                              [c[g : g + 1] for c in recorded.repairs], None, None, None, None, None, None, None)
        single = engine.play(params, recorded.order[g : g + 1], names[g : g + 1], rng, scripted_factory(alone))
        for r, choices in enumerate(single.repairs):
            # a game on its own ends its repair phase when it ends; the batch only added passes after it
            steps = choices.shape[1]
            assert np.array_equal(choices[0], batch.repairs[r][g, :steps]), (g, r)
            assert (batch.repairs[r][g, steps:] == params.kit.size).all(), (g, r)
        singles.append(single)
    assert any(s.repairs[r].shape[1] < batch.repairs[r].shape[1] for s in singles for r in range(len(s.repairs)))
    for field in FIELDS:
        together = getattr(batch, field)
        one_by_one = np.concatenate([getattr(single, field) for single in singles])
        assert np.array_equal(together, one_by_one), field
    for field in ("owner", "cond", "ingots", "supply"):
        one_by_one = np.concatenate([getattr(single.state, field) for single in singles])
        assert np.array_equal(getattr(batch.state, field), one_by_one), field
