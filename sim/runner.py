"""Run experiments: split each into chunks, play them in parallel, write one Parquet part per chunk.

Chunks and seeds depend only on the experiment, never on the number of jobs, so any job count
gives the same data, and a run that was stopped resumes and ends with the same data too. A chunk is a group
of deals played under every lineup, at most `chunk` games; where one deal's lineups alone are more games
than that, the group's lineups are split over several chunks, which deal the same cards.

Columns of every row (one per game and seat): experiment, config_hash, game, players, game_id,
deal, lineup, seat, player, strategy, score, rank, win, then `match_id` in match mode, then the
game's own columns. `deal` counts deals within a player count; `lineup` indexes
`Experiment.lineups[players]`; `player` is the lineup position playing this seat (in match mode the
start seat rotates through the lineup; otherwise player == seat); `game_id` is unique across the
experiment.
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import threading
import time
from _multiprocessing import SemLock  # the bare semaphore: no resource tracker is started to make it
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from multiprocessing.synchronize import SEMAPHORE
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from sim import registry, results
from sim.dataset import Part, chunk_id
from sim.errors import AtelierError, Interrupted
from sim.experiment import Experiment, data_files
from sim.registry import GameSpec
from sim.results import ResultStore

ENGINE_COLUMNS = ("game", "seat", "strategy", "score", "rank", "win")
WATCH_INTERVAL = 0.2  # seconds between a worker's looks at whether its driver is alive


class Terminated(Interrupted):
    """A run stopped by SIGTERM (`kill`, a shutdown, a job scheduler): kept and cleaned up as after Ctrl-C."""

    exit_code = 143  # 128 + SIGTERM, as a shell reports a process that SIGTERM ended


class _SigTerm(KeyboardInterrupt):
    """Raised in the driver by SIGTERM, so that it unwinds the run exactly as Ctrl-C does."""


@dataclass(frozen=True)
class Chunk:
    """Deals [start, stop) of group `index` at one player count, played as one batch under every lineup, or under
    `lineups` = (first, last), a range, where a group's lineups are split over several chunks that `piece` numbers."""

    players: int
    index: int
    start: int
    stop: int
    lineups: tuple[int, int] | None = None
    piece: int | None = None

    @property
    def id(self) -> str:
        """The chunk's name, also its part file's stem."""
        return chunk_id(self.players, self.index, self.piece)

    def lineup_range(self, experiment: Experiment) -> range:
        """The lineups this chunk plays."""
        return range(*self.lineups) if self.lineups else range(len(experiment.lineups[self.players]))


