"""Points by card type: where the points come from, and on which types the winner out-scores the others.

Rows carry `points_TYPE` for each scored type (they sum to `score`); the manifest's `types` fact names the scored
types. Intervals are clustered by deal (stats.clustered, through spec.measured): the games of one deal share its
cards."""

from itertools import pairwise

import numpy as np
import polars as pl

from reports.analysis import GAME_KEY, Analysis, GameData
from reports.charts import finished_chart, palette, panels, rows_down
from reports.fmt import at_counts, listing, num, num_ci
from reports.render import Chart, Finding, Table, table
from reports.spec import Measure, measure_records, measure_table, measured
from reports.stats import cluster_columns

PLURALS = {"tray": "serving trays", "box": "storage boxes"}
MEAN = Measure("mean", "Mean points per player", pl.col("points"), metric="points_per_player")
SHARE = Measure("share", "Share of points", pl.col("points"), pl.col("score"), share=True)
EDGE = Measure("edge", "Winner − others (same game)", pl.col("points"), metric="winner_points_lead")
NAMES = {"mean": "Points per player", "edge": "Winner − others"}  # the finding table's headers of MEAN and EDGE


def type_name(kind: str) -> str:
    """'tea_jar' -> 'tea jar'."""
    return kind.replace("_", " ")


def plural(kind: str) -> str:
    return PLURALS.get(kind, type_name(kind) + "s")


def scored_types(data: GameData) -> list[str]:
    """The scored card types in the manifest's order (every player count's), that have a points column."""
    kinds = [k for facts in data.facts["types"].to_list() for k in facts]
    return [k for k in dict.fromkeys(kinds) if f"points_{k}" in data.rows.columns]


def by_type(rows: pl.DataFrame, kinds: list[str], keep: list[str]) -> pl.DataFrame:
    """rows (with points_KIND columns) as one row per row and type: the columns keep, type and points."""
    keys = [*dict.fromkeys([*keep, *cluster_columns(rows), "game_id"])]
    return (rows.unpivot([f"points_{k}" for k in kinds], index=keys, variable_name="type", value_name="points")
            .with_columns(type=pl.col("type").str.strip_prefix("points_")))


def type_points(rows: pl.DataFrame, kinds: list[str], by: list[str], measures: list[Measure]) -> pl.DataFrame:
    """Long frame: per group of `by` and card type, the measures of a player's points from the type."""
    return measured(by_type(rows, kinds, [*by, "score"]), measures, [*by, "type"], everyone=False)


def winner_edges(rows: pl.DataFrame, kinds: list[str], by: list[str]) -> pl.DataFrame:
    """Per group and type: in games with a single winner, the winner's points from the type minus the mean of the
    other players' (EDGE, clustered over the deals of those games)."""
    sole = rows.filter((pl.col("win").max() >= 1 - 1e-9).over(GAME_KEY))
    if sole.is_empty():
        return pl.DataFrame(schema={**{b: rows.schema[b] for b in by}, "type": pl.String, "games": pl.Int64,
                                    "method": pl.String, "edge": pl.Float64, "edge_lo": pl.Float64,
                                    "edge_hi": pl.Float64, "n": pl.UInt32})
    won, lost = pl.col("win") >= 1 - 1e-9, pl.col("win") < 1 - 1e-9
    games = sole.group_by(GAME_KEY).agg(
        pl.col(*dict.fromkeys([*by, *cluster_columns(rows)])).first(),
        **{f"points_{k}": pl.col(f"points_{k}").filter(won).first() - pl.col(f"points_{k}").filter(lost).mean()
           for k in kinds})
    return measured(by_type(games, kinds, by), [EDGE], [*by, "type"], everyone=False)


def card_types(data: GameData) -> dict:
    kinds, rows = scored_types(data), data.rows
    return {"kinds": kinds, "by_count": type_points(rows, kinds, ["players"], [MEAN, SHARE]),
            "by_strategy": type_points(rows, kinds, ["players", "strategy"], [MEAN]),
            "edges": winner_edges(rows, kinds, ["players"])}


def type_phrase(means: pl.DataFrame, edges: pl.DataFrame) -> str:
    """One player count's types, richest first (means), and winners' edges, largest first, in words; where two
    neighbours' intervals overlap, it says so."""
    top = means.head(4).to_dicts()
    close = [f"{plural(a['type'])} and {plural(b['type'])}" for a, b in pairwise(top) if a["mean_lo"] <= b["mean_hi"]]
    text = (f"the most points per player come from {listing(plural(r['type']) for r in top[:3])}"
            + (f" ({'; '.join(close)} not clearly apart)" if close else ", each clearly ahead of the next"))
    if edges.height < 2:
        return text
    (high, second), (low, above) = edges.head(2).to_dicts(), edges.tail(2).reverse().to_dicts()
    most = plural(high["type"]) + ("" if high["edge_lo"] > second["edge_hi"] else f" or {plural(second['type'])}")
    if low["edge_hi"] >= above["edge_lo"]:
        least = f"{plural(low['type'])} or {plural(above['type'])}"
    else:
        least = plural(low["type"]) + (", where the winner scores less than the others" if low["edge_hi"] < 0 else "")
    return (f"{text}; in games with a single winner, the winner out-scores the other players most on {most} and "
            f"least on {least}")


