"""The contract every game fulfils, so that simulate, trace, bench, the runner, the CLI and the reports are
written once for all games.

A game is two modules, found by its name in the registry (sim/registry.py):
- `sim/<name>/api.py` declares `RULES: GameRules`: the rules side, which depends on no bots. Its functions and
  modules are GameRules' fields, declared by the game, not looked up by name.
- `strategies/<name>.py` declares `PLAYERS: Catalogue` (strategies/common.py): its scripted players.
The contract is explicit: RULES_PARTS, ENGINE_PARTS and REFERENCE_PARTS below list every part with the arguments
it takes, and the registry holds a game to them when it loads it (`check_rules`, registry.check_players: a part
missing, misnamed or taking other arguments, a result column that is no polars type, a bench strategy the catalogue
refuses, a declared playout the engine lacks), refusing it in one line that names the game and the part. The
result columns an engine's Outcome gives are held to the declared ones as each batch is played
(`checked_columns`). A game declares how to redeal what a seat cannot see (`GameRules.unseen`, `reveals`), so that
tests/test_contract.py can check that a seat sees only what it may.

The batched engine, `sim/<name>/engine.py`, is steppable (after Pgx). A `State` holds B games, every array
with the batch axis first; `step` returns a new State and never changes its argument, so a State can be kept
and continued from, for example by a search player's rollouts:
- `init(params, deal) -> State`: the games set up from a deal (see `GameRules.deal`);
- `decision(params, state) -> Decision`: the decision the batch faces now (its kind, the acting seat, the
  legal mask, the acting seat's observation);
- `step(params, state, choice) -> State`: one choice per game, used where the decision asks;
- `terminal(params, state) -> bool`: whether every game of the batch has ended;
- `outcome(params, state) -> Outcome`: final scores, ranks, win shares and the game's own result columns;
- `observe(params, state, seat)`: everything `seat` may know now, for any seat, acting or not: what lies face up,
  its own secrets and what it has been shown. A Decision's observation is its acting seat's;
- `determinize(params, state, seat, rng) -> State`: the same games with everything `seat` cannot see redrawn at
  random among what agrees with what it has seen (`observe` gives `seat` the same, the seat to act has the same
  options, every State field but those `GameRules.hidden` names is the same), so that a search player can play on
  from worlds it cannot tell apart from the true one. A game with nothing hidden returns the State.
`play` below is the loop over `step` that plays a batch to the end with a `choose` callback.
An engine has `random_playout(params, state, rng) -> State` where its Catalogue names `uniform` strategies: the
games played on with uniformly random legal answers, in one compiled loop, as far as a uniform random player's
answers are the rules' alone (Witkacy: to the end; Kintsugi: the placements, not the guesses); the State, and the
rng's state, that stepping a table of such players ends in there. It may add the compiled playout of a scripted
strategy that plays every seat (Kaleido's `greedy_playout`), declared by the strategy's Catalogue.fused, on the
same terms.

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
import inspect
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
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
    worlds: Worlds | None = None  # the games as a search player may play on from them (`play_on` sets it); None
    # where a scalar reference asks


class Worlds:
    """The games of a batch as a seat may play on from them: drawn only through `determinize` for that seat, so
    that a search player never reads what the seat cannot see (`draw`). `truth` is for the `cheat` player alone,
    which searches the true State on purpose, as the bound no fair player reaches."""

    __slots__ = ("_engine", "_params", "_state")

    def __init__(self, engine: Engine, params: Any, state: Any):
        self._engine, self._params, self._state = engine, params, state

    def draw(self, seat: int, games: np.ndarray, rng: np.random.Generator) -> Any:
        """The games named (repeats allowed), each with what `seat` cannot see redrawn, as one State."""
        return self._engine.determinize(self._params, games_of(self._state, games), seat, rng)

    def truth(self, games: np.ndarray) -> Any:
        return games_of(self._state, games)


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

    def terminal(self, params: Any, state: Any) -> bool: ...

    def outcome(self, params: Any, state: Any) -> Outcome: ...

    def observe(self, params: Any, state: Any, seat: int) -> Any: ...

    def determinize(self, params: Any, state: Any, seat: int, rng: np.random.Generator) -> Any: ...


class Player(Protocol):
    """One strategy at one seat, for a set of games (strategies/common.py makes them). It answers a decision of kind
    K with its method `K(observation, rng) -> (n,) choices`, one per game of its own, and may define
    `observe(kind, public, choices)` to watch what every seat learns from each decision (`Decision.public`)."""

    name: str


class Reference(Protocol):
    """The scalar reference, `sim/<name>/reference.py` (see the module docstring)."""

    def play(self, params: Any, one: Any, decider: Decider) -> Any: ...

    def question(self, game: Any, phase: str, options: list[int]) -> Decision: ...

    def scores(self, game: Any) -> list: ...


# Every part of the contract, with the arguments it is called with; `check_rules` holds a game to them when the
# registry loads it, so that a part missing, misnamed or taking other arguments is refused there, in one line.
RULES_PARTS = {"deal": ("params", "rng", "n"), "record": ("params", "one", "game"), "replay": ("record",),
               "narrate": ("record",), "facts": ("params",), "unseen": ("params", "deal", "seat", "rng")}
ENGINE_PARTS = {"init": ("params", "deal"), "decision": ("params", "state"), "step": ("params", "state", "choice"),
                "terminal": ("params", "state"), "outcome": ("params", "state"), "observe": ("params", "state", "seat"),
                "determinize": ("params", "state", "seat", "rng")}
REFERENCE_PARTS = {"play": ("params", "one", "decider"), "question": ("game", "phase", "options"),
                   "scores": ("game",)}
PLAYOUT = ("params", "state", "rng")  # an engine's compiled playout: `random_playout`, a fused strategy's


@dataclass(frozen=True, kw_only=True)
class GameRules:
    """The rules side of a game: everything but its players, declared in its api module (`sim/<name>/api.py`) as
    `RULES = GameRules(...)`, data and functions alike (RULES_PARTS):
    `deal(params, rng, n)` -> n deals (a NamedTuple of arrays), the `engine` and `reference` modules,
    `record(params, one, game)` -> a reference's finished game as auditable data, `replay(record)` -> its
    scores, `narrate(record)` -> the game told for people, `facts(params)` -> what a report needs to know of the
    rules, `unseen(params, deal, seat, rng)` -> the deal with what `seat` cannot see redealt (see `unseen`), and
    optionally `private(state)` -> (B, P), what each seat knows privately in the engine's State. The registry
    checks them when it loads the game (`check_rules`).

    `params` is a frozen dataclass. Every field has a default and a `help` in its metadata; an int field may
    declare `range: (lo, hi)` (without one it must fit in int64), and a field naming a data file declares
    `file: <default path>`, so the config hash covers the file's contents. A `validate()` method, if any,
    raises AtelierError for values the rules cannot take.
    """

    name: str  # the registry key
    title: str  # the name for people
    summary: str  # one line for `atelier games`
    player_counts: tuple[int, ...]
    lowest_wins: bool  # the score direction
    params: type  # the frozen Params dataclass; every field has a default and a `help`
    columns: dict[str, Any]  # the game's own result columns -> polars dtype
    engine: Engine | None = None  # None only where a game forgot a part: `check_rules` refuses it by name
    reference: Reference | None = None
    deal: Callable[[Any, np.random.Generator, int], Any] | None = None
    record: Callable[[Any, Any, Any], dict] | None = None
    replay: Callable[[dict], list] | None = None
    narrate: Callable[[dict], str] | None = None
    facts: Callable[[Any], dict] | None = None
    unseen: Callable[[Any, Any, int, np.random.Generator], Any] | None = None  # the deal with what the seat cannot
    # see at the start redealt, consistently (a deal the rules could deal): the other seats' private parts, the
    # face-down order but what the rules show at once. tests/test_contract.py plays both deals and holds the seat's
    # observations and choices equal until the information is revealed: by another seat's differing choice, or
    # through one of the observation's fields named in `reveals` (a card drawn, a tile looked at)
    reveals: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()  # the engine State's fields that `determinize` may redraw: the face-down order,
    # the other seats' secrets; () where nothing is hidden
    private: Callable[[Any], np.ndarray] | None = None  # State -> (B, P): what each seat knows privately, handed
    # to its player as `secret` (of a determinized State too, for a search's rollouts); None where no seat does
    tie_breakers: tuple[str, ...] = ()  # result columns that settle equal scores, in order (the most wins)
    chunk: int = 4096  # an experiment's games per batch unless it names its own: a slow game's are fewer, so that
    # its small experiments still give every core a batch and a run does not wait long on its last one

    def play_reference(self, params: Any, one: Any, choose: Choose, rng: np.random.Generator) -> Any:
        """The one game of the deal `one`, played to its end by the reference with the batched strategies."""
        return self.reference.play(params, one, Asker(self.reference.question, choose, rng))

    def trace(self, params: Any, one: Any, choose: Choose, rng: np.random.Generator) -> dict:
        """The reference's game as auditable data."""
        return self.record(params, one, self.play_reference(params, one, choose, rng))

    def secrets(self, state: Any) -> np.ndarray | None:
        """(B, P): what each seat of the engine's State knows privately, or None."""
        return None if self.private is None else self.private(state)

    def make_params(self, players: int, overrides: dict[str, Any]):
        """Validated Params for `players` with the given overrides; AtelierError names any mistake."""
        return params_from(self.params, players, self.player_counts, overrides)


