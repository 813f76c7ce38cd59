"""The kernels' disk cache (sim/kernel.py) is keyed on all the sources kernels are compiled from: a kernel whose
helper, in another file, changed is compiled anew, and unchanged sources are loaded, not compiled again.

Each test plays in fresh processes a tiny copy of the package in tmp_path: sim/kernel.py as it is, and a kernel
that calls a helper in another module."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sim.kernel

FAST = """
from sim.kernel import helper


@helper
def points(x):
    return x * {factor}
"""

PLAYOUT = """
from sim.kernel import kernel
from sim.probe.fast import points


@kernel
def play(x):
    return points(x) + 1
"""

PLAY = """
import numpy as np
from sim.probe.playout import play

print(play(np.int64(10)), play.stats.cache_hits[play.signatures[0]])
"""


def tiny_package(root: Path, factor: int) -> Path:
    (root / "sim" / "probe").mkdir(parents=True)
    (root / "sim" / "__init__.py").write_text("")
    shutil.copy(sim.kernel.__file__, root / "sim" / "kernel.py")
    (root / "sim" / "probe" / "__init__.py").write_text("")
    (root / "sim" / "probe" / "playout.py").write_text(PLAYOUT)
    set_factor(root, factor)
    return root


def set_factor(root: Path, factor: int) -> None:
    (root / "sim" / "probe" / "fast.py").write_text(FAST.format(factor=factor))


def start(root: Path, cache: Path | None) -> subprocess.Popen:
    env = {name: value for name, value in os.environ.items() if name != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(root)
    # No bytecode: Python takes a module's .pyc as current while its source keeps its size and its second of mtime,
    # so a helper rewritten within the second it was first imported would run (and compile) as it was before.
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    return subprocess.Popen([sys.executable, "-c", PLAY], cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def play(root: Path, cache: Path | None = None) -> tuple[int, int]:
    """The kernel's result, and how many times it was loaded from the cache."""
    out, err = start(root, cache).communicate()
    assert err == "", err[-2000:]
    result, hits = out.split()
    return int(result), int(hits)


@pytest.mark.parametrize("explicit", [False, True], ids=["in-the-package", "NUMBA_CACHE_DIR"])
def test_a_changed_helper_in_another_file_is_compiled_anew(tmp_path: Path, explicit: bool):
    root = tiny_package(tmp_path / "clone", factor=2)
    cache = tmp_path / "cache" if explicit else None
    assert play(root, cache) == (21, 0)
    assert play(root, cache) == (21, 1)  # unchanged: loaded
    set_factor(root, 3)
    assert play(root, cache) == (31, 0)
    assert play(root, cache) == (31, 1)
    kept = cache if explicit else root / "sim" / "__pycache__"
    assert len(list(kept.glob("atelier-*/**/*.nbi"))) == 2 * 2  # play and points, for each version of the sources
    assert explicit == (not list((root / "sim" / "__pycache__").glob("atelier-*")))


def test_processes_started_at_once_all_play_the_current_sources(tmp_path: Path):
    root = tiny_package(tmp_path / "clone", factor=2)
    assert play(root)[0] == 21
    set_factor(root, 5)
    processes = [start(root, None) for _ in range(3)]
    for process in processes:
        out, err = process.communicate()
        assert err == "", err[-2000:]
        assert out.split()[0] == "51"


def test_the_caches_of_other_sources_go_once_unused_for_an_hour(tmp_path: Path):
    root = tiny_package(tmp_path / "clone", factor=2)
    play(root)
    (current,) = (root / "sim" / "__pycache__").glob("atelier-*")
    checkout = current.name.rsplit("-", 1)[0]
    old, recent, other_clone = (current.parent / name for name in (f"{checkout}-old", f"{checkout}-recent",
                                                                   "atelier-00000000-old"))
    for folder in (old, recent, other_clone):
        folder.mkdir()
    hours_ago = time.time() - 2 * sim.kernel.UNUSED_CACHE_SECONDS
    for folder in (old, other_clone):
        os.utime(folder, (hours_ago, hours_ago))
    assert play(root) == (21, 1)
    assert {path.name for path in current.parent.glob("atelier-*")} == {current.name, recent.name, other_clone.name}
