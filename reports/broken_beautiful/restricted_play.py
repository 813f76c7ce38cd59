"""Restricted play: which card types matter. Each BASE-no-TYPE strategy (it never keeps a card of TYPE) against its
unrestricted BASE, in every experiment and player count where both played, paired over the deals both played
(reports/restricted.py)."""

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import Analysis, GameData, record
from reports.broken_beautiful.card_types import plural, type_name
from reports.charts import aligned, bars_with_ci, finished_chart, panels
from reports.fmt import clear, count, listing, num, pct, pp, pp_ci, spread, yes
from reports.render import Chart, Finding, table
from reports.restricted import make_up, met_records, pairs, unmatched, win_difference
from reports.stats import cluster_unit


def restricted_play(rows: pl.DataFrame) -> pl.DataFrame:
    """Each variant against its base in every experiment and player count where both played (never pooled): the
    difference of their win shares, variant − base, with its paired and unpaired intervals (win_difference), and
    how their games are made up (make_up); empty where no variant played beside its base."""
    return pl.DataFrame([{**key, "strategy": variant, "base": base, "banned": banned,
                          **win_difference(stratum, variant, base), **make_up(stratum, variant, base)}
                         for key, stratum, variant, base, banned in pairs(rows)])


def restricted(data: GameData) -> pl.DataFrame | None:
    """Restricted play, where some variant played beside its base (None otherwise: nothing to compare)."""
    result = restricted_play(data.rows)
    return None if result.is_empty() else result


def restricted_finding(result: pl.DataFrame, data: GameData) -> Finding:
    """Per player count and base: which card types' removal changes the base's win share (with intervals), how a
    variant's games and its base's are made up, and how the paired intervals compare with the unpaired ones."""
    ranked = by_size(result)
    sentences = []
    for (players, base), group in ranked.partition_by("players", "base", as_dict=True, maintain_order=True).items():
        sentences += [restricted_sentence(players, base, group.to_dicts()), make_up_sentence(base, group),
                      width_sentence(group, cluster_unit(data.rows))]
    sentences += unmatched(data.rows)
    return Finding("Restricted play (which card types matter).", " ".join(s for s in sentences if s), table(
        "", ranked, ("Players", "players"), ("Variant", "strategy"), ("Base", "base"), ("Win share", "share_a", pct),
        ("Base's", "share_b", pct), ("Difference", "estimate", pp), ("95% CI, paired", ("lo", "hi"), pp_ci),
        ("95% CI, unpaired", ("lo_unpaired", "hi_unpaired"), pp_ci), ("Paired ÷ unpaired width", "width_ratio", num),
        ("Clear?", ("lo", "hi"), lambda lo, hi: yes(clear(lo, hi)))), tuple(restricted_numbers(result, data)))


def by_size(result: pl.DataFrame) -> pl.DataFrame:
    """The differences by player count and base, largest change first."""
    return (result.with_columns(size=pl.col("estimate").abs())
            .sort("players", "base", "size", "strategy", descending=[False, False, True, False]))


def magnitude(r: dict) -> tuple[float, float]:
    """The interval of a difference's size |variant − base| (from 0 where the interval holds 0)."""
    low, high = sorted((abs(r["lo"]), abs(r["hi"])))
    return (low if clear(r["lo"], r["hi"]) else 0.0), high