def check_rules(name: str, rules: Any) -> None:
    """AtelierError, in one line naming the game, unless `rules` fulfils the contract: a GameRules under the name it
    is registered by, with every part (RULES_PARTS, ENGINE_PARTS, REFERENCE_PARTS) taking its arguments, and its
    result columns polars types."""
    if not isinstance(rules, GameRules):
        raise AtelierError(f"game '{name}': RULES must be a sim.game.GameRules, got {type(rules).__name__}")
    if rules.name != name:
        raise AtelierError(f"game '{name}': its RULES are named '{rules.name}'")
    parts = [(part, getattr(rules, part), arguments) for part, arguments in RULES_PARTS.items()]
    if rules.private is not None:
        parts.append(("private", rules.private, ("state",)))
    for module, declared in (("engine", ENGINE_PARTS), ("reference", REFERENCE_PARTS)):
        if getattr(rules, module) is None:
            raise AtelierError(f"game '{name}': its RULES declare no {module}")
        parts += [(f"{module}.{part}", getattr(getattr(rules, module), part, None), arguments)
                  for part, arguments in declared.items()]
    for part, function, arguments in parts:
        check_part(name, part, function, arguments)
    for column, dtype in rules.columns.items():
        if not (isinstance(dtype, pl.DataType) or (isinstance(dtype, type) and issubclass(dtype, pl.DataType))):
            raise AtelierError(f"game '{name}': result column '{column}' declares {dtype!r}, not a polars type")


