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


@pytest.fixture(params=[
    (lambda path: path.mkdir(), "cannot be read: Is a directory"),
    (lambda path: path.write_bytes(b"\xff = 1\n"), "is malformed: 'utf-8' codec can't decode byte 0xff"),
    (lambda path: path.write_bytes(b"supply = 14\n\xff"), "is malformed: 'utf-8' codec can't decode byte 0xff"),
], ids=["folder", "not-utf8-first", "not-utf8-later"])
def unreadable_file(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    """A data file that cannot be read, and what its one-line error says after the path."""
    make, problem = request.param
    path = tmp_path / "data.toml"
    make(path)
    return path, problem
