"""Kaleido: the batched engine replayed decision by decision through the scalar reference, the trace against
the engine, and batch = singles.

The engine plays batches with mixed lineups drawn per game and seat from every strategy. A wrapper around
`choose` logs every decision the engine asks (its phase, the games asked and their legal masks) and the
choices made. Each game is then replayed through the reference with a decider that hands back the engine's
recorded choices; at every decision the reference's own legal options (derived rule by rule) must equal the
engine's mask, and at the end the table, supplies, points, scores, ranks, win shares and the stalled flag
must match. At every decision the reference also shows the strategies the very State the engine showed them.

Encodings (the engine's module docstring): hole h = 6 * board + slot; extra action 0 none, 1 + h a white
tile in hole h, 1 + H + 6 b + k a board next to board b in direction k; a board's cell is
(q + R) * (2R + 1) + (r + R), R = params.boards + 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from playback import play_batch

from sim.game import Outcome, play
from sim.kaleido import engine, reference, rules
from sim.registry import get_game
from strategies.common import Table
from strategies.kaleido import STRATEGIES

ALL_STRATEGIES = np.array(sorted(STRATEGIES))
kaleido = get_game("kaleido")


def decode_extra(game, code: int):
    """An engine extra-action code as a reference option, from the documented encoding alone: 1 + h a white
    tile in hole h, 1 + H + 6 b + k a board next to board b in direction k."""
    holes = 6 * game.params.boards
    if code == 0:
        return None
    if code <= holes:
        return ("white", *divmod(code - 1, 6))
    board, k = divmod(code - 1 - holes, 6)
    dq, dr = rules.DIRECTIONS[k].tolist()
    return ("board", game.boards[board].q + dq, game.boards[board].r + dr)


def one_game(params: rules.Params) -> rules.Deal:
    """The deal of one game for the reference (Kaleido deals nothing: every game starts alike)."""
    return rules.deal(params, np.random.default_rng(0), 1)


def decode_cell(params: rules.Params, cell: int) -> tuple[int, int]:
    radius = params.boards + 1
    q, r = divmod(int(cell), 2 * radius + 1)
    return q - radius, r - radius


@dataclass
class Entry:
    """One decision the engine asked: the games asked, their legal masks (bit-packed) and the choices."""

    kind: str
    phase: str
    turn: int
    colour: np.ndarray  # (B,) the colour each game's mover places
    seat: int
    board: np.ndarray  # (B,) the board that may be turned, -1 when not a rotation
    rows: np.ndarray  # games asked, ascending
    legal: np.ndarray  # (len(rows), ceil(width / 8)) packed legal masks of those games
    width: int
    choice: np.ndarray  # (B,) the choices made (0 where not asked)
    asked: np.ndarray  # (B,) bool

    def options(self, game: int) -> set[int]:
        at = int(np.searchsorted(self.rows, game))
        assert self.rows[at] == game
        return set(np.flatnonzero(np.unpackbits(self.legal[at])[: self.width]).tolist())


@dataclass
class Record:
    """A batch played by the engine: every decision, the final state and the outcome."""

    entries: list[Entry]
    state: engine.State
    outcome: Outcome

    @property
    def colour_points(self) -> np.ndarray:
        return self.state.midgame + self.state.endgame


def play_logged(params: rules.Params, lineups: np.ndarray, seed: int) -> Record:
    """Play a batch with the game's players, logging every decision through a wrapper around `choose`."""
    table, entries = Table(kaleido.players, params, lineups, None), []

    def choose(decision, rng):
        choice = table.choose(decision, rng)
        obs = decision.observation
        assert obs.legal is decision.legal and obs.asked is decision.asked and obs.seat == decision.seat
        assert decision.asked.any()  # a phase that asks no game is passed over
        assert decision.kind == ("extra" if obs.phase in engine.EXTRA else obs.phase)
        rows = np.flatnonzero(decision.asked)
        entries.append(Entry(decision.kind, obs.phase, obs.turn, obs.colour, obs.seat, obs.board.copy(), rows,
                             np.packbits(decision.legal[rows], axis=1), decision.legal.shape[1], choice.copy(),
                             decision.asked.copy()))
        return choice

    deal = rules.deal(params, np.random.default_rng(0), len(lineups))
    state = play(engine, params, deal, choose, np.random.default_rng(seed))
    return Record(entries, state, engine.outcome(params, state))


