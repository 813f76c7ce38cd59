"""The `atelier` command line: parse options, call plain functions, print their results.

Every mistake reaches the user as one line, `error: <message>`, with a non-zero exit code and no traceback:
a usage error (exit 2), an AtelierError (its `exit_code`, 2 unless a run was interrupted), a problem with
results on disk (ResultsError, 2) or with the file system (OSError, 1).
"""

import functools
import json
import os
import sys
import tempfile
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from sim import registry, results, runner
from sim.dataset import ResultsError, find_experiments
from sim.errors import AtelierError
from sim.experiment import MAX_CHUNK, Experiment, check_strategy, load_experiment
from sim.game import describe_params
from sim.registry import get_game

# typer's usage errors (an unknown option, --jobs 0) derive from click's ClickException, which typer vendors in
# recent versions; reach it through a public subclass so that either layout works.
_USAGE_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


class _OneLineErrors(TyperGroup):
    """Prints a usage error as one `error: ...` line instead of typer's boxed usage panel."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except _USAGE_ERROR as error:
            if not error.format_message().strip():  # `atelier` alone: typer has shown the help
                sys.exit(error.exit_code)
            _fail(error.format_message(), error.exit_code)
        except typer.Abort:
            _fail("interrupted", 130)
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    cls=_OneLineErrors,
    help="atelier: a Monte Carlo balance lab for tabletop games.",
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    add_completion=False,
)


def _fail(message: str, code: int) -> None:
    typer.echo(f"error: {printable(' '.join(message.split()))}", err=True)
    sys.exit(code)


def printable(text: str) -> str:
    """Text with the bytes of a path that are not UTF-8 (held as surrogates) written as `\\xe9` escapes, which
    any terminal can print."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _user_errors(command: Callable) -> Callable:
    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except AtelierError as error:
            _fail(str(error), error.exit_code)
        except ResultsError as error:
            _fail(str(error), 2)
        except OSError as error:
            _fail(f"{error.strerror or error}: {error.filename}" if error.filename else str(error), 1)

    return wrapper


@app.command("games")
@_user_errors
def games_command() -> None:
    """List the games with their player counts, parameters and strategies."""
    typer.echo("\n\n".join(describe_game(name) for name in registry.GAMES))


@app.command("run")
@_user_errors
def run_command(
    experiments: Annotated[list[Path], typer.Argument(help="Experiment TOML files.", show_default=False)],
    games: Annotated[int | None, typer.Option(help="Games per player count, overriding the files.")] = None,
    jobs: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 1,
    seed: Annotated[int | None, typer.Option(help="Seed, overriding the files.")] = None,
    out: Annotated[Path, typer.Option(help="Results folder; each experiment writes OUT/<name>/.")] = Path("results"),
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
    backend: Annotated[str, typer.Option(help="Where the games are played: 'loky' (worker processes here) or "
                                              "'dask' (a dask.distributed cluster; pip install 'atelier[dask]').")
                       ] = "loky",
    scheduler: Annotated[str | None, typer.Option(help="The dask scheduler's address (tcp://HOST:8786); default: "
                                                       "a local cluster of --jobs workers.")] = None,
) -> None:
    """Run experiments (all files are checked before any runs); an interrupted run resumes."""
    where = chosen_backend(backend, scheduler)
    jobs = usable_jobs(jobs) if where.scheduler is None else jobs
    for experiment, path in run_experiments(experiments, games=games, seed=seed, jobs=jobs, out=out,
                                            progress=not quiet, backend=where):
        total = sum(experiment.games(p) for p in experiment.players)
        typer.echo(printable(f"{experiment.name}: {total} games in {path}"))


