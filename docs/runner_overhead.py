"""The runner against the engines (issue 32, BENCHMARKS.md): how much of `atelier run` is not the games.

    .venv/bin/python docs/runner_overhead.py EXPERIMENT.toml [--jobs 1,2] [--repeats 3]

For the experiment: the engine's seconds (every chunk played in this process, `runner.play_chunk`, nothing else),
the encoding's (each chunk's rows made into its Parquet part and checksum, `Part.of`), and the wall seconds of
`atelier run EXPERIMENT --jobs J --quiet` into a fresh folder for each J, start-up included. The overhead at one
job is (wall - engine) / engine; the speed-up of J jobs is wall(1) / wall(J). Medians of the repeats, alternated.
Prints JSON lines.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from sim import registry, runner
from sim.dataset import Part
from sim.experiment import load_experiment

ROOT = Path(__file__).resolve().parent.parent


def engine_seconds(path: Path) -> tuple[float, float]:
    """(seconds playing every chunk, seconds encoding them), in this process, after one warm-up chunk."""
    experiment = load_experiment(path)
    game = registry.get_game(experiment.game)
    chunks = list(runner.plan(experiment))
    runner.play_chunk(experiment, game, chunks[0])  # compiles, or loads the compiled kernels
    played = encoded = 0.0
    for chunk in chunks:
        start = time.perf_counter()
        frame = runner.play_chunk(experiment, game, chunk)
        middle = time.perf_counter()
        Part.of(frame)
        played, encoded = played + middle - start, encoded + time.perf_counter() - middle
    return played, encoded


def run_seconds(path: Path, jobs: int) -> float:
    out = Path(tempfile.mkdtemp(prefix="atelier-overhead-"))
    try:
        start = time.perf_counter()
        subprocess.run([str(ROOT / ".venv" / "bin" / "atelier"), "run", str(path), "--jobs", str(jobs), "--quiet",
                        "--out", str(out)], check=True, cwd=ROOT, capture_output=True)
        return time.perf_counter() - start
    finally:
        shutil.rmtree(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("experiment", type=Path)
    parser.add_argument("--jobs", default="1,2")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    jobs = [int(j) for j in args.jobs.split(",")]
    played, encoded = zip(*(engine_seconds(args.experiment) for _ in range(args.repeats)), strict=True)
    walls: dict[int, list[float]] = {j: [] for j in jobs}
    for _ in range(args.repeats):
        for j in jobs:
            walls[j].append(run_seconds(args.experiment, j))
    engine = statistics.median(played)
    figures = {"experiment": str(args.experiment), "engine_s": round(engine, 2),
               "encoding_s": round(statistics.median(encoded), 2),
               **{f"wall_{j}_jobs_s": round(statistics.median(walls[j]), 2) for j in jobs}}
    if 1 in walls:
        figures["overhead_1_job"] = round((statistics.median(walls[1]) - engine) / engine, 3)
        for j in jobs:
            figures[f"speedup_{j}_jobs"] = round(statistics.median(walls[1]) / statistics.median(walls[j]), 2)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
