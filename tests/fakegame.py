"""Dice: a tiny game on the game contract (sim/game.py), so runner and CLI tests need no real game.

Every seat is dealt one die, and a spare die lies face down beside it. In seat order each player may
reroll once: the spare replaces the die. The lowest die wins, ties share the win. This one module holds
both sides of the contract, `RULES` and `PLAYERS`; the `dice` fixture registers it.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NamedTuple

import numpy as np
import polars as pl

from sim import game
from sim.errors import AtelierError
from sim.scoring import standings
from strategies.common import Catalogue

# An experiment file over this game, for the runner and CLI tests.
EXPERIMENT = """\
game = "dice"
players = [2, 3]
games = 60
seed = 5
pool = ["keep", "random", "chase"]
chunk = 12
"""
STRATEGIES = {
    "keep": "never rerolls",
    "high": "rerolls a die above the middle",
    "chase": "rerolls unless the die is below every die already final",
    "random": "rerolls on a coin flip",
}
CROOKED = "crook"  # answers 2, which is not a legal choice (for testing IllegalMove); not listed, but seated


@dataclass(frozen=True)
class Params:
    """Knobs of the dice game."""

    players: int = field(default=2, metadata={"help": "number of players"})
    sides: int = field(default=6, metadata={"help": "faces on each die", "range": (2, 1000)})
    delay: float = field(default=0.0, metadata={"help": "seconds each batch takes (to test interruptions)"})


class Deal(NamedTuple):
    dealt: np.ndarray  # (n, P) the die each seat is dealt
    spare: np.ndarray  # (n, P) the die a reroll gives


@dataclass(frozen=True)
class State:
    deal: Deal
    final: np.ndarray  # (B, P) the dice now
    rerolled: np.ndarray  # (B, P) bool
    turn: int = 0


def kill_marker(seed: int) -> Path:
    """A file that makes the worker dealing one chunk of an experiment with this seed kill itself.

    It holds `players,chunk`; the worker that deals that chunk removes the file and dies by SIGKILL, as an
    out-of-memory kill would, so the next run plays the chunk normally."""
    return Path(tempfile.gettempdir()) / f"atelier-dice-kill-{seed}"


def _die_if_marked(seeds: np.random.SeedSequence) -> None:
    try:
        if kill_marker(seeds.entropy).read_text() == ",".join(map(str, seeds.spawn_key[:2])):
            kill_marker(seeds.entropy).unlink()
            os.kill(os.getpid(), signal.SIGKILL)
    except FileNotFoundError:
        pass


def deal(params: Params, rng: np.random.Generator, n: int) -> Deal:
    _die_if_marked(rng.bit_generator.seed_seq)
    time.sleep(params.delay)
    dice = rng.integers(1, params.sides + 1, size=(2, n, params.players))
    return Deal(dice[0], dice[1])


def init(params: Params, dealt: Deal) -> State:
    return State(dealt, dealt.dealt.copy(), np.zeros(dealt.dealt.shape, bool))


def decision(params: Params, state: State) -> game.Decision:
    batch = len(state.final)
    legal = np.ones((batch, 2), bool)
    return game.Decision("reroll", state.turn, legal, np.ones(batch, bool), observe(params, state, state.turn))


def observe(params: Params, state: State, seat: int) -> dict:
    """The seat's own die and the lowest die of the seats that have decided (a die shows once its seat has)."""
    batch = len(state.final)
    lowest = state.final[:, : state.turn].min(axis=1) if state.turn else np.full(batch, params.sides + 1)
    return {"die": state.final[:, seat], "lowest": lowest, "sides": params.sides}


def determinize(params: Params, state: State, seat: int, rng: np.random.Generator) -> State:
    """The dice the seat has not seen thrown again: the dice of the other seats still to decide, every spare that
    replaced no die, and the dealt die of a seat that rerolled. The lowest decided die stays as it is."""
    again = Deal(*rng.integers(1, params.sides + 1, size=(2, *state.final.shape)))
    seats = np.arange(params.players)
    unseen_die = ((seats >= state.turn) & (seats != seat)) | state.rerolled
    dealt = np.where(unseen_die, again.dealt, state.deal.dealt)
    final = np.where((seats >= state.turn) & (seats != seat), again.dealt, state.final)
    spare = np.where(state.rerolled, state.deal.spare, again.spare)
    return replace(state, deal=Deal(dealt, spare), final=final)


