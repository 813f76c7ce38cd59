"""The registry of games, and what is written once for all of them: simulate, trace and bench.

`GAMES` maps each game's name to its two modules: the rules (`RULES: GameRules`) and the players
(`PLAYERS: Catalogue`). Adding a game adds one line here. Modules are imported only when a game is asked for.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim import bench
from sim.errors import AtelierError
from sim.game import GameRules, Outcome, play, take
from strategies.common import Catalogue, Table

GAMES: dict[str, tuple[str, str]] = {
    "kintsugi": ("sim.kintsugi.api", "strategies.kintsugi"),
    "broken_beautiful": ("sim.broken_beautiful.api", "strategies.broken_beautiful"),
    "kaleido": ("sim.kaleido.api", "strategies.kaleido"),
    "kunst_stuecke": ("sim.kunst_stuecke.api", "strategies.kunst_stuecke"),
    "witkacy": ("sim.witkacy.api", "strategies.witkacy"),
}


@dataclass(frozen=True)
class GameSpec:
    """A game: its rules and its players."""

    rules: GameRules
    players: Catalogue
    modules: tuple[str, str]  # where they come from, so a worker process can load the same game

    @classmethod
    def load(cls, modules: tuple[str, str]) -> GameSpec:
        rules, players = (importlib.import_module(module) for module in modules)
        return cls(rules.RULES, players.PLAYERS, modules)

    @property
    def name(self) -> str:
        return self.rules.name

    def make_params(self, players: int, overrides: dict[str, Any]):
        return self.rules.make_params(players, overrides)

    def check_strategy(self, name: str) -> None:
        """AtelierError unless `name` is one of this game's strategies."""
        self.players.check(name)

    def simulate(self, params, lineups: np.ndarray, deal_index: np.ndarray, deal_seed: np.random.SeedSequence,
                 play_seed: np.random.SeedSequence) -> dict[str, Any]:
        """Play `B = len(lineups)` games at once with the batched engine; one row per (game, seat), game-major.

        `lineups` (B, P) names the strategy at each seat (seat 0 starts). Games with the same `deal_index`
        share the deal (common random numbers). Returns equal-length columns: game, seat, strategy, score,
        rank, win, then the game's own."""
        rules = self.rules
        deal = take(rules.deal(params, np.random.default_rng(deal_seed), int(deal_index.max()) + 1), deal_index)
        table = Table(self.players, params, lineups, rules.secrets(deal))
        state = play(rules.engine, params, deal, table.choose, np.random.default_rng(play_seed))
        return _rows(lineups, rules.engine.outcome(params, state))

    def trace(self, params, strategies: list[str], seed: int) -> dict:
        """One game played by the reference, as the auditable JSON-ready data `atelier play --json` prints."""
        rng = np.random.default_rng(seed)
        deal = self.rules.deal(params, rng, 1)
        table = Table(self.players, params, np.array([strategies]), self.rules.secrets(deal))
        return {"game": self.name, "players": params.players, "seed": seed, "strategies": list(strategies),
                "params": dataclasses.asdict(params), **self.rules.trace(params, deal, table.choose, rng)}

    def bench(self, games: int, players: int, strategy: str, repeats: int, jobs: int = 1) -> dict:
        """Games per second of the batched engine and of the reference (on a hundredth of the deals, at least
        10 of them, at most all), the same strategy at every seat; with `jobs` > 1, also of the engine on that many
        worker processes at once."""
        params, rules = self.make_params(players, {}), self.rules
        self.check_strategy(strategy)
        lineups = np.full((games, players), strategy)
        ref_games = min(games, max(10, games // 100))

        def session(rng: np.random.Generator):
            deal = rules.deal(params, rng, games)

            def engine():
                table = Table(self.players, params, lineups, rules.secrets(deal))
                return rules.engine.outcome(params, play(rules.engine, params, deal, table.choose, rng))

            def reference():
                for g in range(ref_games):
                    one = take(deal, [g])
                    rules.reference(params, one, Table(self.players, params, lineups[:1], rules.secrets(one)).choose,
                                    rng)

            return engine, reference

        figures = bench.compare(self.name, players, strategy, games, ref_games, repeats, session)
        if jobs > 1:
            figures |= bench.in_parallel(jobs, games, repeats,
                                         functools.partial(_play_batch, self.modules, players, strategy, games))
        return figures


def get_game(name: str) -> GameSpec:
    """The game registered as `name`; AtelierError for an unknown name."""
    if name not in GAMES:
        raise AtelierError(f"unknown game '{name}'; known: {', '.join(sorted(GAMES))}")
    return GameSpec.load(GAMES[name])


def _play_batch(modules: tuple[str, str], players: int, strategy: str, games: int, seed: int) -> None:
    """One batch of `games` games with the batched engine, in a worker process (for `atelier bench --jobs`)."""
    game = GameSpec.load(modules)
    params, rng = game.make_params(players, {}), np.random.default_rng(seed)
    deal = game.rules.deal(params, rng, games)
    table = Table(game.players, params, np.full((games, players), strategy), game.rules.secrets(deal))
    game.rules.engine.outcome(params, play(game.rules.engine, params, deal, table.choose, rng))


def _rows(lineups: np.ndarray, outcome: Outcome) -> dict[str, Any]:
    """One row per (game, seat), game-major: the columns every game has, then the game's own."""
    batch, players = lineups.shape
    own = {name: np.repeat(values, players) if isinstance(values, np.ndarray) and values.shape == (batch,)
           else values.ravel() if isinstance(values, np.ndarray) else values
           for name, values in outcome.columns.items()}
    return {
        "game": np.repeat(np.arange(batch), players),
        "seat": np.tile(np.arange(players, dtype=np.int8), batch),
        "strategy": lineups.ravel().astype(str),
        "score": outcome.scores.ravel().astype(np.int32),
        "rank": outcome.rank.ravel(),
        "win": outcome.win.ravel(),
        **own,
    }