def chunk_deals(experiment: Experiment, players: int) -> int:
    """Deals per chunk: about `experiment.chunk` games, at least one deal; whole matches in match mode."""
    deals = max(1, experiment.chunk // len(experiment.lineups[players]))
    if experiment.match:
        deals = max(players, deals // players * players)
    return deals


def chunk_lineups(experiment: Experiment, players: int) -> int:
    """Lineups per chunk: all of them, unless a chunk's deals under every lineup are more than `chunk` games."""
    return min(len(experiment.lineups[players]), max(1, experiment.chunk // chunk_deals(experiment, players)))


def plan_summary(experiment: Experiment) -> dict[str, dict[str, int]]:
    """Per player count: the deals, the deals per chunk and the number of chunks, as the manifest records them;
    also the lineups per chunk where a group's lineups are split."""
    summary = {}
    for players in experiment.players:
        size, total = chunk_deals(experiment, players), experiment.deals[players]
        per, lineups = chunk_lineups(experiment, players), len(experiment.lineups[players])
        pieces = -(-lineups // per)
        summary[str(players)] = {"deals": total, "deals_per_chunk": size, "chunks": -(-total // size) * pieces}
        if pieces > 1:
            summary[str(players)]["lineups_per_chunk"] = per
    return summary


def plan(experiment: Experiment) -> Iterator[Chunk]:
    """Every chunk of the experiment, player count by player count, made one at a time as they are needed."""
    for players in experiment.players:
        size, total = chunk_deals(experiment, players), experiment.deals[players]
        per, lineups = chunk_lineups(experiment, players), len(experiment.lineups[players])
        for index, start in enumerate(range(0, total, size)):
            stop = min(start + size, total)
            if per == lineups:
                yield Chunk(players, index, start, stop)
                continue
            for piece, first in enumerate(range(0, lineups, per)):
                yield Chunk(players, index, start, stop, (first, min(first + per, lineups)), piece)


def game_offsets(experiment: Experiment) -> dict[int, int]:
    """The first game_id of each player count: game ids run on across player counts."""
    offsets, offset = {}, 0
    for players in experiment.players:
        offsets[players] = offset
        offset += experiment.games(players)
    return offsets


def play_chunk(experiment: Experiment, game: GameSpec, chunk: Chunk) -> pl.DataFrame:
    """Play one chunk of the game and return its rows, sorted by game_id, seat (in a worker process, too)."""
    players = chunk.players
    if data_files(experiment.params[players]) != experiment.files[players]:
        raise AtelierError("a data file of the experiment changed during the run; run it again into a new --out")
    lineups = np.array(experiment.lineups[players])  # (L, P) str: strategy by lineup position
    played = chunk.lineup_range(experiment)
    deal = np.repeat(np.arange(chunk.start, chunk.stop), len(played))  # (B,) global deal of each game
    lineup = np.tile(np.asarray(played), chunk.stop - chunk.start)  # (B,) lineup of each game
    shift = deal % players if experiment.match else np.zeros_like(deal)
    player = (np.arange(players)[None, :] + shift[:, None]) % players  # (B, P) lineup position by seat
    seated = np.take_along_axis(lineups[lineup], player, axis=1)  # (B, P) str: strategy by seat
    deal_seed = np.random.SeedSequence(experiment.seed, spawn_key=(players, chunk.index, 0))  # the group's deals
    piece = () if chunk.piece is None else (chunk.piece,)
    play_seed = np.random.SeedSequence(experiment.seed, spawn_key=(players, chunk.index, 1, *piece))
    columns = game.simulate(experiment.params[players], seated, deal - chunk.start, deal_seed, play_seed)
    return _frame(experiment, chunk, columns, deal, lineup, player).cast(game.rules.columns)


@dataclass(frozen=True)
class Backend:
    """Where the chunks are played: `loky`, worker processes of this machine (one job: this process), or `dask`, the
    workers of a dask.distributed cluster: the scheduler at `scheduler`, or a LocalCluster of `jobs` processes
    started for the run. Every backend gives the same data: a chunk's games depend on the chunk alone, and only this
    process writes."""

    name: str = "loky"
    scheduler: str | None = None


LOKY = Backend()
BACKENDS = ("loky", "dask")


def encoded_chunk(experiment: Experiment, game: GameSpec, chunk: Chunk) -> Part:
    """The chunk played and encoded as its Parquet part, checksum included (in a worker: the driver only writes)."""
    return Part.of(play_chunk(experiment, game, chunk))


def run(experiment: Experiment, out_root: Path, jobs: int = 1, progress: bool = True,
        backend: Backend = LOKY) -> Path:
    """Play the experiment into `out_root/<name>/` and return that folder (run_all of one experiment)."""
    return run_all([experiment], out_root, jobs, progress, backend)[0]


def run_all(experiments: list[Experiment], out_root: Path, jobs: int = 1, progress: bool = True,
            backend: Backend = LOKY) -> list[Path]:
    """Play every experiment into `out_root/<name>/` and return those folders, in order.

    The experiments share the workers: their chunks are played in order, and the next experiment's start while
    the last of the one before are still being played, so that no core waits on another's last chunk. With several
    games and 2 jobs or more, each experiment is first warmed up by one worker (`_warm`: it plays one deal of the
    experiment and writes nothing but numba's cache), and its chunks wait for that warm-up: otherwise every worker
    would compile the same kernels at the same time. The games' first experiments, which compile most of each
    game's kernels, are warmed up side by side before the others (Schedule). A warm-up that fails leaves the chunks
    to meet the problem and report it.

    Resumes a stopped run of the same experiments. If the run fails or is interrupted, every experiment keeps its
    finished parts for the next run to resume from; one that finished no part leaves nothing it created.
    """
    try:
        with _sigterm_interrupts(), ExitStack() as held:
            stores = _open_stores(experiments, out_root, held)
            try:
                _play_all(experiments, stores, jobs, progress, backend)
            except BaseException as error:
                explained = _explained(error, {store.directory: store.close() for store in stores})
                if explained is None:
                    raise
                raise explained from None
    except KeyboardInterrupt as error:  # stopped while the folders were being opened: writing() removed them
        raise _explained(error, {}) from None
    return [store.directory for store in stores]


def _open_stores(experiments: list[Experiment], out_root: Path, held: ExitStack) -> list[ResultStore]:
    """Every experiment's folder, created, locked (until `held` closes) and opened; if one cannot be, those
    opened before it are left as they were found."""
    stores: list[ResultStore] = []
    try:
        for experiment in experiments:
            directory = out_root / experiment.name
            held.enter_context(results.writing(directory))
            stores.append(ResultStore.open(directory, experiment, plan_summary(experiment)))
    except BaseException:
        for store in stores:
            store.close()
        raise
    return stores


class Schedule:
    """What the workers play next: first the warm-ups (if `warm_up`), then the chunks still to play, experiment by
    experiment, each made as it is taken (an experiment may have more chunks than fit in memory). An experiment's
    chunks are held back until its warm-up has ended. A game's first experiment compiles most of the game's kernels:
    the game's other experiments are warmed up after it, and so load those kernels instead of compiling them again,
    and after every game's first, so that the large compiles start first and the small ones fill in at the end."""

    def __init__(self, experiments: list[Experiment], finished: list[dict], warm_up: bool):
        self.experiments = experiments
        firsts: dict[str, int] = {}  # each game's first experiment
        self.after_first: dict[int, list[int]] = {}  # the game's other experiments, by its first
        for k, experiment in enumerate(experiments):
            first = firsts.setdefault(experiment.game, k)
            if first != k:
                self.after_first.setdefault(first, []).append(k)
        self.warm_ups = list(firsts.values()) if warm_up else []  # experiments ready to be warmed up, in order
        self.cold = set(range(len(experiments))) if warm_up else set()  # experiments whose warm-up has not ended
        self.left = [(k, _chunks_left(e, done)) for k, (e, done) in enumerate(zip(experiments, finished, strict=True))]

    def take(self) -> tuple[str, int, Any] | None:
        """The next task: ("warm", k, None), warming experiments[k] up, or ("chunk", k, chunk of experiments[k]);
        None if none is ready now."""
        if self.warm_ups:
            return "warm", self.warm_ups.pop(0), None
        for entry in list(self.left):
            k, chunks = entry
            if k in self.cold:
                continue
            chunk = next(chunks, None)
            if chunk is not None:
                return "chunk", k, chunk
            self.left.remove(entry)
        return None

    def warmed(self, k: int) -> None:
        """experiments[k]'s warm-up has ended: its chunks may be played, and if it was its game's first, the warm-ups
        of the game's other experiments may start."""
        self.cold.discard(k)
        self.warm_ups.extend(self.after_first.pop(k, []))


def _chunks_left(experiment: Experiment, finished: dict) -> Iterator[Chunk]:
    return (chunk for chunk in plan(experiment) if chunk.id not in finished)


def _play_all(experiments: list[Experiment], stores: list[ResultStore], jobs: int, progress: bool,
              backend: Backend) -> None:
    games = {e.game: registry.get_game(e.game) for e in experiments}  # resolved once; pickled as module paths
    if jobs == 1 and backend.name == "loky":
        schedule = Schedule(experiments, [store.finished for store in stores], warm_up=False)
        with _Bars(progress, experiments, stores, 0) as bars:
            while (task := schedule.take()) is not None:
                _, k, chunk = task
                bars.started(k)
                part = encoded_chunk(experiments[k], games[experiments[k].game], chunk)
                bars.played(k, _write(stores[k], experiments[k], chunk, part))
        return
    with _workers(backend, jobs) as (executor, slots):
        warm_up = slots > 1 and len(games) > 1
        schedule = Schedule(experiments, [store.finished for store in stores], warm_up)
        with _Bars(progress, experiments, stores, len(experiments) if warm_up else 0) as bars:
            _play_in_workers(schedule, games, stores, executor, slots, bars)


@contextmanager
def _workers(backend: Backend, jobs: int) -> Iterator[tuple[Any, int]]:
    """(an executor of the backend's workers, how many tasks they play at once). On any error, or Ctrl-C, the
    workers are stopped before it is raised."""
    if backend.name == "dask":
        with _dask_workers(backend.scheduler, jobs) as workers:
            yield workers
        return
    from joblib.externals.loky import ProcessPoolExecutor  # joblib's loky: it tells a killed worker from a failed task

    with _signals_held():
        executor = ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker, initargs=(os.getpid(),))
    try:
        yield executor, jobs
    except BaseException:
        # kill_workers fails the tasks still queued; cancelling one first would make loky's manager thread die
        # on its set_exception (InvalidStateError) before it kills the workers, and shutdown would wait forever
        with _signals_held():
            executor.shutdown(wait=True, kill_workers=True)
        raise
    with _signals_held():
        executor.shutdown(wait=True)


@contextmanager
def _dask_workers(scheduler: str | None, jobs: int) -> Iterator[tuple[Any, int]]:
    """The workers of the dask cluster at `scheduler`, or of a LocalCluster of `jobs` single-threaded processes on
    this machine, through the client's concurrent.futures executor. A task lost with a worker that died is played
    again by the scheduler on another (dask's `allowed-failures`); the run's tasks still pending when it stops are
    cancelled, and a LocalCluster is closed. A LocalCluster's processes log only what is critical: the run says what
    went wrong in one line, and a worker whose heartbeat meets the scheduler closing under Ctrl-C logs an error."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise AtelierError("the dask backend needs dask.distributed: pip install 'atelier[dask]'") from None
    with ExitStack() as held:
        with _signals_held():  # the cluster and the client start whole, or are closed
            if scheduler is None:
                with _interrupts_ignored():  # by the worker processes it starts, which inherit that
                    cluster = held.enter_context(LocalCluster(  # its HTTP server on a free loopback port:
                        n_workers=jobs, threads_per_worker=1, processes=True,  # 8787 may be another's (a warning)
                        dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL))
            try:
                client = held.enter_context(Client(scheduler or cluster, set_as_default=False, timeout="10s"))
            except OSError as error:
                raise AtelierError(f"no dask scheduler answers at {scheduler} ({error})") from None
            if scheduler is None:  # and every worker of it ignores Ctrl-C, whatever its process inherited
                client.register_plugin(_interrupts_ignored_plugin())
        executor = client.get_executor(pure=False)
        try:
            yield executor, max(1, sum(client.nthreads().values()))
        finally:
            executor.shutdown(wait=False)  # cancels what is still pending


def _interrupts_ignored_plugin() -> Any:
    """A dask worker plugin by which a worker ignores SIGINT from its setup on (in its main thread, where its event
    loop runs), after importing polars (_ignore_interrupts): what a LocalCluster's worker inherits from the driver
    lasts only until polars is imported, and a worker that a nanny starts anew inherits nothing."""
    from distributed import WorkerPlugin

    class InterruptsIgnored(WorkerPlugin):
        name = "atelier-interrupts-ignored"

        def setup(self, worker: Any) -> None:
            if threading.current_thread() is threading.main_thread():
                _ignore_interrupts()

    return InterruptsIgnored()


def _ignore_interrupts() -> None:
    """Ignore SIGINT in this process (from its main thread), in polars' queries too: polars installs its own SIGINT
    handler when it is imported, in place of an ignored SIGINT that the process inherited, and raises
    KeyboardInterrupt in the query that runs when one arrives; this module imports polars, so here it is imported
    already (tests/test_faults.py::test_a_worker_ignores_ctrl_c_inside_polars_queries_too)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def _interrupts_ignored() -> Iterator[None]:
    """SIGINT ignored in this process while the block runs (in the main thread), and so in the processes it starts:
    Ctrl-C reaches the whole process group, and the driver alone answers it, stopping the workers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _play_in_workers(schedule: Schedule, games: dict[str, GameSpec], stores: list[ResultStore], executor: Any,
                     slots: int, bars: _Bars) -> None:
    """The schedule's tasks on the executor's workers, one more in flight than they play at once, so that none
    waits while a part is written (the executor's context stops them on an error)."""
    experiments = schedule.experiments
    running: dict[Future, tuple[str, int, Any]] = {}

    def fill() -> bool:
        while len(running) <= slots and (task := schedule.take()) is not None:
            kind, k, what = task
            if kind == "warm":
                running[executor.submit(_warm, games[experiments[k].game], experiments[k])] = task
            else:
                bars.started(k)
                running[executor.submit(encoded_chunk, experiments[k], games[experiments[k].game], what)] = task
        return bool(running)

    with _signals_held():  # the first tasks start loky's workers
        fill()
    while fill():
        done, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in done:
            kind, k, what = running.pop(future)
            if kind == "warm":
                future.result()
                schedule.warmed(k)
                bars.compiled()
            else:
                bars.played(k, _write(stores[k], experiments[k], what, future.result()))


def pool_problem() -> str | None:
    """Why worker processes cannot be started here, or None if they can: their queues need named semaphores, which
    live in /dev/shm, and a container or a locked-down host may have none, or a read-only one."""
    try:
        SemLock(SEMAPHORE, 0, 1, f"/atelier-{os.getpid()}-{secrets.token_hex(4)}", True)  # made and unlinked at once
    except OSError as error:
        return error.strerror or str(error)
    return None


def _write(store: ResultStore, experiment: Experiment, chunk: Chunk, part: Part) -> int:
    """Write the chunk's part; return its games."""
    games = _games(experiment, chunk)
    store.write_part(chunk.id, games, part)
    return games


def _start_worker(driver: int) -> None:
    """In a worker: Ctrl-C reaches the whole process group, and the driver alone answers it, stopping the workers.
    A driver killed by SIGKILL (an out-of-memory kill, `kill -9`) stops nothing, so the worker watches for itself.
    And loky's check for leaks is off (below)."""
    _ignore_interrupts()
    threading.Thread(target=_end_with, args=(driver,), name="end-with-driver", daemon=True).start()
    # Where psutil is installed (dask brings it), loky restarts a worker whose memory grew by 300 MB since its first
    # task, as a leak; ours grow by what they compile and load for each game, and a restart loads it all again.
    # Without psutil loky collects garbage once a second instead, as it does here.
    from joblib.externals.loky import process_executor

    process_executor._USE_PSUTIL = False


def _end_with(driver: int) -> None:
    """End this worker once its parent is no longer `driver`: the driver died and the worker was handed to another
    parent. The last worker to go closes loky's resource tracker's pipe, and the tracker ends too."""
    while os.getppid() == driver:
        time.sleep(WATCH_INTERVAL)
    os._exit(1)  # at once, mid-chunk too: nobody waits for its result, and a clean exit would wait on loky's queues


def _warm(game: GameSpec, experiment: Experiment) -> bool:
    """Whether the experiment played its deal, at each of its player counts."""
    try:
        for players in experiment.players:
            play_chunk(experiment, game, Chunk(players, 0, 0, players if experiment.match else 1))
    except Exception:  # the chunks report it, with what became of the results
        return False
    return True


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """While the block runs (in the main thread, where signals arrive), SIGTERM raises _SigTerm; a second one
    during the clean-up is ignored."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise _SigTerm

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait for the end of the block, then are answered as usual: workers started or stopped
    half-way print their failure to start, or leave a semaphore that loky's resource tracker warns of on exit."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.signal(signum, lambda signum, frame: arrived.append(signum)) for signum in held}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(arrived):
            signal.raise_signal(signum)


def _what_is_kept(kept: dict[Path, int]) -> str:
    if not kept:
        return "no results were written"
    where = str(next(iter(kept))) if len(kept) == 1 else f"{len(kept)} folders ({', '.join(map(str, kept))})"
    return f"{sum(kept.values())} finished part(s) kept in {where}; the same command resumes the run"


def _interruption(error: BaseException | None) -> BaseException | None:
    """The SIGTERM or Ctrl-C behind an error, if any: joblib may fail on its way out when the signal lands while it
    starts its workers ("cannot join thread before it is started"), and the user still stopped the run."""
    while error is not None:
        if isinstance(error, (_SigTerm, KeyboardInterrupt)):
            return error
        error = error.__context__
    return None


def _explained(error: BaseException, kept: dict[Path, int]) -> AtelierError | None:
    """The error as the user should read it, saying what became of the results folders (`kept`: the finished
    parts left in each); None for a bug."""
    error = _interruption(error) or error
    outcome = _what_is_kept({directory: parts for directory, parts in kept.items() if parts})
    if isinstance(error, _SigTerm):
        return Terminated(f"terminated; {outcome}")
    if isinstance(error, KeyboardInterrupt):
        return Interrupted(f"interrupted; {outcome}")
    if isinstance(error, BrokenProcessPool):
        return AtelierError(f"a worker process died (out of memory or killed?); {outcome}")
    if type(error).__name__ == "KilledWorker":  # distributed's, not imported where dask is not installed
        return AtelierError(f"dask workers died playing the same chunk again and again (out of memory?); {outcome}")
    if isinstance(error, AtelierError):
        return AtelierError(f"{error}; {outcome}")
    return None


def _frame(
    experiment: Experiment,
    chunk: Chunk,
    columns: dict[str, np.ndarray],
    deal: np.ndarray,
    lineup: np.ndarray,
    player: np.ndarray,
) -> pl.DataFrame:
    game, seat = np.asarray(columns["game"]), np.asarray(columns["seat"])
    offset = game_offsets(experiment)[chunk.players]
    added: dict[str, Any] = {
        "game_id": (offset + deal[game].astype(np.int64) * len(experiment.lineups[chunk.players]) + lineup[game]),
        "deal": deal[game].astype(np.int32),
        "lineup": lineup[game].astype(np.int32),
        "seat": seat,
        "player": player[game, seat].astype(np.int8),
    }
    engine = {name: columns[name] for name in ("strategy", "score", "rank", "win")}
    if experiment.match:
        engine["match_id"] = (deal[game] // chunk.players).astype(np.int32)
    own = {name: values for name, values in columns.items() if name not in ENGINE_COLUMNS}
    constants = {
        "experiment": pl.lit(experiment.name),
        "config_hash": pl.lit(experiment.config_hash),
        "game": pl.lit(experiment.game),
        "players": pl.lit(chunk.players, dtype=pl.Int8),
    }
    frame = pl.DataFrame({**added, **engine, **own}).with_columns(**constants)
    return frame.select(*constants, *added, *engine, *own).sort("game_id", "seat")


def _games(experiment: Experiment, chunk: Chunk) -> int:
    return (chunk.stop - chunk.start) * len(chunk.lineup_range(experiment))


class _GamesPerSecond(ProgressColumn):
    def render(self, task: Any) -> Text:
        if not task.fields.get("rate", True):
            return Text("")
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} games/s" if speed else "- games/s")


class _Bars:
    """On stderr: a bar for the warm-up's compiling, and one per experiment, started with its first chunk."""

    def __init__(self, enabled: bool, experiments: list[Experiment], stores: list[ResultStore], warm_ups: int):
        self.enabled, self.warm_ups = enabled, warm_ups
        self.plans = [(e.name, sum(e.games(p) for p in e.players), sum(part["games"] for part in s.finished.values()))
                      for e, s in zip(experiments, stores, strict=True)]
        self.tasks: list[TaskID] = []
        self.unstarted = set(range(len(experiments)))

    def __enter__(self) -> _Bars:
        if self.enabled:
            columns = (TextColumn("{task.description}"), BarColumn(bar_width=20), MofNCompleteColumn(),
                       TextColumn("games"), _GamesPerSecond(), TimeElapsedColumn())
            self.bar = Progress(*columns, console=Console(stderr=True))
            self.bar.__enter__()
            if self.warm_ups:
                self.compiling = self.bar.add_task("compiling", total=self.warm_ups, rate=False)
            self.tasks = [self.bar.add_task(name, total=total, completed=done, start=False)
                          for name, total, done in self.plans]
        return self

    def __exit__(self, *error: Any) -> None:
        if self.enabled:
            self.bar.__exit__(*error)

    def started(self, k: int) -> None:
        if self.enabled and k in self.unstarted:
            self.unstarted.discard(k)
            self.bar.start_task(self.tasks[k])

    def played(self, k: int, games: int) -> None:
        if self.enabled:
            self.bar.advance(self.tasks[k], games)

    def compiled(self) -> None:
        if self.enabled:
            self.bar.advance(self.compiling, 1)
