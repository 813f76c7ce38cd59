"""The contract every game fulfils, so that simulate, trace, bench, the runner, the CLI and the reports are
written once for all games.

A game is two modules, found by its name in the registry (sim/registry.py):
- `sim/<name>/api.py` declares `RULES: GameRules`: the rules side, which depends on no bots.
- `strategies/<name>.py` declares `PLAYERS: Catalogue` (strategies/common.py): its scripted players.

The batched engine, `sim/<name>/engine.py`, is steppable (after Pgx). A `State` holds B games, every array
with the batch axis first; `step` returns a new State and never changes its argument, so a State can be kept
and continued from, for example by a search player's rollouts:
- `init(params, deal) -> State`: the games set up from a deal (see `GameRules.deal`);
- `decision(params, state) -> Decision`: the decision the batch faces now (its kind, the acting seat, the
  legal mask, the acting seat's observation);
- `step(params, state, choice) -> State`: one choice per game, used where the decision asks;
- `terminal(state) -> bool`: whether every game of the batch has ended;
- `outcome(params, state) -> Outcome`: final scores, ranks, win shares and the game's own result columns.
`play` below is the loop over `step` that plays a batch to the end with a `choose` callback.
An engine may add `random_playout(params, state, rng) -> State`: the games played on with uniformly random legal
answers, in one compiled loop, as far as a uniform random player's answers are the rules' alone (Witkacy: to the
end; Kintsugi: the placements, not the guesses); the State, and the rng's state, that stepping a table of such
players (strategies.common.Catalogue.uniform) ends in there. It may add the compiled playout of a scripted strategy
that plays every seat (Kaleido's `greedy_playout`), named by the strategy's Catalogue.fused, on the same terms.

The scalar reference, `sim/<name>/reference.py`, keeps its readable form, and every game's looks the same:
- `play(params, one, decider) -> Game`: the one game of a deal (`one`, a batch of one), played to its end;
- `decider(game, phase, options) -> choice`: how a reference asks, the same in every game (`Decider`). `phase`
  names the question (the engine observation's phase or the Decision's kind), `options` are the choices the
  rules allow, as the engine's action codes; the reference refuses any other answer (`checked`);
- `question(game, phase, options) -> Decision`: that question as the engine asks it, over a batch of one, so
  that `Asker` lets the batched strategies play the reference too;
- `scores(game) -> list`: the final scores, one per seat.
"""

from __future__ import annotations

import dataclasses
import importlib
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

import numpy as np
import polars as pl
import pyarrow as pa

from sim.errors import AtelierError, IllegalMove

INT64 = (-(2**63), 2**63 - 1)


@dataclass(frozen=True)
class Decision:
    """What the batch must decide now: one kind of decision by one seat, in the games where `asked`."""

    kind: str  # the game's name for it, e.g. "place", "guess", "draft", "keep", "repair", "tile", "rotate"
    seat: int  # the acting seat, the same in every game of the batch
    legal: np.ndarray  # (B, A) bool: the choices the rules allow in each game
    asked: np.ndarray  # (B,) bool: the games whose answer counts; the others' answers are ignored (a Table
    # answers 0 for them, which may be a real choice elsewhere: an engine must never read it)
    observation: Any  # what the acting seat may see; never another seat's secret or the face-down deck
    where: str = ""  # when in the game, for messages about the choice: "at turn 3", "in round 2"
    public: Any = None  # what every seat learns from this decision once it is made (None: nothing to watch);
    # a Table shows watching players this, never the acting seat's observation


Choose = Callable[[Decision, np.random.Generator], np.ndarray]  # a decision -> (B,) choices, checked legal
Decider = Callable[[Any, str, list[int]], int]  # a reference's (game, phase, options) -> one of the options


@dataclass(frozen=True)
class Asker:
    """The decider through which a reference plays the batched strategies: it puts each question to `choose`
    (a Table's) as the engine would, with the reference's `question(game, phase, options)` over a batch of one."""

    question: Callable[[Any, str, list[int]], Decision]
    choose: Choose
    rng: np.random.Generator

    def __call__(self, game: Any, phase: str, options: list[int]) -> int:
        return int(self.choose(self.question(game, phase, options), self.rng)[0])


def legal_row(options: list[int], width: int) -> np.ndarray:
    """(1, width) bool: the legal mask of a batch of one whose allowed choices are `options`."""
    legal = np.zeros((1, width), bool)
    legal[0, options] = True
    return legal


def checked(choice: int, options: list[int], phase: str, where: str) -> int:
    """The decider's choice, if the rules allow it: a reference never plays anything else."""
    if choice not in options:
        raise IllegalMove("reference", f"{phase} choice {choice} {where} is not allowed by the rules")
    return choice


