"""Strategies against each other: Bradley–Terry ratings with their intransitive cycles, and head-to-head shares
of every pair of strategies that met."""

import matplotlib
import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GameData, partitions, record, seat_pairs, sorted_names, with_names
from reports.charts import new_figure, save_chart
from reports.fmt import count, pct
from reports.generic.strategies import mixed_games
from reports.ratings import cycles, pairwise, ratings
from reports.render import Chart, Finding, share_ci, table
from reports.spec import ONE
from reports.stats import cluster_columns, paired_ratio


def rating_analysis(data: GameData) -> dict[int, dict] | None:
    """Per player count: every strategy's Bradley–Terry rating and the intransitive cycles among them."""
    return data.computed("ratings", lambda: ratings_of(data))


def ratings_of(data: GameData) -> dict[int, dict] | None:
    rows = mixed_games(data.rows)
    if rows["strategy"].n_unique() < 2:
        return None
    compared = {players: pairwise(group) for (players,), group in partitions(rows, "players")}
    return {players: {"ratings": ratings(pairs), "cycles": cycles(pairs)} for players, pairs in compared.items()}


def rating_finding(result: dict[int, dict], data: GameData) -> Finding:
    sentences = []
    for players, found in result.items():
        top = found["ratings"].row(0, named=True)
        text = (f"At {players} players {top['strategy']} rates highest ({top['rating']:+.0f} Elo, "
                f"{top['lo']:+.0f} to {top['hi']:+.0f})")
        text += cycle_clause(found["cycles"], found["ratings"].height) + "."
        sentences.append(text)
    rows = [{"players": p, **r} for p, found in result.items() for r in found["ratings"].iter_rows(named=True)]
    numbers = [record(data, r["players"], "rating", r["rating"], r["lo"], r["hi"], r["games"], r["method"],
                      strategy=r["strategy"]) for r in rows]
    return Finding("Ratings.", " ".join(sentences), table(
        "", rows, ("Players", "players"), ("Strategy", "strategy"), ("Rating (Elo)", "rating", lambda x: f"{x:+.0f}"),
        ("95% CI", ("lo", "hi"), lambda lo, hi: f"{lo:+.0f} to {hi:+.0f}")), tuple(numbers))


def cycle_clause(cycles: list[dict], strategies: int) -> str:
    """What the intransitive cycles say, where three strategies or more could form one."""
    if strategies < 3:
        return ""
    clear_cycles = [c for c in cycles if c["verdict"] == "clear"]
    if clear_cycles:
        return f"; {len(clear_cycles)} clear cycle(s) of three strategies each beating the next"
    return "; no three strategies beat each other in a circle clearly"


def cycle_table(result: dict[int, dict], _) -> list:
    rows = [{"players": p, "cycle": " > ".join(c["cycle"]) + f" > {c['cycle'][0]}", "verdict": c["verdict"],
             "support": c["support"]} for p, found in result.items() for c in found["cycles"]]
    return [table("Intransitive cycles (each strategy ahead of the next head-to-head)", rows, ("Players", "players"),
                  ("Cycle", "cycle"), ("Verdict", "verdict"), ("Resamples where it holds", "support", pct))] if rows \
        else []


def head_to_head_of(data: GameData) -> pl.DataFrame | None:
    """Every pair of strategies that met, over all the rows (pooled over player counts); None for one strategy."""
    return head_to_head(data.rows) if len(data.order) > 1 else None


def head_to_head(rows: pl.DataFrame) -> pl.DataFrame:
    """For each ordered pair (A, B) of different strategies that met in a game: the share of meetings in
    which A finished ahead of B (better rank; equal rank counts 1/2), with its cluster-robust interval over deals
    (matches in match mode): the meetings of one deal, in one game or several, count together.

    Uses rank, so it works whether a game counts high or low scores as better. The pairs (a row per seat and other
    seat) carry each strategy as its code, not its name: a tenth of their memory."""
    pairs = (seat_pairs(rows.with_columns(pl.col("strategy").cast(sorted_names(rows["strategy"]))),
                        [*dict.fromkeys([*cluster_columns(rows), "game_id", "strategy", "rank"])])
             .select(*cluster_columns(rows), "game_id", "strategy", "strategy_b", "rank", "rank_b")
             .filter(pl.col("strategy") != pl.col("strategy_b"))
             .with_columns(ahead=(pl.col("rank") < pl.col("rank_b")).cast(pl.Float64)
                           + 0.5 * (pl.col("rank") == pl.col("rank_b"))))
    by = ["strategy", "strategy_b"]
    shares = paired_ratio(pairs, pl.col("ahead"), ONE, by).select(*by, "lo", "hi", share="estimate")
    met = pairs.group_by(by).agg(meetings=pl.len(), ahead=pl.col("ahead").sum()).join(shares, on=by)
    return with_names(met).sort(by)


def head_to_head_table(matchups: pl.DataFrame, _) -> list:
    """Each pair once, leader first, most lopsided first."""
    leaders = matchups.filter(
        (pl.col("share") > 0.5) | ((pl.col("share") == 0.5) & (pl.col("strategy") < pl.col("strategy_b")))
    ).sort("share", "strategy", descending=[True, False])
    return [table("Head-to-head: share of meetings in which A finished ahead of B (B ahead of A is 100% minus this)",
                  leaders, ("A", "strategy"), ("B", "strategy_b"), ("Meetings", "meetings", count),
                  *share_ci("A ahead"))]


def head_to_head_chart(matchups: pl.DataFrame, data: GameData) -> Chart:
    """Heat map: row strategy's share of meetings finished ahead of the column strategy."""
    order = data.order
    index = {s: i for i, s in enumerate(order)}
    grid = np.full((len(order), len(order)), np.nan)
    for r in matchups.iter_rows(named=True):
        grid[index[r["strategy"]], index[r["strategy_b"]]] = r["share"]
    size = max(4.5, 2.0 + 0.62 * len(order))
    fig = new_figure(size + 1.5, size)
    ax = fig.subplots()
    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="#e4e4e4")  # grey: never met, or itself
    image = ax.imshow(grid, cmap=cmap, vmin=0, vmax=1)
    for (i, j), share in np.ndenumerate(grid):
        if not np.isnan(share):
            ax.text(j, i, f"{100 * share:.0f}", ha="center", va="center", fontsize="small",
                    color="white" if abs(share - 0.5) > 0.3 else "black")
    ax.set_xticks(range(len(order)), order, rotation=40, ha="right")
    ax.set_yticks(range(len(order)), order)
    ax.grid(False)
    ax.set(xlabel="Opponent (B)", ylabel="Strategy (A)")
    colourbar = fig.colorbar(image, ax=ax, shrink=0.8, format=PercentFormatter(1.0, decimals=0))
    colourbar.set_label("A finished ahead of B")
    ax.set_title(f"{data.title}: head-to-head\n% of meetings in which A finished ahead of B")
    return save_chart(fig, data.out_dir, f"{data.slug}_head_to_head.png",
                      "Head-to-head: cell (A, B) is the percentage of their meetings in which A finished ahead of B "
                      "(tie = 1/2); blue favours the row strategy, grey cells are pairs that never met. Counts and "
                      "intervals are in the table.")
