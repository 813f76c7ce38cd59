"""Faults a run must survive without losing or mixing results, and mistakes that must be one line.

Each test injects one fault (a killed worker, Ctrl-C to the whole process group, an edited data file, a
damaged part, a second run into the same folder, a bad path) and checks that the data are intact and
identical after a resume, or that the input is refused with one line and leaves nothing behind.
"""

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from fakegame import EXPERIMENT as DICE_EXPERIMENT
from fakegame import kill_marker
from test_cli import assert_user_error, invoke

from reports.load import ResultsError, load
from sim import runner
from sim.errors import AtelierError, Interrupted
from sim.experiment import MAX_GAMES, load_experiment

pytestmark = pytest.mark.usefixtures("dice")
KINTSUGI_DECK = Path(__file__).parents[1] / "sim" / "kintsugi" / "cards.toml"


def run_dice(write_toml, out: Path, text: str = DICE_EXPERIMENT, jobs: int = 1) -> pl.DataFrame:
    return load(runner.run(load_experiment(write_toml(text)), out, jobs, progress=False))


def stop_after(monkeypatch: pytest.MonkeyPatch, parts: int, fault=KeyboardInterrupt) -> None:
    """Make every run in this test raise `fault` once `parts` parts are written."""
    write_part, written = runner.ResultStore.write_part, []

    def write_then_fail(store, chunk_id, games, frame):
        if len(written) == parts:
            raise fault
        written.append(chunk_id)
        write_part(store, chunk_id, games, frame)

    monkeypatch.setattr(runner.ResultStore, "write_part", write_then_fail)


def manifest(directory: Path) -> dict:
    return json.loads((directory / "manifest.json").read_text())


# --- Data loss and mixed data -------------------------------------------------------------------------------


def test_a_killed_worker_keeps_the_finished_parts_and_the_resume_matches(write_toml, tmp_path: Path) -> None:
    text = DICE_EXPERIMENT.replace("seed = 5", "seed = 8801")
    whole = run_dice(write_toml, tmp_path / "whole", text)
    marker = kill_marker(8801)
    marker.write_text("3,3")  # the worker playing chunk P3-c00003 dies by SIGKILL, like an out-of-memory kill
    try:
        result = invoke("run", write_toml(text), "--out", tmp_path / "out", "--jobs", "2", "--quiet")
    finally:
        marker.unlink(missing_ok=True)
    assert_user_error(result, "a worker process died", "finished part(s) kept in", "resumes the run", code=2)
    kept = manifest(tmp_path / "out" / "exp")["finished"]
    assert 0 < len(kept) < 10
    assert sorted(p.stem for p in (tmp_path / "out" / "exp" / "parts").glob("*.parquet")) == sorted(kept)
    assert run_dice(write_toml, tmp_path / "out", text).equals(whole)


def test_ctrl_c_to_the_process_group_keeps_the_finished_parts(write_toml, tmp_path: Path) -> None:
    text = DICE_EXPERIMENT + "[params]\ndelay = 0.15\n"
    path, out = write_toml(text), tmp_path / "out"
    whole = run_dice(write_toml, tmp_path / "whole", text, jobs=2)
    launcher = ("import sys; from sim import registry; registry.GAMES['dice'] = ('fakegame', 'fakegame'); "
                "from sim.cli import app; "
                "sys.argv[0] = 'atelier'; app()")
    command = [sys.executable, "-c", launcher, "run", str(path), "--out", str(out), "--jobs", "2", "--quiet"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), *sys.path])}
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while not _finished_parts(out / "exp") and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: every process of the group
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert stderr.splitlines() == [stderr.strip()] and stderr.startswith("error: interrupted;"), stderr
    assert "Traceback" not in stderr
    kept = manifest(out / "exp")["finished"]
    assert 0 < len(kept) < 10
    assert run_dice(write_toml, out, text).equals(whole)


def _finished_parts(directory: Path) -> int:
    try:
        return len(manifest(directory)["finished"])
    except (OSError, ValueError):
        return 0


def test_a_failed_run_never_removes_another_experiment(write_toml, tmp_path: Path) -> None:
    out = tmp_path / "out"
    before = run_dice(write_toml, out, DICE_EXPERIMENT.replace("seed = 5", 'seed = 5\nname = "other"'))
    with pytest.raises(AtelierError, match=r"illegal move.*no results were written"):
        run_dice(write_toml, out, DICE_EXPERIMENT.replace('"chase"]', '"cheat"]'))
    assert load(out / "other").equals(before)
    assert sorted(p.name for p in out.iterdir()) == ["other"]


