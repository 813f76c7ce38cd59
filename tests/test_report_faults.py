"""Faults of `atelier report` that broke a README promise: a report that deleted the user's files, results whose
names wrote outside --out or picked the report's code, a report killed between its two renames or while drawing,
Markdown from a question, numpy's warnings and matplotlib's cache in $HOME.

Each test keeps one promise of the README's table. Results folders are written by hand (tests/resultsdir.py), so a
test can give them any name, game or question, as a results folder shared by someone else can.
"""

import fcntl
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from markdown_it import MarkdownIt
from resultsdir import seat_columns, write_experiment
from test_cli import assert_user_error, invoke
from test_report_broken_beautiful import synthetic_bb

MARKER = ".atelier-report"
STRATEGIES = np.array(["careful", "bold", "lucky"])


def rows(experiment: str, game: str = "mystery_game", players: int = 3, games: int = 90) -> pl.DataFrame:
    """Results rows of `games` games, every strategy in every seat, the highest score winning, ties shared."""
    rng = np.random.default_rng(len(experiment))
    g = np.arange(games)[:, None]
    strategy = STRATEGIES[(np.arange(players) + g) % len(STRATEGIES)]
    score = rng.integers(0, 6, (games, players))
    best = score == score.max(axis=1, keepdims=True)
    win = best / best.sum(axis=1, keepdims=True)
    rank = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)
    return pl.DataFrame(seat_columns(experiment, game, players, 1, strategy, score, rank, win))


def results(root: Path, experiment: str = "plain", game: str = "mystery_game", **manifest) -> Path:
    """A results folder of one experiment, whose manifest and parts name it and its game as given."""
    write_experiment(root / "exp", [rows(experiment, game)], game, **manifest)
    return root


