"""What Kaleido's analyses share: the two strategies the rotation comparison pairs, and games as rows."""

import polars as pl

from reports.analysis import GAME_KEY
from reports.spec import EVERYONE
from reports.stats import cluster_columns

ROTATOR, BASE = "rotator", "greedy"  # rotator plays exactly like greedy but turns the boards it scores
# shared? spec.measured sorts 'all' first but leaves the strategies after it in no fixed order
BY_STRATEGY = ("players", pl.col("strategy") != EVERYONE, "strategy")


def game_rows(rows: pl.DataFrame, **columns: pl.Expr) -> pl.DataFrame:  # shared?
    """One row per game: its players, its cluster columns and `columns` (expressions over its rows)."""
    return rows.group_by(GAME_KEY).agg(pl.col(*cluster_columns(rows)).first(), **columns)
