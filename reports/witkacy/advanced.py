"""The Advanced Variant (a new card must overlap at least 2 of its 4 cells) against the basic rules: two experiments
with the same strategies compared on the deals both played, each number from its own experiment."""

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData, groups, record
from reports.charts import aligned, bars_with_ci, finished_chart, panels
from reports.fmt import NOTICEABLE_RELATIVE, clear, count, effect, listing, num, num_ci, pct, pct_ci, pp, pp_ci, yes
from reports.render import Chart, Finding, table
from reports.stats import cluster_ratio_interval, difference_interval
from reports.witkacy.common import signed, signed_ci

# name -> (words, numerator, denominator, metric), summed over the games of a deal
MEASURES = {"copies": ("completed copies per player", "copies", "seats", "copies_per_player"),
            "completed": ("players completing a painting", "completed", "seats", "completion_share"),
            "score": ("score per player", "score", "seats", "score_per_player"),
            "turns": ("turns per game", "turns", "games", "turns_per_game")}
def rules_pair(data: GameData) -> tuple[str, str] | None:
    """(basic, advanced): the first experiment under the Advanced Variant, by name, and a basic-rules experiment
    with the same strategies."""
    rows = data.with_facts(data.rows.select("experiment", "players", "strategy"), "advanced")
    kinds = rows.group_by("experiment").agg(pool=pl.col("strategy").unique().sort().str.join(", "),
                                            advanced=pl.col("advanced").any())
    pairs = (kinds.filter(~pl.col("advanced")).join(kinds.filter(pl.col("advanced")), on="pool", suffix="_advanced")
             .sort("experiment_advanced", "experiment"))
    return None if pairs.is_empty() else (pairs["experiment"][0], pairs["experiment_advanced"][0])