def files_under(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


def report_of(results_dir: Path, out: Path) -> None:
    result = invoke("report", results_dir, "--out", out, "--quiet")
    assert result.exit_code == 0, result.output


# A subprocess of `atelier`, whose `patch` (Python code run first) may SIGKILL it at a chosen point.
KILL = "import os, signal, pathlib\ndef die(*args, **kwargs):\n    os.kill(os.getpid(), signal.SIGKILL)\n"
BETWEEN_THE_RENAMES = KILL + """
rename = pathlib.Path.rename
def rename_or_die(self, target):
    if self.name.endswith('.tmp'):  # the second rename: the new report into place, the old one already aside
        die()
    return rename(self, target)
pathlib.Path.rename = rename_or_die
"""
WHILE_DRAWING = KILL + "import matplotlib.figure\nmatplotlib.figure.Figure.savefig = die\n"


def atelier(*args: str | Path, patch: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    launcher = f"{patch}\nimport sys\nfrom sim.cli import app\nsys.argv[0] = 'atelier'\napp()\n"
    path = os.pathsep.join([str(Path(__file__).parent), *sys.path])
    return subprocess.run([sys.executable, "-c", launcher, *map(str, args)], env={**(env or os.environ),
                          "PYTHONPATH": path}, capture_output=True, text=True, timeout=300)


# --- A report replaces only a report -------------------------------------------------------------------------


def test_a_report_never_replaces_a_folder_that_is_not_its_own(tmp_path: Path) -> None:
    source = results(tmp_path / "res")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.md").write_text("my notes")
    (mine / "budget.json").write_text('{"total": 12}')
    assert_user_error(invoke("report", source, "--out", mine, "--quiet"), str(mine), "'budget.json'",
                      "is no report", MARKER)
    assert {p.name: p.read_text() for p in mine.iterdir()} == {"notes.md": "my notes", "budget.json": '{"total": 12}'}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "res"]
    lookalike = tmp_path / "lookalike"  # a report's file names, but no report wrote them
    lookalike.mkdir()
    (lookalike / "index.html").write_text("my page")
    assert_user_error(invoke("report", source, "--out", lookalike, "--quiet"), "'index.html'", "is no report")
    assert (lookalike / "index.html").read_text() == "my page"


def test_a_report_replaces_an_earlier_report_but_not_one_the_user_added_to(tmp_path: Path) -> None:
    source, out = results(tmp_path / "res"), tmp_path / "report"
    report_of(source, out)
    written = json.loads((out / MARKER).read_text())["atelier_report"]
    assert sorted(p.name for p in out.iterdir()) == sorted([MARKER, *written])
    assert {"index.html", "summary.md", "findings.json", "mystery_game.html"} < set(written)
    (out / "index.html").write_text("stale")
    report_of(source, out)
    assert "Balance report" in (out / "index.html").read_text()
    (out / "notes.md").write_text("mine")
    assert_user_error(invoke("report", source, "--out", out, "--quiet"), "'notes.md'", "which is no part of a report")
    assert (out / "notes.md").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report", "res"]


# --- Names read from results are data, never paths or code -------------------------------------------------


@pytest.mark.parametrize("name", ["../../../x", "/ABSOLUTE/x", "a/b"])
def test_an_experiment_name_from_results_never_writes_outside_out(tmp_path: Path, name: str) -> None:
    if name.startswith("/"):
        name = str(tmp_path / "x")
    source = results(tmp_path / "res", name)
    out = tmp_path / "a" / "b" / "c" / "report"
    before = files_under(tmp_path)
    report_of(source, out)
    made = {out, out.parent, out.parent.parent, tmp_path / "a"}  # --out and the parents it needed
    assert {p for p in files_under(tmp_path) - before if out not in p.parents} == made
    charts = [p.name for p in out.glob("*.png") if p.name != "overview_start_edge.png"]  # but the overview's own
    assert charts and all(c.startswith("_") and "/" not in c for c in charts)
    assert f"Experiment {name}: " in (out / "summary.md").read_text()  # still shown, as data


@pytest.mark.parametrize("game", ["render", "build", "charts", "spec", "index", "../../x", "Mystery", "a.b"])
def test_a_game_the_report_does_not_know_is_refused_in_one_line(tmp_path: Path, game: str) -> None:
    source = results(tmp_path / "res", game=game, title="Crafted", layout=None)  # a game's name in no path
    before = files_under(tmp_path)
    for args in (["--out", tmp_path / "d" / "report"], ["--json"]):
        result = invoke("report", source, *args)
        assert_user_error(result, f"is of game {game!r}, which the report does not know")
        assert result.stdout == ""
    assert files_under(tmp_path) == before


@pytest.mark.parametrize("game", ["../../x", "Mystery", "a.b", "a/b"])
def test_a_hive_layout_refuses_a_game_that_is_no_name_before_reading_a_path(tmp_path: Path, game: str) -> None:
    source = results(tmp_path / "res", title="Crafted")
    manifest = json.loads((source / "exp" / "manifest.json").read_text())
    (source / "exp" / "manifest.json").write_text(json.dumps({**manifest, "game": game}))
    result = invoke("report", source, "--json")
    assert_user_error(result, f"'game' must be a game's name (lowercase letters, digits and '_'), got {game!r}")


def test_a_part_holding_a_column_its_path_holds_is_refused_by_name(tmp_path: Path) -> None:
    """A hive part keeps its game and player count in its path: one that holds them too was made by hand."""
    import io

    from sim.dataset import fingerprint

    source = results(tmp_path / "res", title="Crafted")
    part = next((source / "exp" / "parts").rglob("*.parquet"))
    buffer = io.BytesIO()
    pl.read_parquet(part).with_columns(players=pl.lit(3, pl.Int8)).write_parquet(buffer)
    part.write_bytes(buffer.getvalue())
    manifest = json.loads((source / "exp" / "manifest.json").read_text())
    manifest["finished"][part.stem] |= fingerprint(buffer.getvalue())
    (source / "exp" / "manifest.json").write_text(json.dumps(manifest))
    result = invoke("report", source, "--json")
    assert_user_error(result, f"part {part.stem} holds a column its path holds too: it was not written by atelier")


# --- A killed report is finished or undone by the next ----------------------------------------------------------


def leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))


def test_a_report_killed_between_its_two_renames_is_finished_by_the_next(tmp_path: Path) -> None:
    source, out = results(tmp_path / "res"), tmp_path / "report"
    report_of(source, out)
    earlier = (out / "findings.json").read_text()
    second = results(tmp_path / "res2", "second")
    killed = atelier("report", second, "--out", out, "--quiet", patch=BETWEEN_THE_RENAMES)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert not out.exists()
    assert sorted(name.rsplit(".", 1)[1] for name in leftovers(out)) == ["old", "tmp"]
    (source / "exp" / "manifest.json").write_text("{")  # the next report is refused, and still finishes the move
    assert_user_error(invoke("report", source, "--out", out, "--quiet"), "manifest.json is unreadable")
    assert leftovers(out) == []
    assert (out / "findings.json").read_text() != earlier
    assert "Experiment second: " in (out / "summary.md").read_text()


