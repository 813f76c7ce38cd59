"""The games only the tests play, registered beside the shipped ones as a new game is: with one line each.

The suite registers them when it starts (tests/conftest.py), and so does every process that imports
tests/declared.py (the goldens, the compile and bounds checks' subprocesses), so that each shared test covers them
like any registered game."""

from __future__ import annotations

from sim import registry

TEST_GAMES = {
    "handful": ("handful.api", "handful.players"),  # tests/handful/: a small hidden-hand card game
}


def register() -> tuple[str, ...]:
    """Register the test games; returns every game the shared tests cover, the shipped ones first."""
    registry.GAMES.update(TEST_GAMES)
    return (*registry.NAMES, *TEST_GAMES)
