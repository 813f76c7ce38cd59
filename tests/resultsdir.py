"""Write an experiment folder by hand, as sim/results.py would, for report tests on synthetic rows.

The manifest carries the game's `title`, `lowest_wins` and per-player-count `facts` like a real one; for the three
games they default to the rules' values below, and any of them can be overridden (an unknown game gets none).
"""

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import polars as pl

from reports.load import digest, part_path

KALEIDO_COLOURS = ["red", "yellow", "green", "blue", "purple"]
KALEIDO_TILES = {2: 22, 3: 12, 4: 11, 5: 11}
BB_TYPES = ["cup", "saucer", "plate", "bowl", "tea_jar", "vase", "teapot", "tray", "box"]
BB_ROUNDS = {2: 9, 3: 6, 4: 5}
GAMES: dict[str, tuple[str, bool, Callable[[int], dict]]] = {
    "kintsugi": ("Kintsugi", True,
                 lambda p: {"colours": ["blue", "yellow", "white", "red"], "guess_chance": 1 / 3, "cards": 13}),
    "broken_beautiful": ("Broken and Beautiful", False,
                         lambda p: {"types": BB_TYPES, "rounds": BB_ROUNDS[p], "supply": 14}),
    "kaleido": ("Kaleido", False,
                lambda p: {"colours": KALEIDO_COLOURS[: 4 if p == 2 else p], "tiles_each": KALEIDO_TILES[p],
                           "boards_each": 4 if p == 2 else 2, "whites_each": 4 if p == 2 else 2,
                           "starting_boards": [[0, 0], [1, 0]]}),
    "kunst_stuecke": ("Kunst Stücke", False,
                      lambda p: {"colours": ["red", "yellow", "green", "blue", "purple"],
                                 "pieces_each": {2: 26, 3: 18, 4: 13, 5: 11}[p], "chips": 10,
                                 "spaces": [15, 10, 10, 5, 5],
                                 "shapes": ["L5", "P5", "T5", "L6", "R6", "S6", "T7", "U7", "J7", "R8", "Z8", "X8"]}),
    "witkacy": ("Witkacy", False,
                lambda p: {"paintings": ["A", "B", "C", "D", "E"],
                           "actions": ["stash", "solvent", "correction", "gift", "rush"], "cards": 55,
                           "advanced": False}),
}


def write_experiment(directory: Path, frames: list[pl.DataFrame], game: str, complete: bool = True, *,
                     title: str | None = None, lowest_wins: bool | None = None,
                     facts: Callable[[int], dict] | None = None, params: dict | None = None) -> None:
    """manifest.json and one finished Parquet part per frame; the config hash follows the experiment name.

    title, lowest_wins and facts (a function of the player count) default to the game's own; params are the
    resolved Params recorded for every player count."""
    (directory / "parts").mkdir(parents=True)
    name = frames[0]["experiment"][0]
    known_title, known_lowest, known_facts = GAMES.get(game, (game.replace("_", " ").title(), False, lambda p: {}))
    finished = {}
    for i, frame in enumerate(frames):
        chunk_id = f"P{frame['players'][0]}-c{i:05d}"
        frame.write_parquet(part_path(directory, chunk_id))
        finished[chunk_id] = {"games": frame["game_id"].n_unique(), "rows": frame.height,
                              **digest(part_path(directory, chunk_id))}
    counts = sorted({int(p) for frame in frames for p in frame["players"].unique()})
    manifest = {"experiment": name, "config_hash": hashlib.sha256(name.encode()).hexdigest()[:12], "game": game,
                "title": title or known_title, "lowest_wins": known_lowest if lowest_wins is None else lowest_wins,
                "tie_breakers": ["repaired", "items"] if game == "broken_beautiful" else [],
                "facts": {str(p): (facts or known_facts)(p) for p in counts}, "seed": 1,
                "resolved": {"params": {str(p): {"players": p, **(params or {})} for p in counts}},
                "games": {str(p): sum(f.filter(pl.col("players") == p)["game_id"].n_unique() for f in frames)
                          for p in counts},
                "finished": finished, "complete": complete}
    (directory / "manifest.json").write_text(json.dumps(manifest))


def game_data(rows: pl.DataFrame, game: str, out_dir: Path, **overrides):
    """A GameData for report functions on rows, with manifests as write_experiment would write them."""
    from reports import build
    from reports.analysis import GameData

    manifests = []
    for (experiment,), frame in sorted(rows.partition_by("experiment", as_dict=True).items()):
        directory = out_dir / "results" / str(experiment)
        write_experiment(directory, [frame], game, **overrides)
        manifests.append(json.loads((directory / "manifest.json").read_text()))
    module = build.GAMES.get(game)
    return GameData(game, rows, manifests, out_dir, getattr(module, "OPTIONS", {}))


def finding(summary: str, label: str) -> str:
    """The text of one finding in a report's summary.md (bold marks removed), after its label."""
    return summary.split(f"- {label} ")[1].split("\n- ")[0]