class Replay:
    """Hands the reference game `g` the engine's choices, checking the legal options at every step."""

    def __init__(self, params: rules.Params, record: Record, g: int):
        self.params, self.record, self.g = params, record, g
        self.queue = [i for i, entry in enumerate(record.entries) if entry.asked[g]]
        self.at = 0
        self.phases: list[str] = []

    def next(self, phase: str, game: reference.Game) -> tuple[int, set[int]]:
        assert self.at < len(self.queue), (self.g, game.turn, phase, "the reference asks more than the engine")
        i = self.queue[self.at]
        self.at += 1
        entry = self.record.entries[i]
        assert (entry.phase, entry.turn) == (phase, game.turn), (self.g, i)
        assert (entry.colour[self.g], entry.seat) == (game.colour, game.seat), (self.g, i)
        self.phases.append(phase)
        return int(entry.choice[self.g]), entry.options(self.g)

    def __call__(self, game: reference.Game, phase: str, options: list[int]) -> int:
        choice, legal = self.next(phase, game)
        assert set(options) == legal, (self.g, game.turn, phase)  # the reference offers the engine's codes
        if phase in engine.EXTRA:
            extras = reference.extra_options(game, phase)  # the reference's codes are theirs, in order
            assert len(set(options)) == len(options)
            assert [decode_extra(game, code) for code in options] == extras
            assert decode_extra(game, choice) in extras
        elif phase == "tile":
            assert {6 * b + s for b, s in game.empty_holes()} == legal, (self.g, game.turn)
        else:
            assert legal == set(range(6))
            assert self.record.entries[self.queue[self.at - 1]].board[self.g] == game.asking
        return choice


def check_game(params: rules.Params, record: Record, g: int, game: reference.Game, result: reference.Result) -> None:
    state = record.state
    assert game.over
    placed = np.flatnonzero(state.cell[g] >= 0).tolist()
    assert placed == [b.id for b in game.boards] == list(range(len(game.boards))), g
    for b in game.boards:
        assert decode_cell(params, state.cell[g, b.id]) == (b.q, b.r), (g, b.id)
        assert state.rot[g, b.id] == b.rot, (g, b.id)
        assert state.slots[g, b.id].tolist() == [rules.EMPTY if s is None else s for s in b.slots], (g, b.id)
        assert state.scored[g, b.id] == b.scored == b.full, (g, b.id)
    placer = [-1, -1] + [e["seat"] for e in game.events if e["type"] == "board"]
    assert state.placer[g, : len(placer)].tolist() == placer, g
    unplaced = state.cell[g] < 0
    assert (state.placer[g, unplaced] == -1).all()
    assert (state.slots[g, unplaced] == rules.EMPTY).all() and (state.rot[g, unplaced] == 0).all()
    for name in ("tiles", "whites", "stock", "midgame", "endgame", "boards_placed", "whites_used", "turns_played"):
        assert getattr(state, name)[g].tolist() == getattr(game, name), (g, name)
    mine = reference.to_state(game)
    for name in ("passes", "skips"):
        assert getattr(state, name)[g].tolist() == getattr(mine, name)[0].tolist(), (g, name)
    assert state.stalled[g] == game.stalled, g
    assert record.colour_points[g].tolist() == result.colour_points, g
    assert record.outcome.scores[g].tolist() == result.scores, g
    assert record.outcome.rank[g].tolist() == result.ranks, g
    assert record.outcome.win[g].tolist() == pytest.approx(result.wins), g


