"""Results on disk, written: one Parquet part per chunk plus a manifest, every file written atomically.

The format (the layout of `<out>/<experiment name>/`, the manifest's keys, chunk ids, checksums) is described
in sim/dataset.py, which reads it too.

A file is written to a temporary name in its folder and renamed into place, so a killed run leaves
either the old file or the new one, never half of one. The manifest is rewritten when a part is written and
SAVE_EVERY seconds have passed since it last was, when the run is complete, and when it stops early (an error,
Ctrl-C): rewriting it after every part would cost a long run time that grows with the square of its parts. A part
counts as finished only while its size and checksum match the manifest: a part that a killed run wrote but had not
recorded yet, or a damaged one, is played again.
A run holds an exclusive lock on the experiment folder, so two runs never write into one folder at once.
A file that cannot be written (a full disk) stops the run in one line.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.dataset import (
    HIVE,
    MANIFEST,
    PARTS,
    Part,
    ResultsError,
    has_manifest,
    part_is_intact,
    part_path,
    read_manifest,
)
from sim.errors import AtelierError
from sim.experiment import Experiment
from sim.registry import get_game

SAVE_EVERY = 1.0  # seconds between rewrites of the manifest while parts are written


class ResultStore:
    """The results folder of one experiment, open for writing parts."""

    def __init__(self, directory: Path, manifest: dict[str, Any]):
        self.directory = directory
        self.manifest = manifest
        self.saved_at = -SAVE_EVERY  # time.monotonic() of the last rewrite of the manifest
        self.recorded = 0  # the finished parts the manifest on disk lists

    @classmethod
    def open(cls, directory: Path, experiment: Experiment, plan: dict[str, Any]) -> ResultStore:
        """Start the experiment in `directory` (which exists and is locked), or reopen it to resume.

        Keeps only the finished parts whose size and checksum match the manifest; the others are played
        again. Raises AtelierError if the folder holds a different experiment, one planned otherwise (by another
        version of atelier), or is not a results folder.
        """
        manifest = check_target(directory, experiment.config_hash)
        for leftover in [*directory.glob(".*.tmp"), *directory.glob(f"{PARTS}/**/.*.tmp")]:
            leftover.unlink()
        if manifest is None:
            manifest = _new_manifest(experiment, plan)
        elif manifest.get("plan") != plan or manifest.get("layout") != HIVE:
            raise AtelierError(f"{directory} holds this experiment cut into other chunks or laid out otherwise (by "
                               "another version of atelier); run it into a new --out")
        manifest |= _presentation(experiment)
        manifest["finished"] = {chunk: recorded for chunk, recorded in sorted(manifest["finished"].items())
                                if part_is_intact(directory, manifest, chunk)}
        store = cls(directory, manifest)
        store.save()
        return store

    @property
    def finished(self) -> dict[str, dict[str, Any]]:
        """Chunk id -> what the manifest records of its part, for every finished chunk."""
        return self.manifest["finished"]

    def write_part(self, chunk_id: str, games: int, part: Part) -> None:
        """Write one chunk's part, then record the chunk as finished in the manifest (on disk, once SAVE_EVERY
        seconds have passed since the manifest was last written, or the experiment is complete)."""
        path = part_path(self.directory, self.manifest, chunk_id)
        _make_folders(path.parent)
        _atomic_write(path, part.data)
        self.finished[chunk_id] = {"games": games, "rows": part.rows, **part.recorded}
        if time.monotonic() - self.saved_at >= SAVE_EVERY or self._complete():
            self.save()

    def save(self) -> None:
        """Write the manifest with every part finished so far."""
        manifest = self.manifest
        manifest["finished"] = dict(sorted(manifest["finished"].items()))
        manifest["complete"] = self._complete()
        manifest["finished_at"] = _now() if manifest["complete"] else None
        _atomic_write(self.directory / MANIFEST, (json.dumps(manifest, indent=2) + "\n").encode())
        self.saved_at, self.recorded = time.monotonic(), len(self.finished)

    def close(self) -> int:
        """End writing early: record every finished part in the manifest, or remove the manifest and parts folder if
        none is recorded; return the number of recorded parts. A manifest that cannot be written (a full disk)
        leaves the parts it would have recorded to be played again.

        The parts folder then holds nothing that counts: temporary files, or parts whose manifest entry could not
        be written."""
        if len(self.finished) > self.recorded:
            try:
                self.save()
            except AtelierError:
                pass
        if self.recorded:
            return self.recorded
        (self.directory / MANIFEST).unlink(missing_ok=True)
        parts = self.directory / PARTS
        if parts.is_dir():
            for leftover in [*parts.glob("**/.*.tmp"), *parts.glob("**/*.parquet")]:
                leftover.unlink()
            for folder in sorted(parts.glob("**/"), key=lambda f: -len(f.parts)):  # deepest first, parts/ last
                folder.rmdir()
        return 0

    def _complete(self) -> bool:
        return len(self.finished) == sum(p["chunks"] for p in self.manifest["plan"].values())


@contextmanager
def writing(directory: Path) -> Iterator[None]:
    """Create `directory` and any missing parents, and hold an exclusive lock on it while the block runs.

    Raises AtelierError if a folder cannot be created or another run holds the lock. If the block fails,
    the folders created here are removed again, deepest first, as far as they are empty.
    """
    created = _make_folders(directory)
    handle = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(handle)
        raise AtelierError(f"another atelier run is writing {directory}; wait for it to end") from None
    try:
        yield
    except BaseException:
        for folder in created:
            try:
                folder.rmdir()
            except OSError:
                break
        raise
    finally:
        os.close(handle)


def check_target(directory: Path, config_hash: str) -> dict[str, Any] | None:
    """The manifest in `directory` if it holds this experiment, None if the folder is new or empty.

    Raises AtelierError if the folder holds a different experiment or other files.
    """
    try:
        if has_manifest(directory):
            manifest = read_manifest(directory)
            if manifest["config_hash"] != config_hash:
                raise AtelierError(
                    f"{directory} holds a different experiment (config {manifest['config_hash']}, "
                    f"this one {config_hash}); choose another --out or delete it"
                )
            return manifest
        if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
            raise AtelierError(f"{directory} exists and is not an atelier results folder; choose another --out")
    except ResultsError as error:
        raise AtelierError(str(error)) from None
    except OSError as error:
        raise AtelierError(f"cannot use {directory}: {error.strerror}") from None
    return None


def _make_folders(directory: Path) -> list[Path]:
    """Create `directory` and its missing parents; return the ones created, deepest first."""
    made: list[Path] = []
    try:
        for folder in reversed([directory, *directory.parents]):
            if not folder.exists():
                folder.mkdir()
                made.append(folder)
    except OSError as error:
        for folder in reversed(made):
            folder.rmdir()
        raise AtelierError(f"cannot create {directory}: {error.strerror}") from None
    return made[::-1]


def _new_manifest(experiment: Experiment, plan: dict[str, Any]) -> dict[str, Any]:
    return {
        "experiment": experiment.name,
        "config_hash": experiment.config_hash,
        "game": experiment.game,
        **_presentation(experiment),
        **_game_facts(experiment),
        "seed": experiment.seed,
        "resolved": experiment.resolved(),
        "versions": _versions(),
        "layout": HIVE,
        "plan": plan,
        "finished": {},
        "complete": False,
        "games": {str(p): experiment.games(p) for p in experiment.players},
        "started": _now(),
        "finished_at": None,
    }


def _presentation(experiment: Experiment) -> dict[str, Any]:
    """How the report presents the experiment: its question and whether it is the game's headline."""
    return {"question": experiment.question, "headline": experiment.headline}


def _game_facts(experiment: Experiment) -> dict[str, Any]:
    """What the report needs to know of the game's rules and players (each strategy's one line, as `atelier games`
    prints it): the reports import no rules or strategies, only read these."""
    game = get_game(experiment.game)
    return {"title": game.rules.title, "lowest_wins": game.rules.lowest_wins,
            "tie_breakers": list(game.rules.tie_breakers), "strategies": dict(game.players.strategies),
            "facts": {str(p): game.rules.facts(experiment.params[p]) for p in experiment.players}}


def _versions() -> dict[str, str]:
    try:
        atelier = metadata.version("atelier")
    except metadata.PackageNotFoundError:
        atelier = "unknown"
    return {"atelier": atelier, "numpy": np.__version__, "polars": pl.__version__,
            "python": platform.python_version()}


def _atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file; AtelierError in one line if the disk refuses it."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        _write_bytes(temporary, data)
        os.replace(temporary, path)
    except BaseException as error:
        temporary.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise AtelierError(f"cannot write {path}: {error.strerror or error}") from None
        raise


def _write_bytes(path: Path, data: bytes) -> None:
    with open(path, "wb") as file:
        file.write(data)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
