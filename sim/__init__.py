"""atelier: a Monte Carlo balance lab for tabletop games.

`GAMES` maps each game's name to the module that implements the contract in `sim.game`; modules are
imported only when a game is asked for, so a broken or slow game never costs the others anything.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from sim.errors import AtelierError

GAMES: dict[str, str] = {
    "kintsugi": "sim.kintsugi.api",
    "broken_beautiful": "sim.broken_beautiful.api",
    "kaleido": "sim.kaleido.api",
}


def get_game(name: str) -> ModuleType:
    """Import and return the game module registered as `name`; raise AtelierError for an unknown name."""
    if name not in GAMES:
        raise AtelierError(f"unknown game '{name}'; known: {', '.join(sorted(GAMES))}")
    return importlib.import_module(GAMES[name])