def restricted_sentence(players: int, base: str, ranked: list[dict]) -> str:
    """One base strategy's variants at one player count: the largest change, its interval and verdict; then the
    other clear losses, clear gains and unclear changes."""
    def kinds(rs: list[dict]) -> str:
        return listing(plural(r["banned"]) for r in rs)

    top = ranked[0]
    if any(np.isnan(r["lo"]) for r in ranked):
        return f"At {players} players there are too few deals for an interval on {base}'s variants: no verdict."
    interval = f"({pp(top['estimate'])}, {pp_ci(top['lo'], top['hi'])})"
    opening = f"At {players} players {base} wins {pct(top['share_b'])} of its games"
    if not any(clear(r["lo"], r["hi"]) for r in ranked):
        return (f"{opening}, and no card type's removal changes that clearly; the largest change is without "
                f"{kinds([top])} {interval}.")
    largest = ("the most" if len(ranked) == 1 or magnitude(top)[0] > magnitude(ranked[1])[1] else
               f"the most by its estimate, not clearly more than leaving out {kinds([ranked[1]])}")
    verdict = (f"so {plural(top['banned'])} are worth wins to {base}" if top["hi"] < 0 else
               f"so {base} wins more without them" if top["lo"] > 0 else "though that change is not clear")
    text = f"{opening}; leaving out {kinds([top])} changes its win share {largest} {interval}, {verdict}."
    losses = [r for r in ranked[1:] if r["hi"] < 0]
    gains = [r for r in ranked[1:] if r["lo"] > 0]
    unclear = [r for r in ranked[1:] if not clear(r["lo"], r["hi"])]
    clauses = ([f"without {kinds(losses)} {base} also wins clearly less"] if losses else []) + \
        ([f"without {kinds(gains)} {'clearly more' if losses else base + ' wins clearly more'}"] if gains else []) + \
        ([f"without {kinds(unclear)} the change is not clear"] if unclear else [])
    rest = "; ".join(clauses)
    return text + (f" {rest[0].upper()}{rest[1:]}." if rest else "")


def make_up_sentence(base: str, group: pl.DataFrame) -> str:
    """How the games of one base's variants and of the base are made up, in words."""
    deals = "on the same deals" if group["same_deals"].all() else "on partly different deals"
    selves = "but some games seat one of them twice" if group["faces_itself"].any() else \
        "but neither ever faces itself"
    others = set(group["others"])
    rest = ("" if others == {"none"} else "; their other opponents are other variants" if others == {"variants"}
            else "; their other opponents are the pool's other strategies")
    return (f"Each variant and {base} play in the same pool {deals}, {selves}: {base} holds "
            f"{spread(group['base_met'])} of a variant's opponent seats and {base}'s variants hold "
            f"{spread(group['variants_met'])} of {base}'s{rest}.")


def width_sentence(group: pl.DataFrame, unit: str) -> str:
    """How the paired intervals of one base's variants compare with the unpaired ones, in words."""
    shown = group.filter(pl.col("width_ratio").is_not_nan())
    if shown.is_empty():
        return ""
    wider, narrower = shown.filter(pl.col("width_ratio") > 1), shown.filter(pl.col("width_ratio") < 1)
    unpaired = "the unpaired one (Newcombe, every game an independent sample)"
    if narrower.is_empty():
        return (f"Every paired interval is wider than {unpaired}: the difference varies from {unit} to {unit} "
                "more than independent games would make it vary.")
    if wider.is_empty():
        return (f"Every paired interval is narrower than {unpaired}: a variant and its base play the same "
                f"{unit}s, and pairing them takes the luck of the {unit} out of the difference.")
    return (f"The paired interval is narrower than {unpaired} without {listing(plural(t) for t in narrower['banned'])}"
            f" and wider without {listing(plural(t) for t in wider['banned'])}.")


def restricted_numbers(result: pl.DataFrame, data: GameData) -> list[dict]:
    """Each difference variant − base, with its paired and unpaired intervals and both win shares; and whom each side
    met (met_records)."""
    out = []
    for r in result.iter_rows(named=True):
        out += [record(data, r["players"], "restricted_win_share_difference", r["estimate"], r["lo"], r["hi"],
                       r["games"], r["method"], experiment=r["experiment"], strategy=r["strategy"], base=r["base"],
                       banned=r["banned"], share_variant=r["share_a"], share_base=r["share_b"],
                       low_unpaired=r["lo_unpaired"], high_unpaired=r["hi_unpaired"], width_ratio=r["width_ratio"],
                       games_factor=r["games_factor"], method_unpaired=r["method_unpaired"])]
        out += met_records(data, r, "TYPE")
    return out


