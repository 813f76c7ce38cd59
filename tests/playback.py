"""Playing a batch in tests: the game's one loop over the engine's steps (GameSpec.play), recording every choice."""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from typing import Any

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


def against_reference(game: str, params, deal, lineups: np.ndarray, rng: np.random.Generator, check, kind_of=None):
    """Play the batch in the engine, recording every question, then every game g through the reference with a
    Replay of the engine's questions for g, which must be used up; `check(state, outcome, g, reference_game)`
    compares the ends. `kind_of(phase)`, if given, is the Decision kind the engine logs for a reference phase.
    Returns the engine's final State and the Recorder."""
    spec = get_game(game)
    recorder = Recorder(spec.table(params, lineups, deal))
    state = play(spec.rules.engine, params, deal, recorder, rng)
    outcome = spec.rules.engine.outcome(params, state)
    reference = importlib.import_module(f"sim.{game}.reference")
    for g in range(len(lineups)):
        decider = Replay(recorder.log, g, kind_of)
        finished = reference.play(params, take(deal, [g]), decider)
        assert decider.done()
        check(state, outcome, g, finished)
    return state, recorder


class Replay:
    """A reference decider for game g: each question must be the engine's next one for g (the same phase, and the
    same kind where `kind_of` maps the phase to it), with the same legal options; it answers with the engine's
    choice."""

    def __init__(self, log, g: int, kind_of=None):
        self.log, self.g, self.kind_of, self.at = log, g, kind_of, 0

    def __call__(self, game, phase: str, options: list[int]) -> int:
        while not self.log[self.at][2][self.g]:
            self.at += 1
        kind, logged, _, legal, choice = self.log[self.at]
        self.at += 1
        assert logged == phase, (self.g, self.at, logged, phase)
        assert self.kind_of is None or kind == self.kind_of(phase), (self.g, self.at, kind, phase)
        assert np.flatnonzero(legal[self.g]).tolist() == sorted(options), (self.g, self.at, phase)
        return int(choice[self.g])

    def done(self) -> bool:
        return not any(asked[self.g] for _, _, asked, _, _ in self.log[self.at:])


class Recorder:
    """A choose callback that lets a Table decide and keeps every question: kind, phase (the observation's),
    asked, legal, choice."""

    def __init__(self, table: Table):
        self.table, self.log = table, []

    def __call__(self, decision, rng):
        choice = self.table.choose(decision, rng)
        self.log.append((decision.kind, decision.observation.phase, decision.asked.copy(), decision.legal.copy(),
                         choice.copy()))
        return choice


def assert_playout_is_stepping(game: str, params, seed: int, stepped: int, games: int = 24, also=(), strategy=None):
    """engine.random_playout (or the compiled playout of `strategy`, Catalogue.fused), from the set-up or after
    `stepped` questions, then stepped on to the end (Kintsugi's stops at the guesses), against stepping a table of
    the catalogue's uniform random players (or of `strategy`) all the way: every field of the final State the same
    (but the question's, `QUESTION`, except those named in `also`), and the rng left in the same state. Returns the
    State the playout ended in."""
    spec = get_game(game)
    engine = spec.rules.engine
    deal = spec.rules.deal(params, np.random.default_rng(seed), games)
    lineups = np.full((games, params.players), strategy or sorted(spec.players.uniform)[0])
    playout = getattr(engine, spec.players.fused[strategy] if strategy else "random_playout")
    choose = spec.table(params, lineups, deal).choose
    stepping, fused = np.random.default_rng(seed + 1), np.random.default_rng(seed + 1)
    whole = play(engine, params, deal, choose, stepping)
    state = engine.init(params, deal)
    for _ in range(stepped):
        if not engine.terminal(params, state):
            state = engine.step(params, state, choose(engine.decision(params, state), fused))
    played_out = playout(params, state, fused)
    state = play_on(engine, params, played_out, choose, fused)
    for field in dataclasses.fields(state):
        if field.name not in getattr(type(state), "QUESTION", ()) or field.name in also:
            assert np.array_equal(getattr(state, field.name), getattr(whole, field.name)), field.name
    assert stepping.random() == fused.random()
    return played_out
