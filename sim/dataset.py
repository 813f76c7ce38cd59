"""The results format, in one place: what sim/results.py writes and reports/load.py reads.

A results folder, `<out>/<experiment name>/`, holds:

- `parts/game=<game>/players=<n>/<chunk id>.parquet`: the rows of one chunk (see `sim.runner` for the columns), in
  hive partitions: `game` and `players` are in the path, not in the file, so that `parts/` reads as one table with
  pyarrow, pandas, polars (`parts/**/*.parquet`, `hive_partitioning=True`) and duckdb. A chunk id is
  `P{players}-c{group:05d}`, or `P{players}-c{group:05d}-l{piece:04d}` where the seatings of one group of deals
  are split over several chunks. Results written before the hive layout (no `layout` in the manifest) hold their
  parts in `parts/` itself, whole rows; they are read as they are.
- `manifest.json`: `experiment`, `config_hash`, `game`, `question` (what the experiment answers) and `headline`
  (whether it is the game's headline experiment), `title`, `lowest_wins`, `tie_breakers` (result columns
  that settle equal scores), `facts` (per player count, what the report needs to know of the rules), `seed`,
  `resolved` (the experiment as `Experiment.resolved()`), `versions`, `layout` ("hive"), `plan` (per player count:
  `deals`, `deals_per_chunk`, `chunks`, and `lineups_per_chunk` where seatings are split), `finished` (chunk id ->
  `games`, `rows`, `bytes` and `sha256` of its part), `complete`, `games` (per player count), `started` and
  `finished_at` (UTC, ISO 8601; null until the run is complete).

A part counts only while its size and SHA-256 match the manifest, and its rows are parsed from the very bytes
that were checked. Files are read and written through Python's own file calls, so any path the operating system
takes (bytes that are not UTF-8 included) works. This module imports nothing else of atelier, so that the
reports can read results without reaching the engines (import-linter checks it).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

import polars as pl

MANIFEST = "manifest.json"
PARTS = "parts"
CHUNK_ID = re.compile(r"P(\d+)-c\d{5,}(-l\d{4,})?")
HIVE = "hive"  # the manifest's `layout` of results partitioned by game and players
PARTITIONS = {"game": pl.String, "players": pl.Int8}  # the columns a hive layout keeps in the parts' paths
GAME_NAME = re.compile(r"[a-z][a-z0-9_]*")  # a game's name, as the registry writes it: safe in a path
REQUIRED = {"experiment": str, "config_hash": str, "game": str, "finished": dict, "complete": bool}
OPTIONAL = {"question": str, "headline": bool, "title": str, "lowest_wins": bool, "tie_breakers": list, "facts": dict,
            "strategies": dict, "seed": int, "resolved": dict, "versions": dict, "layout": str, "plan": dict,
            "games": dict, "started": str, "finished_at": (str, type(None))}
FINISHED = {"games": int, "rows": int, "bytes": int, "sha256": str}
CONSTANT_COLUMNS = ("experiment", "game")  # the report joins rows to their manifest by these: they must agree
_KIND = {str: "a string", dict: "an object", bool: "true or false", list: "a list", int: "a whole number",
         (str, type(None)): "a string or null"}


class ResultsError(Exception):
    """Results on disk that cannot be read as they are: the command line prints it as one line."""


def chunk_id(players: int, group: int, piece: int | None = None) -> str:
    """The name of a chunk, also its part file's stem: `piece` counts the chunks of a group split by seatings."""
    return f"P{players}-c{group:05d}" + ("" if piece is None else f"-l{piece:04d}")


def part_path(directory: Path, manifest: dict[str, Any], chunk: str) -> Path:
    """Where the part of one chunk lives, in the manifest's layout."""
    if manifest.get("layout") != HIVE:
        return directory / PARTS / f"{chunk}.parquet"
    return directory / PARTS / f"game={manifest['game']}" / f"players={players_of(chunk)}" / f"{chunk}.parquet"


def players_of(chunk: str) -> int:
    """The player count a chunk id names."""
    return int(CHUNK_ID.fullmatch(chunk).group(1))


def fingerprint(data: bytes) -> dict[str, Any]:
    """Size and SHA-256 of a part's bytes, as the manifest records them."""
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def digest(path: Path) -> dict[str, Any]:
    """The fingerprint of a file on disk."""
    return fingerprint(path.read_bytes())