@dataclass(frozen=True)
class Outcome:
    """A finished batch: the standings and the game's own result columns."""

    scores: np.ndarray  # (B, P)
    rank: np.ndarray  # (B, P) int8, 1 = best, tied seats share the better rank
    win: np.ndarray  # (B, P) float32, 1/k for each of k seats tied for first
    columns: dict[str, Any]  # the game's own columns: (B, P) or (B,) arrays, or polars Series of B * P rows


class Engine(Protocol):
    """The steppable batched engine, `sim/<name>/engine.py` (see the module docstring). Its State may name in a
    class attribute `QUESTION` the fields that hold the question being asked (its legal mask, the games it asks)
    rather than the game: a game that has ended keeps there what its batch's last question left."""

    def init(self, params: Any, deal: Any) -> Any: ...

    def decision(self, params: Any, state: Any) -> Decision: ...

    def step(self, params: Any, state: Any, choice: np.ndarray) -> Any: ...

    def terminal(self, state: Any) -> bool: ...

    def outcome(self, params: Any, state: Any) -> Outcome: ...


class Player(Protocol):
    """One strategy at one seat, for a set of games (strategies/common.py makes them). It answers a decision of kind
    K with its method `K(observation, rng) -> (n,) choices`, one per game of its own, and may define
    `observe(kind, public, choices)` to watch what every seat learns from each decision (`Decision.public`)."""

    name: str


@dataclass(frozen=True)
class GameRules:
    """The rules side of a game: everything but its players.

    The game's functions live in its api module (`sim/<name>/api.py`), under the same names in every game:
    `deal(params, rng, n)` -> n deals (a NamedTuple of arrays), the `engine` and `reference` modules,
    `record(params, one, game)` -> a reference's finished game as auditable data, `replay(record)` -> its
    scores, `narrate(record)` -> the game told for people, `facts(params)` -> what a report needs to know of the
    rules, and optionally `secrets(deal)` -> (B, P), what each seat knows privately. GameRules holds the data and finds
    those by name.

    `params` is a frozen dataclass. Every field has a default and a `help` in its metadata; an int field may
    declare `range: (lo, hi)` (without one it must fit in int64), and a field naming a data file declares
    `file: <default path>`, so the config hash covers the file's contents. A `validate()` method, if any,
    raises AtelierError for values the rules cannot take.
    """

    module: str  # the api module's name, `__name__` where RULES is declared
    name: str  # the registry key
    title: str  # the name for people
    summary: str  # one line for `atelier games`
    player_counts: tuple[int, ...]
    lowest_wins: bool  # the score direction
    params: type  # the frozen Params dataclass; every field has a default and a `help`
    columns: dict[str, Any]  # the game's own result columns -> polars dtype
    tie_breakers: tuple[str, ...] = ()  # result columns that settle equal scores, in order (the most wins)
    chunk: int = 4096  # an experiment's games per batch unless it names its own: a slow game's are fewer, so that
    # its small experiments still give every core a batch and a run does not wait long on its last one

    @property
    def api(self) -> ModuleType:
        return importlib.import_module(self.module)

    @property
    def engine(self) -> Engine:
        return self.api.engine

    @property
    def deal(self) -> Callable[[Any, np.random.Generator, int], Any]:
        return self.api.deal

    @property
    def reference(self) -> ModuleType:
        return self.api.reference

    def play_reference(self, params: Any, one: Any, choose: Choose, rng: np.random.Generator) -> Any:
        """The one game of the deal `one`, played to its end by the reference with the batched strategies."""
        return self.reference.play(params, one, Asker(self.reference.question, choose, rng))

    def trace(self, params: Any, one: Any, choose: Choose, rng: np.random.Generator) -> dict:
        """The reference's game as auditable data."""
        return self.api.record(params, one, self.play_reference(params, one, choose, rng))

    @property
    def replay(self) -> Callable[[dict], list]:
        return self.api.replay

    @property
    def narrate(self) -> Callable[[dict], str]:
        return self.api.narrate

    @property
    def facts(self) -> Callable[[Any], dict]:
        return self.api.facts

    def secrets(self, deal: Any) -> np.ndarray | None:
        return getattr(self.api, "secrets", lambda deal: None)(deal)

    def make_params(self, players: int, overrides: dict[str, Any]):
        """Validated Params for `players` with the given overrides; AtelierError names any mistake."""
        return params_from(self.params, players, self.player_counts, overrides)


