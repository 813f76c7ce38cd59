"""Mid-game against end-game points: how much of the score the end-game hexagons bring, which strategy leans on
them most, and how often they change who wins against mid-game points alone."""

import math

import numpy as np
import polars as pl

from reports.analysis import GAME_KEY, Analysis, GameData
from reports.charts import aligned, finished_chart, palette, panels
from reports.fmt import count, spread
from reports.render import Chart, Finding, share_ci, table
from reports.spec import EVERYONE, Measure, leader, leaders, measure_records, measure_table, measured, per_game

MID, END = pl.col("midgame_points"), pl.col("endgame_points")
SHARE = Measure("share", "End-game share", END, MID + END, metric="endgame_points_share", share=True)
SPLIT = (Measure("mid", "Mid-game points", MID), Measure("end", "End-game points", END),
         Measure("score", "Score", MID + END), SHARE)
COMEBACK = Measure("rate", "Won by a player behind on mid-game points", pl.col("comeback"), metric="comeback_share",
                   share=True)
SETTLED = Measure("settled_rate", "Tie for the mid-game lead broken", pl.col("settled"),
                  metric="midgame_tie_broken_share", share=True)


def endgame_decides(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count, how the end-game hexagons change the result against mid-game points alone: games
    won by a player who was behind on mid-game points (`comeback`: rate with its interval, and comebacks), and games
    whose mid-game lead was tied and the end-game hexagons settled it (settled_rate with its interval, and
    settled)."""
    leads = pl.col("midgame_points") == pl.col("midgame_points").max().over(GAME_KEY)
    games = (per_game(rows.with_columns(leader=leads, winner=pl.col("win") > 0),
                       comeback=(pl.col("winner") & ~pl.col("leader")).any(),
                       changed=(pl.col("leader") != pl.col("winner")).any())
             .with_columns(settled=pl.col("changed") & ~pl.col("comeback")))
    counts = games.group_by("players").agg(comebacks=pl.col("comeback").sum(), settled=pl.col("settled").sum())
    return measured(games, (COMEBACK, SETTLED), ("players",), everyone=False).join(counts, on="players",
                                                                                 maintain_order="left")


def points(data: GameData) -> dict:
    return {"split": measured(data.rows, SPLIT), "decided": endgame_decides(data.rows)}


def point_finding(result: dict, data: GameData) -> Finding:
    """How much of the score comes from the end-game hexagons, which strategy takes the largest share of its points
    from them, and how often they change who wins."""
    split, decided = result["split"], result["decided"]
    overall = split.filter(pl.col("strategy") == EVERYONE)
    text = f"The end-game hexagons bring {spread(overall['share'])} of all points, by player count"
    strategies = split.filter(pl.col("strategy") != EVERYONE)
    picks = leaders(strategies, "share") if strategies["strategy"].n_unique() > 1 else {}
    if picks:
        text += ("; of the strategies, each over the games it played, "
                 + leader(split, "share", data.player_counts, "takes the largest share of its points from them"))
    text += (f". A player behind on mid-game points wins {spread(decided['rate'])} of games, and in another "
             f"{spread(decided['settled_rate'])} the hexagons break a tie for the mid-game lead.")
    rows = overall.drop("games", "method", "n").join(decided, on="players", maintain_order="left").with_columns(
        leader=pl.col("players").replace_strict(picks, default=None, return_dtype=pl.String))
    return Finding("Points.", text, table("", rows, ("Players", "players"), *SHARE.columns(),
                                          ("Largest end-game share", "leader"),
                                          *share_ci("Comebacks", "rate", "rate_lo", "rate_hi"),
                                          *share_ci("Ties broken", "settled_rate", "settled_rate_lo",
                                                    "settled_rate_hi")),
                   tuple(point_records(data, rows)))


def point_records(data: GameData, rows: pl.DataFrame) -> list[dict]:
    """Per player count: the end-game share of all points, comebacks and ties for the mid-game lead broken."""
    return [r for row in rows.iter_slices(1)
            for r in (*measure_records(data, row, (SHARE,)),
                      *measure_records(data, row, (COMEBACK,), comebacks="comebacks"),
                      *measure_records(data, row, (SETTLED,), settled="settled"))]


def point_tables(result: dict, _) -> list:
    return [
        measure_table("Mid-game and end-game points per player by player count and strategy ('all' = every player; "
                      "95% intervals clustered by deal)", result["split"], SPLIT, ("Players", "players"),
                      ("Strategy", "strategy"), ("Player results", "n", count)),
        measure_table("What the end-game hexagons change, against mid-game points alone", result["decided"],
                      (COMEBACK, SETTLED), ("Players", "players"), ("Games", "games", count)),
    ]


def point_split_chart(result: dict, data: GameData) -> Chart:
    """Stacked horizontal bars: mean mid-game and end-game points per strategy, one panel per player count;
    the end-game share is written at the end of each bar."""
    split, labels, counts, colours = result["split"], [EVERYONE, *data.order], data.player_counts, palette(2)
    fig, axes = panels(len(counts), 3.6 * len(counts) + 1.8, 2.2 + 0.4 * len(labels), sharey=True)
    positions = np.arange(len(labels))
    for ax, players in zip(axes, counts):
        panel = aligned(split.filter(pl.col("players") == players), "strategy", labels)
        mid, end, share = (panel[c].to_numpy().astype(float) for c in ("mid", "end", "share"))
        ax.barh(positions, np.nan_to_num(mid), height=0.7, color=colours[0], label="mid-game (boards scored in play)")
        ax.barh(positions, np.nan_to_num(end), left=np.nan_to_num(mid), height=0.7, color=colours[1],
                label="end-game hexagons")
        for y, total, s in zip(positions, mid + end, share):
            if not math.isnan(total):
                ax.text(total, y, f" {100 * s:.0f}%", va="center", ha="left", fontsize="x-small", color="#333")
        ax.set_xlim(0, 1.2 * np.nanmax(mid + end))
        ax.set(yticks=positions, yticklabels=labels, ylim=(len(labels) - 0.5, -0.5))
        ax.set(title=f"{players} players", xlabel="Mean points per player")
    return finished_chart(fig, axes[0], f"{data.title}: mid-game and end-game points by strategy",
                          data.out_dir, f"{data.slug}_points_split.png",
                          "Mean points per player from boards scored during play and from the end-game hexagons, "
                          "stacked, so a bar's length is the mean score; the percentage is the end-game share. 'all' "
                          "is every player; strategies in order of win share. Intervals are in the table below.")


def two_colour_sentence(data: GameData) -> str:
    """Which player counts play more than one colour each, from the colours in play."""
    several = {p: len(data.fact("colours", p)) // p for p in data.player_counts if len(data.fact("colours", p)) > p}
    return "".join(f" At {p} players each player plays {n} colours in turn (Player 1 plays the first colour of every "
                   "round of turns), so Player 1 still moves first." for p, n in several.items())


def point_intro(_, data: GameData) -> str:
    return ("A board scores during play when its sixth hole fills (mid-game points); at the end every hexagon of three "
            "mutually adjacent boards with all six holes filled scores the same way (end-game points). The two add up "
            "to the score. 'End-game share' is the end-game points' share of all points. The second table compares "
            "each game's actual winners with its leaders on mid-game points alone." + two_colour_sentence(data))


ANALYSIS = Analysis("Mid-game and end-game points", points, intro=point_intro, chart=point_split_chart,
                    tables=point_tables, finding=point_finding, leading_only=True)
