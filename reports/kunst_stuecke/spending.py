"""Kunst Stücke: how winning goes with the chips a player spent (the chips it started with, as the manifest's fact
`chips` records, minus `chips_left`), players grouped by chips spent."""

import polars as pl

from reports.analysis import GameData
from reports.fmt import listing, num, spread
from reports.kunst_stuecke.buckets import Buckets, labelled
from reports.kunst_stuecke.common import counts_phrase
from reports.spec import Measure

SPENT_LIMITS = (0, 1, 2, 4, 7, 10)  # the largest number of chips spent in each bucket but the last
SPENT_LABELS = ("0", "1", "2", "3–4", "5–7", "8–10", "11+")
SPENT = Measure("spent", "Chips spent", pl.col("spent"), metric="chips_spent")


def with_spent(data: GameData) -> pl.DataFrame:
    """rows plus `spent` (chips at the start, as the manifest records them, minus chips left) and `bucket`."""
    spent = pl.col("chips").cast(pl.Int64) - pl.col("chips_left").cast(pl.Int64)
    index = pl.sum_horizontal(*(pl.col("spent") > limit for limit in SPENT_LIMITS))
    return (data.with_facts(data.rows, "chips").with_columns(spent=spent)
            .with_columns(bucket_index=index.cast(pl.Int64)).with_columns(bucket=labelled(SPENT_LABELS)))


def spent_bounds(index: int) -> dict:
    """The fewest and most chips spent in a bucket (None: no most)."""
    lows, highs = (0, *(limit + 1 for limit in SPENT_LIMITS)), (*SPENT_LIMITS, None)
    return {"spent_min": lows[index], "spent_max": highs[index]}


def spenders(by_strategy: pl.DataFrame, data: GameData) -> str:
    """'planner and spoiler spent no chip, random 2.36 to 5.74 chips on average and slider 9.92 to 9.99'."""
    own = {s: by_strategy.filter(pl.col("strategy") == s) for s in data.order}
    never = [s for s, spent in own.items() if spent["most"].max() == 0]
    spending = [f"{s} {spread(spent['spent'].to_list(), num)}" for s, spent in own.items() if s not in never]
    if spending:
        spending[0] += " chips on average"
    return listing(([f"{listing(never)} spent no chip"] if never else []) + spending)


def spent_label(group: dict) -> str:
    return "1 chip" if group["bucket"] == "1" else f"{group['bucket']} chips"


def spending_sentence(buckets: Buckets, result: dict, data: GameData) -> str:
    """Who spends how many chips, and how the win share runs over the chips spent at each player count."""
    by_count = result["by_count"]
    if by_count["bucket"].n_unique() == 1:
        spent = by_count["bucket"][0]
        return (("No player spent a chip" if spent == "0" else f"Every player spent {spent} chips")
                + ", so spending cannot be set against winning here.")
    return (f"Who spends is the strategies' choice: {spenders(result['profile'], data)}{counts_phrase(data)}; "
            "so the groups by chips spent are made of different strategies (the table gives each group's). "
            f"{buckets.course(by_count, data)}")


SPENDING_TREND = {"rises": "rises with the chips spent", "falls": "falls with the chips spent",
                  "up and down": "goes up and down with the chips spent",
                  "uneven": "differs between the groups by chips spent but does not rise or fall steadily with them",
                  "flat": "does not differ clearly with the chips spent",
                  "higher": "is higher for those who spent more", "lower": "is lower for those who spent more",
                  "single": "cannot be followed over the chips spent (one group large enough)"}

SPENDING = Buckets(
    title="Chips spent and winning", label="Chips.", rows=with_spent, header="Chips spent", key="chips_spent",
    bounds=spent_bounds, sentence=spending_sentence, trend=SPENDING_TREND, verb="spent", phrase=spent_label,
    short=spent_label, tiles=False, profile=(SPENT,),
    profile_by=("players", "chips", "strategy"), profile_extra=(pl.col("spent").max().alias("most"),),
    profile_lead=(("Players", "players"), ("Strategy", "strategy"), ("Chips at the start", "chips"),
                  ("Most spent", "most")),
    profile_about=("strategy", "most"),
    profile_caption="Chips spent per player by player count and strategy ('all' = every player; 95% cluster-robust "
                    "intervals)",
    caption="Win share and target tiles correct by chips spent and player count (× fair is the win share over 1/P; "
            "95% cluster-robust intervals)",
    intro="Sliding a piece costs a chip. Players are grouped by the chips they spent (the chips they started with, as "
          "the manifest records, minus those left), at each player count. '× fair' is the win share over the fair "
          "share 1/P; intervals are cluster-robust intervals over deals. Who spends is up to the strategy, so this "
          "describes how spenders fare, not what a chip is worth: the chips sweep, where the experiments that differ "
          "only in chips are compared, measures that.",
    file="chips_spent", chart_title="chips spent against winning (95% cluster-robust intervals)",
    chart_caption="Per player count, by the chips a player spent (one per piece slid): the players' win share and "
                  "the share of their target tiles that came true; the dashed line is the fair share 1/P.")