def part_bytes(frame: pl.DataFrame) -> bytes:
    """A chunk's rows as the bytes of its Parquet part."""
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    return buffer.getvalue()


@dataclass(frozen=True)
class Part:
    """A chunk's rows encoded as its Parquet part, with what the manifest records of it: made where the chunk is
    played (a worker), so that the process that writes only writes."""

    data: bytes
    rows: int
    recorded: dict[str, Any]  # fingerprint(data)

    @classmethod
    def of(cls, frame: pl.DataFrame) -> Part:
        """The part of a chunk's rows in the hive layout: without the columns its path holds."""
        data = part_bytes(frame.drop(*PARTITIONS))
        return cls(data, frame.height, fingerprint(data))


def intact_part(directory: Path, manifest: dict[str, Any], chunk: str) -> bytes | None:
    """The bytes of a finished part if they are on disk with the size and checksum the manifest records."""
    recorded = manifest["finished"][chunk]
    path = part_path(directory, manifest, chunk)
    try:
        if not path.is_file() or path.stat().st_size != recorded["bytes"]:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    return data if fingerprint(data) == {"bytes": recorded["bytes"], "sha256": recorded["sha256"]} else None


def part_is_intact(directory: Path, manifest: dict[str, Any], chunk: str) -> bool:
    """Whether a finished part is on disk with the size and checksum the manifest records."""
    return intact_part(directory, manifest, chunk) is not None


def find_experiments(root: Path) -> list[Path]:
    """Results folders under `root`: `root` itself if it holds a manifest, else its children that do.

    A `manifest.json` of any kind counts (a folder too), so that reading it says what is wrong with it."""
    if has_manifest(root):
        return [root]
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if has_manifest(p))


def has_manifest(directory: Path) -> bool:
    """Whether anything lies at the manifest's place in `directory`: a file, a folder, a pipe, a dangling link."""
    try:
        (directory / MANIFEST).lstat()
    except OSError:
        return False
    return True


def read_manifest(directory: Path) -> dict[str, Any]:
    """The checked manifest of a results folder; ResultsError in one line if it is missing, unreadable or not
    shaped as this module describes."""
    path = directory / MANIFEST
    if not has_manifest(directory):
        raise ResultsError(f"{directory} holds no results (no {MANIFEST})")
    if path.is_dir():
        raise ResultsError(f"{path} is a folder, not a manifest; remove it or the results folder")
    if not path.is_file():
        raise ResultsError(f"{path} is not a regular file (a pipe or a device?), so it is not a manifest")
    try:
        manifest = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, ValueError) as error:
        raise ResultsError(f"{path} is unreadable: {error}") from None
    problem = manifest_problem(manifest)
    if problem:
        raise ResultsError(f"{path} is not an atelier manifest ({problem}); run the experiment again into a new "
                           "folder")
    return manifest


def manifest_problem(manifest: Any) -> str | None:
    """What is wrong with the shape of a parsed manifest, in a few words; None if nothing is."""
    if not isinstance(manifest, dict):
        return f"it holds {_short(manifest)}, not an object"
    for key in REQUIRED:
        if key not in manifest:
            return f"it lacks '{key}'"
    for key, kind in (REQUIRED | OPTIONAL).items():
        if key in manifest and not _is(manifest[key], kind):
            return f"'{key}' must be {_KIND[kind]}, got {_short(manifest[key])}"
    for chunk, recorded in manifest["finished"].items():
        if not CHUNK_ID.fullmatch(chunk):
            return f"'finished' names {_short(chunk)}, which is no chunk id"
        if not isinstance(recorded, dict):
            return f"'finished' entry {chunk} must be an object, got {_short(recorded)}"
        for key, kind in FINISHED.items():
            if not _is(recorded.get(key), kind):
                return f"'finished' entry {chunk} needs '{key}' as {_KIND[kind]}, got {_short(recorded.get(key))}"
    if manifest.get("layout", HIVE) != HIVE:
        return f"'layout' must be {HIVE!r}, got {_short(manifest['layout'])}"
    if manifest.get("layout") == HIVE and not GAME_NAME.fullmatch(manifest["game"]):
        return f"'game' must be a game's name (lowercase letters, digits and '_'), got {_short(manifest['game'])}"
    if not all(isinstance(column, str) for column in manifest.get("tie_breakers", [])):
        return f"'tie_breakers' must name columns, got {_short(manifest['tie_breakers'])}"
    return None