@pytest.mark.parametrize(("players", "games", "seed"), [(2, 160, 1), (3, 160, 2), (4, 160, 3), (5, 160, 4)])
def test_engine_agrees_with_reference_decision_by_decision(players: int, games: int, seed: int) -> None:
    params = rules.Params(players=players)
    lineups = np.random.default_rng(100 + seed).choice(ALL_STRATEGIES, size=(games, players))
    assert set(lineups.ravel()) == set(ALL_STRATEGIES)
    assert (lineups != lineups[:, :1]).any(axis=1).mean() > 0.8  # most games mix strategies
    record = play_logged(params, lineups, seed)
    phases: dict[str, int] = {}
    turns = {"pass": 0, "skip": 0}
    for g in range(games):
        game = reference.new_game(params, one_game(params))
        replay = Replay(params, record, g)
        while not game.over:  # reference.play, counting the turns in which nobody is asked anything
            if game.tiles[game.colour] == 0:
                turns["pass"] += 1
            elif not game.empty_holes() and game.stock[game.seat] == 0:
                turns["skip"] += 1
            reference.play_turn(game, replay)
        reference.endgame_scoring(game)
        result = reference.final_result(game)
        assert replay.at == len(replay.queue), (g, "the engine asked more than the reference")
        check_game(params, record, g, game, result)
        for phase in replay.phases:
            phases[phase] = phases.get(phase, 0) + 1
    # The replays went through every kind of decision, white tiles and boards both before and after the tile.
    assert set(phases) == {"forced", "before", "tile", "after", "rotate"}
    holes = 6 * params.boards
    taken = {(phase, kind): 0 for phase in ("before", "after") for kind in ("white", "board")}
    for entry in record.entries:
        if entry.phase in ("before", "after"):
            choice, asked = entry.choice, entry.asked
            taken[entry.phase, "white"] += int(((choice >= 1) & (choice <= holes) & asked).sum())
            taken[entry.phase, "board"] += int(((choice > holes) & asked).sum())
    assert min(taken.values()) > 0, taken
    assert min(turns.values()) > 0 and record.state.stalled.any(), turns
    # The engine counts the same passes and skips (the turn in which a game stalls is counted as neither).
    state = record.state
    assert (state.passes.sum(), state.skips.sum() + state.stalled.sum()) == (turns["pass"], turns["skip"])
    assert record.state.endgame.sum() > 0 and record.state.midgame.sum() > 0


def test_stalled_games_agree_with_reference() -> None:
    """Hoarders in a 3-player game often fill every hole with nobody holding tiles and a board."""
    params = rules.Params(players=3)
    rng = np.random.default_rng(9)
    lineups = np.where(rng.random((60, 3)) < 0.8, "hoarder", rng.choice(ALL_STRATEGIES, size=(60, 3)))
    record = play_logged(params, lineups, 9)
    assert 5 <= record.state.stalled.sum() < 60
    for g in range(len(lineups)):
        replay = Replay(params, record, g)
        game = reference.play(params, one_game(params), replay)
        result = game.result
        assert replay.at == len(replay.queue)
        check_game(params, record, g, game, result)
        if game.stalled:
            assert not game.empty_holes()
            assert sum(game.tiles) > 0
            assert all(game.stock[params.owner(c)] == 0 for c, t in enumerate(game.tiles) if t > 0)


def test_hexagon_needs_full_boards_agrees_with_reference_and_changes_results() -> None:
    """The same batch under both readings of a hexagon beside an empty hole (the strategies do not read the
    switch, so the tables end alike), replayed decision by decision through the reference under each: only
    end-game points differ, never upwards, and in some games the winner changes."""
    lineups = np.random.default_rng(17).choice(ALL_STRATEGIES, size=(150, 4))
    records = {}
    for needs_full in (False, True):
        params = rules.Params(players=4, hexagon_needs_full_boards=needs_full)
        record = records[needs_full] = play_logged(params, lineups, 17)
        for g in range(len(lineups)):
            replay = Replay(params, record, g)
            game = reference.play(params, one_game(params), replay)
            assert replay.at == len(replay.queue)
            check_game(params, record, g, game, game.result)
    default, switched = records[False], records[True]
    assert np.array_equal(default.state.slots, switched.state.slots)
    assert np.array_equal(default.state.midgame, switched.state.midgame)
    assert (switched.state.endgame <= default.state.endgame).all()
    assert (switched.state.endgame < default.state.endgame).any(axis=1).mean() > 0.1
    assert (switched.outcome.win != default.outcome.win).any(axis=1).sum() > 0


TRACE_CASES = [(2, ["rotator", "random"], 0), (3, ["greedy", "majority", "hoarder"], 1),
               (5, ["greedy"] * 5, 4), (3, ["hoarder"] * 3, 5)]


