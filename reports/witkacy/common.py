"""What Witkacy's analyses share: the rows of the basic game, the lists the manifests record, the groups that have
a share, and how differences are written."""

import math

import polars as pl

from reports.analysis import GameData
from reports.spec import Measure

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
