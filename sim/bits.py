"""Bit counting for the games' compiled kernels."""

from __future__ import annotations

import numpy as np

from sim.kernel import helper


@helper(_nrt=False)
def popcount(x):
    """The bits set in a uint64 (LLVM makes one instruction of it)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))
