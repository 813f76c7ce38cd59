"""Completing paintings: how many players complete one, how many copies and at how many cards a copy, by player
count and strategy."""

import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GameData, groups, record
from reports.charts import aligned, bars_with_ci, finished_chart, panels
from reports.fmt import at_counts, listing, num, pct, spread
from reports.render import Chart
from reports.spec import EVERYONE, Measure, Metrics
from reports.witkacy.common import BASIC_ONLY, NO_BASIC, basic_rows, defined


def seat_make_up(rows: pl.DataFrame, data: GameData) -> tuple[str, list[dict]]:
    """How the player counts compare in make-up, in words (the same strategies in equal numbers, or each count's
    shares of the seats), and the records of the shares it states."""
    seats = (rows.group_by("players", "strategy").agg(seats=pl.len(), games=pl.col("game_id").n_unique())
             .with_columns(share=pl.col("seats") / pl.col("seats").sum().over("players")).sort("players", "strategy"))
    pools = {p: tuple(g["strategy"]) for (p,), g in seats.partition_by("players", as_dict=True).items()}
    even = seats.group_by("players").agg(pl.col("seats").n_unique() == 1)["seats"].all()
    if even and len(set(pools.values())) == 1:
        return (f"Every player count seats the same strategies ({listing(next(iter(pools.values())))}) in equal "
                "numbers: the counts differ in the size of the table, not in who plays.", [])
    shares = [f"at {p} players " + listing(f"{r['strategy']} {pct(r['share'])}" for r in g.iter_rows(named=True))
              for (p,), g in sorted(seats.partition_by("players", as_dict=True).items())]
    numbers = [record(data, r["players"], "strategy_seat_share", r["share"], r["share"], r["share"], r["games"],
                      "count", strategy=r["strategy"]) for r in seats.iter_rows(named=True)]
    return f"The player counts differ in make-up (shares of the seats): {'; '.join(shares)}.", numbers


def strategy_completion(strategies: pl.DataFrame) -> str:
    """The strategies that complete the most and the fewest copies, at each player count."""
    ends = []
    for _, group in groups(strategies, ["players"]):
        ranked = group.sort("copies", "strategy", descending=[True, False])
        ends.append((ranked.row(0, named=True), ranked.row(-1, named=True)))
    if len({(most["strategy"], fewest["strategy"]) for most, fewest in ends}) == 1:
        most, fewest = ends[0]
        return (f"{most['strategy']} completes the most copies per player, {listing(num(m['copies']) for m, _ in ends)}"
                f" at {at_counts([m['players'] for m, _ in ends])}, and {fewest['strategy']} the fewest, "
                f"{listing(num(f['copies']) for _, f in ends)}, {listing(pct(f['completed']) for _, f in ends)} of "
                "its players completing one or more")
    return "; ".join(f"at {most['players']} players {most['strategy']} completes the most copies per player, "
                     f"{num(most['copies'])}, and {fewest['strategy']} the fewest, {num(fewest['copies'])}"
                     for most, fewest in ends)


def completion_sentence(result: pl.DataFrame, data: GameData) -> str:
    """How many players complete a painting and how many copies, by player count (with how the counts differ in
    make-up); at each count, which strategy completes most and fewest."""
    overall = result.filter(pl.col("strategy") == EVERYONE).sort("players")
    per_copy = overall["cards_per_copy"].fill_nan(None).drop_nulls()
    cards = f", playing {spread(per_copy, num)} cards per copy" if len(per_copy) else ""
    counts = overall["players"].to_list()
    text = (f"{spread(overall['completed']).capitalize()} of players complete at least one painting, and players "
            f"complete {spread(overall['copies'], num)} copies each on average{cards}, at {at_counts(counts)}"
            f"{' (each count in the table)' if len(counts) > 1 else ''}.")
    if len(counts) > 1:
        text += " " + seat_make_up(basic_rows(data), data)[0]
    strategies = result.filter(pl.col("strategy") != EVERYONE)
    if strategies["strategy"].n_unique() > 1:
        text += f" Of the strategies, {strategy_completion(strategies)}."
    return text


def make_up_records(result: pl.DataFrame, data: GameData) -> list[dict]:
    return seat_make_up(basic_rows(data), data)[1] if result["players"].n_unique() > 1 else []


COMPLETION_INTRO = ("A painting is completed when four visible quarters of it form a 2×2 block in a collection; "
                    "a collection may hold several copies of one painting. Per player: whether they complete at least "
                    "one painting, how many copies, and the cards they added to their collection per completed copy "
                    "(the ratio of the totals); 95% intervals clustered by deal. " + BASIC_ONLY)

def completion_chart(result: pl.DataFrame, data: GameData) -> Chart:
    """Two panels of horizontal bars per strategy, one bar per player count: the share completing a painting and
    completed copies per player."""
    labels = [s for s in [EVERYONE, *data.order] if s in result["strategy"]]
    counts = result["players"].unique().sort().to_list()
    fig, axes = panels(2, 11.0, 2.2 + 0.3 * len(labels) * max(2, len(counts)), sharey=True)
    for ax, (column, xlabel) in zip(axes, [("completed", "Players completing at least one painting"),
                                           ("copies", "Completed copies per player")]):
        bars = {}
        for players in counts:
            panel = aligned(result.filter(pl.col("players") == players), "strategy", labels)
            bars[f"{players} players"] = (panel[column], panel[f"{column}_lo"], panel[f"{column}_hi"])
        bars_with_ci(ax, labels, bars, horizontal=True)
        ax.set_xlabel(xlabel)
    axes[0].set_xlim(0, 1)
    axes[0].xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[0], f"{data.title}: completing paintings (95% intervals)",
                          data.out_dir, f"{data.slug}_completion.png",
                          "Per strategy ('all' = every player, strategies in order of win share), one bar per player "
                          "count: the share of players who complete at least one painting (left) and the completed "
                          "copies per player (right), with 95% intervals clustered by deal.")


COMPLETION = Metrics(
    "Completing paintings", (
        Measure("completed", "Complete one or more", pl.col("paintings") > 0, metric="completion_share", share=True),
        Measure("copies", "Copies per player", pl.col("paintings"), metric="copies_per_player"),
        Measure("cards_per_copy", "Cards per copy", pl.col("cards_played"), pl.col("paintings"),
                metric="cards_per_copy")),
    completion_sentence, rows=basic_rows, overall=True, recorded=defined, more=make_up_records,
    caption="Completed paintings by player count and strategy ('all' = every player; 95% intervals clustered by "
            "deal)",
    draw=completion_chart, leading_only=True,
    intro=COMPLETION_INTRO, absent=NO_BASIC).analysis()
