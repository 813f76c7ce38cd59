"""Playing a batch in tests: the game's one loop over the engine's steps (GameSpec.play), recording every choice."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from sim.game import Outcome, play, play_on, take
from sim.registry import get_game
from strategies.common import Table


@dataclass
class Played:
    """A finished batch: its final state, its outcome and every decision's choices, in order."""

    state: Any
    outcome: Outcome
    choices: list[tuple[str, int, np.ndarray]]  # (kind, seat, (B,) choices)

    def of_kind(self, kind: str) -> np.ndarray:
        """(B, n): the choices of every decision of one kind, in the order they were made."""
        return np.stack([c for k, _, c in self.choices if k == kind], axis=1)


def play_batch(game: str, params, deal, lineups: np.ndarray, rng: np.random.Generator, make=None) -> Played:
    """Play `deal` to the end with the game's players seated as `lineups` (B, P); `make` replaces the game's
    make_player (for scripted or crooked test players)."""
    spec, choices = get_game(game), []
    players = None if make is None else dataclasses.replace(spec.players, make=make)
    played = spec.play(params, deal, lineups, rng, players=players,
                       listen=lambda decision, choice: choices.append((decision.kind, decision.seat, choice)))
    return Played(played.state, played.outcome, choices)


def against_reference(game: str, params, deal, lineups: np.ndarray, rng: np.random.Generator, check=None, *,
                      keep=None, watch=None):
    """Play the batch in the engine, recording every question, then every game g through the reference with a
    Replay of the engine's questions for g, which must be used up; both must give game g the same standings, and
    `check(state, outcome, g, reference_game)`, if given, compares the game's own ends. `keep` and `watch(g)` are
    a game's own checks of each question (Recorder, Replay). Returns the engine's final State and the Recorder."""
    spec = get_game(game)
    recorder = Recorder(spec.table(params, lineups, deal), keep)
    state = play(spec.rules.engine, params, deal, recorder, rng)
    outcome = spec.rules.engine.outcome(params, state)
    reference = spec.rules.reference
    for g in range(len(lineups)):
        decider = Replay(reference.question, recorder.log, g, None if watch is None else watch(g))
        finished = reference.play(params, take(deal, [g]), decider)
        assert decider.done(), (game, g, "the engine asked more than the reference")
        assert_standings(spec.rules, outcome, g, reference.scores(finished))
        if check is not None:
            check(state, outcome, g, finished)
    return state, recorder


def assert_standings(rules, outcome: Outcome, g: int, scores: list) -> None:
    """Game g's scores are the reference's, and its ranks and win shares follow from them by the rules: the best
    score first (the lowest where `lowest_wins`), equal scores settled by the `tie_breakers` columns (the most
    first), then shared."""
    assert outcome.scores[g].tolist() == list(scores), (g, outcome.scores[g], scores)
    players = len(scores)
    ties = [seat_values(outcome.columns[name], g, players) for name in rules.tie_breakers]
    keys = [(-score if rules.lowest_wins else score, *(tie[seat] for tie in ties)) for seat, score in enumerate(scores)]
    winners = [seat for seat, key in enumerate(keys) if key == max(keys)]
    assert outcome.rank[g].tolist() == [1 + sum(other > key for other in keys) for key in keys], g
    assert outcome.win[g].tolist() == [np.float32(1 / len(winners)) if seat in winners else 0 for seat in
                                       range(players)], g


def seat_values(column, g: int, players: int) -> list:
    """Game g's values of an own result column, one per seat: a (B, P) array or a Series of B * P rows."""
    if isinstance(column, np.ndarray):
        return column[g].tolist()
    return column.slice(g * players, players).to_list()


class Asked(NamedTuple):
    """One question the engine asked its batch, and the choices made."""

    kind: str
    seat: int
    where: str
    phase: str  # the observation's phase, where it names one, else the kind
    asked: np.ndarray  # (B,) bool
    legal: np.ndarray  # (B, A) bool
    choice: np.ndarray  # (B,)
    kept: Any = None  # what the Recorder's `keep` took of the decision, for a game's own checks


