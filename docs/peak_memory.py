"""Run a command and report its wall time and peak memory: the process's own peak resident memory, the largest of
its descendants' (workers), and the peak of all of them together, sampled every 0.1 s (issue 32). Run from the
project root, for example:

    .venv/bin/python docs/peak_memory.py .venv/bin/atelier run experiments/scale/kintsugi_10m.toml --jobs 2 --quiet
"""

from __future__ import annotations

import subprocess
import sys
import time

import psutil

INTERVAL = 0.1  # seconds between samples


def resident(process: psutil.Process) -> int:
    try:
        return process.memory_info().rss
    except psutil.Error:  # ended between the listing and the look
        return 0


def main(command: list[str]) -> int:
    start = time.monotonic()
    child = subprocess.Popen(command)
    top = psutil.Process(child.pid)
    own = largest = together = 0
    while child.poll() is None:
        descendants = [resident(p) for p in top.children(recursive=True)]
        mine = resident(top)
        own, largest = max(own, mine), max(largest, *descendants, 0)
        together = max(together, mine + sum(descendants))
        time.sleep(INTERVAL)
    wall = time.monotonic() - start
    print(f"wall {wall:.1f} s; peak memory: the process {own / 2**20:,.0f} MiB, its largest descendant "
          f"{largest / 2**20:,.0f} MiB, all together {together / 2**20:,.0f} MiB; exit {child.returncode}",
          file=sys.stderr)
    return child.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