@app.command("report")
@_user_errors
def report_command(
    results_dir: Annotated[Path, typer.Argument(help="A results folder, or a folder of them.", show_default=False)],
    out: Annotated[Path, typer.Option(help="Folder for the report.")] = Path("report"),
    json_out: Annotated[bool, typer.Option("--json", help="Print every number the report states (findings.json) "
                                           "as JSON, without drawing charts or writing the report.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Build the HTML report of finished experiments and print where its pages, summary.md and findings.json are."""
    if not find_experiments(results_dir):
        raise AtelierError(f"{results_dir} holds no results; run an experiment first")
    if not json_out and out.exists() and not out.is_dir():
        raise AtelierError(f"--out {out} is a file; the report needs a folder")
    with _matplotlib_config_in_a_temporary_folder():
        from reports.build import build_report, report_numbers

        if json_out:
            typer.echo(json.dumps(report_numbers(results_dir), indent=1))
            return
        index = build_report(results_dir, out, progress=not quiet)
    for name in (index.name, "summary.md", "findings.json"):
        typer.echo(printable(str(index.parent / name)))


@contextmanager
def _matplotlib_config_in_a_temporary_folder() -> Iterator[None]:
    """Point matplotlib's config and font cache (else written into $HOME) at a temporary folder, unless the user
    chose one (an empty MPLCONFIGDIR chooses none); worker processes started meanwhile inherit it."""
    if os.environ.get("MPLCONFIGDIR"):
        yield
        return
    chosen = os.environ.get("MPLCONFIGDIR")
    with tempfile.TemporaryDirectory(prefix="atelier-matplotlib-") as config:
        os.environ["MPLCONFIGDIR"] = config
        try:
            yield
        finally:
            if chosen is None:
                del os.environ["MPLCONFIGDIR"]
            else:
                os.environ["MPLCONFIGDIR"] = chosen


@app.command("play")
@_user_errors
def play_command(
    game: Annotated[str, typer.Argument(help="Game name (see `atelier games`).", show_default=False)],
    players: Annotated[int, typer.Option(help="Number of players.", show_default=False)],
    strategies: Annotated[str, typer.Option(help="Strategies by seat, comma-separated.", show_default=False)],
    seed: Annotated[int, typer.Option(help="Seed of the game.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the trace as JSON.")] = False,
    param: Annotated[list[str] | None, typer.Option(help="Parameter override key=value; repeatable.")] = None,
) -> None:
    """Play one game and tell it turn by turn (or print its trace as JSON)."""
    names = [name.strip() for name in strategies.split(",")]
    overrides = dict(parse_param(text) for text in param or [])
    trace = play_game(game, players=players, strategies=names, seed=seed, overrides=overrides)
    typer.echo(json.dumps(trace) if as_json else get_game(game).rules.narrate(trace))


@app.command("bench")
@_user_errors
def bench_command(
    game: Annotated[str, typer.Argument(help="Game name (see `atelier games`).", show_default=False)],
    games: Annotated[int, typer.Option(min=1, help=f"Games per timing, at most {MAX_CHUNK:,} (one batch).")] = 2000,
    players: Annotated[int, typer.Option(help="Number of players.")] = 3,
    strategy: Annotated[str | None, typer.Option(help="Strategy at every seat; default: the game's.")] = None,
    repeats: Annotated[int, typer.Option(min=1, help="Timings; the median counts.")] = 3,
    jobs: Annotated[int, typer.Option(min=1, help="Also time the engine on this many worker processes at once.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
    param: Annotated[list[str] | None, typer.Option(help="Parameter override key=value; repeatable.")] = None,
) -> None:
    """Time the batched engine against the reference engine."""
    figures = bench_game(game, games=games, players=players, strategy=strategy, repeats=repeats,
                         jobs=usable_jobs(jobs), overrides=dict(parse_param(text) for text in param or []))
    if as_json:
        typer.echo(json.dumps(figures))
        return
    typer.echo(f"{figures['game']}: {games} games, {players} players, median of {repeats}")
    typer.echo(f"  engine     {figures['engine_games_per_s']:>12,.0f} games/s")
    typer.echo(f"  reference  {figures['reference_games_per_s']:>12,.0f} games/s")
    typer.echo(f"  ratio      {figures['ratio']:>12,.1f}x")
    if "jobs" in figures:
        speedup = figures["engine_jobs_games_per_s"] / figures["engine_games_per_s"]
        typer.echo(f"  engine, {figures['jobs']} jobs {figures['engine_jobs_games_per_s']:>10,.0f} games/s "
                   f"({speedup:.1f}x one job)")


def describe_game(name: str) -> str:
    """A game's title, summary, player counts, parameters and strategies, for `atelier games`."""
    game = get_game(name)
    rules, players = game.rules, game.players
    lines = [f"{name}: {rules.title}", f"  {rules.summary}",
             f"  players: {', '.join(map(str, rules.player_counts))}", "  parameters:"]
    lines += [f"    {field} = {default!r}  {help_text}" for field, default, help_text in describe_params(rules.params)
              if field != "players"]
    lines.append("  strategies:")
    lines += [f"    {strategy:<20} {summary}" for strategy, summary in players.strategies.items()]
    return "\n".join(lines)


def chosen_backend(name: str, scheduler: str | None) -> runner.Backend:
    """The backend `atelier run` was asked for, or a one-line error."""
    if name not in runner.BACKENDS:
        raise AtelierError(f"--backend must be one of {', '.join(runner.BACKENDS)}, got {name!r}")
    if scheduler is not None and name != "dask":
        raise AtelierError("--scheduler names a dask scheduler: give it with --backend dask")
    return runner.Backend(name, scheduler)


def run_experiments(
    files: list[Path], *, games: int | None, seed: int | None, jobs: int, out: Path, progress: bool,
    backend: runner.Backend = runner.LOKY,
) -> list[tuple[Experiment, Path]]:
    """Validate every file and check every target folder, then run the experiments, sharing the workers."""
    experiments = [load_experiment(file, games=games, seed=seed) for file in files]
    seen: dict[str, Path] = {}
    for file, experiment in zip(files, experiments, strict=True):
        if experiment.name in seen:
            raise AtelierError(f"{seen[experiment.name]} and {file} both write {out / experiment.name}; "
                               "give one of them another 'name'")
        seen[experiment.name] = file
        results.check_target(out / experiment.name, experiment.config_hash)
    if jobs > 1 and backend.name == "loky" and (problem := runner.pool_problem()) is not None:
        typer.echo(f"note: no usable shared memory (/dev/shm: {problem}); playing in one process", err=True)
        jobs = 1
    return list(zip(experiments, runner.run_all(experiments, out, jobs, progress, backend), strict=True))


def play_game(name: str, *, players: int, strategies: list[str], seed: int, overrides: dict[str, Any]) -> dict:
    """Validate the setup and return the trace of one game."""
    if seed < 0:
        raise AtelierError(f"--seed must be 0 or more, got {seed}")
    game = get_game(name)
    params = game.make_params(players, overrides)
    if len(strategies) != players:
        raise AtelierError(f"{players} players need {players} strategies, got {len(strategies)}")
    for strategy in strategies:
        check_strategy(game, strategy)
    return game.trace(params, strategies, seed)


def bench_game(name: str, *, games: int, players: int, strategy: str | None, repeats: int, jobs: int = 1,
               overrides: dict | None = None) -> dict:
    """Engine and reference speed of a game, as returned by its `bench`."""
    if not 1 <= games <= MAX_CHUNK:
        raise AtelierError(f"--games must be between 1 and {MAX_CHUNK:,}, the most games a batch holds, got {games:,}")
    game = get_game(name)
    game.make_params(players, overrides or {})
    strategy = strategy or game.players.bench
    game.check_strategy(strategy)
    return game.bench(games=games, players=players, strategy=strategy, repeats=repeats, jobs=jobs,
                      overrides=overrides)


def usable_jobs(jobs: int) -> int:
    """`jobs`, capped at the cores this process may use (with a note), since more workers only add memory."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if jobs > cores:
        typer.echo(f"note: --jobs {jobs} is more than the {cores} cores here; using {cores}", err=True)
    return min(jobs, cores)


def parse_param(text: str) -> tuple[str, Any]:
    """`key=value` -> (key, value); the value is read as a TOML value, else kept as a string."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise AtelierError(f"--param expects key=value, got {text!r}")
    try:
        return key.strip(), tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        return key.strip(), value
