"""What the shared tests need to know of a game beyond its contract, declared by the game itself.

A game may declare `CHECKS = Checks(...)` in `sim/<name>/checks.py` (beside its api module); the shared tests read
it through the registry (tests/declared.py) and a game that declares nothing gets the defaults: its catalogue's
whole strategies, its default Params at every player count, no edge data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Case = tuple[int, int, int, dict[str, Any]]  # players, games, seed, Params overrides
Edge = tuple[int | None, dict[str, Any]]  # players (None: every count), Params overrides


def no_edges(folder: Path) -> list[Edge]:
    """The default Params at every player count: a game whose data has no edges beyond them."""
    return [(None, {})]


@dataclass(frozen=True)
class Checks:
    """A game's test data. Every field has a default, so a new game's tests run before it declares any."""

    lineups: tuple[str, ...] = ()  # the strategies seated by the goldens, the compile, bounds and differential
    # tests (empty: every whole strategy of the catalogue, its lowercase names without a space)
    variants: tuple[dict[str, Any], ...] = ()  # Params overrides the goldens play besides the defaults
    edges: Callable[[Path], list[Edge]] = no_edges  # the data at the edges validation allows, written into the
    # folder given, for the bounds check (tests/test_boundscheck.py)
    differential: tuple[Case, ...] = ()  # the batches the generic differential test replays through the reference
    # (tests/test_differential.py); empty: 24 games at every player count with the default Params
