"""How the games' kernels are compiled (README, "The compile"), and the constants kernels pass to kernels.

A fresh clone's first run compiles every kernel it plays; what is declared here makes that cheaper. The compiled
kernels are cached on disk in a folder named by a hash of all the sources they are compiled from, so that any change
to any of them (an edit, a `git pull`) is compiled anew, a helper in another file than its callers' included."""

from __future__ import annotations

import gc
import hashlib
import inspect
import os
import shutil
import time
from functools import partial
from pathlib import Path

import numpy as np
from numba import config, njit
from numba.core import event
from numba.misc.appdirs import AppDirs

# The packages kernels are compiled from.
SOURCES = ("sim", "strategies")
# A cache folder of other sources is deleted once no process has opened it for this long: a process still running
# older code may yet save a kernel there.
UNUSED_CACHE_SECONDS = 3600.0


def _sources_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for package in SOURCES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def _cache_kernels_by_sources() -> None:
    """Points numba's cache (`numba.config.CACHE_DIR`, read when a kernel is declared) at a folder named by a hash of
    the sources. numba itself keys a cached kernel on its own file only, and would load a kernel compiled against a
    helper in another file as it was before that file changed. The folder is under an explicit NUMBA_CACHE_DIR, or
    else the package's `__pycache__` (or, that not writable, the user's cache folder). Processes started at once make
    the same folder, and numba replaces its cache files atomically."""
    root = Path(__file__).resolve().parent.parent
    checkout = hashlib.sha256(str(root).encode()).hexdigest()[:8]
    folder_name = f"atelier-{checkout}-{_sources_hash(root)}"
    if config.CACHE_DIR:
        bases = [Path(config.CACHE_DIR)]
    else:
        bases = [root / "sim" / "__pycache__", Path(AppDirs(appname="atelier", appauthor=False).user_cache_dir)]
    for base in bases:
        folder = base / folder_name
        try:
            folder.mkdir(parents=True, exist_ok=True)
            os.utime(folder)
        except OSError:
            continue
        config.CACHE_DIR = str(folder)
        _delete_unused(set(base.glob(f"atelier-{checkout}-*")) - {folder})
        return


def _delete_unused(folders: set[Path]) -> None:
    for folder in folders:
        try:
            unused = time.time() - folder.stat().st_mtime > UNUSED_CACHE_SECONDS
        except OSError:  # deleted by another process meanwhile
            continue
        if unused:
            shutil.rmtree(folder, ignore_errors=True)


_cache_kernels_by_sources()

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
    its end): the compiler makes millions of short-lived objects, and collecting them as it went took a twentieth of
    the first run's compile. What the compile left behind is collected as usual afterwards."""

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


def _share_numpy_implementations() -> None:
    """numba compiles a numpy function's implementation (np.empty's, np.zeros', a Generator method's) once for each
    set of compile flags among its callers, though only four of the flags reach it (numba.core.cpu's
    CPUTargetOptions.finalize: the ones a callee inherits): `kernel` and `helper` differ in the Python wrapper alone,
    and each allocation compiled twice (a second of the first run's 17). Keyed on those four, an implementation compiles
    once for its argument types. Applied only to the numba method it was written against (numba 0.68); on any other
    numba the compile is as numba does it."""
    from numba.core import targetconfig
    from numba.core.typing.templates import _OverloadFunctionTemplate as Template

    try:
        original = inspect.getsource(Template._get_impl)
    except (AttributeError, OSError):  # no such method, or numba installed without its source
        return
    if "cache_key = self.context, tuple(args), tuple(kws.items()), flags" not in original:
        return
    inherited = ("nrt", "fastmath", "error_model", "forceinline")

    def _get_impl(self, args, kws):
        flags = targetconfig.ConfigStack.top_or_none()
        passed = None if flags is None else tuple(str(getattr(flags, name)) for name in inherited)
        key = self.context, tuple(args), tuple(kws.items()), passed
        if key in self._impl_cache:
            return self._impl_cache[key]
        return self._build_impl(key, args, kws)

    Template._get_impl = _get_impl


_share_numpy_implementations()


@helper
def best_allowed(values, allowed, draw):
    """strategies.common.pick_best in one row, for the players compiled into the games' playouts, with the same
    arithmetic: the best allowed value, the options within 1e-9 of it broken by the draw; -1 if none is allowed."""
    best = -np.inf
    for j in range(len(values)):
        best = max(best, values[j] if allowed[j] else -np.inf)
    floor, count = best - 1e-9, 0
    for j in range(len(values)):
        count += allowed[j] and values[j] >= floor
    nth = int(draw * count)
    for j in range(len(values)):
        if allowed[j] and values[j] >= floor:
            if nth == 0:
                return j
            nth -= 1
    return -1