def read_rows(directory: Path, manifest: dict[str, Any]) -> pl.DataFrame | None:
    """The rows of every finished part, sorted by game_id, seat; None if no part is finished.

    Each part's bytes are checked against the manifest, then the parts of one player count are decoded together
    (polars reads them side by side: half the time of one after another).

    ResultsError if a part is missing or damaged, or the rows disagree with the manifest: another experiment
    or game than it names, or a tie-breaker that is no column."""
    _check_partitions(directory, manifest)
    frames = []
    for players, chunks in groupby(sorted(manifest["finished"]), key=players_of):
        parts = [_checked_part(directory, manifest, chunk) for chunk in chunks]
        frames.append(_whole_rows(_decoded(parts), manifest, players))
    if not frames:
        return None
    rows = pl.concat(frames, how="diagonal_relaxed")
    _check_rows(directory, manifest, rows)
    return rows if _in_order(rows) else rows.sort("game_id", "seat")


def _checked_part(directory: Path, manifest: dict[str, Any], chunk: str) -> bytes:
    """The bytes of a finished part, which the manifest records and whose columns leave out those its path holds."""
    data = intact_part(directory, manifest, chunk)
    if data is None:
        raise ResultsError(f"part {chunk} of {directory} is missing or damaged; run the experiment again to "
                           "recompute it")
    if manifest.get("layout") == HIVE and set(PARTITIONS) & set(pl.read_parquet_schema(io.BytesIO(data))):
        raise ResultsError(f"part {chunk} holds a column its path holds too: it was not written by atelier")
    return data


def _decoded(parts: list[bytes]) -> pl.DataFrame:
    """The rows of Parquet parts, in order: read together where they share one schema (as one run writes them),
    else one by one, their columns matched by name."""
    try:
        return pl.read_parquet(parts)
    except pl.exceptions.PolarsError:
        return pl.concat([pl.read_parquet(io.BytesIO(data)) for data in parts], how="diagonal_relaxed")


def _in_order(rows: pl.DataFrame) -> bool:
    """Whether the rows are sorted by game_id, seat already (parts in chunk order usually are): a sort copies them."""
    game, seat = pl.col("game_id").diff(), pl.col("seat").cast(pl.Int64).diff()
    return bool(rows.select(((game > 0) | ((game == 0) & (seat > 0))).slice(1).all()).item())


def _whole_rows(part: pl.DataFrame, manifest: dict[str, Any], players: int) -> pl.DataFrame:
    """The rows of parts at one player count with the columns their paths hold put back in their place, after
    `config_hash`."""
    if manifest.get("layout") != HIVE:
        return part
    known = {"game": manifest["game"], "players": players}
    at = part.columns.index("config_hash") + 1 if "config_hash" in part.columns else 0
    added = [pl.lit(known[column], dtype).alias(column) for column, dtype in PARTITIONS.items()]
    columns = [pl.col(c) for c in part.columns]
    return part.select(*columns[:at], *added, *columns[at:])


def _check_partitions(directory: Path, manifest: dict[str, Any]) -> None:
    """ResultsError if a hive layout's parts are of another game than the manifest names."""
    parts = directory / PARTS
    if manifest.get("layout") != HIVE or not parts.is_dir():
        return
    games = sorted(p.name.removeprefix("game=") for p in parts.iterdir() if p.name.startswith("game="))
    if games and games != [manifest["game"]]:
        raise ResultsError(f"the parts of {directory} hold game {', '.join(map(repr, games))}, not "
                           f"{manifest['game']!r}: {_edited(directory)}")


def _check_rows(directory: Path, manifest: dict[str, Any], rows: pl.DataFrame) -> None:
    where = _edited(directory)
    for column in CONSTANT_COLUMNS:
        values = rows[column].unique().to_list() if column in rows.columns else []
        if values != [manifest[column]]:
            raise ResultsError(f"the parts of {directory} hold {column} {', '.join(map(repr, values)) or 'none'}, "
                               f"not {manifest[column]!r}: {where}")
    missing = [column for column in manifest.get("tie_breakers", []) if column not in rows.columns]
    if missing:
        raise ResultsError(f"'tie_breakers' names {missing[0]!r}, which is no column of the parts of {directory}: "
                           f"{where}")


def _edited(directory: Path) -> str:
    return f"{directory / MANIFEST} was edited or belongs elsewhere; run the experiment again into a new folder"


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    if kind is int and isinstance(value, bool):
        return False
    return isinstance(value, kind)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
