"""Results on disk: one Parquet part per chunk plus a manifest, every file written atomically.

Layout of `<out>/<experiment name>/`:

- `parts/P{players}-c{chunk:05d}.parquet`: the rows of one chunk (see `sim.runner` for the columns).
- `manifest.json`: `experiment`, `config_hash`, `game`, `seed`, `resolved` (the experiment as
  `Experiment.resolved()`), `versions` (atelier, numpy, polars, python), `chunks` (every chunk:
  `id`, `players`, `deals` [start, stop), `games`), `finished` (ids of the chunks whose part is
  written, sorted), `complete`, `games` (games per player count), `started` and `finished_at`
  (UTC, ISO 8601; `finished_at` is null until the run is complete).

A file is written to a temporary name in its folder and renamed into place, so a killed run leaves
either the old file or the new one, never half of one. The manifest is rewritten after every part.
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Callable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.errors import AtelierError
from sim.experiment import Experiment

MANIFEST = "manifest.json"
PARTS = "parts"


class ResultStore:
    """The results folder of one experiment, open for writing parts."""

    def __init__(self, directory: Path, manifest: dict[str, Any]):
        self.directory = directory
        self.manifest = manifest

    @classmethod
    def open(cls, directory: Path, experiment: Experiment, chunks: list[dict[str, Any]]) -> ResultStore:
        """Create the folder, or reopen it to resume the same experiment.

        Raises AtelierError if the folder holds a different experiment or is not a results folder.
        """
        manifest = check_target(directory, experiment.config_hash)
        parts = directory / PARTS
        parts.mkdir(parents=True, exist_ok=True)
        for leftover in [*directory.glob(".*.tmp"), *parts.glob(".*.tmp")]:
            leftover.unlink()
        if manifest is None:
            manifest = _new_manifest(experiment, chunks)
        manifest["finished"] = sorted(c for c in manifest["finished"] if (parts / f"{c}.parquet").exists())
        manifest["complete"] = len(manifest["finished"]) == len(manifest["chunks"])
        store = cls(directory, manifest)
        store._write_manifest()
        return store

    @property
    def finished(self) -> set[str]:
        """Ids of the chunks whose part file is written."""
        return set(self.manifest["finished"])

    def write_part(self, chunk_id: str, frame: pl.DataFrame) -> None:
        """Write one chunk's rows, then record the chunk as finished in the manifest."""
        _atomic_write(self.directory / PARTS / f"{chunk_id}.parquet", frame.write_parquet)
        self.manifest["finished"] = sorted(self.finished | {chunk_id})
        self.manifest["complete"] = len(self.manifest["finished"]) == len(self.manifest["chunks"])
        if self.manifest["complete"]:
            self.manifest["finished_at"] = _now()
        self._write_manifest()

    def _write_manifest(self) -> None:
        text = json.dumps(self.manifest, indent=2) + "\n"
        _atomic_write(self.directory / MANIFEST, lambda path: path.write_text(text))


def check_target(directory: Path, config_hash: str) -> dict[str, Any] | None:
    """The manifest in `directory` if it holds this experiment, None if the folder is new or empty.

    Raises AtelierError if the folder holds a different experiment or other files.
    """
    if (directory / MANIFEST).exists():
        manifest = read_manifest(directory)
        if manifest.get("config_hash") != config_hash:
            raise AtelierError(
                f"{directory} holds a different experiment (config {manifest.get('config_hash')}, "
                f"this one {config_hash}); choose another --out or delete it"
            )
        return manifest
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise AtelierError(f"{directory} exists and is not an atelier results folder; choose another --out")
    return None


def read_manifest(directory: Path) -> dict[str, Any]:
    """The parsed manifest of a results folder; AtelierError if it is missing or unreadable."""
    try:
        return json.loads((directory / MANIFEST).read_text())
    except FileNotFoundError:
        raise AtelierError(f"{directory} holds no results (no {MANIFEST})") from None
    except (OSError, json.JSONDecodeError) as error:
        raise AtelierError(f"{directory / MANIFEST} is unreadable: {error}") from None


def load(directory: Path) -> pl.DataFrame:
    """All finished rows of one results folder, sorted by game_id, seat."""
    manifest = read_manifest(directory)
    files = [directory / PARTS / f"{chunk_id}.parquet" for chunk_id in manifest["finished"]]
    if not files:
        raise AtelierError(f"{directory} holds no finished games yet")
    frames = [pl.read_parquet(file) for file in files]
    return pl.concat(frames, how="diagonal_relaxed").sort("game_id", "seat")


def find_experiments(root: Path) -> list[Path]:
    """Results folders under `root`: `root` itself and its children that hold a manifest."""
    if not root.is_dir():
        return []
    candidates = [root, *sorted(p for p in root.iterdir() if p.is_dir())]
    return [p for p in candidates if (p / MANIFEST).is_file()]


def _new_manifest(experiment: Experiment, chunks: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "experiment": experiment.name,
        "config_hash": experiment.config_hash,
        "game": experiment.game,
        "seed": experiment.seed,
        "resolved": experiment.resolved(),
        "versions": _versions(),
        "chunks": chunks,
        "finished": [],
        "complete": False,
        "games": {str(p): experiment.games(p) for p in experiment.players},
        "started": _now(),
        "finished_at": None,
    }


def _versions() -> dict[str, str]:
    try:
        atelier = metadata.version("atelier")
    except metadata.PackageNotFoundError:
        atelier = "unknown"
    return {"atelier": atelier, "numpy": np.__version__, "polars": pl.__version__,
            "python": platform.python_version()}


def _atomic_write(path: Path, write: Callable[[Path], object]) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    write(temporary)
    os.replace(temporary, path)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
