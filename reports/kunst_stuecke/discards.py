"""Kunst Stücke: the pieces a player discards instead of placing (`discards`), per player count and strategy, as a
count and as a share of the pieces each player is dealt (the manifest's fact `pieces_each`)."""

import polars as pl

from reports.analysis import GameData, groups
from reports.fmt import by_phrase, num, spread
from reports.kunst_stuecke.common import counts_phrase
from reports.spec import EVERYONE, Measure, Metrics

DISCARDED = Measure("discards", "Discarded", pl.col("discards"), metric="pieces_discarded")
SHARE = Measure("share", "Share of pieces", pl.col("discards"), pl.col("pieces_each"), share=True)


def extremes(frame: pl.DataFrame) -> pl.DataFrame:
    """Per player count, the strategy that discards most, then the one that discards fewest; none where one
    strategy played."""
    strategies = frame.filter(pl.col("strategy") != EVERYONE)
    if strategies["strategy"].n_unique() < 2:
        return strategies.clear()
    ranked = [(group.sort("discards", "strategy", descending=[True, False]), group.sort("discards", "strategy"))
              for _, group in groups(strategies, ["players"])]
    return pl.concat([side.head(1) for pair in ranked for side in pair])


def discard_sentence(frame: pl.DataFrame, data: GameData) -> str:
    """How many pieces players discard, and which strategy discards most and fewest at each player count."""
    overall = frame.filter(pl.col("strategy") == EVERYONE)
    text = (f"Players discard {spread(overall['discards'].to_list(), num)} pieces each on average, "
            f"{spread(overall['share'].to_list())} of their pieces{counts_phrase(data)}.")
    named = list(extremes(frame).iter_rows(named=True))
    if not named:
        return text
    pairs = list(zip(named[::2], named[1::2]))
    parts = [f"{most['strategy']} {num(most['discards'])} and {fewest['strategy']} {num(fewest['discards'])} at "
             f"{most['players']} players" for most, fewest in pairs]
    apart = {most["players"]: "clearly apart" if most["discards_lo"] > fewest["discards_hi"] else "not clearly apart"
             for most, fewest in pairs}
    return (f"{text} By strategy, the most and the fewest: {'; '.join(parts)}. The two are "
            f"{by_phrase(apart, data.player_counts)}.")


def named(frame: pl.DataFrame, *_) -> pl.DataFrame:
    """The groups the finding states: every player, then the strategies that discard most and fewest."""
    return pl.concat([frame.filter(pl.col("strategy") == EVERYONE), extremes(frame)])


DISCARDS = Metrics(
    "Discards", (DISCARDED, SHARE), discard_sentence,
    caption="Pieces discarded per player by player count and strategy ('all' = every player; 95% cluster-robust "
            "intervals)",
    rows=lambda data: data.with_facts(data.rows, "pieces_each"), by=("players", "pieces_each", "strategy"),
    overall=True, recorded=named, about={"strategy": "strategy", "pieces_each": "pieces_each", "share": "share"},
    charted=("discards",), leading_only=True, chart_title="pieces discarded per player (95% cluster-robust intervals)",
    chart_caption="Mean pieces a player discards instead of placing, by strategy and player count; 'all' is every "
                  "player, strategies in order of win share.",
    intro="A player may discard a piece instead of placing it (it leaves the game). Means per player with 95% "
          "cluster-robust intervals over deals; the share is of the pieces each player is dealt.")

