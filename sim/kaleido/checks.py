"""Kaleido's test data (sim/checks.py): the scoring Params at the limits validation allows."""

from __future__ import annotations

from pathlib import Path

from sim.checks import Checks, Edge

TOP = {"first": 1_000_000, "second": 1_000_000, "tie_pool": 1_000_000, "monochrome": 1_000_000}


def edges(folder: Path) -> list[Edge]:
    return [(None, TOP), (None, {**dict.fromkeys(TOP, 0), "monochrome_with_white": True})]


CHECKS = Checks(edges=edges)
