"""The `atelier` command line, through typer's CliRunner."""

import json
from pathlib import Path

import pytest
from fakegame import EXPERIMENT as DICE_EXPERIMENT
from typer.testing import CliRunner

from reports.load import load
from sim.cli import app, parse_param

cli = CliRunner()


def invoke(*args: str | Path):
    """Run `atelier ARGS...` in-process."""
    return cli.invoke(app, [str(arg) for arg in args])


def assert_user_error(result, *fragments: str, code: int = 2) -> None:
    """Exit code `code` and one line `error: ...` on stderr holding every fragment, no traceback."""
    assert result.exit_code == code, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0]
    assert "Traceback" not in result.output


@pytest.mark.usefixtures("dice")
@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (DICE_EXPERIMENT + "players = ", "invalid TOML"),
        (DICE_EXPERIMENT.replace('"dice"', '"chess"'), "unknown game 'chess'"),
        (DICE_EXPERIMENT.replace('"chase"', '"bluff"'), "unknown strategy 'bluff'"),
        (DICE_EXPERIMENT.replace("[2, 3]", "[2, 7]"), "7 players is not allowed"),
    ],
)
def test_run_reports_mistakes_in_one_line(write_toml, tmp_path: Path, text: str, problem: str) -> None:
    path = write_toml(text)
    result = invoke("run", path, "--out", tmp_path / "out", "--quiet")
    assert_user_error(result, str(path), problem)
    assert not (tmp_path / "out").exists()


@pytest.mark.usefixtures("dice")
def test_run_checks_every_file_before_running_any(write_toml, tmp_path: Path) -> None:
    good, bad = write_toml(DICE_EXPERIMENT, "good"), write_toml(DICE_EXPERIMENT + "oops = 1\n", "bad")
    assert_user_error(invoke("run", good, bad, "--out", tmp_path / "out"), str(bad), "unknown key 'oops'")
    assert not (tmp_path / "out").exists()


@pytest.mark.usefixtures("dice")
def test_run_refuses_two_files_with_one_name(write_toml, tmp_path: Path) -> None:
    one, two = write_toml(DICE_EXPERIMENT, "one"), write_toml('name = "one"\n' + DICE_EXPERIMENT, "two")
    assert_user_error(invoke("run", one, two, "--out", tmp_path / "out"), "both write")
    assert not (tmp_path / "out").exists()


@pytest.mark.usefixtures("dice")
def test_run_writes_results_and_applies_overrides(write_toml, tmp_path: Path) -> None:
    path = write_toml(DICE_EXPERIMENT)
    result = invoke("run", path, "--out", tmp_path / "out", "--games", "12", "--seed", "9", "--jobs", "2", "--quiet")
    assert result.exit_code == 0, result.output
    assert str(tmp_path / "out" / "exp") in result.stdout
    frame = load(tmp_path / "out" / "exp")
    assert frame.height == 2 * 12 + 3 * 12
    manifest = json.loads((tmp_path / "out" / "exp" / "manifest.json").read_text())
    assert manifest["seed"] == 9


@pytest.mark.usefixtures("dice")
def test_run_stops_on_a_different_experiment_in_the_way(write_toml, tmp_path: Path) -> None:
    path = write_toml(DICE_EXPERIMENT)
    assert invoke("run", path, "--out", tmp_path / "out").exit_code == 0  # with the progress bar
    assert_user_error(invoke("run", path, "--out", tmp_path / "out", "--seed", "2"), "holds a different experiment")


@pytest.mark.usefixtures("dice")
def test_games_lists_params_and_strategies() -> None:
    result = invoke("games")
    assert result.exit_code == 0, result.output
    assert "dice: Dice" in result.stdout
    assert "sides = 6  faces on each die" in result.stdout
    assert "chase" in result.stdout


@pytest.mark.usefixtures("dice")
def test_play_prints_json_or_a_story() -> None:
    args = ["play", "dice", "--players", "3", "--strategies", "keep,chase,random", "--seed", "4"]
    trace = json.loads(invoke(*args, "--json", "--param", "sides=10").stdout)
    assert (trace["strategies"], trace["sides"], trace["seed"]) == (["keep", "chase", "random"], 10, 4)
    story = invoke(*args).stdout
    assert "seat 2 (random) was dealt" in story


@pytest.mark.usefixtures("dice")
@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        (["--strategies", "keep,chase"], "3 players need 3 strategies, got 2"),
        (["--strategies", "keep,chase,bluff"], "unknown strategy 'bluff'"),
        (["--strategies", "keep,chase,keep", "--param", "sides"], "--param expects key=value"),
        (["--strategies", "keep,chase,keep", "--param", "colour=4"], "unknown parameter 'colour'"),
    ],
)
def test_play_mistakes(extra: list[str], problem: str) -> None:
    assert_user_error(invoke("play", "dice", "--players", "3", *extra), problem)


