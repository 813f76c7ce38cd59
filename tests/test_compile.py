"""What the first run compiles (README, "The compile"): every kernel once for its argument types, never again for a
literal; a numpy function's implementation once for its argument types, whichever kernels call it; and Python's
cycle collector off while numba compiles, and on again after, a failed compile included.

numba compiles a kernel called with a literal (`False`, `0`), or with a variable that starts as one before its type
widens, once more for that literal; the first run's compile paid for about 30 such copies (sim/kernel.py). The
copies appear only while a caller compiles, not when it is loaded from numba's cache: the games are played in a
fresh process with a cache of its own."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba.core import event
from numba.core.errors import TypingError

from sim.kernel import helper, kernel

PLAY_AND_LIST_LITERALS = """
import sys
import numpy as np
from numba.core.registry import CPUDispatcher
from numba.core.types import Literal
from declared import NAMES
from declared import lineups as strategies_of
from sim.registry import get_game

for name in NAMES:
    spec = get_game(name)
    strategies = strategies_of(name)
    for players in spec.rules.player_counts[:2]:
        mixed = [[strategies[(g + s) % len(strategies)] for s in range(players)] for g in range(12)]
        for lineups in [np.array(mixed), *(np.full((2, players), strategy) for strategy in strategies)]:
            seeds = np.random.SeedSequence(7, spawn_key=(players,)).spawn(2)
            spec.simulate(spec.make_params(players, {}), lineups, np.arange(len(lineups)) // 2, seeds[0], seeds[1])
for module in list(sys.modules.values()):
    name = getattr(module, "__name__", "")
    if name.split(".")[0] in ("sim", "strategies"):
        for kernel in vars(module).values():
            if isinstance(kernel, CPUDispatcher) and kernel.py_func.__module__ == name:
                for signature in kernel.signatures:
                    if any(isinstance(t, Literal) for t in signature):
                        print(name, kernel.py_func.__name__, signature)
"""


def test_no_kernel_is_compiled_for_a_literal(tmp_path: Path):
    tests = Path(__file__).resolve().parent
    path = os.pathsep.join([str(tests.parent), str(tests)])
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": path}
    done = subprocess.run([sys.executable, "-c", PLAY_AND_LIST_LITERALS], env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == ""


def test_the_cycle_collector_is_off_while_kernels_compile_and_on_after():
    seen = []

    @kernel(cache=False)
    def outer(x):
        return inner(x) + 1

    @helper(cache=False)
    def inner(x):
        return x * 2

    @kernel(cache=False)
    def broken(x):
        return x.no_such_attribute

    class Watch(event.Listener):
        def on_start(self, _):
            seen.append(gc.isenabled())

        def on_end(self, _):
            seen.append(gc.isenabled())

    with event.install_listener("numba:compile", Watch()):
        assert outer(np.int64(3)) == 7
    assert seen[:3] == [False, False, False]  # outer's start, inner's (compiled within outer's) start and end
    assert gc.isenabled()
    with pytest.raises(TypingError):
        broken(np.int64(3))
    assert gc.isenabled()


def test_a_numpy_function_that_a_kernel_and_a_helper_call_compiles_once():
    compiled = []

    class Watch(event.Listener):
        def on_start(self, started):
            compiled.append(started.data["dispatcher"].py_func.__qualname__)

        def on_end(self, _):
            pass

    @kernel(cache=False)
    def called_from_python(n):
        return np.zeros((n, 2, 3, 5, 7), np.uint16)  # a shape and type no other kernel allocates

    @helper(cache=False)
    def called_from_kernels(n):
        return np.zeros((n, 2, 3, 5, 7), np.uint16)

    @kernel(cache=False)
    def caller(n):
        return called_from_kernels(n)

    with event.install_listener("numba:compile", Watch()):
        assert called_from_python(np.int64(1)).shape == caller(np.int64(1)).shape == (1, 2, 3, 5, 7)
    assert "called_from_kernels" in " ".join(compiled)
    assert compiled.count("ol_np_zeros.<locals>.impl") == 1