class Replay:
    """A reference decider for game g: each question, put as the engine puts it (the reference's `question`), must
    be the engine's next one for g: the same kind, seat and moment, with exactly the engine's legal mask; it
    answers with the engine's choice. `watch(game, phase, options, ours, asked)`, if given, is told each question
    (the reference's Decision `ours`, the engine's Asked) for a game's own checks."""

    def __init__(self, question, log: list[Asked], g: int, watch=None):
        self.question, self.log, self.g, self.watch, self.at = question, log, g, watch, 0

    def __call__(self, game, phase: str, options: list[int]) -> int:
        while self.at < len(self.log) and not self.log[self.at].asked[self.g]:
            self.at += 1
        assert self.at < len(self.log), (self.g, phase, "the reference asks more than the engine")
        engine, ours = self.log[self.at], self.question(game, phase, options)
        self.at += 1
        where = (self.g, self.at, engine.kind, engine.where)
        assert (ours.kind, ours.seat, ours.where) == (engine.kind, engine.seat, engine.where), (*where, ours.kind)
        assert ours.legal[0].tolist() == engine.legal[self.g].tolist(), where
        assert np.flatnonzero(engine.legal[self.g]).tolist() == sorted(options), where
        if self.watch is not None:
            self.watch(game, phase, options, ours, engine)
        return int(engine.choice[self.g])

    def done(self) -> bool:
        return not any(asked.asked[self.g] for asked in self.log[self.at:])


class Recorder:
    """A choose callback that lets a Table decide and keeps every question (Asked), with what `keep(decision)`, if
    given, takes of it."""

    def __init__(self, table: Table, keep=None):
        self.table, self.keep, self.log = table, keep, []

    def __call__(self, decision, rng):
        choice = self.table.choose(decision, rng)
        phase = getattr(decision.observation, "phase", decision.kind)
        self.log.append(Asked(decision.kind, decision.seat, decision.where, phase, decision.asked.copy(),
                              decision.legal.copy(), choice.copy(), self.keep and self.keep(decision)))
        return choice


def opened(spec, params, deal, lineups: np.ndarray, opening: str | None, questions: int, seed: int):
    """(the State after the first `questions` questions, the rng that answered them, the table to play on with): a
    table of `lineups` answers them, or one of `opening` where named, and the lineups' plays on."""
    engine, rng = spec.rules.engine, np.random.default_rng(seed)
    table = spec.table(params, lineups, deal).choose
    choose = spec.table(params, np.full(lineups.shape, opening), deal).choose if opening else table
    state = engine.init(params, deal)
    for _ in range(questions):
        if not engine.terminal(params, state):
            state = engine.step(params, state, choose(engine.decision(params, state), rng))
    return state, rng, table


def assert_playout_is_stepping(game: str, params, seed: int, stepped: int, games: int = 24, also=(), strategy=None,
                               opening=None):
    """engine.random_playout (or the compiled playout of `strategy`, Catalogue.fused), from the set-up or after
    `stepped` questions (answered by a table of `opening`, if named), then stepped on to the end (Kintsugi's stops at
    the guesses), against stepping a table of the catalogue's uniform random players (or of `strategy`) all the way
    from there: every field of the final State the same (but the question's, `QUESTION`, except those named in
    `also`), and the rng left in the same state. Returns the State the playout ended in."""
    spec = get_game(game)
    engine = spec.rules.engine
    deal = spec.rules.deal(params, np.random.default_rng(seed), games)
    lineups = np.full((games, params.players), strategy or sorted(spec.players.uniform)[0])
    playout = getattr(engine, spec.players.fused[strategy] if strategy else "random_playout")
    whole, stepping, choose = opened(spec, params, deal, lineups, opening, stepped, seed + 1)
    whole = play_on(engine, params, whole, choose, stepping)
    state, fused, choose = opened(spec, params, deal, lineups, opening, stepped, seed + 1)
    played_out = playout(params, state, fused)
    state = play_on(engine, params, played_out, choose, fused)
    for field in dataclasses.fields(state):
        if field.name not in getattr(type(state), "QUESTION", ()) or field.name in also:
            assert np.array_equal(getattr(state, field.name), getattr(whole, field.name)), field.name
    assert stepping.random() == fused.random()
    return played_out
