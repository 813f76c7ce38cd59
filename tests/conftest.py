"""Shared fixtures: the test games (registered for the whole session), the fake dice game and experiment files
written on the fly."""

from collections.abc import Callable
from pathlib import Path

import fakegame
import pytest
import testgames

from sim import registry

testgames.register()  # the test games, for the whole session


@pytest.fixture
def dice(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the fake dice game under the name 'dice'."""
    monkeypatch.setitem(registry.GAMES, "dice", (fakegame.__name__, fakegame.__name__))


@pytest.fixture
def write_toml(tmp_path: Path) -> Callable[..., Path]:
    """Write TOML text to tmp_path/<name>.toml and return the path."""

    def write(text: str, name: str = "exp") -> Path:
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        return path

    return write