def list_column(name: str, rows: np.ndarray) -> pl.Series:
    """An Outcome column of one equal-length list per row (n, k), built as an Arrow list without copying rows."""
    offsets = np.arange(0, rows.size + 1, rows.shape[1], dtype=np.int32)
    return pl.Series(name, pa.ListArray.from_arrays(offsets, np.ascontiguousarray(rows).ravel()))


def play(engine: Engine, params: Any, deal: Any, choose: Choose, rng: np.random.Generator):
    """Play a batch to the end: init, then ask and step until every game has ended. Returns the final State."""
    return play_on(engine, params, engine.init(params, deal), choose, rng)


def play_on(engine: Engine, params: Any, state: Any, choose: Choose, rng: np.random.Generator):
    """Ask and step from `state` until every game has ended. Returns the final State."""
    while not engine.terminal(state):
        decision = engine.decision(params, state)
        state = engine.step(params, state, choose(decision, rng))
    return state


def evolve(state: Any, **changes: Any) -> Any:
    """dataclasses.replace for the engines' frozen States, without re-running __init__: a State is replaced
    several times per decision, and replace's field-by-field __init__ cost a twentieth of Kaleido's run."""
    unknown = changes.keys() - state.__dataclass_fields__.keys()
    if unknown:
        raise TypeError(f"{type(state).__name__} has no field {', '.join(sorted(unknown))}")
    new = object.__new__(type(state))
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


def standings_lines(scores: list[int], winners: list[int], note: str = "") -> list[str]:
    """The last lines of every game's narration: the scores and who won."""
    return [f"Scores{note}: " + ", ".join(f"seat {s} {v}" for s, v in enumerate(scores)),
            "Winner(s): " + ", ".join(f"seat {s}" for s in winners)]


def read_only(observation: Any) -> Any:
    """The observation a strategy is handed: its arrays as read-only views, so that no strategy can write into the
    engine's State. A dict, a NamedTuple or a dataclass (other fields, such as a scratch `memo`, are shared)."""
    if isinstance(observation, np.ndarray):
        view = observation.view()
        view.flags.writeable = False
        return view
    if isinstance(observation, dict):
        return {key: read_only(value) for key, value in observation.items()}
    if isinstance(observation, tuple) and hasattr(observation, "_fields"):
        return type(observation)(*map(read_only, observation))
    if dataclasses.is_dataclass(observation):
        return evolve(observation, **{key: read_only(value) for key, value in vars(observation).items()
                                      if isinstance(value, np.ndarray)})
    return observation


def take(deal: Any, games: np.ndarray | slice) -> Any:
    """Some games of a deal (a NamedTuple of arrays, batch axis first)."""
    return type(deal)(*(part[games] for part in deal))


def params_from(cls: type, players: int, player_counts: tuple[int, ...], overrides: dict[str, Any]):
    """Build a Params dataclass from user overrides, with one-line errors for every mistake."""
    if players not in player_counts:
        allowed = ", ".join(map(str, player_counts))
        raise AtelierError(f"{players} players is not allowed; this game takes {allowed}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    values: dict[str, Any] = {"players": players}
    for key, value in overrides.items():
        if key == "players":
            raise AtelierError("set the player count with 'players', not inside [params]")
        if key not in fields:
            raise AtelierError(f"unknown parameter '{key}'; known: {', '.join(sorted(set(fields) - {'players'}))}")
        expected = type(fields[key].default)
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if expected is tuple and isinstance(value, list):  # a TOML array; Params keep tuples, hashable
            value = tuple(value)
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise AtelierError(f"parameter '{key}' must be {expected.__name__}, got {value!r}")
        low, high = fields[key].metadata.get("range", INT64)
        if expected is int and not low <= value <= high:
            raise AtelierError(f"parameter '{key}' must be between {low} and {high}, got {value}")
        values[key] = value
    params = cls(**values)
    if hasattr(params, "validate"):
        params.validate()
    return params


def describe_params(cls: type) -> list[tuple[str, Any, str]]:
    """(name, default, help) for each Params field, for `atelier games`."""
    return [(f.name, f.default, f.metadata.get("help", "")) for f in dataclasses.fields(cls)]


def read_toml(file: Path, what: str) -> dict[str, Any]:
    """A game's data file as TOML, with one-line errors naming `what` and the file."""
    try:
        if file.exists() and not file.is_file() and not file.is_dir():  # a pipe or a device: reading could hang
            raise AtelierError(f"{what} {file} is not a regular file (a pipe or a device?)")
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AtelierError(f"{what} {file} does not exist") from None
    except OSError as err:  # a folder, no permission, a name too long, ...
        raise AtelierError(f"{what} {file} cannot be read: {err.strerror or err}") from None
    except ValueError as err:  # not UTF-8, or not TOML
        raise AtelierError(f"{what} {file} is malformed: {err}") from None
