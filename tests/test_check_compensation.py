"""docs/check_compensation.py re-scores the report's compensations from the Parquet parts with code of its own."""

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from resultsdir import write_experiment
from test_report import synthetic_games

from reports.build import build_report

SCRIPT = Path(__file__).resolve().parent.parent / "docs" / "check_compensation.py"


def mystery(players: int, games: int, seed: int, match: bool = False, lowest_wins: bool = True) -> pl.DataFrame:
    """A game without a report module; the start player has a planted edge (one piece fewer, lowest wins)."""
    rows = synthetic_games(players, games, seed, match).with_columns(game=pl.lit("mystery_game"))
    name = f"{'low' if lowest_wins else 'high'}{players}{'m' if match else ''}"
    rows = rows.with_columns(experiment=pl.lit(name))
    return rows if lowest_wins else rows.with_columns(score=20 - pl.col("score"))


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> tuple[Path, Path]:
    results = tmp_path_factory.mktemp("results")
    for rows, lowest_wins in ((mystery(2, 900, 1), True), (mystery(3, 900, 2), True),
                              (mystery(3, 900, 3, lowest_wins=False), False), (mystery(3, 900, 4, match=True), True)):
        write_experiment(results / rows["experiment"][0], [rows], "mystery_game", title="Mystery Game",
                         lowest_wins=lowest_wins)
    report = build_report(results, tmp_path_factory.mktemp("report")).parent
    return results, report


def run_check(results: Path, report: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), str(results), str(report)], capture_output=True, text=True,
                          timeout=120)


def test_every_compensation_that_claims_to_even_the_game_does_outside_the_report(checked):
    results, report = checked
    records = [r for r in json.loads((report / "findings.json").read_text())["records"]
               if r["metric"] == "compensation"]
    assert len(records) == 4 and sum(r["evens"] for r in records) >= 2
    done = run_check(results, report)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 5 and "FAILED" not in done.stdout
    assert lines[-1] == "4 compensations checked, 0 that claim to even the game fail"
    for record in records:
        [line] = [line for line in lines if line.startswith(f"{record['experiment']} at {record['players']}:")]
        assert ("(evens)" in line) == record["evens"]
        if record["evens"]:
            assert line.endswith("every interval holds 1/P")


def test_a_false_claim_that_no_compensation_is_needed_fails_the_check(checked, tmp_path):
    results, report = checked
    findings = json.loads((report / "findings.json").read_text())
    for r in findings["records"]:
        if r["metric"] == "compensation":
            r.update(points=[0.0] * r["players"], tie_order=None, evens=True)  # the planted edge left in place
    (tmp_path / "findings.json").write_text(json.dumps(findings))
    done = run_check(results, tmp_path)
    assert done.returncode == 1
    assert "FAILED" in done.stdout and "some interval misses 1/P" in done.stdout
