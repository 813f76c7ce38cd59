"""What a fresh clone's first run costs in compiling (BENCHMARKS.md, "First run: the compile").

A clone of COMMIT (from this repository) runs the default experiments, each shrunk to the fewest games its seatings
allow, with `--jobs 2`, twice: the first run compiles every kernel into the clone's fresh `__pycache__`, the second
finds them there. The compile is the difference. Run from the project root, with its .venv installed:

    .venv/bin/python docs/first_run.py COMMIT [--jobs 2]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sim.experiment import load_experiment

ROOT = Path(__file__).resolve().parent.parent
RUN = "import sys; from sim.cli import app; sys.argv = ['atelier', 'run', *sys.argv[1:]]; app()"


def shrunk(folder: Path) -> list[Path]:
    """The default experiments with `games` cut to one deal (one match) under every seating."""
    files = []
    for file in sorted((ROOT / "experiments").glob("*.toml")):
        experiment = load_experiment(file)
        fewest = max(len(experiment.lineups[p]) * (p if experiment.match else 1) for p in experiment.players)
        text = re.sub(r"(?m)^games\s*=\s*\d+", f"games = {fewest}", file.read_text())
        files.append(folder / file.name)
        files[-1].write_text(text)
    return files


def seconds(clone: Path, files: list[Path], out: Path, jobs: int) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", RUN, *map(str, files), "--jobs", str(jobs), "--quiet", "--out", str(out)],
                   cwd=clone, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("commit")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder, clone = Path(tmp), Path(tmp) / "clone"
        files = shrunk(folder)
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "checkout", "-q", args.commit], cwd=clone, check=True)
        cold = seconds(clone, files, folder / "first", args.jobs)
        warm = seconds(clone, files, folder / "second", args.jobs)
    print(f"{args.commit}: first run {cold:.1f} s, second run {warm:.1f} s, compile {cold - warm:.1f} s")


if __name__ == "__main__":
    main()