@pytest.mark.parametrize(("players", "strategies", "seed"), TRACE_CASES)
def test_trace_is_the_game_the_engine_plays_with_the_same_seed(players, strategies, seed) -> None:
    params = rules.Params(players=players)
    record = kaleido.trace(params, strategies, seed)
    played = play_batch("kaleido", params, rules.deal(params, np.random.default_rng(0), 1), np.array([strategies]),
                        np.random.default_rng(seed))
    state = played.state
    assert record["scores"] == played.outcome.scores[0].tolist()
    assert record["winners"] == np.flatnonzero(played.outcome.win[0] > 0).tolist()
    assert kaleido.rules.replay(record) == record["scores"]
    assert record["stalled"] == bool(state.stalled[0])
    assert len(record["boards"]) == int(state.placed[0].sum())
    for board in record["boards"]:
        b = board["id"]
        assert decode_cell(params, state.cell[0, b]) == (board["q"], board["r"])
        assert board["rot"] == state.rot[0, b]
        names = [None if s == rules.EMPTY else "white" if s == rules.WHITE else rules.COLORS[s]
                 for s in state.slots[0, b]]
        assert board["slots"] == names
    midgame = dict.fromkeys(rules.COLORS[: params.colours], 0)
    for event in record["events"]:
        if event["type"] == "score":
            for colour, points in event["points"].items():
                midgame[colour] += points
    assert list(midgame.values()) == state.midgame[0].tolist()
    endgame = dict.fromkeys(rules.COLORS[: params.colours], 0)
    for hexagon in record["endgame"]:
        for colour, points in hexagon["points"].items():
            endgame[colour] += points
    assert list(endgame.values()) == state.endgame[0].tolist()


class Mirror:
    """A reference decider that plays the engine's recorded choices for game `g` and checks, at every decision,
    that the reference puts the strategies the same question, on the same State, as the engine did."""

    def __init__(self, params: rules.Params, log: list, g: int):
        self.params, self.g = params, g
        self.queue = [(state, decision, choice) for state, decision, choice in log if decision.asked[g]]

    def __call__(self, game: reference.Game, phase: str, options: list[int]) -> int:
        state, decision, choice = self.queue.pop(0)
        assert decision.observation.phase == phase
        theirs, mine = state.select([self.g]), reference.to_state(game, phase)
        for name in engine.State.__dataclass_fields__:
            same = np.array_equal if isinstance(getattr(mine, name), np.ndarray) else lambda a, b: a == b
            assert same(getattr(mine, name), getattr(theirs, name)), (self.g, state.turn, phase, name)
        asked = reference.question(game, phase, options)
        assert (asked.kind, asked.seat, asked.where) == (decision.kind, decision.seat, decision.where)
        assert np.array_equal(asked.legal[0], decision.legal[self.g]), (self.g, state.turn, phase)
        obs, engine_obs = asked.observation, decision.observation
        assert (obs.phase, obs.seat, obs.turn) == (engine_obs.phase, engine_obs.seat, engine_obs.turn)
        assert (obs.colour[0], obs.board[0]) == (engine_obs.colour[self.g], engine_obs.board[self.g])
        return int(choice[self.g])


@pytest.mark.parametrize("players", rules.PLAYER_COUNTS)
def test_the_reference_shows_the_strategies_the_engines_state(players: int) -> None:
    params = rules.Params(players=players)
    lineups = np.random.default_rng(players).choice(ALL_STRATEGIES, size=(12, players))
    table, log = Table(kaleido.players, params, lineups, None), []

    def choose(decision, rng):
        choice = table.choose(decision, rng)
        log.append((decision.observation.state, decision, choice))
        return choice

    deal = rules.deal(params, np.random.default_rng(0), len(lineups))
    final = play(engine, params, deal, choose, np.random.default_rng(players))
    for g in range(len(lineups)):
        mirror = Mirror(params, log, g)
        game = reference.play(params, one_game(params), mirror)
        assert not mirror.queue
        theirs, mine = final.select([g]), reference.to_state(game)
        for name in ("slots", "rot", "midgame", "endgame", "passes", "skips", "stalled", "done", "turn_kind"):
            assert np.array_equal(getattr(mine, name), getattr(theirs, name)), (g, name)