def check_part(name: str, part: str, function: Any, arguments: tuple[str, ...], keywords: tuple[str, ...] = ()
               ) -> None:
    """AtelierError naming the game and the part unless `function` can be called with `arguments`, then
    `keywords` by name."""
    wanted = f"({', '.join([*arguments, *(['*'] if keywords else []), *keywords])})"
    if function is None:
        raise AtelierError(f"game '{name}': {part}{wanted} is missing")
    if not callable(function):
        raise AtelierError(f"game '{name}': {part} is not a function")
    try:
        inspect.signature(function).bind(*arguments, **dict.fromkeys(keywords))
    except TypeError:
        raise AtelierError(f"game '{name}': {part} must take {wanted}") from None
    except ValueError:  # a builtin or compiled function without a signature: taken on trust
        pass


def checked_columns(rules: GameRules, columns: dict[str, Any], rows: int) -> dict[str, Any]:
    """An Outcome's own columns, `rows` values each, if they are the result columns the rules declare and each fits
    its declared type; AtelierError naming the game and the column otherwise."""
    undeclared = sorted(columns.keys() - rules.columns.keys())
    if undeclared:
        raise AtelierError(f"game '{rules.name}': the engine gives result column '{undeclared[0]}', which its RULES "
                           "do not declare")
    for column, dtype in rules.columns.items():
        if column not in columns:
            raise AtelierError(f"game '{rules.name}': result column '{column}' is declared, but the engine's "
                               "Outcome has none")
        values = columns[column] if isinstance(columns[column], pl.Series) else pl.Series(column, columns[column])
        try:
            fits = len(values) == rows and values.cast(dtype).cast(values.dtype).equals(values)
        except (pl.exceptions.PolarsError, TypeError, ValueError):
            fits = False
        if not fits:
            raise AtelierError(f"game '{rules.name}': result column '{column}' ({len(values)} {values.dtype} values) "
                               f"does not fit its declared {dtype}, {rows} values")
    return columns