def type_finding(result: dict, data: GameData) -> Finding:
    """Per player count: which card types bring the most points, and on which winners out-score the others most."""
    by_count, edges = result["by_count"], result["edges"]
    phrases = {players: type_phrase(group.sort("mean", descending=True),
                                    edges.filter(pl.col("players") == players).sort("edge", descending=True))
               for (players,), group in by_count.partition_by("players", as_dict=True).items()}
    grouped: dict[str, list[int]] = {}
    for players, phrase in sorted(phrases.items()):
        grouped.setdefault(phrase, []).append(players)
    text = " ".join(f"At {at_counts(counts, data.player_counts)} {phrase}." for phrase, counts in grouped.items())
    numbers = measure_records(data, by_count, [MEAN], type="type") + measure_records(data, edges, [EDGE], type="type")
    return Finding("Points by type.", text, type_table(by_count, edges), tuple(numbers))


def type_table(by_count: pl.DataFrame, edges: pl.DataFrame) -> Table:
    """One row per type, richest first at the first player count; per player count its points per player and the
    winner's lead on it, each with its interval."""
    counts = by_count["players"].unique().sort().to_list()
    cells = {(r["players"], r["type"]): r for r in with_edges(by_count, edges)}
    order = by_count.filter(pl.col("players") == counts[0]).sort("mean", descending=True)["type"].to_list()

    def cell(r: dict | None, name: str) -> str:
        return "–" if r is None or r[name] is None else f"{num(r[name])} ({num_ci(r[f'{name}_lo'], r[f'{name}_hi'])})"

    rows = [{"type": kind, **{f"{name}{p}": cell(cells.get((p, kind)), name) for p in counts for name in NAMES}}
            for kind in order]
    return table("", rows, ("Type", "type", type_name),
                 *((f"{header}, {p} players (95% CI)", f"{name}{p}") for p in counts for name, header in NAMES.items()))


def with_edges(by_count: pl.DataFrame, edges: pl.DataFrame) -> list[dict]:
    """Each player count and type's points with the winner's lead on it (None where no game had a single winner)."""
    return by_count.join(edges.drop("games", "method", "n"), on=["players", "type"], how="left").to_dicts()


def type_tables(result: dict, data: GameData) -> list:
    index = {t: i for i, t in enumerate(result["kinds"])}
    joined = sorted(with_edges(result["by_count"], result["edges"]), key=lambda r: (r["players"], index[r["type"]]))
    per_strategy = result["by_strategy"]
    below, above = per_strategy["mean"] - per_strategy["mean_lo"], per_strategy["mean_hi"] - per_strategy["mean"]
    half = float(np.nanmax(np.maximum(below.to_numpy(), above.to_numpy())))
    means = {(r["players"], r["strategy"], r["type"]): r["mean"] for r in per_strategy.iter_rows(named=True)}
    rank = {s: i for i, s in enumerate(data.order)}
    keys = sorted({(p, s) for p, s, _ in means}, key=lambda k: (k[0], rank.get(k[1], len(rank))))
    kinds = result["kinds"]
    return [
        measure_table("Points by card type and player count (all strategies together; 95% cluster-robust intervals "
                      "over deals)", joined, [MEAN, SHARE, EDGE], ("Players", "players"), ("Type", "type", type_name)),
        table(f"Mean points per player by strategy and card type (every mean's 95% cluster-robust interval lies "
              f"within ±{num(half)} points of it)", [{"p": p, "s": s} for p, s in keys], ("Players", "p"),
              ("Strategy", "s"), *((type_name(t), lambda r, t=t: num(means[(r["p"], r["s"], t)], 1)) for t in kinds),
              ("Total", lambda r: num(sum(means[(r["p"], r["s"], t)] for t in kinds), 1))),
    ]


def type_points_chart(result: dict, data: GameData) -> Chart:
    """Stacked horizontal bars: mean points per player by type, per strategy, one panel per player count."""
    per_strategy, kinds, order, counts = result["by_strategy"], result["kinds"], data.order, data.player_counts
    fig, axes = panels(len(counts), 3.6 * len(counts) + 1.8, 2.2 + 0.38 * len(order), sharey=True, sharex=True)
    positions = np.arange(len(order))
    for ax, players in zip(axes, counts):
        panel = per_strategy.filter(pl.col("players") == players)
        left = np.zeros(len(order))
        for colour, kind in zip(palette(len(kinds)), kinds):
            means = dict(panel.filter(pl.col("type") == kind).select("strategy", "mean").iter_rows())
            widths = np.nan_to_num(np.array([means.get(s, np.nan) for s in order]))
            ax.barh(positions, widths, left=left, height=0.7, color=colour, label=type_name(kind), edgecolor="white",
                    linewidth=0.5)
            left += widths
        rows_down(ax, order, f"{players} players", "Mean points per player")
    return finished_chart(fig, axes[0], f"{data.title}: where the points come from, by strategy and card type",
                          data.out_dir, f"{data.slug}_points_by_type.png",
                          "Mean points per player from each card type, stacked, so a bar's length is the mean score; "
                          "strategies in order of win share (best first), one panel per player count. Intervals are "
                          "in the tables below.")


CARD_TYPES = Analysis(
    "Points by card type", card_types, chart=type_points_chart, tables=type_tables, finding=type_finding,
    intro="Where the points come from: the mean points per player from each card type (broken pottery scores "
          "nothing). 'Winner − others' compares, within each game with a single winner, the winner's points from a "
          "type with the mean of the other players' points from it. Intervals are clustered by deal, since the games "
          "of one deal share its cards.", leading_only=True)
