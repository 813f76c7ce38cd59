"""Keep freed memory for reuse instead of handing it back to the system.

The engines allocate arrays of a few megabytes at every decision (a batch's legal mask, its valuations) and
free them at the next. glibc's malloc serves blocks that size from the heap, but trims the heap's top back to
the system once more than a few megabytes lie free there, so the next decision faults the same pages in
again: for Kaleido that cost a quarter of the run. Raising the trim and mmap thresholds keeps those pages.
Elsewhere than glibc this does nothing."""

from __future__ import annotations

import ctypes
import ctypes.util

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters, from glibc's malloc.h
KEEP = 512 << 20  # free memory kept at the heap's top before it is returned
MMAP_FROM = 256 << 20  # larger blocks still come from (and go back to) the system directly


def keep_freed_memory() -> bool:
    """Set glibc's thresholds for this process; False where there is no glibc."""
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    return bool(mallopt(M_TRIM_THRESHOLD, KEEP)) and bool(mallopt(M_MMAP_THRESHOLD, MMAP_FROM))
