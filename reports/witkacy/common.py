"""What Witkacy's analyses share: the rows of the basic game, the lists the manifests record, the groups that have
a share, and how differences are written."""

import math

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GameData
from reports.spec import EVERYONE, Measure

BASIC_ONLY = ("Experiments that play the Advanced Variant are left out here; it is compared with the basic game "
              "where the game's experiments are compared.")
NO_BASIC = "Every experiment here plays the Advanced Variant; this part describes the basic game."


def signed(x: float, digits: int = 2) -> str:
    """A signed difference: '+1.25'."""
    return f"{x:+.{digits}f}"


def signed_ci(lo: float, hi: float) -> str:
    """An interval of signed differences: '-0.50 to +1.25'."""
    return f"{lo:+.2f} to {hi:+.2f}"


def names(data: GameData, fact: str) -> list[str]:
    """A list the manifests record (the paintings, the actions), as at the smallest player count."""
    return list(data.fact(fact, data.player_counts[0]))


def basic_rows(data: GameData) -> pl.DataFrame | None:
    """The rows of the experiments that play the basic rules, not the Advanced Variant (None where there are none)."""
    rows = data.with_facts(data.rows, "advanced").filter(~pl.col("advanced"))
    return None if rows.is_empty() else rows


def defined(frame: pl.DataFrame, measure: Measure, _=None) -> pl.DataFrame:
    """The groups that have the measure (a group that completes no copy has no share of the copies to record)."""
    return frame.filter(pl.col(measure.name).is_not_nan())


def ranked_shares(row: dict, names: list[str]) -> list[dict]:
    """The shares (columns NAME, NAME_lo, NAME_hi) of one row as records, largest first; shares of nothing left out."""
    shares = [{"name": n, "share": row[n], "lo": row[f"{n}_lo"], "hi": row[f"{n}_hi"]} for n in names
              if not math.isnan(row[n])]
    return sorted(shares, key=lambda s: -s["share"])


def by_strength(frame: pl.DataFrame, data: GameData) -> pl.DataFrame:
    """The strategies' rows (not every player's), strongest first, then by player count."""
    order = [s for s in data.order if s in frame["strategy"]]
    return (frame.filter(pl.col("strategy") != EVERYONE)
            .with_columns(rank=pl.col("strategy").replace_strict(order, range(len(order)), default=len(order)))
            .sort("rank", "players").drop("rank"))


def heatmap(fig, ax, grid: np.ndarray, rows: list[str], columns: list[str], label: str, top: float = 1.0) -> None:
    """Shares as a blue heat map from 0 to `top`, with their percentages written in."""
    image = ax.imshow(grid, cmap="Blues", vmin=0, vmax=top, aspect="auto")
    for (i, j), share in np.ndenumerate(grid):
        if not np.isnan(share):
            ax.text(j, i, f"{100 * share:.0f}", ha="center", va="center", fontsize="small",
                    color="white" if share > 0.6 * top else "black")
    ax.set_xticks(range(len(columns)), columns)
    ax.set_yticks(range(len(rows)), rows)
    ax.grid(False)
    fig.colorbar(image, ax=ax, shrink=0.8, format=PercentFormatter(1.0, decimals=0)).set_label(label)


def strategy_labels(frame: pl.DataFrame) -> list[str]:
    """A heat map's row labels: the strategy, and the player count where the frame holds several."""
    several = frame["players"].n_unique() > 1
    return [f"{s}, {p} players" if several else s for s, p in frame.select("strategy", "players").rows()]
