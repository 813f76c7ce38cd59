"""Experiment files: a TOML file in, a validated, frozen `Experiment` out.

```toml
name = "kintsugi_tournament"   # optional; default: the file's stem. Results go to <out>/<name>/, so a name is
                               # a safe folder name, and not one of the results format's (manifest.json, parts)
question = "Is there a first-player advantage?"  # optional: the question it answers, the report's heading for it
headline = true                # optional: the game's headline experiment, whose numbers open the report
game = "kintsugi"
players = [2, 3, 4]            # an integer or a list
games = 30000                  # games per player count
seed = 1
pool = ["random+uniform", "greedy+tracker"]   # every seating of the pool, or
# seats = ["greedy+bayes", "random+uniform"]  # one fixed seating; players must equal len(seats), or
# ladder = ["camouflage+bayes", "search@8", "search@32"]  # rungs, weakest first: each rung at every seat, and
#                                             # each rung in each seat in turn with the rung below at the others
match = false                  # optional: play matches of `players` deals, each seating's start player rotating
chunk = 4096                   # optional: games per batch (default: the game's, GameRules.chunk)
[params]                       # optional overrides of the game's Params
connectivity = 4
```

`games` is rounded down to a whole number of deals under every seating (whole matches in match mode); fewer
games than one deal (one match) under every seating are refused, naming the least. A strategy's knob has one
spelling (`planner@12`, not `planner@12.0`), so that one strategy never appears under two names.
`question` and `headline` say how the report presents the experiment, not what is played: the config hash leaves
them out, and a resumed run records their new values.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import re
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.dataset import MANIFEST, PARTS
from sim.errors import AtelierError
from sim.registry import GameSpec, get_game

MAX_GAMES = 10**12  # per player count; game ids stay far inside int64
MAX_CHUNK = 65536  # games held in memory at once by one worker
MAX_NAME = 100  # characters; the name is a folder name
KEYS = ("name", "question", "headline", "game", "players", "games", "seed", "pool", "seats", "ladder", "match",
        "chunk", "params")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_TAKEN = {MANIFEST.casefold(), PARTS.casefold()}  # names of the results format's own files
_KNOB = re.compile(r"@([^@]*?)(?=(?<![eE])\+|-no-|$)")  # a knob runs to the name's next part (+), a -no- or the end
_KIND = {int: "an integer", str: "a string", list: "a list", dict: "a table", bool: "true or false"}
_REQUIRED = object()


@dataclass(frozen=True)
class Experiment:
    """A validated experiment: everything needed to play it, and to recognise it when resuming.

    `lineups[P]` lists the seatings played at P players (strategy names by seat, seat 0 starts);
    every deal is played once under every lineup. `deals[P]` is the number of deals, `params[P]`
    the game's Params for that player count, `files[P]` the SHA-256 of each data file those Params read.
    With `match`, deals are grouped into matches of P games in which the start seat rotates through the lineup.
    A `ladder` names its rungs, weakest first, and its lineups are `ladder_lineups`.
    """

    name: str
    game: str
    players: tuple[int, ...]
    lineups: dict[int, tuple[tuple[str, ...], ...]]
    deals: dict[int, int]
    seed: int
    chunk: int
    params: dict[int, Any]
    files: dict[int, dict[str, str]]
    match: bool = False
    question: str = ""  # what the experiment answers, for the report (not hashed)
    headline: bool = False  # the game's headline experiment (not hashed)
    ladder: tuple[str, ...] = ()  # the rungs of a skill ladder, weakest first; () where the lineups are no ladder

    def games(self, players: int) -> int:
        """Games played at this player count: every deal under every lineup."""
        return self.deals[players] * len(self.lineups[players])

    def resolved(self) -> dict[str, Any]:
        """The experiment as JSON-ready data; the config hash covers exactly this."""
        return {
            "game": self.game,
            "name": self.name,
            "players": list(self.players),
            "lineups": {str(p): [list(lineup) for lineup in self.lineups[p]] for p in self.players},
            "deals": {str(p): self.deals[p] for p in self.players},
            "seed": self.seed,
            "chunk": self.chunk,
            "params": {str(p): dataclasses.asdict(self.params[p]) for p in self.players},
            "files": {str(p): self.files[p] for p in self.players},
            **({"match": True} if self.match else {}),  # absent when false: older experiments keep their hash
            **({"ladder": list(self.ladder)} if self.ladder else {}),
        }

    @property
    def config_hash(self) -> str:
        """First 12 hex digits of the SHA-256 of the canonical JSON of `resolved()`."""
        text = json.dumps(self.resolved(), sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


def load_experiment(path: Path, *, games: int | None = None, seed: int | None = None) -> Experiment:
    """Read and validate an experiment file; `games` and `seed` override the file's values.

    Every mistake raises AtelierError with one line naming the file and the problem.
    """
    try:
        data = _read_toml(path)
        if games is not None:
            data["games"] = games
        if seed is not None:
            data["seed"] = seed
        return build_experiment(data, default_name=path.stem)
    except AtelierError as error:
        raise AtelierError(f"{path}: {error}") from None


def build_experiment(data: dict[str, Any], *, default_name: str) -> Experiment:
    """Validate parsed TOML data into an Experiment (see the module docstring for the format)."""
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise AtelierError(f"unknown key '{unknown[0]}'; known: {', '.join(KEYS)}")
    name = _value(data, "name", str, default_name)
    if not _NAME.fullmatch(name):
        raise AtelierError(f"name {name!r} must be letters, digits, '_', '-' or '.', starting with a letter or digit")
    if len(name) > MAX_NAME:
        raise AtelierError(f"name must be at most {MAX_NAME} characters, got {len(name)}")
    if name.casefold() in _TAKEN:  # beside the results folders, it would read as one (case-blind file systems too)
        raise AtelierError(f"name {name!r} is taken by the results format ({MANIFEST}, {PARTS}); choose another")
    game_name = _value(data, "game", str)
    game = get_game(game_name)
    players = _players(data)
    games = _value(data, "games", int)
    seed = _value(data, "seed", int)
    chunk = _value(data, "chunk", int, game.rules.chunk)
    for key, value, most in (("games", games, MAX_GAMES), ("chunk", chunk, MAX_CHUNK)):
        if not 1 <= value <= most:
            raise AtelierError(f"'{key}' must be between 1 and {most:,}, got {value:,}")
    if seed < 0:
        raise AtelierError(f"'seed' must be 0 or more, got {seed}")
    match = _value(data, "match", bool, False)
    question = _value(data, "question", str, "")
    headline = _value(data, "headline", bool, False)
    overrides = _value(data, "params", dict, {})
    params = {p: game.make_params(p, overrides) for p in players}
    lineups = _lineups(data, players, game)
    return Experiment(
        name=name,
        game=game_name,
        players=players,
        lineups=lineups,
        deals={p: deal_count(games, len(lineups[p]), p, match) for p in players},
        seed=seed,
        chunk=chunk,
        params=params,
        files={p: data_files(params[p]) for p in players},
        match=match,
        question=question.strip(),
        headline=headline,
        ladder=tuple(data.get("ladder", ())),
    )


def data_files(params: Any) -> dict[str, str]:
    """SHA-256 of every data file the Params read, by field: the fields whose metadata names a default `file`.

    The config hash covers these, so a run never resumes on an edited deck or components file."""
    digests = {}
    for spec in dataclasses.fields(params):
        if "file" in spec.metadata:
            path = Path(getattr(params, spec.name) or spec.metadata["file"])
            if is_special(path):
                raise AtelierError(f"{spec.name} file {path} is not a regular file (a pipe or a device?)")
            try:
                digests[spec.name] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError as error:
                raise AtelierError(f"cannot read {spec.name} file {path}: {error.strerror}") from None
    return digests


def pool_lineups(pool: list[str], players: int) -> tuple[tuple[str, ...], ...]:
    """Every seating of a strategy pool at `players` seats.

    With at least as many strategies as seats, every ordered choice of `players` distinct strategies;
    with fewer, every `players`-tuple over the pool that uses each strategy at least once.
    """
    if len(pool) >= players:
        return tuple(itertools.permutations(pool, players))
    return tuple(t for t in itertools.product(pool, repeat=players) if set(t) == set(pool))


def deal_count(games: int, lineups: int, players: int, match: bool) -> int:
    """Deals for `games` games, rounded down, when each deal is played under every lineup; in match mode a whole
    number of matches of `players` deals. AtelierError if that is not one deal (one match)."""
    least = lineups * (players if match else 1)
    if games < least:
        what = f"one match of {players} deals" if match else "one deal"
        raise AtelierError(f"'games' must be at least {least:,} at {players} players, {what} under each of the "
                           f"{lineups:,} seatings; got {games:,}")
    deals = games // lineups
    return deals // players * players if match else deals


def is_special(path: Path) -> bool:
    """Whether something other than a file or a folder lies at `path` (a pipe, a device, a socket), which reading
    could wait on forever. False where nothing can be found: the read that follows says why."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def check_strategy(game: GameSpec, name: str) -> None:
    """AtelierError unless `name` is one of the game's strategies, its knobs in their one spelling."""
    game.check_strategy(name)
    if canonical(name) != name:
        raise AtelierError(f"write '{name}' as '{canonical(name)}': a knob has one spelling, so that one strategy "
                           "has one name")


