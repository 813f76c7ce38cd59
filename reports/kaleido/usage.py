"""Boards placed and white tiles used, against what each player has: by player count, and which strategy places
the most boards and uses the fewest white tiles."""

import numpy as np
import polars as pl

from reports.analysis import Analysis, GameData
from reports.charts import aligned, new_figure, palette, save_chart
from reports.fmt import count, listing, spread
from reports.render import Chart, Finding, table
from reports.spec import EVERYONE, Measure, leader, leaders, measure_records, measure_table, measured

BOARDS = Measure("boards", "Boards placed", pl.col("boards_placed"), metric="boards_placed")
WHITES = Measure("whites", "White tiles used", pl.col("whites_used"), metric="white_tiles_used")
TURNS = Measure("turns", "Own tiles placed", pl.col("turns"))
LEADS = ((BOARDS, True, "places the most boards", "boards"), (WHITES, False, "uses the fewest white tiles",
                                                              "white tiles"))  # measure, largest, what, noun


def board_usage(data: GameData) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player): mean boards placed, white tiles used and own tiles
    placed (cluster-robust intervals), each player's boards and white tiles (the manifest's facts) and the share
    of them used."""
    each = {f"{kind}_each": pl.col("players").replace_strict({p: data.fact(f"{kind}_each", p)
                                                              for p in data.player_counts})
            for kind in ("boards", "whites")}
    return measured(data.rows, (BOARDS, WHITES, TURNS)).with_columns(**each).with_columns(
        boards_used=pl.col("boards") / pl.col("boards_each"), whites_used=pl.col("whites") / pl.col("whites_each"))


def usage_finding(usage: pl.DataFrame, data: GameData) -> Finding:
    """Boards and white tiles used, as a share of what each player has; which strategy clearly places the most
    boards and uses the fewest white tiles."""
    overall = usage.filter(pl.col("strategy") == EVERYONE)
    text = (f"Players place {spread(overall['boards_used'])} of their boards and {spread(overall['whites_used'])} of "
            "their white tiles, by player count.")
    stated = [overall]
    if usage.filter(pl.col("strategy") != EVERYONE)["strategy"].n_unique() > 1:
        phrases = []
        for measure, largest, what, noun in LEADS:
            phrase, rows = usage_leader(usage, measure, largest, what, noun, data.player_counts)
            phrases.append(phrase)
            stated.append(rows)
        text += f" By strategy, each over the games it played: {phrases[0]}; {phrases[1]}."
    return Finding("Boards and white tiles.", text, table(
        "", overall, ("Players", "players"), ("Boards each", "boards_each"), *BOARDS.columns(),
        ("White tiles each", "whites_each"), *WHITES.columns()), tuple(usage_records(data, pl.concat(stated))))


def usage_leader(usage: pl.DataFrame, measure: Measure, largest: bool, what: str, noun: str,
                 counts: list[int]) -> tuple[str, pl.DataFrame]:
    """spec.leader for boards or white tiles, with the share of its own the leader uses where one strategy leads
    at every player count; and the rows whose numbers it states."""
    phrase = leader(usage, measure.name, counts, what, largest)
    names = set(leaders(usage.filter(pl.col("strategy") != EVERYONE), measure.name, largest).values())
    if len(names) != 1 or None in names:
        return phrase, usage.clear()
    rows = usage.filter(pl.col("strategy") == names.pop())
    return f"{phrase} ({spread(rows[f'{measure.name}_used'])} of its {noun})", rows


def usage_records(data: GameData, usage: pl.DataFrame) -> list[dict]:
    """Per row (player count, and 'all' or a strategy): mean boards placed and white tiles used, with each player's
    allotment and the share of it used."""
    return [r for row in usage.iter_slices(1) for measure in (BOARDS, WHITES)
            for r in measure_records(data, row, (measure,), strategy="strategy",
                                     **{f"{measure.name}_each": f"{measure.name}_each",
                                        "share_used": f"{measure.name}_used"})]


def usage_table(usage: pl.DataFrame, _) -> list:
    return [measure_table("Boards placed, white tiles used and own tiles placed per player ('all' = every player; 95% "
                          "intervals clustered by deal)", usage, (BOARDS, WHITES, TURNS), ("Players", "players"),
                          ("Strategy", "strategy"), ("Player results", "n", count), ("Boards each", "boards_each"))]


def usage_intro(usage: pl.DataFrame, _) -> str:
    each = usage.group_by("players").agg(pl.col("boards_each", "whites_each").first()).sort("players")
    return ("Each player has " + listing(f"{r['boards_each']} boards and {r['whites_each']} white tiles at "
                                         f"{r['players']} players" for r in each.iter_rows(named=True))
            + "; a board must be placed when every hole is full at the start of the player's turn. Means per player "
              "with 95% intervals clustered by deal; 'own tiles placed' counts the player's coloured tiles "
              "(one per turn).")


def usage_chart(usage: pl.DataFrame, data: GameData) -> Chart:
    """Horizontal bars with 95% intervals: boards placed (top row) and white tiles used (bottom row) per
    strategy, one column per player count; the dashed line is what each player has."""
    labels, counts, colours = [EVERYONE, *data.order], data.player_counts, palette(2)
    fig = new_figure(3.3 * len(counts) + 1.8, 2.0 + 0.62 * len(labels))
    axes = fig.subplots(2, len(counts), sharey=True, sharex=True, squeeze=False)
    for column, players in enumerate(counts):
        panel = aligned(usage.filter(pl.col("players") == players), "strategy", labels)
        for row, (measure, what) in enumerate([("boards", "Boards placed"), ("whites", "White tiles used")]):
            ax = axes[row, column]
            values, lo, hi = (panel[c].to_numpy().astype(float) for c in (measure, f"{measure}_lo", f"{measure}_hi"))
            ax.barh(np.arange(len(labels)), np.nan_to_num(values), height=0.7, color=colours[row],
                    xerr=np.nan_to_num([values - lo, hi - values]), ecolor="#333", capsize=3,
                    error_kw={"elinewidth": 1})
            ax.axvline(data.fact(f"{measure}_each", players), color="#555", linestyle="--", linewidth=1.2)
            ax.set(yticks=np.arange(len(labels)), yticklabels=labels, ylim=(len(labels) - 0.5, -0.5))
            ax.set_xlabel(what)
            if row == 0:
                ax.set_title(f"{players} players")
    axes[0, 0].set_xlim(0, 0.3 + max(data.fact(f"{m}_each", p) for m in ("boards", "whites") for p in counts))
    fig.suptitle(f"{data.title}: boards placed and white tiles used per player (95% intervals clustered by deal)")
    return save_chart(fig, data.out_dir, f"{data.slug}_boards_whites.png",
                      "Mean boards placed (top) and white tiles used (bottom) per player, by strategy and player "
                      "count; the dashed line is what each player has. 'all' is every player.")


ANALYSIS = Analysis("Boards placed and white tiles used", board_usage, intro=usage_intro, chart=usage_chart,
                    tables=usage_table, finding=usage_finding, leading_only=True)
