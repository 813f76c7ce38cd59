"""Bit counting and typed constants for the games' compiled kernels."""

from __future__ import annotations

import numpy as np
from numba import njit

# Constants that kernels pass to kernels as numpy scalars, not Python literals: numba compiles a kernel once more for
# each literal it is called with, and for the literal a variable starts as before its type widens (README, "The
# compile"), so `rival = 0` or a flag passed as `False` cost a second compile of the callee.
NO, YES, ZERO = np.bool_(False), np.bool_(True), np.int64(0)


@njit(cache=True, nogil=True, _nrt=False)
def popcount(x):
    """The bits set in a uint64 (LLVM makes one instruction of it)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))
