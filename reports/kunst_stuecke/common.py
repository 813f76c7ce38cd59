"""What several Kunst Stücke analyses share: the measures of a group of players (its win share over the fair share,
the share of its target tiles that came true, its score) and how they are shown."""

import math

import polars as pl

from reports.analysis import GameData
from reports.fmt import UNKNOWN, count
from reports.render import est, share_ci
from reports.spec import Measure, measured

VS_FAIR = Measure("vs_fair", "Win share × fair", pl.col("win"), 1 / pl.col("players"), metric="win_share_vs_fair")
CORRECT = Measure("correct", "Tiles correct", pl.col("targets_correct"), pl.col("targets_taken"),
                  metric="target_come_true_share", share=True)
SCORE = Measure("score", "Score", pl.col("score"), metric="mean_score")


def times(x: float) -> str:
    """A multiple of the fair share: '1.23×'."""
    return UNKNOWN if math.isnan(x) else f"{x:.2f}×"


def counts_phrase(data: GameData) -> str:
    """', by player count' where the data play several player counts, else ''."""
    return ", by player count" if len(data.player_counts) > 1 else ""


def standing(rows: pl.DataFrame, by: list[str], *more: Measure, everyone: bool = False) -> pl.DataFrame:
    """Per group of `by` (players among them), `measured`: the win share over the fair share 1/P (`vs_fair`), the
    share of the group's target tiles that came true (`correct`) and `more`, each with its cluster-robust interval;
    and the win share (`win`), the first over 1/P."""
    fair = 1 / pl.col("players").cast(pl.Float64)
    return (measured(rows, [VS_FAIR, CORRECT, *more], by, everyone)
            .with_columns(**{f"win{s}": pl.col(f"vs_fair{s}") * fair for s in ("", "_lo", "_hi")}))


STANDING = [("Player results", "n", count), *share_ci("Win share", "win", "win_lo", "win_hi"),  # standing()'s columns
            *est(VS_FAIR.label, "vs_fair", times), *CORRECT.columns()]
