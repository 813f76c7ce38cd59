"""findings.json as an interface (issue 30): every metric the report code records has a unit, every record a
documented method id with its parameters, and the same results give the same file, byte for byte."""

import ast
import json
from pathlib import Path

import polars as pl
from resultsdir import write_experiment
from test_report import synthetic_games

import reports
from reports.build import build_report
from reports.findings import UNIT, UNITS
from reports.stats import METHODS

RECORDERS = {"record": 2, "estimates": 2}  # a function that makes records, and the position of its metric argument


def recorded_metrics() -> set[str]:
    """Every metric named as a literal where the report code (a game's package too) makes a record or declares a
    recorded measure (spec.Measure's `metric`)."""
    found = set()
    for path in Path(reports.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            name = getattr(getattr(node, "func", None), "id", None)
            position = RECORDERS.get(name)
            if position is not None and len(node.args) > position and isinstance(node.args[position], ast.Constant):
                found.add(node.args[position].value)
            if name == "Measure":
                found |= {k.value.value for k in node.keywords
                          if k.arg == "metric" and isinstance(k.value, ast.Constant)}
    return found


def test_every_metric_the_report_records_has_a_unit():
    metrics = recorded_metrics()
    assert len(metrics) > 30
    assert sorted(metrics - UNIT.keys()) == []


def test_two_reports_of_the_same_results_write_the_same_findings_json(tmp_path):
    for players in (2, 3):
        rows = synthetic_games(players, 600, players).with_columns(pl.col("win").cast(pl.Float32))
        write_experiment(tmp_path / "results" / f"synthetic{players}", [rows], "kintsugi")
    first, second = (build_report(tmp_path / "results", tmp_path / name).parent / "findings.json"
                     for name in ("first", "second"))
    assert first.read_bytes() == second.read_bytes()
    findings = json.loads(first.read_text())
    assert [e["experiment"] for e in findings["experiments"]] == ["synthetic2", "synthetic3"]
    assert all(r["unit"] in UNITS for r in findings["records"])
    for r in findings["records"]:  # a method id, with its level and what a cluster is where it is an interval
        assert r["method"] in METHODS, r
        assert r["method"] in ("count", "exact") or (r["level"], r["cluster"]) == (0.95, "deal"), r
