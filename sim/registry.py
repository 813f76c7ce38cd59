"""The registry of games, and what is written once for all of them: playing a batch, a trace and bench.

A game named N lives in two modules, found by its name: `sim/N/api.py` declares the rules (`RULES: GameRules`)
and `strategies/N.py` its players (`PLAYERS: Catalogue`). Adding a game adds its name to `NAMES`. Modules are
imported only when a game is asked for, and held to the contract then (`GameSpec.load`): a part missing or
misnamed is refused in one line that names the game and the part.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from sim import bench, game
from sim.errors import AtelierError
from sim.game import Decision, GameRules, Outcome, take
from strategies.common import Catalogue, Table
from strategies.search import searching

NAMES = ("kintsugi", "broken_beautiful", "kaleido", "kunst_stuecke", "witkacy")
GAMES: dict[str, tuple[str, str]] = {name: (f"sim.{name}.api", f"strategies.{name}") for name in NAMES}

Listen = Callable[[Decision, np.ndarray], None]  # told each decision and its choices, once the Table checked them


class Played(NamedTuple):
    """A batch played to the end: its final State and its Outcome."""

    state: Any
    outcome: Outcome


@dataclass(frozen=True)
class GameSpec:
    """A game: its rules and its players. Pickles as its module paths, so a worker process loads the same game."""

    rules: GameRules
    players: Catalogue
    modules: tuple[str, str]  # (rules module, players module)

    @classmethod
    def load(cls, name: str, modules: tuple[str, str]) -> GameSpec:
        """The game registered as `name`, held to the contract: AtelierError, in one line naming the game, for a
        part missing, misnamed or taking other arguments."""
        rules, players = (getattr(importlib.import_module(module), part, None)
                          for module, part in zip(modules, ("RULES", "PLAYERS"), strict=True))
        game.check_rules(name, rules)
        check_players(name, players, rules.engine)
        return cls(rules, searching(rules, players), modules)

    def __reduce__(self):
        return (GameSpec.load, (self.name, self.modules))

    @property
    def name(self) -> str:
        return self.rules.name

    def make_params(self, players: int, overrides: dict[str, Any]):
        return self.rules.make_params(players, overrides)

    def check_strategy(self, name: str) -> None:
        """AtelierError unless `name` is one of this game's strategies."""
        self.players.check(name)

    def table(self, params, lineups: np.ndarray, deal, players: Catalogue | None = None) -> Table:
        """The players seated as `lineups` (B, P) for the games of `deal`; `players` replaces the catalogue."""
        return Table(players or self.players, params, np.asarray(lineups),
                     self.rules.secrets(self.rules.engine.init(params, deal)))

    def play(self, params, deal, lineups: np.ndarray, rng: np.random.Generator, *, listen: Listen | None = None,
             players: Catalogue | None = None) -> Played:
        """Play the games of `deal` to the end with the batched engine, the strategies seated as `lineups` (B, P)
        (seat 0 starts); `listen` is told every decision and its checked choices. A batch that only uniform random
        players play (Catalogue.uniform) is played on by the engine's `random_playout` where it has one, as far as
        it goes, and one strategy alone by its compiled playout (Catalogue.fused) where it has one: the same
        games."""
        engine, table = self.rules.engine, self.table(params, lineups, deal, players)
        state = engine.init(params, deal)
        if listen is None and table.playout:
            state = getattr(engine, table.playout)(params, state, rng)
        choose = table.choose if listen is None else _listening(table.choose, listen)
        state = game.play_on(engine, params, state, choose, rng)
        return Played(state, with_written(engine.outcome(params, state), table.written(len(lineups))))

    def simulate(self, params, lineups: np.ndarray, deal_index: np.ndarray, deal_seed: np.random.SeedSequence,
                 play_seed: np.random.SeedSequence) -> dict[str, Any]:
        """Play `B = len(lineups)` games at once; one row per (game, seat), game-major.

        Games with the same `deal_index` share the deal (common random numbers). Returns equal-length columns:
        game, seat, strategy, score, rank, win, then the game's own."""
        deal = take(self.rules.deal(params, np.random.default_rng(deal_seed), int(deal_index.max()) + 1), deal_index)
        return _rows(self.rules, lineups, self.play(params, deal, lineups, np.random.default_rng(play_seed)).outcome)

    def trace(self, params, strategies: list[str], seed: int) -> dict:
        """One game played by the reference, as the auditable JSON-ready data `atelier play --json` prints. The
        batched engine, given the same seed, plays the very same game (`deal_and_play`)."""
        rng = np.random.default_rng(seed)
        deal = self.rules.deal(params, rng, 1)
        choose = self.table(params, np.array([strategies]), deal).choose
        return {"game": self.name, "players": params.players, "seed": seed, "strategies": list(strategies),
                "params": dataclasses.asdict(params), **self.rules.trace(params, deal, choose, rng)}

    def deal_and_play(self, params, strategies: list[str], seed: int) -> Played:
        """The game `trace(params, strategies, seed)` tells, played by the batched engine."""
        rng = np.random.default_rng(seed)
        return self.play(params, self.rules.deal(params, rng, 1), np.array([strategies]), rng)

    def bench(self, games: int, players: int, strategy: str, repeats: int, jobs: int = 1,
              overrides: dict | None = None) -> dict:
        """Games per second of the batched engine and of the reference (on a hundredth of the deals, at least
        10 of them, at most all), the same strategy at every seat, under the Params `overrides`; with `jobs` > 1,
        also of the engine on that many worker processes at once."""
        params = self.make_params(players, overrides or {})
        self.check_strategy(strategy)
        lineups = np.full((games, players), strategy)
        ref_games = min(games, max(10, games // 100))

        def session(rng: np.random.Generator):
            deal = self.rules.deal(params, rng, games)

            def reference():
                for g in range(ref_games):
                    one = take(deal, [g])
                    self.rules.play_reference(params, one, self.table(params, lineups[:1], one).choose, rng)

            return lambda: self.play(params, deal, lineups, rng), reference

        figures = bench.compare(self.name, players, strategy, games, ref_games, repeats, session)
        if jobs > 1:
            figures |= bench.in_parallel(jobs, games, repeats,
                                         functools.partial(_play_batch, self, params, strategy, games))
        return figures


def get_game(name: str) -> GameSpec:
    """The game registered as `name`; AtelierError for an unknown name."""
    if name not in GAMES:
        raise AtelierError(f"unknown game '{name}'; known: {', '.join(sorted(GAMES))}")
    return GameSpec.load(name, GAMES[name])


def check_players(name: str, players: Any, engine: game.Engine) -> None:
    """AtelierError, in one line naming the game, unless `players` is a Catalogue whose parts take their arguments,
    whose bench strategy it knows, and whose playouts (`uniform`: the engine's random_playout; `fused`) the engine
    has."""
    if not isinstance(players, Catalogue):
        raise AtelierError(f"game '{name}': "
                           f"PLAYERS must be a Catalogue (strategies.common), got {type(players).__name__}")
    if not players.strategies:
        raise AtelierError(f"game '{name}': PLAYERS lists no strategy")
    game.check_part(name, "PLAYERS.check", players.check, ("strategy",))
    game.check_part(name, "PLAYERS.make", players.make, ("strategy",), ("seat", "params", "games", "secret"))
    try:
        players.check(players.bench)
    except AtelierError as err:
        raise AtelierError(f"game '{name}': its bench strategy is refused: {err}") from None
    playouts = {*players.fused.values(), *(["random_playout"] if players.uniform else [])}
    for playout in sorted(playouts):
        game.check_part(name, f"engine.{playout}", getattr(engine, playout, None), game.PLAYOUT)


def _listening(choose: game.Choose, listen: Listen) -> game.Choose:
    def listened(decision: Decision, rng: np.random.Generator) -> np.ndarray:
        choices = choose(decision, rng)
        listen(decision, choices)
        return choices

    return listened


def _play_batch(game: GameSpec, params, strategy: str, games: int, seed: int) -> None:
    """One batch of `games` games with the batched engine, in a worker process (for `atelier bench --jobs`)."""
    rng = np.random.default_rng(seed)
    game.play(params, game.rules.deal(params, rng, games), np.full((games, params.players), strategy), rng)


def with_written(outcome: Outcome, written: dict[str, np.ndarray]) -> Outcome:
    """The Outcome with the result columns the players wrote (Table.written: (B, P, k) arrays), each a list column
    of B * P rows."""
    lists = {name: game.list_column(name, values.reshape(values.shape[0] * values.shape[1], values.shape[2]))
             for name, values in written.items()}
    return dataclasses.replace(outcome, columns={**outcome.columns, **lists}) if lists else outcome


def _rows(rules: GameRules, lineups: np.ndarray, outcome: Outcome) -> dict[str, Any]:
    """One row per (game, seat), game-major: the columns every game has, then the game's own, which must be those
    the rules declare (AtelierError naming the game and the column)."""
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
        **game.checked_columns(rules, own, batch * players),
    }
