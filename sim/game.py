"""The contract every game package in `sim/` fulfils, so the runner, CLI and reports stay game-agnostic.

A game package `sim/<name>/` exposes, from its `api.py` (kept apart from the package's `__init__.py` so
that `strategies/<name>.py` can import the game's rules without an import cycle):

- `NAME: str` (registry key), `TITLE: str` (display name), `SUMMARY: str` (one line).
- `PLAYER_COUNTS: tuple[int, ...]`: the player counts the rules allow.
- `Params`: a frozen dataclass; every field has a default and a `help` entry in its metadata. An int field
  may declare `range: (lo, hi)` in its metadata (inclusive); without one it must fit in int64.
- `make_params(players: int, overrides: dict) -> Params`: validated; raises `AtelierError`.
- `STRATEGIES: dict[str, str]`: strategy (or strategy component) name -> one-line description.
- `check_strategy(name: str) -> None`: raises `AtelierError` naming the unknown strategy.
- `simulate(params, lineups, deal_index, deal_seed, play_seed) -> dict[str, np.ndarray]`:
  plays `B = len(lineups)` games at once with the batched engine. `lineups` is a `(B, P)` array of
  strategy names by seat (seat 0 starts). Games with the same `deal_index` share the random deal
  (common random numbers). Returns equal-length columns (numpy arrays, or polars Series for list
  columns) with one row per (game, seat), game-major:
  `game` (0..B-1), `seat`, `strategy`, `score`, `rank`, `win`, plus the game's own columns.
- `trace(params, strategies, seed) -> dict`: one game as an auditable, JSON-ready dict.
- `narrate(trace: dict) -> str`: the same game told turn by turn for people.
- `bench(games, players, strategy, repeats) -> dict`: engine and reference games per second.
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any

from sim.errors import AtelierError

INT64 = (-(2**63), 2**63 - 1)


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
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AtelierError(f"{what} {file} does not exist") from None
    except OSError as err:  # a folder, no permission, a name too long, ...
        raise AtelierError(f"{what} {file} cannot be read: {err.strerror or err}") from None
    except ValueError as err:  # not UTF-8, or not TOML
        raise AtelierError(f"{what} {file} is malformed: {err}") from None
