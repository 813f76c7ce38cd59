"""How the games' kernels are compiled (README, "The compile"), and the constants kernels pass to kernels.

A fresh clone's first run compiles every kernel it plays; what is declared here makes that cheaper."""

from __future__ import annotations

import gc
from functools import partial

import numpy as np
from numba import njit
from numba.core import event

# Every kernel is cached on disk and releases the GIL. None is used as a first-class function, so none gets the C
# wrapper numba makes for that. numpy's error model: a division is not checked for a zero divisor (Python's model
# compiled a check and an exception for every `/`, `//` and `%`, a tenth of the compile; a zero divisor is a bug).
kernel = partial(njit, cache=True, nogil=True, no_cfunc_wrapper=True, error_model="numpy")
# A kernel that only other kernels call has no wrapper for calls from Python either, the code that unboxes each
# argument: with the C wrappers, a quarter to a third of the machine code the first run compiled (Kunst Stücke's
# kernels take named tuples of many arrays).
helper = partial(kernel, no_cpython_wrapper=True)

# Constants that kernels pass to kernels as numpy scalars, not Python literals: numba compiles a kernel once more for
# each literal it is called with, and for the literal a variable starts as before its type widens, so `rival = 0`
# or a flag passed as `False` cost a second compile of the callee (tests/test_compile.py).
NO, YES = np.bool_(False), np.bool_(True)
ZERO, ONE = np.int64(0), np.int64(1)


class _NoCycleCollectionWhileCompiling(event.Listener):
    """Python's cycle collector stays off while numba compiles (from the start of the outermost kernel's compile to
    its end): the compiler makes millions of short-lived objects, and collecting them as it goes took a twelfth of
    each game's compile. What the compile left behind is collected as usual afterwards."""

    def __init__(self) -> None:
        self.depth = 0
        self.collecting = False

    def on_start(self, _: event.Event) -> None:
        if self.depth == 0:
            self.collecting = gc.isenabled()
            gc.disable()
        self.depth += 1

    def on_end(self, _: event.Event) -> None:
        self.depth -= 1
        if self.depth == 0 and self.collecting:
            gc.enable()


event.register("numba:compile", _NoCycleCollectionWhileCompiling())
