"""Write an experiment folder by hand, as sim/results.py would, for report tests on synthetic rows."""

import hashlib
import json
from pathlib import Path

import polars as pl

from reports.load import digest, part_path


def write_experiment(directory: Path, frames: list[pl.DataFrame], game: str, complete: bool = True) -> None:
    """manifest.json and one finished Parquet part per frame; the config hash follows the experiment name."""
    (directory / "parts").mkdir(parents=True)
    name = frames[0]["experiment"][0]
    finished = {}
    for i, frame in enumerate(frames):
        chunk_id = f"P{frame['players'][0]}-c{i:05d}"
        frame.write_parquet(part_path(directory, chunk_id))
        finished[chunk_id] = {"rows": frame.height, **digest(part_path(directory, chunk_id))}
    manifest = {"experiment": name, "config_hash": hashlib.sha256(name.encode()).hexdigest()[:12], "game": game,
                "seed": 1, "finished": finished, "complete": complete}
    (directory / "manifest.json").write_text(json.dumps(manifest))
