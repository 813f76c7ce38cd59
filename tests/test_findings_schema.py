"""findings.json as an interface (issue 30): every metric the report code records has a unit."""

import ast
from pathlib import Path

import reports
from reports.findings import UNIT

RECORDERS = {"record": 2, "estimates": 2}  # a function that makes records, and the position of its metric argument


def recorded_metrics() -> set[str]:
    """Every metric named as a literal where the report code makes a record."""
    found = set()
    for path in Path(reports.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            position = RECORDERS.get(getattr(getattr(node, "func", None), "id", None))
            if position is not None and len(node.args) > position and isinstance(node.args[position], ast.Constant):
                found.add(node.args[position].value)
    return found


def test_every_metric_the_report_records_has_a_unit():
    metrics = recorded_metrics()
    assert len(metrics) > 30
    assert sorted(metrics - UNIT.keys()) == []
