"""Scores: shared victories and the start player's score gap, and the score distributions by seat and by
strategy."""

import math

import polars as pl
from matplotlib.ticker import MaxNLocator, PercentFormatter

from reports.analysis import GameData
from reports.charts import finished_chart, palette, panels, rows_down, save_chart
from reports.fmt import count, seat_name
from reports.generic.strategies import mixed_games
from reports.render import Chart
from reports.spec import Measure, Metrics, per_game

BOX_KEYS = ["med", "q1", "q3", "whislo", "whishi", "mean"]
TIES = (Measure("shared", "Shared victory", pl.col("shared"), share=True),
        Measure("gap", "Score gap (start − others)", pl.col("gap")))


def score_gaps(data: GameData) -> pl.DataFrame:
    """One row per game: whether its victory was shared, and the start player's score minus the mean score of the
    other seats."""
    return per_game(data.rows, shared=pl.col("win").max() < 1 - 1e-9,
                    gap=pl.col("score").filter(pl.col("seat") == 0).first()
                    - pl.col("score").filter(pl.col("seat") > 0).mean())


def ties_caption(data: GameData) -> str:
    favours = "negative" if data.lowest_wins else "positive"
    return ("Shared victories, and the start player's score minus the mean of the other seats (same game; "
            f"{data.direction} scores win, so a {favours} gap favours the start player)")


TIES_AND_GAPS = Metrics(
    "Ties and the start player's score gap", TIES, None, ties_caption, rows=score_gaps, by=("players",),
    everyone=False,
    lead=(("Players", "players"), ("Games", "games", count)))


def score_bin_width(rows: pl.DataFrame, max_bins: int = 40) -> int:
    """1 for scores with a small range; otherwise a width giving at most about max_bins bins."""
    return max(1, math.ceil((rows["score"].max() - rows["score"].min()) / max_bins))


def score_by_seat_chart(width: int, data: GameData) -> Chart:
    """Score distribution (share of games at each score) by seat, one panel per player count."""
    dist = (data.rows.with_columns(bin=(pl.col("score") // width) * width).group_by("players", "seat", "bin")
            .agg(n=pl.len()).with_columns(share=pl.col("n") / pl.col("n").sum().over("players", "seat"))
            .sort("players", "seat", "bin"))
    colours = palette(len(dist["seat"].unique()))
    fig, axes = panels(len(data.player_counts), 3.6 * len(data.player_counts) + 0.6, 3.8, sharey=True)
    for ax, players in zip(axes, data.player_counts):
        for seat in range(players):
            line = dist.filter((pl.col("players") == players) & (pl.col("seat") == seat))
            ax.plot(line["bin"], line["share"], marker="o", markersize=3.5, color=colours[seat], label=seat_name(seat))
        ax.set(title=f"{players} players", xlabel="Score" if width == 1 else f"Score (bins of {width})")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    # after all panels are drawn: set_ylim freezes the shared top, which must fit every panel's peak
    axes[0].set_ylim(bottom=0)
    axes[0].set_ylabel("Share of the seat's games")
    return finished_chart(fig, axes[-1], f"{data.title}: score distribution by seat",
                          data.out_dir, f"{data.slug}_score_by_seat.png",
                          "Share of games ending at each score, by player (Player 1 starts), one panel per player "
                          "count.")


def score_quantiles(data: GameData) -> pl.DataFrame:
    score = pl.col("score")
    return mixed_games(data.rows).group_by("players", "strategy").agg(
        med=score.median(), q1=score.quantile(0.25, "midpoint"), q3=score.quantile(0.75, "midpoint"),
        whislo=score.quantile(0.05, "midpoint"), whishi=score.quantile(0.95, "midpoint"), mean=score.mean())


def score_by_strategy_chart(quantiles: pl.DataFrame, data: GameData) -> Chart:
    """Box plots of score by strategy (box: quartiles, whiskers: 5th–95th percentile, dot: mean)."""
    order, counts = data.order, data.player_counts
    fig, axes = panels(len(counts), 3.4 * len(counts) + 1.8, 1.5 + 0.36 * len(order), sharey=True)
    colour = palette(1)[0]
    for ax, players in zip(axes, counts):
        panel = {r["strategy"]: r for r in quantiles.filter(pl.col("players") == players).iter_rows(named=True)}
        present = [i for i, s in enumerate(order) if s in panel]
        stats = [{**{k: panel[order[i]][k] for k in BOX_KEYS}, "fliers": [], "label": order[i]} for i in present]
        ax.bxp(stats, positions=present, orientation="horizontal", showmeans=True, widths=0.6, patch_artist=True,
               boxprops={"facecolor": colour, "alpha": 0.55}, medianprops={"color": "black"},
               meanprops={"marker": "o", "markerfacecolor": "white", "markeredgecolor": "black", "markersize": 5})
        rows_down(ax, order, f"{players} players", "Score")
    fig.suptitle(f"{data.title}: score distribution by strategy")
    return save_chart(fig, data.out_dir, f"{data.slug}_score_by_strategy.png",
                      "Score by strategy and player count: boxes span the quartiles, the line is the median, whiskers "
                      "reach the 5th and 95th percentiles, the white dot is the mean.")
