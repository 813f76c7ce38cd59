"""Where boards end up: a map of the table, the share of games with a board at each place; and by seat, how many
of their boards players place and how much of their score the end-game hexagons bring."""

import math

import matplotlib
import numpy as np
import polars as pl
from matplotlib.patches import RegularPolygon
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData, groups
from reports.charts import panels, save_chart
from reports.fmt import count, listing, seat_name
from reports.render import Chart, share_ci, table
from reports.spec import Measure, measure_table, measured
from reports.stats import cluster_codes, cluster_ratio_interval, group_codes, per_cluster


def experiments_without_positions(rows: pl.DataFrame) -> list[str]:
    """Experiments whose rows carry no board positions (no `board_q` / `board_r`, or only nulls)."""
    if not {"board_q", "board_r"} <= set(rows.columns):
        return sorted(rows["experiment"].unique())
    known = rows.group_by("experiment").agg(known=pl.col("board_q").is_not_null().any())
    return sorted(known.filter(~pl.col("known"))["experiment"])


def board_cells(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and axial cell (q, r): the share of games in which a player placed a board there (a cell
    holds one board at most), with its cluster-robust interval (cell_shares). Only games whose rows carry
    positions count."""
    rows = rows.filter(pl.col("board_q").is_not_null())  # experiments without positions do not count
    shares = [cell_shares(group).with_columns(players=pl.lit(key["players"], rows.schema["players"]))
              for key, group in groups(rows, ["players"])]
    return (pl.concat(shares).select("players", pl.exclude("players"))
            .sort("players", "share", "board_q", "board_r", descending=[False, True, False, False]))


def cell_shares(rows: pl.DataFrame) -> pl.DataFrame:
    """At one player count: boards at each cell / games (boards, games, share), lo and hi cluster-robust over the
    games' clusters (deals, or matches in match mode; stats.cluster_ratio_interval)."""
    games = rows.unique(GAME_KEY, maintain_order=True)
    cluster, n_clusters = cluster_codes(games)
    placed = (rows.select(*GAME_KEY, "board_q", "board_r").explode("board_q", "board_r").drop_nulls()
              .join(games.select(*GAME_KEY).with_columns(cluster=cluster), on=GAME_KEY))
    cells, cell = group_codes(placed, ["board_q", "board_r"])
    boards = per_cluster(placed["cluster"].to_numpy(), n_clusters, cell, cells.height, np.ones(placed.height))
    played = np.bincount(cluster, minlength=n_clusters)[:, None].astype(float)
    lo, hi = cluster_ratio_interval(boards, played)
    total = boards.sum(axis=0)
    return cells.with_columns(boards=pl.Series(total.astype(np.int64)), games=pl.lit(games.height),
                              share=pl.Series(total / games.height), lo=pl.Series(lo), hi=pl.Series(hi))


def board_map(data: GameData) -> dict | None:
    missing = experiments_without_positions(data.rows)
    if len(missing) == data.rows["experiment"].n_unique():
        return None
    return {"cells": board_cells(data.rows), "missing": missing,
            "start": {p: [tuple(c) for c in data.fact("starting_boards", p)] for p in data.player_counts}}


def board_map_intro(result: dict, _) -> str:
    missing = result["missing"]
    return ("The table grows from the starting boards in the middle (outlined). Each cell's colour is the share of "
            "games in which a player placed a board there; a cell holds one board at most, so the shares of one panel "
            "add up to the mean number of boards placed per game."
            + (f" Without board positions, and so left out of the map: {', '.join(missing)}." if missing else ""))


def board_cell_table(result: dict, _, top: int = 6) -> list:
    starts = listing(sorted({f"({q}, {r})" for cells in result["start"].values() for q, r in cells}))
    return [table(f"The {top} cells most often given a board, per player count (axial q, r; the starting boards sit "
                  f"at {starts})", result["cells"].group_by("players", maintain_order=True).head(top),
                  ("Players", "players"), ("Cell (q, r)", lambda r: f"({r['board_q']}, {r['board_r']})"),
                  ("Games", "games", count), *share_ci("Board placed there"))]


def hex_centre(q: int, r: int) -> tuple[float, float]:
    """Centre of the pointy-top hexagon of circumradius 1 at axial (q, r): (+1, 0) is to the right, (0, +1)
    down and to the right."""
    return math.sqrt(3) * (q + r / 2), -1.5 * r


def board_map_chart(result: dict, data: GameData, floor: float = 0.002) -> Chart:
    """Honeycomb heat map per player count: share of games with a board at each cell; cells under `floor`
    are left out, the starting boards are outlined."""
    cells, starts = result["cells"], result["start"]
    counts = cells["players"].unique().sort().to_list()
    shown = cells.filter(pl.col("share") >= floor)
    top = float(shown["share"].max()) if shown.height else 1.0
    coords = [*zip(shown["board_q"], shown["board_r"]), *(c for p in counts for c in starts[p])]
    xs, ys = zip(*(hex_centre(q, r) for q, r in coords))
    fig, axes = panels(len(counts), 3.4 * len(counts) + 1.4, 4.4)
    cmap, norm = matplotlib.colormaps["viridis"], matplotlib.colors.Normalize(0, top)
    for ax, players in zip(axes, counts):
        for q, r in starts[players]:
            ax.add_patch(RegularPolygon(hex_centre(q, r), 6, radius=0.97, facecolor="#d9d9d9", edgecolor="black",
                                        linewidth=1.6))
            ax.text(*hex_centre(q, r), "start", ha="center", va="center", fontsize="xx-small")
        for r in shown.filter(pl.col("players") == players).iter_rows(named=True):
            centre = hex_centre(r["board_q"], r["board_r"])
            ax.add_patch(RegularPolygon(centre, 6, radius=0.97, facecolor=cmap(norm(r["share"])), edgecolor="white",
                                        linewidth=0.5))
            if r["share"] >= 0.05:
                ax.text(*centre, f"{100 * r['share']:.0f}", ha="center", va="center", fontsize="xx-small",
                        color="black" if norm(r["share"]) > 0.6 else "white")
        ax.set_xlim(min(xs) - 1.2, max(xs) + 1.2)
        ax.set_ylim(min(ys) - 1.3, max(ys) + 1.3)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(f"{players} players")
    colourbar = fig.colorbar(matplotlib.cm.ScalarMappable(norm=norm, cmap=cmap), ax=list(axes), shrink=0.8,
                             format=PercentFormatter(1.0, decimals=0))
    colourbar.set_label("Games with a board placed here")
    fig.suptitle(f"{data.title}: where players place their boards")
    return save_chart(fig, data.out_dir, f"{data.slug}_board_map.png",
                      "The table seen from above, one panel per player count: each hexagon is a place a board can go, "
                      "coloured by the share of games in which a player put a board there (numbers: % where at least "
                      f"5%; places under {100 * floor:.1f}% are left out). The outlined boards are the starting "
                      "boards.")


SEAT_MEASURES = (Measure("boards", "Boards placed", pl.col("boards_placed")),
                 Measure("end_share", "End-game share", pl.col("endgame_points"), pl.col("score"), share=True),
                 Measure("win", "Win share", pl.col("win"), share=True))
BOARDS_USED = Measure("boards_used", "Of the seat's boards", pl.col("boards_placed"), pl.col("boards_each"), share=True)


def seat_profile(data: GameData) -> pl.DataFrame:
    """Per experiment, player count and seat: boards placed (mean; and the share of the seat's boards), the end-game
    share of points (a ratio of sums) and the win share, with cluster-robust intervals."""
    return measured(data.with_facts(data.rows, "boards_each"), (*SEAT_MEASURES, BOARDS_USED),
                    ("experiment", "players", "seat"), everyone=False)


def seat_profile_table(by_seat: pl.DataFrame, _) -> list:
    return [measure_table("By seat: boards placed, end-game share of points and win share", by_seat, SEAT_MEASURES,
                          ("Experiment", "experiment"), ("Players", "players"), ("Player", "seat", seat_name),
                          ("Player results", "n", count))]


def seat_heatmap_chart(by_seat: pl.DataFrame, data: GameData) -> Chart:
    """Two heat maps, rows = experiment and player count, columns = seat: the share of their boards the seat
    places, and the end-game share of the seat's points."""
    strata = by_seat.select("experiment", "players").unique().sort("experiment", "players")
    labels = [f"{e}, {p} players" for e, p in strata.iter_rows()]
    seats = int(by_seat["seat"].max()) + 1
    index = {key: i for i, key in enumerate(strata.iter_rows())}
    grids = {c: np.full((len(labels), seats), np.nan) for c in ("boards_used", "end_share")}
    for r in by_seat.iter_rows(named=True):
        for c, grid in grids.items():
            grid[index[(r["experiment"], r["players"])], r["seat"]] = r[c]
    fig, axes = panels(2, 4.2 + 1.3 * seats, 1.6 + 0.42 * len(labels), sharey=True)
    for ax, (column, title, cmap) in zip(axes, [("boards_used", "Boards placed (% of the seat's boards)", "Blues"),
                                                ("end_share", "End-game share of the seat's points", "Oranges")]):
        grid = grids[column]
        low, high = np.nanmin(grid), np.nanmax(grid)
        image = ax.imshow(grid, cmap=matplotlib.colormaps[cmap].with_extremes(bad="#f2f2f2"), vmin=low, vmax=high,
                          aspect="auto")
        for (i, j), value in np.ndenumerate(grid):
            if not np.isnan(value):
                dark = high > low and (value - low) / (high - low) > 0.6
                ax.text(j, i, f"{100 * value:.0f}", ha="center", va="center", fontsize="small",
                        color="white" if dark else "black")
        ax.set_xticks(range(seats), [str(s + 1) for s in range(seats)])
        ax.set_yticks(range(len(labels)), labels)
        ax.set_xlabel("Player (1 starts)")
        ax.set_title(title, fontsize="medium")
        ax.grid(False)
        fig.colorbar(image, ax=ax, shrink=0.85, format=PercentFormatter(1.0, decimals=0))
    fig.suptitle(f"{data.title}: boards and end-game points by seat")
    return save_chart(fig, data.out_dir, f"{data.slug}_seat_heatmap.png",
                      "Rows: experiment and player count; columns: seat. Left: the share of their own boards that "
                      "players in the seat place. Right: the share of the seat's points that come from the end-game "
                      "hexagons. Numbers are percentages; grey: no such seat. Intervals are in the table below.")


MAP = Analysis("Where boards end up", board_map, intro=board_map_intro, chart=board_map_chart, tables=board_cell_table,
               absent="These results carry no board positions (the `board_q` / `board_r` columns), so there is no "
                      "map of the table; the seat heat map below shows who places the boards.",
               leading_only=True)
SEATS = Analysis("", seat_profile, chart=seat_heatmap_chart, tables=seat_profile_table,
                 intro="By seat: how many of their boards each seat places, and how much of its score comes from the "
                       "end-game hexagons, for every experiment and player count.", leading_only=True)
