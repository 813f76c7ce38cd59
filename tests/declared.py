"""Each registered game's test data (sim/checks.py), found through the registry: the `checks` module beside the
game's api module, or the defaults where the game declares none. Also the games the shared tests cover: the
shipped ones and the test games (tests/testgames.py)."""

from __future__ import annotations

import importlib
import importlib.util

import testgames

from sim.checks import Case, Checks
from sim.registry import GAMES, get_game

NAMES = testgames.register()


def checks(name: str) -> Checks:
    """The game's declared CHECKS, or the defaults."""
    package = GAMES[name][0].rpartition(".")[0]
    if importlib.util.find_spec(f"{package}.checks") is None:
        return Checks()
    return importlib.import_module(f"{package}.checks").CHECKS


def lineups(name: str) -> list[str]:
    """The strategies the shared tests seat: the declared ones, or every whole strategy of the catalogue (its
    bench strategy where it lists none)."""
    catalogue = get_game(name).players
    whole = [s for s in catalogue.strategies if " " not in s and s.islower()]
    return list(checks(name).lineups) or whole or [catalogue.bench]


def differential(name: str) -> list[Case]:
    """The batches the differential test replays: the declared ones, or 24 games at every player count."""
    counts = get_game(name).rules.player_counts
    return list(checks(name).differential) or [(players, 24, players, {}) for players in counts]
