"""Run an experiment: split it into chunks, play them in parallel, write one Parquet part per chunk.

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

import signal
import threading
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from joblib import Parallel, delayed
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from sim import registry, results
from sim.dataset import chunk_id
from sim.errors import AtelierError, Interrupted
from sim.experiment import Experiment, data_files
from sim.registry import GameSpec
from sim.results import ResultStore

ENGINE_COLUMNS = ("game", "seat", "strategy", "score", "rank", "win")


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


def run(experiment: Experiment, out_root: Path, jobs: int = 1, progress: bool = True) -> Path:
    """Play the experiment into `out_root/<name>/` and return that folder.

    Resumes a stopped run of the same experiment. If the run fails or is interrupted, the finished parts
    stay for the next run to resume from; a run that finished no part removes everything it created.
    """
    directory = out_root / experiment.name
    try:
        with _sigterm_interrupts(), results.writing(directory):
            store = ResultStore.open(directory, experiment, plan_summary(experiment))
            try:
                _play_all(experiment, store, jobs, progress)
            except BaseException as error:
                explained = _explained(error, directory, store.discard_if_empty())
                if explained is None:
                    raise
                raise explained from None
    except KeyboardInterrupt as error:  # stopped while the folder was being opened: writing() removed it
        raise _explained(error, directory, 0) from None
    return directory


def warm_up(experiments: list[Experiment], jobs: int, progress: bool = True) -> list[bool]:
    """Compile the games' kernels once, side by side, before the runs: one worker per game plays one deal of each of
    its experiments under every lineup at every player count, and numba keeps what it compiles in its cache, where
    every worker of the runs finds it. Without this each worker compiles the same kernels as the others, at the
    same time. Nothing is written but that cache; a warm-up that fails leaves the run to meet and report the
    problem itself. Returns, per game warmed, whether it played."""
    by_game: dict[str, list[Experiment]] = {}
    for experiment in experiments:
        by_game.setdefault(experiment.game, []).append(experiment)
    if jobs < 2 or len(by_game) < 2:
        return []
    warmed = []
    try:
        with _sigterm_interrupts(), _compile_bar(progress, len(by_game)) as advance:
            parallel = Parallel(n_jobs=min(jobs, len(by_game)), backend="loky", return_as="generator_unordered")
            for played in parallel(delayed(_warm)(registry.get_game(name), group) for name, group in by_game.items()):
                warmed.append(played)
                advance()
        return warmed
    except KeyboardInterrupt as error:
        raise _explained(error, Path(), 0) from None


def _warm(game: GameSpec, experiments: list[Experiment]) -> bool:
    """Whether every experiment played its deal."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver alone answers Ctrl-C
    try:
        for experiment in experiments:
            for players in experiment.players:
                play_chunk(experiment, game, Chunk(players, 0, 0, players if experiment.match else 1))
    except Exception:  # the run that follows reports it, with what became of its results
        return False
    return True


@contextmanager
def _compile_bar(enabled: bool, games: int) -> Iterator[Callable[[], None]]:
    if not enabled:
        yield lambda: None
        return
    columns = (TextColumn("compiling"), BarColumn(bar_width=20), MofNCompleteColumn(), TextColumn("games"),
               TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task("compile", total=games)
        yield lambda: bar.advance(task, 1)


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


def _interruption(error: BaseException | None) -> BaseException | None:
    """The SIGTERM or Ctrl-C behind an error, if any: joblib may fail on its way out when the signal lands while it
    starts its workers ("cannot join thread before it is started"), and the user still stopped the run."""
    while error is not None:
        if isinstance(error, (_SigTerm, KeyboardInterrupt)):
            return error
        error = error.__context__
    return None


def _explained(error: BaseException, directory: Path, kept: int) -> AtelierError | None:
    """The error as the user should read it, saying what became of the results folder; None for a bug."""
    error = _interruption(error) or error
    outcome = (f"{kept} finished part(s) kept in {directory}; the same command resumes the run" if kept
               else "no results were written")
    if isinstance(error, _SigTerm):
        return Terminated(f"terminated; {outcome}")
    if isinstance(error, KeyboardInterrupt):
        return Interrupted(f"interrupted; {outcome}")
    if isinstance(error, BrokenProcessPool):
        return AtelierError(f"a worker process died (out of memory or killed?); {outcome}")
    if isinstance(error, AtelierError):
        return AtelierError(f"{error}; {outcome}")
    return None


def _play_all(experiment: Experiment, store: ResultStore, jobs: int, progress: bool) -> None:
    todo = (c for c in plan(experiment) if c.id not in store.finished)
    total = sum(experiment.games(p) for p in experiment.players)
    done = sum(part["games"] for part in store.finished.values())
    game = registry.get_game(experiment.game)  # resolved once; it pickles as its module paths for the workers
    with _progress_bar(progress, experiment.name, total, done) as advance:
        parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered")
        played = parallel(delayed(_play_task)(experiment, game, c, jobs > 1) for c in todo)
        try:
            for chunk, frame in played:
                store.write_part(chunk.id, _games(experiment, chunk), frame)
                advance(_games(experiment, chunk))
        finally:
            with warnings.catch_warnings():  # joblib warns that the tasks in flight were cancelled: we meant to
                warnings.filterwarnings("ignore", "(?s).*tasks which were still being processed", UserWarning)
                played.close()


def _play_task(experiment: Experiment, game: GameSpec, chunk: Chunk, in_worker: bool
               ) -> tuple[Chunk, pl.DataFrame]:
    if in_worker:  # Ctrl-C reaches the whole process group; the driver alone answers it, and stops the workers
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return chunk, play_chunk(experiment, game, chunk)


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
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} games/s" if speed else "- games/s")


@contextmanager
def _progress_bar(enabled: bool, name: str, total: int, done: int) -> Iterator[Callable[[int], None]]:
    if not enabled:
        yield lambda games: None
        return
    columns = (TextColumn("{task.description}"), BarColumn(bar_width=20), MofNCompleteColumn(), TextColumn("games"),
               _GamesPerSecond(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task(name, total=total, completed=done)
        yield lambda games: bar.advance(task, games)
