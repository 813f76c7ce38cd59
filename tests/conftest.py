"""Shared fixtures: the fake dice game and experiment files written on the fly."""

from collections.abc import Callable
from pathlib import Path

import fakegame
import pytest

from sim import registry


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
