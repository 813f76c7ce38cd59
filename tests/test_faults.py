"""Faults a run must survive without losing or mixing results, and mistakes that must be one line.

Each test injects one fault (a killed worker, Ctrl-C to the whole process group, SIGTERM, a full disk, an edited
data file or manifest, a damaged part, a second run into the same folder, a bad path, a pipe for a file) and
checks that the data are intact and identical after a resume, or that the input is refused with one line and
leaves nothing behind.
"""

import builtins
import errno
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager, suppress
from pathlib import Path

import polars as pl
import pytest
from fakegame import EXPERIMENT as DICE_EXPERIMENT
from fakegame import kill_marker
from test_cli import assert_user_error, invoke

from reports.generic import matchups, scores
from reports.load import ResultsError, load
from sim import results, runner
from sim.errors import AtelierError, Interrupted
from sim.experiment import MAX_CHUNK, MAX_GAMES, load_experiment

pytestmark = pytest.mark.usefixtures("dice")
KINTSUGI_DECK = Path(__file__).parents[1] / "sim" / "kintsugi" / "cards.toml"


def run_dice(write_toml, out: Path, text: str = DICE_EXPERIMENT, jobs: int = 1) -> pl.DataFrame:
    return load(runner.run(load_experiment(write_toml(text)), out, jobs, progress=False))


def stop_after(monkeypatch: pytest.MonkeyPatch, parts: int, fault=KeyboardInterrupt) -> None:
    """Make every run in this test raise `fault` once `parts` parts are written."""
    write_part, written = runner.ResultStore.write_part, []

    def write_then_fail(store, chunk_id, games, part):
        if len(written) == parts:
            raise fault
        written.append(chunk_id)
        write_part(store, chunk_id, games, part)

    monkeypatch.setattr(runner.ResultStore, "write_part", write_then_fail)


def manifest(directory: Path) -> dict:
    return json.loads((directory / "manifest.json").read_text())


LAUNCHER = ("import sys; from sim import registry; registry.GAMES['dice'] = ('fakegame', 'fakegame'); "
            "from sim.cli import app; sys.argv[0] = 'atelier'; app()")


# Named semaphores, which worker processes need, live in /dev/shm: without it (a container, a locked-down host),
# or with a read-only one, making one fails as below, in joblib's check at import as in loky's pool.
NO_SHARED_MEMORY = """\
import _multiprocessing, errno, os
class ReadOnly(_multiprocessing.SemLock):
    def __new__(cls, *args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))
_multiprocessing.SemLock = ReadOnly
"""


