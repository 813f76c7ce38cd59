"""Playing a batch in tests: the game's one loop over the engine's steps (GameSpec.play), recording every choice."""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.game import Outcome, play, take
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


def against_reference(game: str, params, deal, lineups: np.ndarray, rng: np.random.Generator, replay, check):
    """Play the batch in the engine, recording every question, then every game g through the reference with the
    decider `replay(log, g)`, which must be used up; `check(state, outcome, g, reference_game)` compares the ends.
    Returns the engine's final State and the Recorder. For the references that ask one decider (play(params, one,
    decider))."""
    spec = get_game(game)
    recorder = Recorder(spec.table(params, lineups, deal))
    state = play(spec.rules.engine, params, deal, recorder, rng)
    outcome = spec.rules.engine.outcome(params, state)
    reference = importlib.import_module(f"sim.{game}.reference")
    for g in range(len(lineups)):
        decider = replay(recorder.log, g)
        finished = reference.play(params, take(deal, [g]), decider)
        assert decider.done()
        check(state, outcome, g, finished)
    return state, recorder


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