def test_a_report_killed_while_drawing_leaves_nothing_after_the_next(tmp_path: Path) -> None:
    source, out = results(tmp_path / "res"), tmp_path / "report"
    report_of(source, out)
    earlier = sorted(p.name for p in out.iterdir())
    killed = atelier("report", source, "--out", out, "--quiet", patch=WHILE_DRAWING)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert sorted(p.name for p in out.iterdir()) == earlier
    assert len(leftovers(out)) == 1
    report_of(source, out)
    assert leftovers(out) == []
    assert sorted(p.name for p in out.iterdir()) == earlier


def test_a_report_killed_while_writing_a_new_folder_leaves_nothing_after_the_next(tmp_path: Path) -> None:
    source, out = results(tmp_path / "res"), tmp_path / "report"
    killed = atelier("report", source, "--out", out, "--quiet", patch=WHILE_DRAWING)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert not out.exists() and len(leftovers(out)) == 1
    report_of(source, out)
    assert leftovers(out) == [] and (out / MARKER).is_file()


def test_a_running_reports_folder_is_never_removed_by_another(tmp_path: Path) -> None:
    source, out = results(tmp_path / "res"), tmp_path / "report"
    running = tmp_path / ".report.0123abcd.tmp"  # another report's staging folder, which that report holds locked
    running.mkdir()
    (running / "index.html").write_text("half drawn")
    handle = os.open(running, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        report_of(source, out)
        assert (running / "index.html").read_text() == "half drawn"
    finally:
        os.close(handle)
    report_of(source, out)  # now it is what a killed report left
    assert leftovers(out) == []


# --- What the report prints and writes ---------------------------------------------------------------------


def test_a_question_is_shown_in_summary_md_as_written(tmp_path: Path) -> None:
    question = "Fair?  <script>alert(1)</script> <b>bold</b>\n## Injected\n[link](http://x) *star* _under_ `code` # 1"
    source, out = results(tmp_path / "res", question=question, headline=True), tmp_path / "report"
    report_of(source, out)
    summary = (out / "summary.md").read_text()
    tokens = MarkdownIt("commonmark").parse(summary)
    headings = [(t.tag, tokens[i + 1]) for i, t in enumerate(tokens) if t.type == "heading_open"]
    shown = [inline for tag, inline in headings if "Injected" in inline.content]
    assert [tag for tag, inline in headings if "Injected" in inline.content] == ["h3"]  # one heading, no new one
    assert [c.type for c in shown[0].children] == ["text"]  # no HTML, link, emphasis or code: text alone
    assert shown[0].children[0].content == " ".join(question.split())
    assert not [t for t in tokens if t.type in ("html_block", "html_inline")]


def test_report_json_prints_the_numbers_and_nothing_on_stderr(tmp_path: Path) -> None:
    unbounded = rows("unbounded").with_columns(  # numpy: "invalid value encountered in subtract"
        score=pl.when(pl.col("game_id") % 7 == 0).then(float("inf")).otherwise(pl.col("score").cast(pl.Float64)))
    write_experiment(tmp_path / "res" / "unbounded", [unbounded], "mystery_game")
    write_experiment(tmp_path / "res" / "one_game", [synthetic_bb(2, 1, seed=1).with_columns(  # "All-NaN slice"
        experiment=pl.lit("one_game"))], "broken_beautiful")
    result = atelier("report", tmp_path / "res", "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert {n["experiment"] for n in json.loads(result.stdout)["records"]} == {"unbounded", "one_game"}


@pytest.mark.parametrize("chosen", [None, ""])
@pytest.mark.parametrize("mode", ["--out", "--json"])
def test_a_report_writes_nothing_into_home_unless_mplconfigdir_names_a_folder(tmp_path: Path, chosen, mode) -> None:
    source, home = results(tmp_path / "res"), tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MPL", "XDG_"))}
    env["HOME"] = str(home)
    if chosen is not None:
        env["MPLCONFIGDIR"] = chosen
    args = ["--out", tmp_path / "report", "--quiet"] if mode == "--out" else ["--json"]
    result = atelier("report", source, *args, env=env)
    assert result.returncode == 0, result.stderr
    assert list(home.iterdir()) == []
