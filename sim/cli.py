"""The `atelier` command line: parse options, call plain functions, print their results.

Every AtelierError reaches the user as one line, `error: <message>`, with exit code 2.
"""

import functools
import json
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

import sim
from sim import results, runner
from sim.errors import AtelierError
from sim.experiment import Experiment, load_experiment
from sim.game import describe_params

app = typer.Typer(
    help="atelier: a Monte Carlo balance lab for tabletop games.",
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    add_completion=False,
)


def _user_errors(command: Callable) -> Callable:
    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except AtelierError as error:
            typer.echo(f"error: {' '.join(str(error).splitlines())}", err=True)
            raise typer.Exit(2) from None

    return wrapper


@app.command("games")
@_user_errors
def games_command() -> None:
    """List the games with their player counts, parameters and strategies."""
    typer.echo("\n\n".join(describe_game(name) for name in sim.GAMES))


@app.command("run")
@_user_errors
def run_command(
    experiments: Annotated[list[Path], typer.Argument(help="Experiment TOML files.", show_default=False)],
    games: Annotated[int | None, typer.Option(help="Games per player count, overriding the files.")] = None,
    jobs: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 1,
    seed: Annotated[int | None, typer.Option(help="Seed, overriding the files.")] = None,
    out: Annotated[Path, typer.Option(help="Results folder; each experiment writes OUT/<name>/.")] = Path("results"),
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Run experiments (all files are checked before any runs); an interrupted run resumes."""
    for experiment, path in run_experiments(experiments, games=games, seed=seed, jobs=jobs, out=out,
                                            progress=not quiet):
        total = sum(experiment.games(p) for p in experiment.players)
        typer.echo(f"{experiment.name}: {total} games in {path}")


@app.command("report")
@_user_errors
def report_command(
    results_dir: Annotated[Path, typer.Argument(help="A results folder, or a folder of them.", show_default=False)],
    out: Annotated[Path, typer.Option(help="Folder for the report.")] = Path("report"),
) -> None:
    """Build the HTML report of finished experiments and print the page's path."""
    if not results.find_experiments(results_dir):
        raise AtelierError(f"{results_dir} holds no results; run an experiment first")
    from reports.build import build_report

    typer.echo(str(build_report(results_dir, out)))


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
    module = sim.get_game(game)
    trace = play_game(game, players=players, strategies=names, seed=seed, overrides=overrides)
    typer.echo(json.dumps(trace) if as_json else module.narrate(trace))


@app.command("bench")
@_user_errors
def bench_command(
    game: Annotated[str, typer.Argument(help="Game name (see `atelier games`).", show_default=False)],
    games: Annotated[int, typer.Option(min=1, help="Games per timing.")] = 2000,
    players: Annotated[int, typer.Option(help="Number of players.")] = 3,
    strategy: Annotated[str | None, typer.Option(help="Strategy at every seat; default: the game's.")] = None,
    repeats: Annotated[int, typer.Option(min=1, help="Timings; the best counts.")] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """Time the batched engine against the reference engine."""
    figures = bench_game(game, games=games, players=players, strategy=strategy, repeats=repeats)
    if as_json:
        typer.echo(json.dumps(figures))
        return
    typer.echo(f"{figures['game']}: {games} games, {players} players, median of {repeats}")
    typer.echo(f"  engine     {figures['engine_games_per_s']:>12,.0f} games/s")
    typer.echo(f"  reference  {figures['reference_games_per_s']:>12,.0f} games/s")
    typer.echo(f"  ratio      {figures['ratio']:>12,.1f}x")


def describe_game(name: str) -> str:
    """A game's title, summary, player counts, parameters and strategies, for `atelier games`."""
    game = sim.get_game(name)
    lines = [f"{name}: {game.TITLE}", f"  {game.SUMMARY}",
             f"  players: {', '.join(map(str, game.PLAYER_COUNTS))}", "  parameters:"]
    lines += [f"    {field} = {default!r}  {help_text}" for field, default, help_text in describe_params(game.Params)
              if field != "players"]
    lines.append("  strategies:")
    lines += [f"    {strategy:<20} {summary}" for strategy, summary in game.STRATEGIES.items()]
    return "\n".join(lines)


def run_experiments(
    files: list[Path], *, games: int | None, seed: int | None, jobs: int, out: Path, progress: bool
) -> list[tuple[Experiment, Path]]:
    """Validate every file and check every target folder, then run the experiments one by one."""
    experiments = [load_experiment(file, games=games, seed=seed) for file in files]
    seen: dict[str, Path] = {}
    for file, experiment in zip(files, experiments, strict=True):
        if experiment.name in seen:
            raise AtelierError(f"{seen[experiment.name]} and {file} both write {out / experiment.name}; "
                               "give one of them another 'name'")
        seen[experiment.name] = file
        results.check_target(out / experiment.name, experiment.config_hash)
    return [(experiment, runner.run(experiment, out, jobs, progress)) for experiment in experiments]


def play_game(name: str, *, players: int, strategies: list[str], seed: int, overrides: dict[str, Any]) -> dict:
    """Validate the setup and return the trace of one game."""
    game = sim.get_game(name)
    params = game.make_params(players, overrides)
    if len(strategies) != players:
        raise AtelierError(f"{players} players need {players} strategies, got {len(strategies)}")
    for strategy in strategies:
        game.check_strategy(strategy)
    return game.trace(params, strategies, seed)


def bench_game(name: str, *, games: int, players: int, strategy: str | None, repeats: int) -> dict:
    """Engine and reference speed of a game, as returned by its `bench`."""
    game = sim.get_game(name)
    game.make_params(players, {})
    strategy = strategy or game.BENCH_STRATEGY
    game.check_strategy(strategy)
    return game.bench(games=games, players=players, strategy=strategy, repeats=repeats)


def parse_param(text: str) -> tuple[str, Any]:
    """`key=value` -> (key, value); the value is read as a TOML value, else kept as a string."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise AtelierError(f"--param expects key=value, got {text!r}")
    try:
        return key.strip(), tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        return key.strip(), value
