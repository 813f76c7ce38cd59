"""Which paintings get copied: each painting's share of the completed copies, by player count and by strategy,
against an even spread."""

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GameData, record
from reports.charts import bars_with_ci, legend_below, panels, save_chart
from reports.fmt import listing, pct, pct_ci
from reports.render import Chart
from reports.spec import EVERYONE, Measure, Metrics
from reports.witkacy.common import (
    BASIC_ONLY,
    NO_BASIC,
    basic_rows,
    by_strength,
    defined,
    heatmap,
    names,
    ranked_shares,
    strategy_labels,
)


def copy_shares(data: GameData) -> tuple[Measure, ...]:
    """Each painting's share of the completed copies (none where a group completed no copy)."""
    copies = pl.col("copies_by_painting")
    return tuple(Measure(p, p, copies.list.get(i).cast(pl.Int64), copies.list.sum(), metric="copy_share", share=True)
                 for i, p in enumerate(names(data, "paintings")))


def off_even(top: dict, bottom: dict) -> str:
    """Whether the most and least copied paintings' intervals exclude an even spread's share (field `fair`)."""
    above, below = top["lo"] > top["fair"], bottom["hi"] < bottom["fair"]
    if above and below:
        return "both intervals exclude the even share"
    if above or below:
        return f"only {(top if above else bottom)['name']}'s interval excludes the even share"
    return "neither interval excludes the even share"


def painting_clause(row: dict, paintings: list[str]) -> str:
    """At one player count: the most and least copied paintings with their intervals, against an even spread."""
    ranked = [{**s, "fair": 1 / len(paintings)} for s in ranked_shares(row, paintings)]
    top, bottom = ranked[0], ranked[-1]
    return (f"at {row['players']} players {top['name']} is copied most ({pct(top['share'])} of the completed "
            f"copies, 95% CI {pct_ci(top['lo'], top['hi'])}) and {bottom['name']} least ({pct(bottom['share'])}, "
            f"{pct_ci(bottom['lo'], bottom['hi'])}): {off_even(top, bottom)}")


def lean(by_strategy: pl.DataFrame, paintings: list[str]) -> str:
    """Where several strategies played: the one strategy's share of one painting whose interval lies highest (its
    lower end the largest), against an even spread."""
    found = [{**s, "strategy": r["strategy"], "players": r["players"]} for r in by_strategy.iter_rows(named=True)
             for s in ranked_shares(r, paintings)]
    if len({s["strategy"] for s in found}) < 2:
        return ""
    top = max(found, key=lambda s: s["lo"])
    side = "above" if top["lo"] > 1 / len(paintings) else "not above"
    return (f" The highest share of one painting in one strategy's copies (by its interval's lower end): "
            f"{top['strategy']}'s {top['name']} at {top['players']} players, {pct(top['share'])} (95% CI "
            f"{pct_ci(top['lo'], top['hi'])}), {side} the even share.")


def painting_sentence(frame: pl.DataFrame, data: GameData) -> str:
    """The most and least copied paintings at each player count against an even spread, and the strategy whose
    copies lean most clearly towards one painting."""
    paintings = names(data, "paintings")
    counts = [r for r in frame.filter(pl.col("strategy") == EVERYONE).iter_rows(named=True)
              if ranked_shares(r, paintings)]
    if not counts:
        return "No player completed a painting."
    return (f"An even spread gives each painting {pct(1 / len(paintings))} of the completed copies; "
            f"{'; '.join(painting_clause(r, paintings) for r in counts)}."
            + lean(frame.filter(pl.col("strategy") != EVERYONE), paintings))


def even_share(frame: pl.DataFrame, data: GameData) -> list[dict]:
    """The even share, 1 / paintings, at each player count."""
    even = 1 / len(names(data, "paintings"))
    return [record(data, r["players"], "even_copy_share", even, even, even, r["games"], "exact")
            for r in frame.filter(pl.col("strategy") == EVERYONE).iter_rows(named=True)]


def painting_intro(_, data: GameData) -> str:
    paintings = names(data, "paintings")
    return ("A completed painting is worth as many points as there are copies of it in all collections together. "
            f"Shares of all completed copies by painting ({listing(paintings)}); an even spread gives each "
            f"{pct(1 / len(paintings))}. The copies of one deal are tied together (the same shuffle under every "
            "seating), so intervals clustered by deal (cluster-robust). " + BASIC_ONLY)


def painting_chart(frame: pl.DataFrame, data: GameData) -> Chart:
    """Left: each painting's share of the copies, one bar per player count, with the even share dashed; right: a
    heat map of the shares by strategy (and player count)."""
    paintings, by_count, by_strategy = names(data, "paintings"), frame.filter(pl.col("strategy") == EVERYONE), \
        by_strength(frame, data)
    fig, axes = panels(2, 12.0, max(4.4, 1.6 + 0.42 * by_strategy.height), width_ratios=[1, 1.1])
    bars = {f"{r['players']} players": ([r[p] for p in paintings], [r[f"{p}_lo"] for p in paintings],
                                        [r[f"{p}_hi"] for p in paintings]) for r in by_count.iter_rows(named=True)}
    bars_with_ci(axes[0], paintings, bars)
    axes[0].axhline(1 / len(paintings), color="#555", linestyle="--", linewidth=1.2, label="even spread")
    axes[0].set(xlabel="Painting", ylabel="Share of completed copies", title="By player count")
    axes[0].yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    legend_below(fig, axes[0])
    grid = by_strategy.select(paintings).to_numpy().astype(float)
    heatmap(fig, axes[1], grid, strategy_labels(by_strategy), paintings, "Share of the strategy's copies",
            max(0.01, float(np.nan_to_num(grid).max())))
    axes[1].set(xlabel="Painting", title="By strategy")
    fig.suptitle(f"{data.title}: which paintings get copied")
    return save_chart(fig, data.out_dir, f"{data.slug}_paintings.png",
                      "Each painting's share of all completed copies: left, one bar per player count with 95% "
                      "intervals clustered by deal (dashed: an even spread); right, the percentage of each "
                      "strategy's copies (strategies in order of win share; intervals in the table).")


PAINTINGS = Metrics(
    "Which paintings get copied", copy_shares, painting_sentence, rows=basic_rows, overall=True, recorded=defined,
    named="painting", more=even_share,
    caption="Each painting's share of the completed copies by player count and strategy ('all' = every player; 95% "
            "intervals clustered by deal)",
    draw=painting_chart, leading_only=True,
    intro=painting_intro, absent=NO_BASIC).analysis()
