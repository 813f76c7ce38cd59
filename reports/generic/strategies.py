"""Strategy strength: each strategy's win share against the fair 1/P and its mean score, in the games where two
strategies or more meet, and the strongest's lead over the weakest, paired over deals."""

import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, GameData, record
from reports.charts import aligned, bars_with_ci, finished_chart, panels
from reports.fmt import count, num, pct, pp, pp_ci
from reports.generic.seats import paired_shares
from reports.render import Chart, Finding, est, share_ci, table
from reports.spec import Measure, measured
from reports.stats import paired_difference

MEAN_SCORE = Measure("mean_score", "Mean score", pl.col("score"))
MEAN_SCORE_COLUMNS = ("mean_score", "mean_score_lo", "mean_score_hi")


def mixed_games(rows: pl.DataFrame) -> pl.DataFrame:
    """The rows of the games where at least two strategies meet: a table of one strategy says nothing of strength.
    All rows when no game mixes strategies (the strategy finding then says there is nothing to compare)."""
    kinds = rows.lazy().group_by(GAME_KEY).agg(kinds=pl.col("strategy").n_unique()).collect(engine="streaming")
    if kinds.filter(pl.col("kinds") == 1).is_empty():
        return rows
    mixed = rows.join(kinds.filter(pl.col("kinds") > 1).select(GAME_KEY), on=GAME_KEY, how="semi")
    return rows if mixed.is_empty() else mixed


def strategy_win_shares(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Win share of each strategy (per group of `by`, one player count and experiment at a time) against its fair
    share 1/P, with cluster-robust intervals; strongest first within each group."""
    within = ["experiment", "players", *(b for b in by if b not in ("experiment", "players"))]
    shares = paired_shares(rows, within, "strategy").with_columns(ratio=pl.col("share") / pl.col("fair"))
    keep = [*by, "strategy"]
    return shares.select(*keep, *(c for c in shares.columns if c not in keep and c not in within)).sort(
        *by, "ratio", descending=[False] * len(by) + [True])


def strategy_analysis(data: GameData) -> dict:
    return data.computed("strategies", lambda: strategies_of(data))


def strategies_of(data: GameData) -> dict:
    rows = mixed_games(data.rows)
    scores = measured(rows, [MEAN_SCORE], ["players", "strategy"], everyone=False)
    per_count = strategy_win_shares(rows, ["players"]).join(
        scores.select("players", "strategy", *MEAN_SCORE_COLUMNS), on=["players", "strategy"])
    return {"per_count": per_count, "gaps": strongest_against_weakest(rows, per_count)}


def strongest_against_weakest(rows: pl.DataFrame, per_count: pl.DataFrame) -> pl.DataFrame:
    """Per player count: the strongest strategy's win share minus the weakest's, with the paired interval (the same
    deals for both) and the unpaired one, to show what the paired design is worth."""
    out = []
    for (players,), shares in sorted(per_count.partition_by("players", as_dict=True).items()):
        if shares.height < 2:
            continue
        ranked = shares.sort("ratio", "strategy", descending=[True, False])
        best, worst = ranked["strategy"][0], ranked["strategy"][-1]
        gap = paired_difference(rows.filter(pl.col("players") == players), pl.col("strategy") == best,
                                pl.col("strategy") == worst)
        out.append({"players": players, "best": best, "worst": worst, **gap})
    return pl.DataFrame(out)


def strategy_finding(result: dict, data: GameData) -> Finding:
    """The strongest and weakest strategy at each player count, the gap between them with its paired interval
    and the unpaired one beside it."""
    if len(data.order) < 2:
        return Finding("Strategy strength.", f"Only one strategy took part ({data.order[0]}), so there is nothing "
                                             "to compare.", numbers=tuple(strategy_numbers(result, data)))
    sentences = []
    for r in result["gaps"].iter_rows(named=True):
        sentences.append(
            f"At {r['players']} players {r['best']} wins {pct(r['share_a'])} of its games and {r['worst']} "
            f"{pct(r['share_b'])}: a gap of {pp(r['estimate'])} ({pp_ci(r['lo'], r['hi'])}, paired over deals; "
            f"unpaired: {pp_ci(r['lo_unpaired'], r['hi_unpaired'])}).")
    columns = [("Players", "players"), ("Strongest", "best"), ("Weakest", "worst"),
               *est("Gap", "estimate", pp, pp_ci, "lo", "hi"),
               ("Unpaired 95% CI", ("lo_unpaired", "hi_unpaired"), pp_ci),
               ("Unpaired needs × the games", "games_factor", lambda f: num(f, 1))]
    return Finding("Strategy strength.", " ".join(sentences), table("", result["gaps"], *columns),
                   tuple(strategy_numbers(result, data)))


def strategy_numbers(result: dict, data: GameData) -> list[dict]:
    """Every strategy's win share at each player count (games where two strategies or more met), and the
    strongest's lead over the weakest with its paired and unpaired intervals and each side's share."""
    out = [record(data, r["players"], "strategy_win_share", r["share"], r["lo"], r["hi"], r["games"], r["method"],
                  strategy=r["strategy"], fair=r["fair"])
           for r in result["per_count"].sort("players", "strategy").iter_rows(named=True)]
    out += [record(data, r["players"], "strategy_gap", r["estimate"], r["lo"], r["hi"], r["games"], r["method"],
                   strategy=r["best"], against=r["worst"], share_a=r["share_a"], share_b=r["share_b"],
                   low_unpaired=r["lo_unpaired"], high_unpaired=r["hi_unpaired"], width_ratio=r["width_ratio"],
                   games_factor=r["games_factor"])
            for r in result["gaps"].iter_rows(named=True)]
    return out


def strategy_tables(result: dict, _) -> list:
    per_count = result["per_count"].sort("players", "ratio", descending=[False, True])
    return [table("Win share and mean score by strategy and player count (95% cluster-robust intervals)",
                  per_count, ("Players", "players"), ("Strategy", "strategy"), ("Games", "games", count),
                  *share_ci("Win share"), ("× fair", "ratio", num), *MEAN_SCORE.columns())]


def strategy_win_share_chart(result: dict, data: GameData) -> Chart:
    """Horizontal bars of win share per strategy, one panel per player count, with the 1/P line."""
    per_count, order, counts = result["per_count"], data.order, data.player_counts
    fig, axes = panels(len(counts), 3.4 * len(counts) + 1.8, 1.8 + 0.36 * len(order), sharey=True)
    for ax, players in zip(axes, counts):
        panel = aligned(per_count.filter(pl.col("players") == players), "strategy", order)
        bars_with_ci(ax, order, {"win share": (panel["share"], panel["lo"], panel["hi"])}, horizontal=True)
        ax.axvline(1 / players, color="#555", linestyle="--", linewidth=1.2, label="fair share 1/P")
        ax.set(title=f"{players} players", xlabel="Share of victories")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[-1], f"{data.title}: win share by strategy (95% cluster-robust intervals)",
                          data.out_dir, f"{data.slug}_strategy_win_share.png",
                          "Win share per game played, by strategy and player count; the dashed line is the fair share "
                          "1/P.")
