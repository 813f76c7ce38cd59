"""Kunst Stücke's chips sweep, across experiments: a set of experiments that play the same pool in the same seatings
with the same resolved Params but for `chips`, and how each strategy's win share, the players' score and their
tiles' success run with the chips each player starts with (each number from its own experiment)."""

import json

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import Analysis, GameData, groups
from reports.charts import finished_chart, palette, panels
from reports.fmt import at_counts, listing, num, spread
from reports.kunst_stuecke.common import CORRECT, SCORE, STANDING, VS_FAIR, standing, times
from reports.kunst_stuecke.spending import SPENT, with_spent
from reports.render import Chart, Finding, est, table
from reports.spec import EVERYONE, measure_records, pattern

SWEEP = "kunst_stuecke_chips0, kunst_stuecke_chips5, kunst_stuecke_chips10 and kunst_stuecke_chips15"


def design(manifest: dict) -> str:
    """What an experiment plays besides its chips, as JSON: its resolved Params but `chips`, and its seatings."""
    resolved = manifest.get("resolved") or {}
    params = {p: {k: v for k, v in each.items() if k != "chips"} for p, each in (resolved.get("params") or {}).items()}
    return json.dumps({"params": params, "lineups": resolved.get("lineups")}, sort_keys=True)


def sweep_experiments(data: GameData) -> list[str]:
    """The largest set of experiments that play the same pool with the same design() but start with different
    chips, by chips ([] if none)."""
    if "chips" not in data.facts.columns:
        return []
    pools = data.rows.group_by("experiment").agg(pool=pl.col("strategy").unique().sort().str.join(", "))
    designs = pl.DataFrame({"experiment": [str(m["experiment"]) for m in data.manifests],
                            "design": [design(m) for m in data.manifests]})
    sets = (pools.join(designs, on="experiment").join(data.facts.select("experiment", "chips").unique(),
                                                      on="experiment")
            .group_by("pool", "design")
            .agg(experiments=pl.col("experiment").sort_by("chips", "experiment"), values=pl.col("chips").n_unique())
            .filter(pl.col("values") > 1)
            .sort(pl.col("experiments").list.len(), "pool", descending=[True, False]))
    return sets["experiments"][0].to_list() if sets.height else []


def sweep(data: GameData) -> dict | None:
    """Per experiment (chips each), player count and strategy ('all' = every player): standing() with the mean
    score and chips spent."""
    experiments = sweep_experiments(data)
    if not experiments:
        return None
    rows = with_spent(data).filter(pl.col("experiment").is_in(experiments))
    by_count = (standing(rows, ["experiment", "chips", "players", "strategy"], SCORE, SPENT, everyone=True)
                .with_columns(fair=1 / pl.col("players").cast(pl.Float64))
                .sort("chips", "players", pl.col("strategy") != EVERYONE, "strategy"))
    seeds = {m.get("seed") for m in data.manifests if m["experiment"] in experiments}
    return {"experiments": experiments, "by_count": by_count, "same_seed": len(seeds) == 1,
            "pool": data.pools()[experiments[0]]}


def sweep_intro(result: dict, _) -> str:
    return (f"The chips sweep ({listing(result['experiments'])}) plays the same strategies in the same seatings "
            "with the same Params but for the chips each player starts with, so the difference between its "
            "experiments is what chips are worth. Win shares carry cluster-robust intervals over deals; '× fair' "
            "is the win share over 1/P.")


CHIPS_TREND = {"rises": "rises with the chips", "falls": "falls with the chips",
               "up and down": "goes up and down with the chips",
               "uneven": "differs between the chips counts but does not rise or fall steadily with them",
               "flat": "does not differ clearly between the chips counts tried",
               "higher": "is higher with more chips", "lower": "is lower with more chips",
               "single": "was measured at one chips count only"}


def sweep_strategies(group: pl.DataFrame, data: GameData) -> str:
    """How each strategy's win share over its fair share runs with the chips, strategies of one pattern together:
    'for planner and random the win share does not differ clearly ... (planner 1.12× to 1.20× its fair share, ...)'."""
    own = {s: group.filter(pl.col("strategy") == s).sort("chips") for s in data.order if s in group["strategy"]}
    verdicts = {s: pattern(frame, "vs_fair") for s, frame in own.items()}
    parts = []
    for verdict in dict.fromkeys(verdicts.values()):
        names = [s for s in own if verdicts[s] == verdict]
        ranges = [f"{s} {spread(own[s]['vs_fair'].to_list(), times)}" for s in names]
        ranges[0] += " its fair share"
        parts.append(f"for {listing(names)} the win share {CHIPS_TREND[verdict]} ({', '.join(ranges)})")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def sweep_everyone(group: pl.DataFrame) -> str:
    """How every player's mean score and the share of their tiles that come true run with the chips."""
    everyone = group.filter(pl.col("strategy") == EVERYONE).sort("chips")
    score, tiles = pattern(everyone, "score"), pattern(everyone, "correct")
    scores = f"the players' mean score ({spread(everyone['score'].to_list(), lambda x: num(x, 1))} points)"
    shares = f"the share of their tiles that come true ({spread(everyone['correct'].to_list())})"
    if score == tiles == "flat":
        return f"Neither {scores} nor {shares} differs clearly between the chips counts tried."
    return f"{scores[0].upper()}{scores[1:]} {CHIPS_TREND[score]} and {shares} {CHIPS_TREND[tiles]}."