def list_column(name: str, rows: np.ndarray) -> pl.Series:
    """An Outcome column of one equal-length list per row (n, k)."""
    fixed = pl.Series(name, np.ascontiguousarray(rows))  # an Array column, (n,) of k
    return fixed.cast(pl.List(fixed.dtype.inner))


def ragged_column(name: str, offsets: np.ndarray, values: np.ndarray) -> pl.Series:
    """An Outcome column whose row i is the list values[offsets[i]:offsets[i + 1]] (numbers, not booleans), built
    from Arrow buffers without copying: pyarrow.array would import pandas, a sixth of a second in every process."""
    lists = pa.ListArray.from_arrays(_arrow(offsets.astype(np.int32)), _arrow(values))
    return pl.Series(name, lists)


def _arrow(values: np.ndarray) -> pa.Array:
    if values.dtype == np.bool_:
        raise TypeError("Arrow packs booleans in bits: make a ragged column of numbers")
    values = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("="))  # Arrow's buffers are native
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def play(engine: Engine, params: Any, deal: Any, choose: Choose, rng: np.random.Generator):
    """Play a batch to the end: init, then ask and step until every game has ended. Returns the final State."""
    return play_on(engine, params, engine.init(params, deal), choose, rng)


def play_on(engine: Engine, params: Any, state: Any, choose: Choose, rng: np.random.Generator):
    """Ask and step from `state` until every game has ended. Returns the final State."""
    while not engine.terminal(params, state):
        decision = evolve(engine.decision(params, state), worlds=Worlds(engine, params, state))
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


def shuffled_after(rows: np.ndarray, start: int, rng: np.random.Generator) -> np.ndarray:
    """(n, k) rows with each row's entries from column `start` on shuffled, independently of the other rows. The
    entries are sorted before they are shuffled, so that the result depends on which they are, not on their order:
    a determinization drawn from the same stream is then the same whatever the true hidden order."""
    return np.concatenate([rows[:, :start], rng.permuted(np.sort(rows[:, start:], axis=1), axis=1)], axis=1)


def take(deal: Any, games: np.ndarray | slice) -> Any:
    """Some games of a deal (a NamedTuple of arrays, batch axis first)."""
    return type(deal)(*(part[games] for part in deal))


def games_of(state: Any, games: np.ndarray | slice) -> Any:
    """Some games of an engine's State, in the order `games` names them, repeats allowed: every array taken along
    its batch axis (a State's arrays, and those of a deal it holds, all have it first), every value the batch
    shares (the turn, the phase) kept. A search player plays each option of each game, many times, as the games
    of one batch."""
    def part(value: Any) -> Any:
        if isinstance(value, np.ndarray):
            return value[games]
        if isinstance(value, tuple) and hasattr(value, "_fields"):  # a deal
            return type(value)(*(part(v) for v in value))
        return value

    return evolve(state, **{f.name: part(getattr(state, f.name)) for f in dataclasses.fields(state)})


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