def test_an_edited_deck_is_a_different_experiment(monkeypatch, write_toml, tmp_path: Path) -> None:
    deck = tmp_path / "deck.toml"
    shutil.copy(KINTSUGI_DECK, deck)
    text = f'game = "kintsugi"\nplayers = 2\ngames = 64\nseed = 1\nchunk = 16\npool = ["random+uniform"]\n' \
           f'[params]\ndeck = "{deck}"\n'
    with monkeypatch.context() as patch:
        stop_after(patch, 1)
        with pytest.raises(Interrupted):
            run_dice(write_toml, tmp_path / "out", text)
    deck.write_text(deck.read_text().replace("[[0, 2], [1, 3]]", "[[3, 2], [1, 0]]", 1))
    with pytest.raises(AtelierError, match="holds a different experiment"):
        run_dice(write_toml, tmp_path / "out", text)
    assert len(manifest(tmp_path / "out" / "exp")["finished"]) == 1


def test_a_deck_edited_during_the_run_stops_it(monkeypatch, write_toml, tmp_path: Path) -> None:
    deck = tmp_path / "deck.toml"
    shutil.copy(KINTSUGI_DECK, deck)
    text = f'game = "kintsugi"\nplayers = 2\ngames = 64\nseed = 1\nchunk = 16\npool = ["random+uniform"]\n' \
           f'[params]\ndeck = "{deck}"\n'
    write_part = runner.ResultStore.write_part

    def write_then_edit(store, chunk_id, games, frame):
        write_part(store, chunk_id, games, frame)
        deck.write_text(deck.read_text() + "\n# edited\n")

    monkeypatch.setattr(runner.ResultStore, "write_part", write_then_edit)
    with pytest.raises(AtelierError, match="a data file of the experiment changed during the run"):
        run_dice(write_toml, tmp_path / "out", text)


def test_a_damaged_part_is_refused_by_the_loader_and_played_again(write_toml, tmp_path: Path) -> None:
    whole = run_dice(write_toml, tmp_path / "out")
    part = sorted((tmp_path / "out" / "exp" / "parts").iterdir())[3]
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    with pytest.raises(ResultsError, match=f"part {part.stem} of .* is missing or damaged"):
        load(tmp_path / "out" / "exp")
    assert_user_error(invoke("report", tmp_path / "out", "--out", tmp_path / "report"), "missing or damaged")
    assert not (tmp_path / "report").exists()
    played = []
    play_chunk = runner.play_chunk

    def counting(experiment, module, chunk):
        played.append(chunk.id)
        return play_chunk(experiment, module, chunk)

    runner.play_chunk, original = counting, runner.play_chunk
    try:
        assert run_dice(write_toml, tmp_path / "out").equals(whole)
    finally:
        runner.play_chunk = original
    assert played == [part.stem]


def test_a_second_run_into_a_locked_folder_is_refused(write_toml, tmp_path: Path) -> None:
    directory = tmp_path / "out" / "exp"
    directory.mkdir(parents=True)
    handle = os.open(directory, os.O_RDONLY)
    fcntl.flock(handle, fcntl.LOCK_EX)  # another run holds the folder
    try:
        result = invoke("run", write_toml(DICE_EXPERIMENT), "--out", tmp_path / "out", "--quiet")
        assert_user_error(result, f"another atelier run is writing {directory}")
        assert list(directory.iterdir()) == []
    finally:
        os.close(handle)
    assert run_dice(write_toml, tmp_path / "out").height == 300


# --- Folders a failed run leaves ----------------------------------------------------------------------------


def test_a_failed_run_removes_every_folder_it_created(write_toml, tmp_path: Path) -> None:
    (tmp_path / "o").mkdir()
    text = DICE_EXPERIMENT.replace('"chase"]', '"cheat"]')
    result = invoke("run", write_toml(text), "--out", tmp_path / "o" / "new1" / "new2" / "new3", "--quiet")
    assert_user_error(result, "illegal move", "no results were written")
    assert list((tmp_path / "o").iterdir()) == []


def test_a_failed_run_leaves_an_empty_folder_empty(write_toml, tmp_path: Path) -> None:
    (tmp_path / "out" / "exp").mkdir(parents=True)
    text = DICE_EXPERIMENT.replace('"chase"]', '"cheat"]')
    assert_user_error(invoke("run", write_toml(text), "--out", tmp_path / "out", "--quiet"), "illegal move")
    assert list((tmp_path / "out").iterdir()) == [tmp_path / "out" / "exp"]
    assert list((tmp_path / "out" / "exp").iterdir()) == []


