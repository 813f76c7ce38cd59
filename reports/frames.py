"""Small helpers on result frames that every game's section uses."""

from __future__ import annotations

import polars as pl

GAME_KEY = ["experiment", "game_id"]  # identifies one game across experiments


def strategy_order(rows: pl.DataFrame) -> list[str]:
    """Strategies by win share relative to fair (1/P), best first, as in the strategy section."""
    ratio = (
        rows.group_by("strategy")
        .agg(ratio=pl.col("win").sum() / (1 / pl.col("players")).sum())
        .sort("ratio", "strategy", descending=[True, False])
    )
    return ratio["strategy"].to_list()


def groups(rows: pl.DataFrame, by: list[str]):
    """(key dict, group frame) pairs in sorted key order; one group, key {}, when by is empty."""
    if not by:
        yield {}, rows
        return
    for key, group in sorted(rows.partition_by(by, as_dict=True).items()):
        yield dict(zip(by, key)), group


def clear(lo: float, hi: float) -> bool:
    """A 95% interval that excludes zero."""
    return lo > 0 or hi < 0