def test_unknown_game_in_play_and_bench() -> None:
    assert_user_error(invoke("play", "chess", "--players", "2", "--strategies", "a,b"), "unknown game 'chess'")
    assert_user_error(invoke("bench", "chess"), "unknown game 'chess'")


def test_parse_param() -> None:
    assert parse_param("sides=10") == ("sides", 10)
    assert parse_param("match = true") == ("match", True)
    assert parse_param("beta=1.5") == ("beta", 1.5)
    assert parse_param('name="a b"') == ("name", "a b")
    assert parse_param("deck=small") == ("deck", "small")


@pytest.mark.usefixtures("dice")
def test_bench() -> None:
    figures = json.loads(invoke("bench", "dice", "--games", "50", "--repeats", "1", "--json").stdout)
    assert figures["strategy"] == "chase"
    assert figures["engine_games_per_s"] > 0
    assert figures["ratio"] == pytest.approx(figures["engine_games_per_s"] / figures["reference_games_per_s"],
                                             abs=0.05)  # figures are rounded to one decimal
    table = invoke("bench", "dice", "--games", "50", "--repeats", "1", "--strategy", "keep").stdout
    assert "ratio" in table and "jobs" not in table
    parallel = json.loads(invoke("bench", "dice", "--games", "50", "--repeats", "1", "--jobs", "2", "--json").stdout)
    assert parallel["jobs"] == 2 and parallel["engine_jobs_games_per_s"] > 0
    assert "engine, 2 jobs" in invoke("bench", "dice", "--games", "50", "--repeats", "1", "--jobs", "2").stdout
    assert_user_error(invoke("bench", "dice", "--players", "9"), "9 players is not allowed")
    assert json.loads(invoke("bench", "dice", "--games", "50", "--repeats", "1", "--param", "sides=12",
                             "--json").stdout)["engine_games_per_s"] > 0
    assert_user_error(invoke("bench", "dice", "--param", "sides=1"), "parameter 'sides' must be between 2 and 1000")


def test_report_needs_results(tmp_path: Path) -> None:
    assert_user_error(invoke("report", tmp_path, "--out", tmp_path / "report"), "holds no results")
    assert_user_error(invoke("report", tmp_path, "--json", "--out", tmp_path / "report"), "holds no results")
    assert not (tmp_path / "report").exists()


KINTSUGI_EXPERIMENT = """\
game = "kintsugi"
players = [2, 3]
games = {games}
seed = 3
pool = ["random+uniform", "greedy+tracker"]
chunk = {chunk}
"""


def test_kintsugi_end_to_end(write_toml, tmp_path: Path) -> None:
    path = write_toml(KINTSUGI_EXPERIMENT.format(games=64, chunk=32), "tiny")
    result = invoke("run", path, "--out", tmp_path / "out", "--quiet", "--jobs", "2")
    assert result.exit_code == 0, result.output
    frame = load(tmp_path / "out" / "tiny")
    assert frame.height == 2 * 64 + 3 * 60  # 3 players: 6 lineups, 10 deals
    assert frame["game_id"].n_unique() == 64 + 60
    assert set(frame["strategy"]) == {"random+uniform", "greedy+tracker"}


def test_kintsugi_play_json() -> None:
    args = ["play", "kintsugi", "--players", "3", "--strategies", "greedy+tracker,random+uniform,camouflage+bayes"]
    result = invoke(*args, "--seed", "2", "--json")
    assert result.exit_code == 0, result.output
    trace = json.loads(result.stdout)
    assert trace["strategies"] == ["greedy+tracker", "random+uniform", "camouflage+bayes"]
    assert invoke(*args, "--seed", "2").stdout.strip()


@pytest.mark.usefixtures("dice")
@pytest.mark.parametrize(("options", "problem"), [
    (["--backend", "spark"], "--backend must be one of loky, dask, got 'spark'"),
    (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler names a dask scheduler: give it with --backend dask"),
    (["--backend", "dask", "--scheduler", "tcp://127.0.0.1:9"], "no dask scheduler answers at tcp://127.0.0.1:9"),
])
def test_a_backend_mistake_is_one_line_and_writes_nothing(write_toml, tmp_path: Path, options, problem) -> None:
    result = invoke("run", write_toml(DICE_EXPERIMENT), "--out", tmp_path / "out", "--quiet", *options)
    assert_user_error(result, problem)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
