"""Which paintings get copied: each painting's share of the completed copies, by player count and by strategy,
against an even spread."""

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import Analysis, GameData, record
from reports.charts import bars_with_ci, legend_below, panels, save_chart
from reports.fmt import count, listing, pct, pct_ci
from reports.render import Chart, Finding, share_ci, table
from reports.spec import Measure, measured
from reports.witkacy.common import (
    BASIC_ONLY,
    NO_BASIC,
    basic_rows,
    by_strength,
    heatmap,
    names,
    ranked_shares,
    share_columns,
)


def shares(rows: pl.DataFrame, paintings: list[str], by: tuple[str, ...]) -> pl.DataFrame:
    """Per group of `by`: games, completed copies, and each painting's share of them (columns P, P_lo, P_hi,
    cluster-robust over deals; None where the group completed no copy)."""
    total = pl.sum_horizontal(pl.col(f"copies_{p}") for p in paintings)
    measures = [Measure(p, p, pl.col(f"copies_{p}"), total, share=True) for p in paintings]
    found = measured(rows, measures, by, everyone=False)
    copies = rows.group_by(by).agg(copies=total.sum())
    return found.join(copies, on=by).with_columns(
        pl.when(pl.col("copies") > 0).then(pl.col(c)).otherwise(None)
        for p in paintings for c in (p, f"{p}_lo", f"{p}_hi")).sort(list(by))


def painting_shares(data: GameData) -> dict | None:
    """Each painting's share of the completed copies per player count, and per player count and strategy
    (cluster-robust over deals)."""
    rows = basic_rows(data)
    if rows is None:
        return None
    paintings = names(data, "paintings")
    wide = rows.with_columns(pl.col("copies_by_painting").list.get(i).cast(pl.Int64).alias(f"copies_{p}")
                             for i, p in enumerate(paintings))
    return {"paintings": paintings, "by_count": shares(wide, paintings, ("players",)),
            "by_strategy": by_strength(shares(wide, paintings, ("players", "strategy")), data, "players")}


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


def painting_finding(result: dict, data: GameData) -> Finding:
    """The most and least copied paintings at each player count against an even spread, and the strategy whose
    copies lean most clearly towards one painting."""
    paintings, fair = result["paintings"], 1 / len(result["paintings"])
    counts = [r for r in result["by_count"].iter_rows(named=True) if r["copies"]]
    if not counts:
        return Finding("Which paintings get copied.", "No player completed a painting.")
    text = (f"An even spread gives each painting {pct(fair)} of the completed copies; "
            f"{'; '.join(painting_clause(r, paintings) for r in counts)}.")
    text += lean(result["by_strategy"], paintings)
    rows = [{"players": r["players"], **s} for r in counts for s in ranked_shares(r, paintings)]
    return Finding("Which paintings get copied.", text, table("", rows, ("Players", "players"), ("Painting", "name"),
                                                              *share_ci("Share of copies")),
                   tuple(painting_numbers(result, data)))


def painting_numbers(result: dict, data: GameData) -> list[dict]:
    """Every painting's share of the copies at each player count and in each strategy's copies, and the even
    share."""
    paintings = result["paintings"]
    even = 1 / len(paintings)
    out = [record(data, r["players"], "even_copy_share", even, even, even, r["games"], "exact")  # 1 / paintings
           for r in result["by_count"].iter_rows(named=True)]
    for frame, fields in ((result["by_count"], ()), (result["by_strategy"], ("strategy",))):
        for r in frame.iter_rows(named=True):
            out += [record(data, r["players"], "copy_share", r[p], r[f"{p}_lo"], r[f"{p}_hi"], r["games"],
                           r["method"], **{f: r[f] for f in fields}, painting=p) for p in paintings if r[p] is not None]
    return out


def painting_tables(result: dict, _) -> list:
    paintings = result["paintings"]
    return [
        table("Each painting's share of the completed copies by player count (95% intervals in brackets clustered "
              "by deal)", result["by_count"], ("Players", "players"), ("Copies", "copies", count),
              *share_columns(paintings)),
        table("Each painting's share of a strategy's completed copies by player count (95% intervals in brackets "
              "clustered by deal)", result["by_strategy"], ("Players", "players"), ("Strategy", "strategy"),
              ("Copies", "copies", count), *share_columns(paintings)),
    ]


def painting_chart(result: dict, data: GameData) -> Chart:
    """Left: each painting's share of the copies, one bar per player count, with the even share dashed; right: a
    heat map of the shares by strategy (and player count)."""
    paintings, by_count, by_strategy = result["paintings"], result["by_count"], result["by_strategy"]
    fig, axes = panels(2, 12.0, max(4.4, 1.6 + 0.42 * by_strategy.height), width_ratios=[1, 1.1])
    bars = {f"{r['players']} players": ([r[p] for p in paintings], [r[f"{p}_lo"] for p in paintings],
                                        [r[f"{p}_hi"] for p in paintings]) for r in by_count.iter_rows(named=True)}
    bars_with_ci(axes[0], paintings, bars)
    axes[0].axhline(1 / len(paintings), color="#555", linestyle="--", linewidth=1.2, label="even spread")
    axes[0].set(xlabel="Painting", ylabel="Share of completed copies", title="By player count")
    axes[0].yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    legend_below(fig, axes[0])
    grid = by_strategy.select(paintings).to_numpy().astype(float)
    several = by_count.height > 1
    labels = [f"{s}, {p} players" if several else s for s, p in by_strategy.select("strategy", "players").rows()]
    heatmap(fig, axes[1], grid, labels, paintings, "Share of the strategy's copies",
            max(0.01, float(np.nan_to_num(grid).max())))
    axes[1].set(xlabel="Painting", title="By strategy")
    fig.suptitle(f"{data.title}: which paintings get copied")
    return save_chart(fig, data.out_dir, f"{data.slug}_paintings.png",
                      "Each painting's share of all completed copies: left, one bar per player count with 95% "
                      "intervals clustered by deal (dashed: an even spread); right, the percentage of each "
                      "strategy's copies (strategies in order of win share; intervals in the table).")


def painting_intro(result: dict, _) -> str:
    return ("A completed painting is worth as many points as there are copies of it in all collections together. "
            f"Shares of all completed copies by painting ({listing(result['paintings'])}); an even spread gives each "
            f"{pct(1 / len(result['paintings']))}. The copies of one deal are tied together (the same shuffle under "
            "every seating), so intervals clustered by deal (cluster-robust). " + BASIC_ONLY)


PAINTINGS = Analysis("Which paintings get copied", painting_shares, intro=painting_intro, chart=painting_chart,
                     tables=painting_tables, finding=painting_finding, absent=NO_BASIC, leading_only=True)
