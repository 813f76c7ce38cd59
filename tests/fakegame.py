"""Dice: a tiny game that fulfils the `sim.game` contract, so runner and CLI tests need no real game.

Every seat is dealt one die. In seat order each player may reroll their die once; the lowest die
wins, ties share the win. The deal comes from `deal_seed` (shared by games with the same deal
index); rerolls and random choices come from `play_seed`.
"""

from __future__ import annotations

import os
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sim.errors import AtelierError, IllegalMove
from sim.game import params_from

NAME = "dice"
TITLE = "Dice"
LOWEST_WINS = True
SUMMARY = "Each player may reroll one die once; the lowest die wins."
PLAYER_COUNTS = (2, 3, 4)
BENCH_STRATEGY = "chase"
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
    "cheat": "answers 2, which is not a legal choice (for testing IllegalMove)",
}


@dataclass(frozen=True)
class Params:
    """Knobs of the dice game."""

    players: int = field(default=2, metadata={"help": "number of players"})
    sides: int = field(default=6, metadata={"help": "faces on each die"})
    match: bool = field(default=False, metadata={"help": "play matches of one game per start seat"})
    delay: float = field(default=0.0, metadata={"help": "seconds each batch takes (to test interruptions)"})

    def validate(self) -> None:
        """Raise AtelierError for values the game cannot use."""
        if self.sides < 2:
            raise AtelierError(f"parameter 'sides' must be at least 2, got {self.sides}")


def make_params(players: int, overrides: dict) -> Params:
    """Validated Params for `players` with the given overrides."""
    return params_from(Params, players, PLAYER_COUNTS, overrides)


def facts(params: Params) -> dict:
    """What the report needs to know of the rules."""
    return {"sides": params.sides}


def check_strategy(name: str) -> None:
    """Raise AtelierError unless `name` is a strategy of this game."""
    if name not in STRATEGIES:
        raise AtelierError(f"unknown strategy '{name}'; known: {', '.join(STRATEGIES)}")


def kill_marker(seed: int) -> Path:
    """A file that makes the worker playing one chunk of an experiment with this seed kill itself.

    It holds `players,chunk`; the worker that plays that chunk removes the file and dies by SIGKILL, as an
    out-of-memory kill would, so the next run plays the chunk normally."""
    return Path(tempfile.gettempdir()) / f"atelier-dice-kill-{seed}"


def _die_if_marked(deal_seed: np.random.SeedSequence) -> None:
    marker = kill_marker(deal_seed.entropy)
    try:
        if marker.read_text() == ",".join(map(str, deal_seed.spawn_key[:2])):
            marker.unlink()
            os.kill(os.getpid(), signal.SIGKILL)
    except FileNotFoundError:
        pass


def simulate(params, lineups, deal_index, deal_seed, play_seed) -> dict[str, np.ndarray]:
    """Play `len(lineups)` games at once; one row per (game, seat), game-major."""
    _die_if_marked(deal_seed)
    time.sleep(params.delay)
    dealt, rerolled, final = _play(params, np.asarray(lineups), np.asarray(deal_index), deal_seed, play_seed)
    batch, players = final.shape
    rank = 1 + (final[:, None, :] < final[:, :, None]).sum(axis=2)  # (B, P) 1 = lowest die
    winners = (rank == 1).sum(axis=1, keepdims=True)
    return {
        "game": np.repeat(np.arange(batch), players),
        "seat": np.tile(np.arange(players, dtype=np.int8), batch),
        "strategy": np.asarray(lineups).ravel(),
        "score": final.ravel(),
        "rank": rank.ravel().astype(np.int8),
        "win": np.where(rank == 1, 1.0 / winners, 0.0).ravel(),
        "dealt": dealt.ravel(),
        "rerolled": rerolled.ravel(),
        "low": np.repeat(final.min(axis=1), players),
    }


def trace(params: Params, strategies: list[str], seed: int) -> dict:
    """One game as a JSON-ready dict."""
    seeds = [np.random.SeedSequence(seed, spawn_key=(s,)) for s in (0, 1)]
    dealt, rerolled, final = _play(params, np.array([strategies]), np.zeros(1, int), *seeds)
    return {"game": NAME, "seed": seed, "sides": params.sides, "strategies": list(strategies),
            "dealt": dealt[0].tolist(),
            "rerolled": rerolled[0].tolist(), "final": final[0].tolist()}


def narrate(trace: dict) -> str:
    """The traced game told seat by seat."""
    lines = [
        f"seat {s} ({name}) was dealt {d}" + (f", rerolled to {f}" if r else ", kept it")
        for s, (name, d, r, f) in enumerate(zip(trace["strategies"], trace["dealt"], trace["rerolled"],
                                                trace["final"], strict=True))
    ]
    return "\n".join([*lines, f"lowest die: {min(trace['final'])}"])


def bench(games: int, players: int, strategy: str, repeats: int) -> dict:
    """Games per second of the batched engine and of one-game-at-a-time play."""
    params = make_params(players, {})
    lineups = np.full((games, players), strategy)
    seeds = [np.random.SeedSequence(0, spawn_key=(s,)) for s in (0, 1)]
    engine = _best_rate(lambda: simulate(params, lineups, np.arange(games), *seeds), games, repeats)
    single = max(1, games // 100)
    reference = _best_rate(lambda: [simulate(params, lineups[:1], np.zeros(1, int), *seeds)
                                    for _ in range(single)], single, repeats)
    return {"game": NAME, "engine_games_per_s": engine, "reference_games_per_s": reference,
            "ratio": engine / reference, "games": games, "players": players, "strategy": strategy}


def _best_rate(play, games: int, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        play()
        times.append(time.perf_counter() - start)
    return games / max(min(times), 1e-9)


def _play(params: Params, lineups: np.ndarray, deal_index: np.ndarray, deal_seed, play_seed):
    """(dealt, rerolled, final), each (B, P): the dice dealt, who rerolled, the dice at the end."""
    batch, players = lineups.shape
    deals = np.random.default_rng(deal_seed).integers(1, params.sides + 1, size=(deal_index.max() + 1, players))
    dealt = deals[deal_index]
    rng = np.random.default_rng(play_seed)
    rerolls, coins = rng.integers(1, params.sides + 1, size=(batch, players)), rng.random((batch, players))
    final, rerolled = dealt.copy(), np.zeros((batch, players), bool)
    for seat in range(players):
        lowest = final[:, :seat].min(axis=1) if seat else np.full(batch, params.sides + 1)
        choices = {
            "keep": np.zeros(batch, int),
            "high": (dealt[:, seat] > params.sides / 2).astype(int),
            "chase": (dealt[:, seat] >= lowest).astype(int),
            "random": (coins[:, seat] < 0.5).astype(int),
            "cheat": np.full(batch, 2),
        }
        choice = np.zeros(batch, int)
        for name, answer in choices.items():
            choice = np.where(lineups[:, seat] == name, answer, choice)
        illegal = (choice != 0) & (choice != 1)
        if illegal.any():
            raise IllegalMove(str(lineups[illegal.argmax(), seat]), f"choice {choice[illegal.argmax()]}")
        rerolled[:, seat] = choice == 1
        final[:, seat] = np.where(rerolled[:, seat], rerolls[:, seat], dealt[:, seat])
    return dealt, rerolled, final