def canonical(name: str) -> str:
    """A strategy name with each knob in its one spelling, the number's shortest form: `12`, `0.5`, `1e-05`."""
    return _KNOB.sub(lambda knob: "@" + _number(knob[1]), name)


def _number(text: str) -> str:
    try:
        value = float(text)
    except ValueError:
        return text
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value).replace("e+", "e").replace("e-0", "e-").replace("e0", "e")


def _read_toml(path: Path) -> dict[str, Any]:
    if is_special(path):
        raise AtelierError("is not a regular file (a pipe or a device?); give a TOML file")
    try:
        with open(path, "rb") as file:
            return tomllib.load(file)
    except FileNotFoundError:
        raise AtelierError("no such file") from None
    except OSError as error:
        raise AtelierError(f"cannot read: {error.strerror}") from None
    except UnicodeDecodeError:
        raise AtelierError("is not UTF-8 text, as TOML must be") from None
    except tomllib.TOMLDecodeError as error:
        raise AtelierError(f"invalid TOML: {error}") from None


def _value(data: dict[str, Any], key: str, kind: type, default: Any = _REQUIRED) -> Any:
    if key not in data:
        if default is _REQUIRED:
            raise AtelierError(f"missing key '{key}'")
        return default
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise AtelierError(f"'{key}' must be {_KIND[kind]}, got {value!r}")
    return value