def atelier_process(*args: str | Path, env: dict | None = None, before: str = "") -> subprocess.Popen:
    """`atelier ARGS...` in a process of its own (its own process group), with the dice game registered, after
    the code `before`."""
    command = [sys.executable, "-c", before + LAUNCHER, *map(str, args)]
    path = os.pathsep.join([str(Path(__file__).parent), *sys.path])
    return subprocess.Popen(command, env={**(env or os.environ), "PYTHONPATH": path}, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


@contextmanager
def within(seconds: int):
    """Fail, instead of hanging, if the block takes longer than `seconds`."""
    def give_up(signum, frame):
        raise TimeoutError(f"still waiting after {seconds} s")

    previous = signal.signal(signal.SIGALRM, give_up)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


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
    assert sorted(p.stem for p in (tmp_path / "out" / "exp" / "parts").rglob("*.parquet")) == sorted(kept)
    assert run_dice(write_toml, tmp_path / "out", text).equals(whole)


@pytest.mark.parametrize("backend", ["loky", "dask"])
def test_ctrl_c_to_the_process_group_keeps_the_finished_parts(write_toml, tmp_path: Path, backend: str) -> None:
    text = DICE_EXPERIMENT + "[params]\ndelay = 0.15\n"
    path, out = write_toml(text), tmp_path / "out"
    whole = run_dice(write_toml, tmp_path / "whole", text, jobs=2)
    process = atelier_process("run", path, "--out", out, "--jobs", "2", "--quiet", "--backend", backend)
    deadline = time.monotonic() + 180  # a first run after an edit compiles the kernels, beside the rest of the suite
    while not _finished_parts(out / "exp") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _finished_parts(out / "exp"), "no part was finished before the deadline: the test did not test"
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: every process of the group
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert stderr.splitlines() == [stderr.strip()] and stderr.startswith("error: interrupted;"), stderr
    assert "Traceback" not in stderr
    kept = manifest(out / "exp")["finished"]
    assert 0 < len(kept) < 10
    assert run_dice(write_toml, out, text).equals(whole)


IGNORING_WORKER = """
import os, signal, threading, time
signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a worker inherits it from the driver
import numpy as np, polars as pl
from sim.runner import _ignore_interrupts
_ignore_interrupts()
frame = pl.DataFrame({"a": np.arange(2_000_000) % 100_003, "b": np.arange(2_000_000)})
done = threading.Event()
def interrupt():
    while not done.is_set():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.01)
threading.Thread(target=interrupt, daemon=True).start()
end = time.monotonic() + 1.5
while time.monotonic() < end:
    frame.group_by("a").agg(pl.col("b").sum())
done.set()
print("kept on")
"""


def test_a_worker_ignores_ctrl_c_inside_polars_queries_too() -> None:
    """polars installs its own SIGINT handler when it is imported, over an ignored SIGINT, and raises
    KeyboardInterrupt in the query running when one comes: a dask worker, which inherits SIGINT ignored and imports
    polars with its first task, printed a traceback now and then when Ctrl-C reached the process group. SIGINT
    sent every 10 ms to such a process querying for 1.5 s."""
    ran = subprocess.run([sys.executable, "-c", IGNORING_WORKER], capture_output=True, text=True, timeout=120)
    assert (ran.returncode, ran.stdout.strip(), ran.stderr) == (0, "kept on", "")


def test_sigterm_before_any_part_leaves_nothing_as_ctrl_c_does(write_toml, tmp_path: Path) -> None:
    path, out = write_toml(DICE_EXPERIMENT + "[params]\ndelay = 3.0\n"), tmp_path / "out"
    process = atelier_process("run", path, "--out", out, "--jobs", "2", "--quiet")
    deadline = time.monotonic() + 60
    while not (out / "exp" / "manifest.json").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _finished_parts(out / "exp") == 0
    os.kill(process.pid, signal.SIGTERM)  # what `kill PID`, a shutdown or a job scheduler sends
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 143, stderr
    assert stderr.splitlines() == ["error: terminated; no results were written"], stderr
    assert not out.exists()


def test_sigterm_keeps_the_finished_parts_and_the_resume_matches(write_toml, tmp_path: Path) -> None:
    text = DICE_EXPERIMENT + "[params]\ndelay = 0.15\n"
    path, out = write_toml(text), tmp_path / "out"
    process = atelier_process("run", path, "--out", out, "--quiet")
    deadline = time.monotonic() + 60
    while not _finished_parts(out / "exp") and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(process.pid, signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 143, stderr
    assert stderr.startswith("error: terminated; ") and "finished part(s) kept" in stderr, stderr
    kept = manifest(out / "exp")["finished"]
    assert 0 < len(kept) < 10
    assert run_dice(write_toml, out, text).equals(run_dice(write_toml, tmp_path / "whole", text))


def test_the_workers_and_the_resource_tracker_end_when_the_driver_is_killed(write_toml, tmp_path: Path) -> None:
    path, out = write_toml(DICE_EXPERIMENT + "[params]\ndelay = 5.0\n"), tmp_path / "out"
    process = atelier_process("run", path, "--out", out, "--jobs", "2", "--quiet")
    try:
        deadline = time.monotonic() + 120
        while not _finished_parts(out / "exp") and time.monotonic() < deadline:  # the workers are playing
            time.sleep(0.05)
        children = _children(process.pid)
        assert len(_children(process.pid, "LokyProcess")) == 2 and _children(process.pid, "resource_tracker")
        process.kill()  # SIGKILL, as an out-of-memory kill or `kill -9` ends the driver: no handler runs
        process.wait()
        deadline = time.monotonic() + 5
        while (alive := [pid for pid in children if _alive(pid)]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert alive == [], f"{len(alive)} of the driver's {len(children)} processes outlived it by 5 s"
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # what a failed test left


def _children(pid: int, named: str = "") -> list[int]:
    """The processes whose parent is `pid`, and whose command line holds `named`."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with suppress(OSError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid and \
                    named.encode() in (stat.parent / "cmdline").read_bytes():
                children.append(int(stat.parent.name))
    return children


def _alive(pid: int) -> bool:
    """Whether `pid` runs: a zombie, ended and not yet reaped (a container's init may never reap it), does not."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _finished_parts(directory: Path) -> int:
    try:
        return len(manifest(directory)["finished"])
    except (OSError, ValueError):
        return 0


@pytest.mark.parametrize("jobs", [1, 2])
def test_without_shared_memory_the_run_plays_in_one_process(write_toml, tmp_path: Path, jobs: int) -> None:
    path, out = write_toml(DICE_EXPERIMENT), tmp_path / "out"
    process = atelier_process("run", path, "--out", out, "--jobs", jobs, "--quiet", before=NO_SHARED_MEMORY)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    note = "note: no usable shared memory (/dev/shm: Read-only file system); playing in one process\n"
    assert stderr == (note if jobs > 1 else ""), stderr
    assert load(out / "exp").equals(run_dice(write_toml, tmp_path / "whole", jobs=2))


def test_a_failed_run_never_removes_another_experiment(write_toml, tmp_path: Path) -> None:
    out = tmp_path / "out"
    before = run_dice(write_toml, out, DICE_EXPERIMENT.replace("seed = 5", 'seed = 5\nname = "other"'))
    with pytest.raises(AtelierError, match=r"illegal move.*no results were written"):
        run_dice(write_toml, out, DICE_EXPERIMENT.replace('"chase"]', '"crook"]'))
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

    def write_then_edit(store, chunk_id, games, part):
        write_part(store, chunk_id, games, part)
        deck.write_text(deck.read_text() + "\n# edited\n")

    monkeypatch.setattr(runner.ResultStore, "write_part", write_then_edit)
    with pytest.raises(AtelierError, match="a data file of the experiment changed during the run"):
        run_dice(write_toml, tmp_path / "out", text)


def test_a_damaged_part_is_refused_by_the_loader_and_played_again(write_toml, tmp_path: Path) -> None:
    whole = run_dice(write_toml, tmp_path / "out")
    part = sorted((tmp_path / "out" / "exp" / "parts").rglob("*.parquet"))[3]
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    with pytest.raises(ResultsError, match=f"part {part.stem} of .* is missing or damaged"):
        load(tmp_path / "out" / "exp")
    assert_user_error(invoke("report", tmp_path / "out", "--out", tmp_path / "report"), "missing or damaged")
    assert not (tmp_path / "report").exists()
    played = []
    play_chunk = runner.play_chunk

    def counting(experiment, game, chunk):
        played.append(chunk.id)
        return play_chunk(experiment, game, chunk)

    runner.play_chunk, original = counting, runner.play_chunk
    try:
        assert run_dice(write_toml, tmp_path / "out").equals(whole)
    finally:
        runner.play_chunk = original
    assert played == [part.stem]


def fill_the_disk_after(monkeypatch: pytest.MonkeyPatch, parts: int) -> None:
    """Every part sim/results.py writes after the first `parts` goes to /dev/full, which answers ENOSPC as a full
    disk does."""
    written = []

    def open_on_a_full_disk(path, mode="r", *args, **kwargs):
        if "w" in mode and ".parquet." in Path(path).name:
            if len(written) == parts:
                return builtins.open("/dev/full", mode, *args, **kwargs)
            written.append(path)
        return builtins.open(path, mode, *args, **kwargs)

    monkeypatch.setattr(results, "open", open_on_a_full_disk, raising=False)


@pytest.mark.parametrize("parts", [0, 2])
def test_a_full_disk_stops_the_run_in_one_line_and_the_resume_matches(monkeypatch, write_toml, tmp_path: Path,
                                                                     parts: int) -> None:
    path, out = write_toml(DICE_EXPERIMENT), tmp_path / "out"
    with monkeypatch.context() as patch:
        fill_the_disk_after(patch, parts)
        result = invoke("run", path, "--out", out, "--quiet")
    assert_user_error(result, "cannot write", "No space left on device")
    if parts:
        assert f"{parts} finished part(s) kept" in result.stderr
        files = sorted(p.name for p in (out / "exp" / "parts").rglob("*") if p.is_file())
        assert files == [f"P2-c0000{i}.parquet" for i in (0, 1)]
        assert list(manifest(out / "exp")["finished"]) == ["P2-c00000", "P2-c00001"]
    else:
        assert not out.exists()
    assert run_dice(write_toml, out).equals(run_dice(write_toml, tmp_path / "whole"))


def test_paths_that_are_not_utf8_work(write_toml, tmp_path: Path) -> None:
    out = tmp_path / os.fsdecode(b"r\xe9sultats")  # Latin-1 bytes, not UTF-8: a surrogate in the str
    result = invoke("run", write_toml(DICE_EXPERIMENT), "--out", out, "--quiet")
    assert result.exit_code == 0, result.output
    assert "r\\xe9sultats" in result.stdout
    assert load(out / "exp").equals(run_dice(write_toml, tmp_path / "plain"))
    (out / "exp" / "manifest.json").write_text("{")
    assert_user_error(invoke("report", out, "--out", tmp_path / "report"), "r\\xe9sultats", "is unreadable")


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
    text = DICE_EXPERIMENT.replace('"chase"]', '"crook"]')
    result = invoke("run", write_toml(text), "--out", tmp_path / "o" / "new1" / "new2" / "new3", "--quiet")
    assert_user_error(result, "illegal move", "no results were written")
    assert list((tmp_path / "o").iterdir()) == []


def test_a_failed_run_leaves_an_empty_folder_empty(write_toml, tmp_path: Path) -> None:
    (tmp_path / "out" / "exp").mkdir(parents=True)
    text = DICE_EXPERIMENT.replace('"chase"]', '"crook"]')
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


@pytest.mark.parametrize("name", ["manifest.json", "parts", "Manifest.JSON", "PARTS"])
def test_a_name_of_the_results_formats_own_files_is_refused(write_toml, tmp_path: Path, name: str) -> None:
    out = tmp_path / "out"
    before = run_dice(write_toml, out)
    named = write_toml(f'name = "{name}"\n' + DICE_EXPERIMENT, "named")
    assert_user_error(invoke("run", named, "--out", out, "--quiet"), f"name {name!r} is taken by the results format")
    stem = write_toml(DICE_EXPERIMENT, name)  # the name defaults to the file's stem
    assert_user_error(invoke("run", stem, "--out", out, "--quiet"), f"name {name!r} is taken by the results format")
    assert sorted(p.name for p in out.iterdir()) == ["exp"]
    assert load(out / "exp").equals(before)
    assert invoke("report", out, "--out", tmp_path / "report").exit_code == 0


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


# --- Pipes, limits and hand-edited results ------------------------------------------------------------------


def test_an_experiment_file_that_is_a_pipe_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "exp.toml"
    os.mkfifo(fifo)
    with within(30):
        assert_user_error(invoke("run", fifo, "--out", tmp_path / "out"), str(fifo), "is not a regular file")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("game", "param", "what", "strategy"), [
    ("kintsugi", "deck", "deck file", "random+uniform"),
    ("broken_beautiful", "components", "components file", "random"),
    ("kunst_stuecke", "shapes", "shapes file", "random"),
    ("witkacy", "deck", "deck file", "random")])
def test_a_data_file_that_is_a_pipe_is_refused(tmp_path: Path, game: str, param: str, what: str, strategy: str) -> None:
    fifo = tmp_path / "data.toml"
    os.mkfifo(fifo)
    experiment = tmp_path / "exp.toml"
    experiment.write_text(f'game = "{game}"\nplayers = 2\ngames = 10\nseed = 1\nseats = ["{strategy}", "{strategy}"]\n'
                          f'[params]\n{param} = "{fifo}"\n')
    with within(30):
        assert_user_error(invoke("run", experiment, "--out", tmp_path / "out"), f"{what} {fifo} is not a regular file")
        assert_user_error(invoke("play", game, "--players", 2, "--strategies", f"{strategy},{strategy}", "--param",
                                 f"{param}={fifo}"), f"{what} {fifo} is not a regular file")
    assert not (tmp_path / "out").exists()


def test_bench_games_have_a_limit(tmp_path: Path) -> None:
    assert_user_error(invoke("bench", "dice", "--games", 10**12), "--games must be between 1 and 65,536")
    assert_user_error(invoke("bench", "dice", "--games", MAX_CHUNK + 1), "--games must be between 1 and 65,536")


def test_aliases_of_one_strategy_are_refused(write_toml, tmp_path: Path) -> None:
    text = 'game = "kunst_stuecke"\nplayers = 3\ngames = 6\nseed = 1\npool = ["planner@12", "planner@12.0"]\n'
    assert_user_error(invoke("run", write_toml(text), "--out", tmp_path / "out"),
                      "write 'planner@12.0' as 'planner@12'")
    underscored = text.replace('"planner@12.0"', '"planner@1_2"')
    assert_user_error(invoke("run", write_toml(underscored), "--out", tmp_path / "out"),
                      "write 'planner@1_2' as 'planner@12'")
    assert not (tmp_path / "out").exists()
    assert_user_error(invoke("play", "kunst_stuecke", "--players", 2, "--strategies", "planner@12.0,random"),
                      "write 'planner@12.0' as 'planner@12'")


def test_a_pool_beyond_one_batch_is_split_and_too_few_games_are_refused(write_toml, tmp_path: Path) -> None:
    pool = json.dumps([f"planner@{knob}" for knob in range(13)])  # 13 * 12 * 11 * 10 * 9 = 154,440 seatings
    text = f'game = "kunst_stuecke"\nplayers = 5\ngames = 1\nseed = 1\nchunk = 4096\npool = {pool}\n'
    assert_user_error(invoke("run", write_toml(text), "--out", tmp_path / "out"),
                      "'games' must be at least 154,440 at 5 players")
    experiment = load_experiment(write_toml(text.replace("games = 1\n", "games = 154441\n")))
    assert experiment.games(5) == 154_440
    assert runner.plan_summary(experiment) == {
        "5": {"deals": 1, "deals_per_chunk": 1, "chunks": 38, "lineups_per_chunk": 4096}}
    chunks = list(runner.plan(experiment))
    assert max(len(c.lineup_range(experiment)) for c in chunks) == 4096
    assert [c.lineups for c in chunks[-2:]] == [(36 * 4096, 37 * 4096), (37 * 4096, 154_440)]


@pytest.mark.parametrize(("edit", "problem"), [
    (lambda m: m["finished"].update({"P2-c00000": 5}), "'finished' entry P2-c00000 must be an object, got 5"),
    (lambda m: m["finished"]["P2-c00000"].update(bytes="many"), "needs 'bytes' as a whole number, got 'many'"),
    (lambda m: m["finished"].update({"../../x": m["finished"]["P2-c00000"]}), "which is no chunk id"),
    (lambda m: m.update(game="kaleido"), "hold game 'dice', not 'kaleido'"),
    (lambda m: m.update(experiment="other"), "hold experiment 'exp', not 'other'"),
    (lambda m: m.update(tie_breakers=["nothing"]), "'tie_breakers' names 'nothing', which is no column"),
    (lambda m: m.update(tie_breakers="low"), "'tie_breakers' must be a list, got 'low'"),
    (lambda m: m.update(lowest_wins="yes"), "'lowest_wins' must be true or false"),
    (lambda m: m.pop("complete"), "it lacks 'complete'"),
])
def test_a_hand_edited_manifest_is_one_line(write_toml, tmp_path: Path, edit, problem: str) -> None:
    out = tmp_path / "out"
    run_dice(write_toml, out)
    edited = manifest(out / "exp")
    edit(edited)
    (out / "exp" / "manifest.json").write_text(json.dumps(edited))
    assert_user_error(invoke("report", out, "--out", tmp_path / "report"), problem)
    assert not (tmp_path / "report").exists()


def test_a_manifest_that_is_a_folder_is_one_line(write_toml, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_dice(write_toml, out)
    (out / "other" / "manifest.json").mkdir(parents=True)
    assert_user_error(invoke("report", out, "--out", tmp_path / "report"), "manifest.json is a folder, not a manifest")
    text = DICE_EXPERIMENT.replace("seed = 5", 'seed = 5\nname = "other"')
    assert_user_error(invoke("run", write_toml(text), "--out", out), "manifest.json is a folder, not a manifest")
    assert not (tmp_path / "report").exists()


def test_a_report_is_moved_into_place_only_when_whole(monkeypatch, write_toml, tmp_path: Path) -> None:
    out, report = tmp_path / "out", tmp_path / "report"
    run_dice(write_toml, out)
    report.mkdir()
    (report / "index.html").write_text("the earlier report")
    (report / "old_chart.png").write_bytes(b"png")
    (report / ".atelier-report").write_text(json.dumps({"atelier_report": ["index.html", "old_chart.png"]}))
    save_chart, saved = scores.save_chart, []

    def save_then_fill_the_disk(*args, **kwargs):
        if saved:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(args[1]))
        saved.append(save_chart(*args, **kwargs))
        return saved[-1]

    with monkeypatch.context() as patch:
        for module in (scores, matchups):  # the score-by-strategy chart, then the head-to-head one
            patch.setattr(module, "save_chart", save_then_fill_the_disk)
        assert_user_error(invoke("report", out, "--out", report), "No space left on device", code=1)
    assert saved  # a chart was drawn, into the folder that was then thrown away
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.toml", "out", "report"]
    assert sorted(p.name for p in report.iterdir()) == [".atelier-report", "index.html", "old_chart.png"]
    assert (report / "index.html").read_text() == "the earlier report"
    result = invoke("report", out, "--out", report)
    assert result.exit_code == 0, result.output
    assert "old_chart.png" not in {p.name for p in report.iterdir()}
    assert "Balance report" in (report / "index.html").read_text()
    (report / "notes.txt").write_text("mine")
    assert_user_error(invoke("report", out, "--out", report), "holds 'notes.txt', which is no part of a report")
    assert (report / "notes.txt").read_text() == "mine"


def test_a_report_writes_nothing_outside_out(write_toml, tmp_path: Path) -> None:
    results_dir, home = tmp_path / os.fsdecode(b"r\xe9sultats"), tmp_path / "home"
    home.mkdir()
    run_dice(write_toml, results_dir)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("MPL", "XDG_"))}
    report = tmp_path / os.fsdecode(b"rapport-\xe9")
    process = atelier_process("report", results_dir, "--out", report, env={**env, "HOME": str(home)})
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    assert (report / "index.html").is_file()
    assert list(home.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["exp.toml", "home", results_dir.name, report.name])


def test_an_error_joblib_raises_while_a_sigterm_stops_it_still_reads_as_terminated(tmp_path: Path) -> None:
    """A SIGTERM that lands while joblib starts its workers makes joblib's clean-up fail ("cannot join thread before
    it is started", seen on a busy machine); the run was still terminated, and says so in one line."""
    try:
        try:
            raise runner._SigTerm
        except runner._SigTerm:
            raise RuntimeError("cannot join thread before it is started") from None
    except RuntimeError as error:
        explained = runner._explained(error, {tmp_path: 0})
    assert isinstance(explained, runner.Terminated)
    assert str(explained) == "terminated; no results were written"
    assert runner._explained(RuntimeError("a bug"), {}) is None