def step(params: Params, state: State, choice: np.ndarray) -> State:
    seat = state.turn
    final, rerolled = state.final.copy(), state.rerolled.copy()
    rerolled[:, seat] = choice == 1
    final[:, seat] = np.where(rerolled[:, seat], state.deal.spare[:, seat], final[:, seat])
    return replace(state, final=final, rerolled=rerolled, turn=seat + 1)


def terminal(params: Params, state: State) -> bool:
    return state.turn == state.final.shape[1]


def outcome(params: Params, state: State) -> game.Outcome:
    rank, win = standings(state.final)
    return game.Outcome(state.final, rank, win, {"dealt": state.deal.dealt, "rerolled": state.rerolled,
                                                  "low": state.final.min(axis=1)})


@dataclass
class Game:
    """The reference's one game: the dice as they lie, seat by seat."""

    params: Params
    one: Deal
    final: list[int]
    rerolled: list[bool]
    turn: int = 0  # the seat deciding


def play(params: Params, one: Deal, decider: game.Decider) -> Game:
    played = Game(params, one, one.dealt[0].tolist(), [False] * params.players)
    for seat in range(params.players):
        played.turn = seat
        if game.checked(decider(played, "reroll", [0, 1]), [0, 1], "reroll", f"at seat {seat}"):
            played.final[seat], played.rerolled[seat] = int(one.spare[0, seat]), True
    return played


def question(played: Game, phase: str, options: list[int]) -> game.Decision:
    lowest = min(played.final[: played.turn], default=played.params.sides + 1)
    view = {"die": np.array([played.final[played.turn]]), "lowest": np.array([lowest]), "sides": played.params.sides}
    return game.Decision(phase, played.turn, game.legal_row(options, 2), np.ones(1, bool), view)


def scores(played: Game) -> list[int]:
    return played.final


def record(params: Params, one: Deal, played: Game) -> dict:
    return {"sides": params.sides, "dealt": one.dealt[0].tolist(), "spare": one.spare[0].tolist(),
            "rerolled": played.rerolled, "final": played.final}


def replay(record: dict) -> list[int]:
    return [s if r else d for d, s, r in zip(record["dealt"], record["spare"], record["rerolled"], strict=True)]


def narrate(record: dict) -> str:
    """The traced game told seat by seat."""
    lines = [f"seat {s} ({name}) was dealt {d}" + (f", rerolled to {f}" if r else ", kept it")
             for s, (name, d, r, f) in enumerate(zip(record["strategies"], record["dealt"], record["rerolled"],
                                                     record["final"], strict=True))]
    return "\n".join([*lines, f"lowest die: {min(record['final'])}"])


def facts(params: Params) -> dict:
    return {"sides": params.sides}


class Player:
    def __init__(self, name: str, games):
        self.name, self.games = name, games

    def reroll(self, view: dict, rng: np.random.Generator) -> np.ndarray:
        die, lowest = view["die"][self.games], view["lowest"][self.games]
        coins = rng.random(len(die))
        return {
            "keep": np.zeros(len(die), int),
            "high": (die > view["sides"] / 2).astype(int),
            "chase": (die >= lowest).astype(int),
            "random": (coins < 0.5).astype(int),
            "crook": np.full(len(die), 2),
        }[self.name]


def check_strategy(name: str) -> None:
    if name not in STRATEGIES and name != CROOKED:
        raise AtelierError(f"unknown strategy '{name}'; known: {', '.join(STRATEGIES)}")


def make_player(name: str, *, seat: int, params: Params, games, secret) -> Player:
    return Player(name, games)


def unseen(params: Params, dealt: Deal, seat: int, rng: np.random.Generator) -> Deal:
    """Every die but the seat's own dealt one thrown again: another seat's die shows once that seat has decided, a
    spare once it replaces a die."""
    again = deal(params, rng, len(dealt.dealt))
    mine = np.arange(params.players) == seat
    return Deal(np.where(mine, dealt.dealt, again.dealt), again.spare)


engine = reference = sys.modules[__name__]  # this one module is the engine and the reference too
RULES = game.GameRules(
    name="dice", title="Dice", summary="Each player may reroll one die once; the lowest die wins.",
    player_counts=(2, 3, 4), lowest_wins=True, params=Params,
    columns={"dealt": pl.Int64, "rerolled": pl.Boolean, "low": pl.Int64},
    engine=engine, reference=reference, deal=deal, record=record, replay=replay, narrate=narrate, facts=facts,
    unseen=unseen, reveals=("lowest",), hidden=("deal", "final"),
)
PLAYERS = Catalogue(STRATEGIES, "chase", make_player, check_strategy)