def _players(data: dict[str, Any]) -> tuple[int, ...]:
    if "players" not in data:
        raise AtelierError("missing key 'players'")
    value = data["players"]
    counts = value if isinstance(value, list) else [value]
    if not counts or not all(isinstance(c, int) and not isinstance(c, bool) for c in counts):
        raise AtelierError(f"'players' must be an integer or a list of integers, got {value!r}")
    return tuple(sorted(set(counts)))


def _lineups(data: dict[str, Any], players: tuple[int, ...], game: GameSpec) -> dict[int, tuple]:
    given = [key for key in ("pool", "seats", "ladder") if key in data]
    if len(given) != 1:
        raise AtelierError("give exactly one of 'pool' (rotated through every seating), 'seats' (fixed) and "
                           "'ladder' (rungs of skill)")
    key = given[0]
    names = _value(data, key, list)
    if not names or not all(isinstance(n, str) for n in names):
        raise AtelierError(f"'{key}' must be a non-empty list of strategy names, got {names!r}")
    for name in names:
        check_strategy(game, name)
    if key == "seats":
        if players != (len(names),):
            raise AtelierError(
                f"'seats' seats {len(names)} strategies, so 'players' must be {len(names)}, got {list(players)}"
            )
        return {len(names): (tuple(names),)}
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise AtelierError(f"'{key}' lists '{repeated[0]}' more than once")
    if key == "ladder":
        if len(names) < 2:
            raise AtelierError("a 'ladder' needs two rungs at least, weakest first")
        return {p: ladder_lineups(names, p) for p in players}
    return {p: pool_lineups(names, p) for p in players}


def ladder_lineups(rungs: list[str], players: int) -> tuple[tuple[str, ...], ...]:
    """A skill ladder's seatings (after TAG's SkillLadder): each rung at every seat, weakest first (the symmetric
    ladder); then for each rung above the first, that rung in each seat in turn with the rung below at the others
    (the one-up ladder)."""
    symmetric = [(rung,) * players for rung in rungs]
    one_up = [tuple(rungs[r] if seat == up else rungs[r - 1] for seat in range(players))
              for r in range(1, len(rungs)) for up in range(players)]
    return tuple(symmetric + one_up)
