"""Reading results: the one loader, for the report, the command line and the tests.

A results folder holds `manifest.json` and `parts/*.parquet` (sim/results.py writes them). Only the parts
that the manifest lists as finished count, and each is checked against the size and SHA-256 that the
manifest records for it, so a truncated or altered part is never read as data.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import polars as pl

MANIFEST = "manifest.json"
PARTS = "parts"
MANIFEST_KEYS = ("experiment", "config_hash", "game", "finished", "complete")


class ResultsError(Exception):
    """Results on disk that cannot be read as they are: the command line prints it as one line."""


def part_path(directory: Path, chunk_id: str) -> Path:
    """Where the part of one chunk lives."""
    return directory / PARTS / f"{chunk_id}.parquet"


def digest(path: Path) -> dict[str, Any]:
    """Size and SHA-256 of a file, as the manifest records them for each finished part."""
    with open(path, "rb") as file:
        return {"bytes": path.stat().st_size, "sha256": hashlib.file_digest(file, "sha256").hexdigest()}


def part_is_intact(directory: Path, chunk_id: str, recorded: dict[str, Any]) -> bool:
    """Whether a finished part is on disk with the size and checksum the manifest records."""
    path = part_path(directory, chunk_id)
    try:
        if path.stat().st_size != recorded.get("bytes"):
            return False
        return digest(path)["sha256"] == recorded.get("sha256")
    except OSError:
        return False


def read_manifest(directory: Path) -> dict[str, Any]:
    """The parsed manifest of a results folder; ResultsError if it is missing, unreadable or not a manifest."""
    path = directory / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ResultsError(f"{directory} holds no results (no {MANIFEST})") from None
    except (OSError, ValueError) as error:
        raise ResultsError(f"{path} is unreadable: {error}") from None
    if not isinstance(manifest, dict) or any(key not in manifest for key in MANIFEST_KEYS) \
            or not isinstance(manifest["finished"], dict):
        raise ResultsError(f"{path} is not an atelier manifest (run the experiment again into a new folder)")
    return manifest


def find_experiments(root: Path) -> list[Path]:
    """Results folders under `root`: `root` itself if it holds a manifest, else its children that do."""
    if (root / MANIFEST).is_file():
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / MANIFEST).is_file())


def load(directory: Path) -> pl.DataFrame:
    """All finished rows of one results folder, sorted by game_id, seat."""
    rows = _finished_rows(directory, read_manifest(directory))
    if rows is None:
        raise ResultsError(f"{directory} holds no finished games yet")
    return rows


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
    frames = [f for d, m in zip(directories, manifests) if (f := _finished_rows(d, m)) is not None]
    if not frames:
        raise ResultsError(f"{root} holds no finished games yet")
    return pl.concat(frames, how="diagonal_relaxed"), manifests


def _refuse_copies(directories: list[Path], manifests: list[dict], key: str) -> None:
    seen: dict[str, Path] = {}
    for directory, manifest in zip(directories, manifests):
        value = str(manifest[key])
        if value in seen:
            what = "the same experiment" if key == "config_hash" else f"two experiments named {value!r}"
            raise ResultsError(f"{seen[value]} and {directory} hold {what}; report them separately or remove one")
        seen[value] = directory


def _finished_rows(directory: Path, manifest: dict[str, Any]) -> pl.DataFrame | None:
    frames = []
    for chunk_id, recorded in sorted(manifest["finished"].items()):
        if not part_is_intact(directory, chunk_id, recorded):
            raise ResultsError(f"part {chunk_id} of {directory} is missing or damaged; run the experiment "
                               "again to recompute it")
        frames.append(pl.read_parquet(part_path(directory, chunk_id)))
    if not frames:
        return None
    return pl.concat(frames, how="diagonal_relaxed").sort("game_id", "seat")
