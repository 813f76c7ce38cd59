"""Reading results: the one loader, for the report, the command line and the tests.

The format (a manifest and checked Parquet parts) is described and read in sim/dataset.py, the one module of sim
that the reports import. Only the parts that the manifest lists as finished count, and each is checked against
the size and SHA-256 that the manifest records for it, so a truncated or altered part is never read as data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from sim.dataset import ResultsError, find_experiments, read_manifest, read_rows

__all__ = ["ResultsError", "find_experiments", "load", "load_results"]


def load(directory: Path) -> pl.DataFrame:
    """All finished rows of one results folder, sorted by game_id, seat."""
    directory = Path(directory)
    rows = read_rows(directory, read_manifest(directory))
    if rows is None:
        raise ResultsError(f"{directory} holds no finished games yet")
    return in_double(rows)


def load_results(root: Path) -> tuple[pl.DataFrame, list[dict[str, Any]]]:
    """The finished rows of every experiment under `root`, and their manifests.

    Refuses two folders holding the same experiment (the same config hash or the same name), since
    pooling them would count games twice or mix experiments, and a root with no finished game.
    """
    directories = find_experiments(Path(root))
    if not directories:
        raise ResultsError(f"{root} holds no results; run an experiment first")
    manifests = [read_manifest(d) for d in directories]
    for key in ("config_hash", "experiment"):
        _refuse_copies(directories, manifests, key)
    frames = [f for d, m in zip(directories, manifests) if (f := read_rows(d, m)) is not None]
    if not frames:
        raise ResultsError(f"{root} holds no finished games yet")
    return in_double(pl.concat(frames, how="diagonal_relaxed")), manifests


def in_double(rows: pl.DataFrame) -> pl.DataFrame:
    """rows with their 32-bit floats (a win's 1/k) as 64-bit ones, so that sums, which polars adds in an order that
    varies from run to run, differ in the last bits only and the report states the same numbers every time."""
    return rows.with_columns(pl.col(pl.Float32).cast(pl.Float64))


def _refuse_copies(directories: list[Path], manifests: list[dict], key: str) -> None:
    seen: dict[str, Path] = {}
    for directory, manifest in zip(directories, manifests):
        value = str(manifest[key])
        if value in seen:
            what = "the same experiment" if key == "config_hash" else f"two experiments named {value!r}"
            raise ResultsError(f"{seen[value]} and {directory} hold {what}; report them separately or remove one")
        seen[value] = directory