def restricted_table(result: pl.DataFrame, _) -> list:
    """Each variant against its base, per player count, largest change first."""
    return [table("Restricted play: win share of BASE-no-TYPE against BASE (difference = variant − base; paired: a "
                  "cluster-robust over deals, matches in match mode; unpaired: Newcombe, games as independent)",
                  by_size(result), ("Players", "players"), ("Variant", "strategy"),
                  ("Type never kept", "banned", type_name), ("Base", "base"), ("Variant games", "games_a", count),
                  ("Base games", "games_b", count), ("Deals", "clusters", count), ("Variant wins", "share_a", pct),
                  ("Base wins", "share_b", pct), ("Difference", "estimate", pp),
                  ("95% CI, paired", ("lo", "hi"), pp_ci), ("95% CI, unpaired", ("lo_unpaired", "hi_unpaired"), pp_ci),
                  ("Unpaired needs × the games", "games_factor", lambda f: num(f, 1)),
                  ("Clear?", ("lo", "hi"), lambda lo, hi: yes(clear(lo, hi))))]


def restricted_chart(result: pl.DataFrame, data: GameData) -> Chart:
    """Horizontal bars: variant − base win share with its paired and unpaired 95% intervals, one panel per player
    count; largest change (at the first player count) first."""
    ranked = by_size(result)
    counts = ranked["players"].unique().sort().to_list()
    order = ranked.filter(pl.col("players") == counts[0])["strategy"].to_list()
    order += [s for s in ranked["strategy"].unique().sort() if s not in order]
    fig, axes = panels(len(counts), max(6.4, 3.2 * len(counts) + 2.2), 2.4 + 0.42 * len(order), sharey=True,
                       sharex=True)
    for ax, players in zip(axes, counts):
        panel = aligned(ranked.filter(pl.col("players") == players), "strategy", order)
        bars_with_ci(ax, order, {"paired over deals": (panel["estimate"], panel["lo"], panel["hi"]),
                                 "unpaired": (panel["estimate"], panel["lo_unpaired"], panel["hi_unpaired"])},
                     horizontal=True)
        ax.axvline(0, color="#555", linewidth=1.0)
        ax.set_title(f"{players} players")
        ax.set_xlabel("Win share: variant − base (pp)")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0, symbol=""))
    return finished_chart(fig, axes[-1], f"{data.title}: restricted play\nwin share of BASE-no-TYPE minus BASE "
                          "(95% intervals)", data.out_dir, f"{data.slug}_restricted_play.png",
                          "How much each BASE-no-TYPE strategy's win share differs from its unrestricted BASE's, in "
                          "percentage points, with the paired interval (cluster-robust over deals) and the unpaired "
                          "one (Newcombe) on the same estimate; bars left of zero mean the type is worth wins to that "
                          "strategy. Largest change first.")


def restricted_caveats(_, data: GameData) -> list[str]:
    return [f"{data.title}: restricted-play differences describe what a card type is worth to that bot's way of "
            "playing, against that pool of bots, not what it is worth to a person."]


RESTRICTED = Analysis(
    "Restricted play: which card types matter", restricted, chart=restricted_chart, tables=restricted_table,
    finding=restricted_finding, caveats=restricted_caveats,
    intro="A BASE-no-TYPE strategy plays like BASE but never keeps a card of TYPE (it sells it, or drafts something "
          "else). Its win share minus BASE's, in each experiment and player count where both played (never pooled "
          "over experiments or player counts), shows what the type is worth to BASE's way of playing: a clear loss "
          "means the type is worth wins to it, a clear gain that it wins more without the type. The interval of each "
          "difference is paired: a cluster-robust interval over deals (matches in match mode) over the same deals for "
          "both win shares, a k-way tie's 1/k of a win summed as it is. Beside it stands the unpaired interval "
          "(Newcombe), which treats every game as an independent sample.",
    absent="No restricted strategies (BASE-no-TYPE, e.g. greedy-no-teapot) took part in these experiments beside "
           "their unrestricted BASE. Run experiments/broken_beautiful_restricted.toml to see how much each card type "
           "is worth to a strategy.")
