"""Bad game input through the command line: one line `error: ...`, exit code 2, no traceback; and the smallest
inputs the games accept (a 2-card Kintsugi deck, `bench --games 1`) work. The checks every game gets are drawn from
its Params (the ranges and data files its fields declare), over every registered game (tests/declared.py)."""

import dataclasses
import json
from pathlib import Path

import pytest
from declared import NAMES
from test_cli import assert_user_error, invoke

from sim.registry import get_game

DEFAULT_COMPONENTS = Path(__file__).parents[1] / "sim" / "broken_beautiful" / "components.toml"


def play(game: str, *params: str, strategies: str | None = None, as_json: bool = False):
    """`atelier play GAME` for two players with the given `--param key=value` overrides, its bench strategy at
    both seats unless `strategies` names others."""
    options = [option for param in params for option in ("--param", param)] + ["--json"] * as_json
    seats = strategies or ",".join([get_game(game).players.bench] * 2)
    return invoke("play", game, "--players", 2, "--strategies", seats, *options)


def declared_fields(key: str) -> list[tuple[str, dataclasses.Field]]:
    """(game, Params field) for every field of every game whose metadata declares `key`."""
    return [(name, f) for name in NAMES for f in dataclasses.fields(get_game(name).rules.params) if key in f.metadata]


@pytest.mark.parametrize(("game", "field"), declared_fields("range"), ids=lambda v: getattr(v, "name", v))
@pytest.mark.parametrize("beyond", ["above", "far below"])
def test_integer_parameters_beyond_their_range_are_one_line(game: str, field: dataclasses.Field, beyond: str) -> None:
    low, high = field.metadata["range"]
    value = high + 1 if beyond == "above" else -(10**20)  # far below: beyond int64 too
    assert_user_error(play(game, f"{field.name}={value}"),
                      f"parameter '{field.name}' must be between {low} and {high}, got {str(value)[:4]}")


def test_kaleido_points_within_range_but_beyond_int16_score_correctly() -> None:
    result = play("kaleido", "first=40000", as_json=True)
    assert result.exit_code == 0, result.output
    trace = json.loads(result.stdout)
    assert max(trace["scores"]) > 32_767 and min(trace["scores"]) >= 0


@pytest.mark.parametrize(("game", "field"), declared_fields("file"), ids=lambda v: getattr(v, "name", v))
@pytest.mark.parametrize(("write", "problem"), [
    (lambda path: path.mkdir(), "cannot be read: Is a directory"),
    (lambda path: path.write_bytes(b"\xff\xfe"), "is malformed: 'utf-8' codec can't decode"),
])
def test_data_files_that_cannot_be_read_are_one_line(tmp_path: Path, game: str, field, write, problem: str) -> None:
    path = tmp_path / "data.toml"
    write(path)
    assert_user_error(play(game, f"{field.name}={path}"), f" file {path} {problem}")


def test_a_fractional_component_count_is_refused_not_truncated(tmp_path: Path) -> None:
    path = tmp_path / "kit.toml"
    path.write_text(DEFAULT_COMPONENTS.read_text().replace("cup = { count = 6", "cup = { count = 2.7"))
    assert_user_error(play("broken_beautiful", f"components={path}"),
                      f"components file {path}: 'types.cup.count' must be a whole number from 0 to 127, got 2.7")


def test_a_huge_scoring_number_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "kit.toml"
    path.write_text(DEFAULT_COMPONENTS.read_text().replace("tray = 2 ", "tray = 40000 "))
    assert_user_error(play("broken_beautiful", f"components={path}"),
                      f"components file {path}: 'scoring.tray' must be a whole number from 0 to 1000, got 40000")


def test_a_deck_of_130_cards_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deck.toml"
    path.write_text("[[card]]\nlayout = [[0, 1], [2, 3]]\n" * 130)
    assert_user_error(play("kintsugi", f"deck={path}"), f"deck file {path} must list 2 to 64 cards")


def test_the_smallest_kintsugi_deck_plays_and_runs(tmp_path: Path) -> None:
    deck = tmp_path / "deck2.toml"
    deck.write_text("[[card]]\nlayout = [[0, 1], [2, 3]]\n[[card]]\nlayout = [[0, 0], [1, 1]]\n")
    played = play("kintsugi", f"deck={deck}", strategies="random+uniform,random+uniform", as_json=True)
    assert played.exit_code == 0, played.output
    assert len(json.loads(played.stdout)["placements"]) == 1
    experiment = tmp_path / "small.toml"
    experiment.write_text(f'game = "kintsugi"\nplayers = [2, 3]\ngames = 12\nseed = 1\n'
                          f'pool = ["random+uniform", "greedy+bayes", "spoiler+tracker"]\n[params]\ndeck = "{deck}"\n')
    ran = invoke("run", experiment, "--out", tmp_path / "out", "--quiet")
    assert ran.exit_code == 0, ran.output
    assert "small: 24 games" in ran.stdout


@pytest.mark.parametrize(("game", "strategies", "message"), [
    ("kintsugi", "greedy+bayes@1e30,random+uniform", "knob of 'bayes@1e30' must be a number from 0 to 100"),
    ("kintsugi", "camouflage@-1+bayes,random+uniform", "knob of 'camouflage@-1' must be a number from 0 to 100"),
    ("broken_beautiful", "hater@inf,greedy", "knob of 'hater@inf' must be a number from -1e+06 to 1e+06"),
    ("kaleido", "greedy@1e30,greedy", "unknown Kaleido strategy 'greedy@1e30'"),
])
def test_knobs_outside_their_range_are_one_line(game: str, strategies: str, message: str) -> None:
    assert_user_error(play(game, strategies=strategies), message)


@pytest.mark.parametrize("game", NAMES)
def test_bench_plays_a_single_game(game: str) -> None:
    result = invoke("bench", game, "--games", 1, "--repeats", 1, "--json")
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert (figures["engine_games"], figures["reference_games"]) == (1, 1)
