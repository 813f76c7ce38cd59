"""Seat compensation, shared by every game: how many points would make the start player's chances fair?"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.ticker import MaxNLocator, PercentFormatter

from reports.frames import GAME_KEY
from reports.render import Chart, Table, legend_below, new_figure, palette, pct, pct_ci, save_chart
from reports.stats import wilson

HANDICAPS = range(-4, 5)


def start_player_compensation(rows: pl.DataFrame, higher_wins: bool, key: pl.Expr | None = None,
                              unit: int = 1, handicaps: range = HANDICAPS) -> pl.DataFrame:
    """Seat 0's win share if `handicap` points were added to its final score, per player count (Wilson).

    `key` ranks the seats of a game (default: the score); a point is worth `unit` on it, so a key that
    folds tie-breakers in below the score still works. Ties on the key share the win."""
    sign = 1 if higher_wins else -1
    keyed = rows.with_columns(key=sign * (pl.col("score").cast(pl.Int64) if key is None else key))
    best = (keyed.filter(pl.col("seat") > 0).with_columns(best=pl.col("key").max().over(GAME_KEY))
            .group_by(GAME_KEY).agg(best=pl.col("best").first(), tied=(pl.col("key") == pl.col("best")).sum()))
    games = keyed.filter(pl.col("seat") == 0).select(*GAME_KEY, "players", start=pl.col("key")).join(best, on=GAME_KEY)
    out = []
    for (players,), group in sorted(games.partition_by("players", as_dict=True).items()):
        start, top, tied = (group[c].to_numpy() for c in ("start", "best", "tied"))
        for handicap in handicaps:
            adjusted = start + sign * handicap * unit
            share = np.where(adjusted > top, 1.0, np.where(adjusted == top, 1 / (1 + tied), 0.0))
            lo, hi = wilson(share.sum(), share.size)
            out.append({"players": players, "handicap": handicap, "games": share.size, "share": share.mean(),
                        "lo": lo, "hi": hi})
    return pl.DataFrame(out)


def compensation_table(compensation: pl.DataFrame) -> Table:
    """Seat 0's win share under each whole-point adjustment, one row per player count."""
    rows = []
    for (players,), group in sorted(compensation.partition_by("players", as_dict=True).items()):
        ordered = group.sort("handicap").iter_rows(named=True)
        cells = [f"{pct(r['share'])} ({pct_ci(r['lo'], r['hi'])})" for r in ordered]
        rows.append([str(players), pct(1 / players), *cells])
    return Table("Start player's win share (95% CI) with points added to their final score",
                 ["Players", "Fair share", *(f"{h:+d}" for h in sorted(compensation["handicap"].unique()))], rows)


def compensation_chart(compensation: pl.DataFrame, out_dir: Path, game: str, title: str) -> Chart:
    """Seat 0's win share against the points added to its score, one line (and fair line) per player count."""
    player_counts = compensation["players"].unique().sort().to_list()
    colours = palette(len(player_counts))
    fig = new_figure(7.2, 4.4)
    ax = fig.subplots()
    for colour, players in zip(colours, player_counts):
        line = compensation.filter(pl.col("players") == players).sort("handicap")
        ax.fill_between(line["handicap"], line["lo"], line["hi"], color=colour, alpha=0.2, linewidth=0)
        ax.plot(line["handicap"], line["share"], marker="o", markersize=4, color=colour, label=f"{players} players")
        ax.axhline(1 / players, color=colour, linestyle="--", linewidth=1.1)
    ax.axvline(0, color="#555", linewidth=0.8)
    ax.set_xlabel("Points added to the start player's final score")
    ax.set_ylabel("Start player's win share")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    legend_below(fig, ax)
    ax.set_title(f"{title}: start player's win share with a points adjustment")
    return save_chart(
        fig,
        out_dir,
        f"{game}_compensation.png",
        "Seat 0's win share (bands: 95% Wilson intervals) if a fixed number of points were added to its final "
        "score; the dashed line of the same colour is the fair share 1/P. Where a line crosses its dashed line "
        "the adjustment would make the seat fair.",
    )
