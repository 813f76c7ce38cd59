"""Goldens for speed work: the result columns of every game, on fixed seeds, for the strategies it declares
(`Checks.lineups`, tests/declared.py) at its two fewest players (and its `Checks.variants`), written before a change
and compared after it. A change that is meant to keep every game's draws must leave every column bit-identical.

    python tests/goldens.py write DIR     # before the change
    python tests/goldens.py check DIR     # after it: names every (game, case, column) that differs
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import polars as pl
from declared import NAMES, checks
from declared import lineups as strategies_of

from sim.registry import get_game

GAMES = 96  # per case


def cases(name: str):
    """(label, params, lineups): each strategy alone at every seat, then every strategy mixed."""
    spec = get_game(name)
    strategies = strategies_of(name)
    for players in spec.rules.player_counts[:2]:
        for overrides in [{}, *checks(name).variants]:
            params = spec.make_params(players, overrides)
            tag = ",".join(f"{k}={v}" for k, v in overrides.items())
            for strategy in strategies:
                yield f"{players}p {strategy} {tag}", params, np.full((GAMES, players), strategy)
            mixed = np.array([[strategies[(g + s) % len(strategies)] for s in range(players)] for g in range(GAMES)])
            yield f"{players}p mixed {tag}", params, mixed


def frames(name: str) -> dict[str, pl.DataFrame]:
    spec = get_game(name)
    out = {}
    for index, (label, params, lineups) in enumerate(cases(name)):
        seeds = np.random.SeedSequence(2026, spawn_key=(index,)).spawn(2)
        columns = spec.simulate(params, lineups, np.arange(len(lineups)) // 2, seeds[0], seeds[1])
        out[label] = pl.DataFrame(columns)
    return out


def main(command: str, directory: Path) -> int:
    directory.mkdir(parents=True, exist_ok=True)
    differences = 0
    for name in sys.argv[3:] or NAMES:
        for index, (label, frame) in enumerate(frames(name).items()):
            file = directory / f"{name}_{index:02d}.parquet"
            if command == "write":
                frame.write_parquet(file)
                continue
            golden = pl.read_parquet(file)
            for column in golden.columns:
                if column not in frame.columns or not frame[column].equals(golden[column]):
                    differences += 1
                    print(f"{name} [{label}] {column}: differs")
        print(f"{name}: {command} done")
    print(f"{differences} columns differ" if command == "check" else "written")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], Path(sys.argv[2])))