def sweep_finding(result: dict, data: GameData) -> Finding:
    """How the experiments differ (only in chips), then at each player count how each strategy's win share and
    the players' score and tile success run with the chips."""
    frame = result["by_count"]
    counts = frame["players"].unique().sort().to_list()
    chips = listing(str(c) for c in frame["chips"].unique().sort())
    seed = "the same seed" if result["same_seed"] else "different seeds"
    text = (f"These experiments differ only in the chips each player starts with ({chips}): they play the same pool "
            f"({result['pool']}) in the same seatings with the same other Params at {at_counts(counts)}, with {seed}.")
    for key, group in groups(frame, ["players"]):
        at = f" At {key['players']} players:" if len(counts) > 1 else ""
        text += f"{at} {sweep_strategies(group, data)} {sweep_everyone(group)}"
    strategies = frame.filter(pl.col("strategy") != EVERYONE).sort("players", "strategy", "chips")
    return Finding("Chips sweep.", text, table("", strategies, ("Players", "players"), ("Strategy", "strategy"),
                                               ("Chips", "chips"), *est(VS_FAIR.label, "vs_fair", times)),
                   tuple(sweep_numbers(frame, data)))


def sweep_numbers(frame: pl.DataFrame, data: GameData) -> list[dict]:
    """In each experiment of the sweep (each number from its own experiment) and player count, every player's
    mean score and tile success, and each strategy's win share over its fair share."""
    about = {"experiment": "experiment", "chips": "chips"}
    everyone = pl.col("strategy") == EVERYONE
    return (measure_records(data, frame.filter(everyone), [SCORE, CORRECT], **about)
            + measure_records(data, frame.filter(~everyone), [VS_FAIR], **about, strategy="strategy", fair="fair"))


def sweep_tables(result: dict, _) -> list:
    return [table("The chips sweep by chips each, player count and strategy ('all' = every player; 95% cluster-"
                  "robust intervals)", result["by_count"], ("Chips each", "chips"), ("Players", "players"),
                  ("Strategy", "strategy"), *STANDING, *SPENT.columns(), *SCORE.columns())]


def sweep_chart(result: dict, data: GameData) -> Chart:
    """Per player count, each strategy's win share against the chips each player starts with."""
    frame = result["by_count"].filter(pl.col("strategy") != EVERYONE)
    counts, order = frame["players"].unique().sort().to_list(), [s for s in data.order if s in frame["strategy"]]
    fig, axes = panels(len(counts), max(7.0, 3.6 * len(counts) + 1.2), 4.4, sharey=True)
    for ax, players in zip(axes, counts):
        for colour, strategy in zip(palette(len(order)), order):
            line = frame.filter((pl.col("players") == players) & (pl.col("strategy") == strategy)).sort("chips")
            win, lo, hi = (line[c].to_numpy().astype(float) for c in ("win", "win_lo", "win_hi"))
            ax.errorbar(line["chips"].to_numpy(), win, yerr=np.nan_to_num([win - lo, hi - win]), color=colour,
                        marker="o", capsize=3, label=strategy)
        ax.axhline(1 / players, color="#555", linestyle="--", linewidth=1.2, label="fair share 1/P")
        ax.set(title=f"{players} players", xlabel="Chips each at the start", ylim=(0, 1.02),
               xticks=frame["chips"].unique().sort().to_list())
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[0], f"{data.title}: win share against chips each\n(95% cluster-robust "
                                        "intervals over deals)", data.out_dir, f"{data.slug}_chips_sweep.png",
                          "The chips sweep: each strategy's win share against the chips every player starts with, one "
                          "panel per player count; the dashed line is the fair share 1/P.")


SWEEP_ANALYSIS = Analysis(
    "The chips sweep", sweep, intro=sweep_intro, chart=sweep_chart, tables=sweep_tables, finding=sweep_finding,
    absent="No chips sweep in these data: no two experiments that play the same pool with the same Params start "
           f"with different chips. Run {SWEEP} to measure what chips are worth.")