def test_an_interrupt_before_any_part_leaves_nothing(monkeypatch, write_toml, tmp_path: Path) -> None:
    stop_after(monkeypatch, 0)
    with pytest.raises(Interrupted, match="interrupted; no results were written"):
        run_dice(write_toml, tmp_path / "out")
    assert not (tmp_path / "out").exists()


# --- One line for every mistake -----------------------------------------------------------------------------


def test_a_toml_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.toml"
    path.write_bytes(DICE_EXPERIMENT.replace('"keep"', '"k\xe9ep"').encode("latin-1"))
    assert_user_error(invoke("run", path, "--out", tmp_path / "out"), str(path), "is not UTF-8 text")
    assert not (tmp_path / "out").exists()


def test_names_too_long(write_toml, tmp_path: Path) -> None:
    long_name = write_toml(f'name = "{"a" * 300}"\n' + DICE_EXPERIMENT)
    assert_user_error(invoke("run", long_name, "--out", tmp_path / "out"), "name must be at most 100 characters")
    long_out = tmp_path / ("o" * 300)
    assert_user_error(invoke("run", write_toml(DICE_EXPERIMENT), "--out", long_out, "--quiet"), "File name too long")
    assert list(tmp_path.iterdir()) == [tmp_path / "exp.toml"]


def test_out_that_is_a_file_or_cannot_be_written(write_toml, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("mine")
    path = write_toml(DICE_EXPERIMENT)
    assert_user_error(invoke("run", path, "--out", tmp_path / "file", "--quiet"), "cannot create", "Not a directory")
    assert (tmp_path / "file").read_text() == "mine"
    assert_user_error(invoke("run", path, "--out", "/proc/atelier/out", "--quiet"), "cannot create /proc/atelier")


def test_games_are_planned_lazily(monkeypatch, write_toml, tmp_path: Path) -> None:
    text = DICE_EXPERIMENT.replace("games = 60", f"games = {MAX_GAMES}")
    experiment = load_experiment(write_toml(text))
    assert runner.plan_summary(experiment)["2"]["chunks"] == MAX_GAMES // 6 // 2
    stop_after(monkeypatch, 2)
    with pytest.raises(Interrupted, match="2 finished part"):
        runner.run(experiment, tmp_path / "out", 1, progress=False)
    assert list(manifest(tmp_path / "out" / "exp")["finished"]) == ["P2-c00000", "P2-c00001"]
    too_many = write_toml(DICE_EXPERIMENT.replace("games = 60", f"games = {MAX_GAMES + 1}"))
    assert_user_error(invoke("run", too_many, "--out", tmp_path / "o2"), "'games' must be between 1 and")


def test_jobs_above_the_cores_are_capped(write_toml, tmp_path: Path) -> None:
    result = invoke("run", write_toml(DICE_EXPERIMENT), "--out", tmp_path / "out", "--jobs", "999", "--quiet")
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("note: --jobs 999 is more than the")


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["run", "x.toml", "--bogus"], "No such option: --bogus"),
        (["run", "x.toml", "--jobs", "0"], "--jobs"),
        (["play", "dice", "--players", "two", "--strategies", "keep,keep"], "--players"),
        (["frobnicate"], "No such command"),
        (["play", "dice", "--players", "2", "--strategies", "keep,keep", "--seed", "-1"], "--seed must be 0 or more"),
    ],
)
def test_usage_errors_are_one_line(args: list[str], problem: str) -> None:
    assert_user_error(invoke(*args), problem)


def test_report_mistakes(write_toml, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_dice(write_toml, out)
    report = ["--out", tmp_path / "report"]
    shutil.copytree(out / "exp", out / "copy")
    assert_user_error(invoke("report", out, *report), "hold the same experiment")
    shutil.rmtree(out / "copy")
    (tmp_path / "file").write_text("mine")
    assert_user_error(invoke("report", out, "--out", tmp_path / "file"), "is a file")
    text = (out / "exp" / "manifest.json").read_text()
    (out / "exp" / "manifest.json").write_text(text[: len(text) // 2])
    assert_user_error(invoke("report", out, *report), "manifest.json is unreadable")
    (out / "exp" / "manifest.json").write_text("[1, 2]")
    assert_user_error(invoke("report", out, *report), "is not an atelier manifest")
    (out / "exp" / "manifest.json").write_text(json.dumps({**json.loads(text), "finished": {}}))
    assert_user_error(invoke("report", out, *report), "holds no finished games yet")
    assert not (tmp_path / "report").exists()