def deal_sums(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and deal (every seating of one deal together): games, player results (seats), completed
    copies, players completing a painting, points and turns."""
    games = rows.group_by(GAME_KEY).agg(
        pl.col("players", "deal").first(), seats=pl.len(), copies=pl.col("paintings").cast(pl.Int64).sum(),
        completed=(pl.col("paintings") > 0).sum(), score=pl.col("score").cast(pl.Int64).sum(),
        turns=pl.col("turns").cast(pl.Int64).first())
    return games.group_by("players", "deal").agg(
        pl.len().alias("games"), *(pl.col(c).sum() for c in ("seats", "copies", "completed", "score", "turns")))


def rules_effect(units: pl.DataFrame) -> list[dict]:
    """Each measure under the basic rules and the Advanced Variant, and the difference advanced − basic, with
    cluster-robust intervals over the paired deals (cluster_t for each rule's measure, paired_cluster_t for the
    difference)."""
    values = {c: units[c].cast(pl.Float64).to_numpy() for c in units.columns if c not in ("players", "deal")}
    out = []
    for measure, (_, numerator, denominator, _) in MEASURES.items():
        sums = [values[numerator + "_advanced"], values[denominator + "_advanced"], values[numerator],
                values[denominator]]
        paired = difference_interval(np.column_stack(sums))
        lo, hi = cluster_ratio_interval(np.column_stack(sums[0::2]), np.column_stack(sums[1::2]))
        out.append({"measure": measure, "deals": units.height, "games": int(values["games"].sum()),
                    "games_advanced": int(values["games_advanced"].sum()),
                    "advanced": paired["share_a"], "advanced_lo": float(lo[0]), "advanced_hi": float(hi[0]),
                    "basic": paired["share_b"], "basic_lo": float(lo[1]), "basic_hi": float(hi[1]),
                    "diff": paired["estimate"], "diff_lo": paired["lo"], "diff_hi": paired["hi"]})
    return out


def advanced_variant(data: GameData) -> dict | None:
    """The measures of the rules pair per player count, on the deals played in both."""
    pair = rules_pair(data)
    if pair is None:
        return None
    basic, advanced = pair
    units = (deal_sums(data.rows.filter(pl.col("experiment") == basic))
             .join(deal_sums(data.rows.filter(pl.col("experiment") == advanced)), on=["players", "deal"],
                   suffix="_advanced"))
    effects = [{**key, **effect} for key, group in groups(units, ["players"]) for effect in rules_effect(group)]
    seeds = {m["experiment"]: m.get("seed") for m in data.manifests}
    return {"basic": basic, "advanced": advanced, "effects": pl.DataFrame(effects),
            "same_deals": seeds[basic] is not None and seeds[basic] == seeds[advanced]}


def measure_columns(header: str, key: str, difference: bool = False) -> list:
    """Two columns, an estimate and its 95% interval, written as the row's measure asks: a share in per cent (a
    difference in percentage points), anything else as a number (a difference signed)."""
    def formats(r: dict) -> tuple:
        share = r["measure"] == "completed"
        if difference:
            return (pp, pp_ci) if share else (signed, signed_ci)
        return (pct, pct_ci) if share else (num, num_ci)

    return [(header, lambda r: formats(r)[0](r[key])),
            ("95% CI", lambda r: formats(r)[1](r[f"{key}_lo"], r[f"{key}_hi"]))]


def rules_clause(players: int, effects: dict[str, dict]) -> str:
    """Copies, score and turns at one player count under both rules, in words."""
    copies, score, turns = effects["copies"], effects["score"], effects["turns"]
    return (f"at {players} players, players complete {num(copies['advanced'])} copies each instead of "
            f"{num(copies['basic'])} ({signed(copies['diff'])}, 95% CI "
            f"{signed_ci(copies['diff_lo'], copies['diff_hi'])}), "
            f"score {num(score['advanced'], 1)} points instead of {num(score['basic'], 1)} and play "
            f"{num(turns['advanced'], 1)} turns a game instead of {num(turns['basic'], 1)}")


def direction(diffs: pl.DataFrame, lower: str, higher: str, neither: str, tiny: str) -> str:
    """`lower` if every difference (advanced − basic) is clearly below zero, `higher` if every one is clearly above,
    `tiny` where every one is clear in one direction but some is too small to notice (fmt.effect, against the basic
    level), else `neither`."""
    effects = [effect(r["diff_lo"], r["diff_hi"], r["diff"], r["basic"]) for r in diffs.iter_rows(named=True)]
    signs = {r["diff"] > 0 for r in diffs.iter_rows(named=True)}
    if "unclear" in effects or len(signs) != 1:
        return neither
    if "tiny" in effects:
        return tiny
    return higher if signs == {True} else lower


def advanced_finding(result: dict, data: GameData) -> Finding:
    """Whether the Advanced Variant makes completing paintings harder, and how scores and game length change."""
    effects = result["effects"]
    by_count = {p: {r["measure"]: r for r in g.iter_rows(named=True)}
                for (p,), g in sorted(effects.partition_by("players", as_dict=True).items())}
    verdict = direction(effects.filter(pl.col("measure") == "copies"),
                        "makes completing paintings harder, as the rulebook intends",
                        "makes completing paintings easier, against the rulebook's intent",
                        "does not clearly change how many paintings players complete",
                        "changes how many paintings players complete only slightly")
    length = direction(effects.filter(pl.col("measure") == "turns"), "games get shorter", "games get longer",
                       "game length does not change clearly",
                       f"game length barely changes (by less than {NOTICEABLE_RELATIVE:.0%})")
    turns = effects.filter(pl.col("measure") == "turns")["diff"]
    deals = "on the same deals" if result["same_deals"] else "on deals of the same numbers from different seeds"
    text = (f"The Advanced Variant {verdict} ({result['advanced']} against {result['basic']}: the same strategies "
            f"{deals}): {'; '.join(rules_clause(p, e) for p, e in by_count.items())}. {length.capitalize()} "
            f"({listing(signed(d) for d in turns)} turns a game).")
    return Finding("The Advanced Variant.", text, table(
        "", effects, ("Players", "players"), ("Measure", lambda r: MEASURES[r["measure"]][0]),
        measure_columns("Basic", "basic")[0], measure_columns("Advanced", "advanced")[0],
        *measure_columns("Difference", "diff", difference=True)), tuple(advanced_numbers(result, data)))


def advanced_numbers(result: dict, data: GameData) -> list[dict]:
    """At each player count, each measure under both rules (each from its own experiment) and the difference
    advanced − basic (comparing both)."""
    basic, advanced = result["basic"], result["advanced"]
    method = "cluster_t"  # over the deals played in both experiments
    out = []
    for r in result["effects"].iter_rows(named=True):
        metric, players = MEASURES[r["measure"]][3], r["players"]
        out += [record(data, players, metric, r["basic"], r["basic_lo"], r["basic_hi"], r["games"], method,
                       experiment=basic, rules="basic"),
                record(data, players, metric, r["advanced"], r["advanced_lo"], r["advanced_hi"], r["games_advanced"],
                       method, experiment=advanced, rules="advanced"),
                record(data, players, f"{metric}_difference", r["diff"], r["diff_lo"], r["diff_hi"],
                       r["games"] + r["games_advanced"], "paired_cluster_t", experiment=advanced, against=basic,
                       rules="advanced − basic")]
    return out


def advanced_tables(result: dict, _) -> list:
    return [table(f"{result['basic']} (basic rules) against {result['advanced']} (Advanced Variant) on the same deals "
                  "(difference = advanced − basic; 95% cluster-robust intervals over deals)", result["effects"],
                  ("Players", "players"), ("Measure", lambda r: MEASURES[r["measure"]][0]), ("Deals", "deals", count),
                  *measure_columns("Basic", "basic"), *measure_columns("Advanced", "advanced"),
                  *measure_columns("Difference", "diff", difference=True),
                  ("Clear?", ("diff_lo", "diff_hi"), lambda lo, hi: yes(clear(lo, hi))))]


def advanced_chart(result: dict, data: GameData) -> Chart:
    """One panel per measure: the basic rules and the Advanced Variant side by side, per player count."""
    effects = result["effects"]
    counts = effects["players"].unique().sort().to_list()
    fig, axes = panels(len(MEASURES), 3.0 * len(MEASURES) + 0.8, 4.2)
    for ax, (measure, (words, *_)) in zip(axes, MEASURES.items()):
        panel = aligned(effects.filter(pl.col("measure") == measure), "players", counts)
        bars_with_ci(ax, [str(p) for p in counts], {
            f"basic ({result['basic']})": (panel["basic"], panel["basic_lo"], panel["basic_hi"]),
            f"advanced ({result['advanced']})": (panel["advanced"], panel["advanced_lo"], panel["advanced_hi"])})
        ax.set(title=words[0].upper() + words[1:], xlabel="Players")
        if measure == "completed":
            ax.set_ylim(0, 1)
            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[0],
                          f"{data.title}: the Advanced Variant against the basic rules (95% cluster-robust intervals)",
                          data.out_dir, f"{data.slug}_advanced.png",
                          f"{result['basic']} (basic rules) and {result['advanced']} (Advanced Variant: a new card "
                          "must overlap at least 2 of its 4 cells) on the same deals, per player count: completed "
                          "copies per player, the share of players completing a painting, score per player and turns "
                          "per game.")


def advanced_intro(result: dict, _) -> str:
    return (f"{result['advanced']} plays the Advanced Variant (a new card must overlap at least 2 of its 4 cells with "
            f"the collection), {result['basic']} the basic rules, with the same strategies. Deals with the same number "
            "are paired (the same shuffle when the experiments share a seed), and only deals played in both count; "
            "intervals are clustered by deal, every seating of a deal together (cluster-robust).")


ADVANCED = Analysis(
    "The Advanced Variant against the basic rules", advanced_variant, intro=advanced_intro, chart=advanced_chart,
    tables=advanced_tables, finding=advanced_finding,
    absent="No pair of experiments with the same strategies under the basic rules and the Advanced Variant. Run "
           "witkacy_basic and witkacy_advanced to compare them.")
