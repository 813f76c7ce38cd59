"""Mid-game against end-game points: how much of the score the end-game hexagons bring, which strategy leans on
them most, and how often they change who wins against mid-game points alone."""

import math

import numpy as np
import polars as pl

from reports.analysis import GAME_KEY, GameData
from reports.charts import aligned, finished_chart, palette, panels, rows_down
from reports.fmt import count, spread
from reports.render import Chart
from reports.spec import EVERYONE, Measure, Metrics, leader, per_game

MID, END = pl.col("midgame_points"), pl.col("endgame_points")


def split_sentence(split: pl.DataFrame, data: GameData) -> str:
    """How much of the score comes from the end-game hexagons, and which strategy takes the largest share of its
    points from them."""
    overall = split.filter(pl.col("strategy") == EVERYONE)
    text = f"The end-game hexagons bring {spread(overall['share'])} of all points, by player count"
    if split.filter(pl.col("strategy") != EVERYONE)["strategy"].n_unique() > 1:
        text += ("; of the strategies, each over the games it played, "
                 + leader(split, "share", data.player_counts, "takes the largest share of its points from them"))
    return text + "."


def two_colour_sentence(data: GameData) -> str:
    """Which player counts play more than one colour each, from the colours in play."""
    several = {p: len(data.fact("colours", p)) // p for p in data.player_counts if len(data.fact("colours", p)) > p}
    return "".join(f" At {p} players each player plays {n} colours in turn (Player 1 plays the first colour of every "
                   "round of turns), so Player 1 still moves first." for p, n in several.items())


def split_intro(_, data: GameData) -> str:
    return ("A board scores during play when its sixth hole fills (mid-game points); at the end every hexagon of three "
            "mutually adjacent boards with all six holes filled scores the same way (end-game points). The two add up "
            "to the score. 'End-game share' is the end-game points' share of all points. The second table compares "
            "each game's actual winners with its leaders on mid-game points alone." + two_colour_sentence(data))


def split_chart(split: pl.DataFrame, data: GameData) -> Chart:
    """Stacked horizontal bars: mean mid-game and end-game points per strategy, one panel per player count;
    the end-game share is written at the end of each bar."""
    labels, counts, colours = [EVERYONE, *data.order], data.player_counts, palette(2)
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
        rows_down(ax, labels, f"{players} players", "Mean points per player")
    return finished_chart(fig, axes[0], f"{data.title}: mid-game and end-game points by strategy",
                          data.out_dir, f"{data.slug}_points_split.png",
                          "Mean points per player from boards scored during play and from the end-game hexagons, "
                          "stacked, so a bar's length is the mean score; the percentage is the end-game share. 'all' "
                          "is every player; strategies in order of win share. Intervals are in the table below.")


SPLIT = Metrics(
    "Mid-game and end-game points", (
        Measure("mid", "Mid-game points", MID), Measure("end", "End-game points", END),
        Measure("score", "Score", MID + END),
        Measure("share", "End-game share", END, MID + END, metric="endgame_points_share", share=True)),
    split_sentence, label="Points.", overall=True, intro=split_intro, leading_only=True,
    caption="Mid-game and end-game points per player by player count and strategy ('all' = every player; 95% "
            "intervals clustered by deal)",
    draw=split_chart)


def decided_games(data: GameData) -> pl.DataFrame:
    """One row per game: whether a player behind on mid-game points won it (`comeback`), and whether its mid-game
    lead was tied and the end-game hexagons settled it (`settled`); with the games of each kind per player count
    (`comebacks`, `settled_games`)."""
    leads = MID == MID.max().over(GAME_KEY)
    games = (per_game(data.rows.with_columns(leader=leads, winner=pl.col("win") > 0),
                      comeback=(pl.col("winner") & ~pl.col("leader")).any(),
                      changed=(pl.col("leader") != pl.col("winner")).any())
             .with_columns(settled=pl.col("changed") & ~pl.col("comeback")))
    return games.with_columns(strategy=pl.lit(EVERYONE), comebacks=pl.col("comeback").sum().over("players"),
                              settled_games=pl.col("settled").sum().over("players"))


def decided_sentence(decided: pl.DataFrame, _) -> str:
    """How often the end-game hexagons change who wins."""
    return (f"A player behind on mid-game points wins {spread(decided['rate'])} of games, and in another "
            f"{spread(decided['settled_rate'])} the hexagons break a tie for the mid-game lead.")


COMEBACKS = Metrics(
    "", (Measure("rate", "Comebacks", pl.col("comeback"), metric="comeback_share", share=True),
         Measure("settled_rate", "Ties broken", pl.col("settled"), metric="midgame_tie_broken_share", share=True)),
    decided_sentence, label="Comebacks.", rows=decided_games, overall=True, everyone=False,
    by=("players", "strategy", "comebacks", "settled_games"),  # the games counted: one count per player count
    about_measure=lambda m: {"comebacks": "comebacks"} if m.name == "rate" else {"settled": "settled_games"},
    caption="What the end-game hexagons change, against mid-game points alone: games won by a player behind on "
            "mid-game points (comebacks), and games whose tie for the mid-game lead the hexagons broke",
    lead=(("Players", "players"), ("Games", "games", count)))
