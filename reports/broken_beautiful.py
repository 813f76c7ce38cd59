"""Broken and Beautiful's own analyses: the first player marker, points by card type, breakage and repair, ingots
and storage boxes, and restricted play (strategies that never keep one card type, against their unrestricted base).

Broken and Beautiful rows carry `rounds`, `ingots` (held at the end), `repaired` (repaired items), `broken` (broken
items at the end), `items` (items in the collection, broken ones counted) and `points_TYPE` for each scored type
(they sum to `score`); the manifest's facts give the scored `types` and the `rounds` per player count. Strategies
are named `base[@knob][-no-TYPE]`, e.g. "greedy", "hater@3", "greedy-no-teapot".
"""

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData, groups, mean_ci, with_all
from reports.charts import aligned, bars_with_ci, finished_chart, palette, panels, save_chart
from reports.fmt import at_counts, clear, count, listing, num, num_ci, pct, pct_ci, pp, pp_ci, spread, yes
from reports.render import Chart, Finding, est, share_ci, table
from reports.stats import ratio_ci, resampled_sums, wilson

SECTION = "marker, card types, breakage, ingots and restricted play"
PLURALS = {"tray": "serving trays", "box": "storage boxes"}
RESTRICTED = "-no-"  # "greedy-no-teapot" = greedy that never keeps a teapot


def type_name(kind: str) -> str:
    """'tea_jar' -> 'tea jar'."""
    return kind.replace("_", " ")


def plural(kind: str) -> str:
    return PLURALS.get(kind, type_name(kind) + "s")


def scored_types(data: GameData) -> list[str]:
    """The scored card types in the manifest's order (every player count's), that have a points column."""
    kinds = [k for facts in data.facts["types"].to_list() for k in facts]
    return [k for k in dict.fromkeys(kinds) if f"points_{k}" in data.rows.columns]


# ---------------------------------------------------------------- the first player marker


def rounds_led(rounds: pl.DataFrame) -> pl.DataFrame:
    """Per player count and seat (rounds: players, rounds): how many rounds that seat starts as first player."""
    out = [{"players": p, "seat": seat, "rounds": r, "led": len(range(seat, r, p))}
           for p, r in rounds.select("players", "rounds").unique().sort("players").iter_rows() for seat in range(p)]
    return pl.DataFrame(out)


def marker(data: GameData) -> pl.DataFrame:
    return rounds_led(pl.DataFrame({"players": data.player_counts,
                                    "rounds": [data.fact("rounds", p) for p in data.player_counts]}))


def rounds_led_sentence(led: pl.DataFrame, _=None) -> str:
    """E.g. 'At 2 players seat 0 is first player in 5 of the 9 rounds, seat 1 in 4; ...'."""
    parts = []
    for (players,), group in sorted(led.partition_by("players", as_dict=True).items()):
        counts, rounds = group["led"].to_list(), group["rounds"][0]
        more = [s for s, n in enumerate(counts) if n == counts[0]]
        if len(more) == players:
            parts.append(f"at {players} players every seat is first player in {counts[0]} of the {rounds} rounds")
            continue
        first = "seat 0" if len(more) == 1 else f"seats 0–{more[-1]}"
        rest = f"seat {players - 1}" if len(more) == players - 1 else "the others"
        parts.append(f"at {players} players {first} {'is' if len(more) == 1 else 'are'} first player in {counts[0]} "
                     f"of the {rounds} rounds, {rest} in {counts[-1]}")
    text = "; ".join(parts)
    return ("Seat 0 holds the first player marker in round 1; the marker then passes clockwise every round. "
            + text[0].upper() + text[1:] + ".")


def marker_finding(led: pl.DataFrame, data: GameData) -> Finding:
    per_count = led.group_by("players").agg(rounds=pl.col("rounds").first(), led=pl.col("led").sort_by("seat"))
    uneven = per_count.filter(pl.col("led").list.max() > pl.col("led").list.min())["players"].sort().to_list()
    even = sorted(set(data.player_counts) - set(uneven))
    text = (f"The marker gives seat 0 one round more as first player than the last seat at {at_counts(uneven)}"
            if uneven else "Every seat is first player equally often at every player count")
    text += f"; every seat leads equally at {at_counts(even)}." if uneven and even else "."
    led_by_seat = ("Rounds as first player, by seat", "led", lambda led: ", ".join(map(str, led)))
    return Finding("First player marker.", text, table("", per_count.sort("players"), ("Players", "players"),
                                                       ("Rounds", "rounds"), led_by_seat))


# ---------------------------------------------------------------- points by type


def type_points(rows: pl.DataFrame, kinds: list[str], by: list[str]) -> pl.DataFrame:
    """Long frame: per group and card type, mean points per player (bootstrap) and share of all points."""
    out = []
    for key, group in groups(rows, by):
        total = group["score"].sum()
        for kind in kinds:
            values = group[f"points_{kind}"].to_numpy()
            share = values.sum() / total if total else float("nan")
            out.append({**key, "type": kind, "players_n": group.height, **mean_ci(values), "share": share})
    return pl.DataFrame(out)


def winner_edges(rows: pl.DataFrame, kinds: list[str], by: list[str]) -> pl.DataFrame:
    """Per group and type: in games with a single winner, the winner's points from the type minus the mean of the
    other players' (bootstrap over games)."""
    sole = rows.filter((pl.col("win").max() >= 1 - 1e-9).over(GAME_KEY))
    won, lost = pl.col("win") >= 1 - 1e-9, pl.col("win") < 1 - 1e-9
    games = sole.group_by(GAME_KEY).agg(
        players=pl.col("players").first(),
        **{k: pl.col(f"points_{k}").filter(won).first() - pl.col(f"points_{k}").filter(lost).mean() for k in kinds})
    return pl.DataFrame([{**key, "type": kind, "games": group.height, **mean_ci(group[kind].to_numpy(), "edge")}
                         for key, group in groups(games, by) for kind in kinds])


def card_types(data: GameData) -> dict:
    kinds, rows = scored_types(data), data.rows
    return {"kinds": kinds, "by_count": type_points(rows, kinds, ["players"]), "pooled": type_points(rows, kinds, []),
            "by_strategy": type_points(rows, kinds, ["players", "strategy"]),
            "edges": winner_edges(rows, kinds, ["players"]), "pooled_edges": winner_edges(rows, kinds, [])}


def type_finding(result: dict, _) -> Finding:
    """Which card types bring the points, and which winners score on."""
    pooled = result["pooled"].join(result["pooled_edges"], on="type", how="left").sort("mean", descending=True)
    top = pooled.head(3)
    text = f"The most points come from {listing(plural(t) for t in top['type'])} (all player counts together)."
    edges = pooled.filter(pl.col("edge").is_not_null())
    if not edges.is_empty():
        high, low = edges.sort("edge", descending=True).row(0, named=True), edges.sort("edge").row(0, named=True)
        text += (f" Winners out-score the other players of their game most on {plural(high['type'])} and least on "
                 f"{plural(low['type'])}" + ("; winners score less there than the others." if low["edge_hi"] < 0
                                                else "."))
    return Finding("Points by type.", text, table("", pooled, ("Type", "type", type_name),
                                                  *est("Points per player", "mean", lo="lo", hi="hi"),
                                                  ("Share of points", "share", pct), *est("Winner − others", "edge")))


def type_tables(result: dict, data: GameData) -> list:
    index = {t: i for i, t in enumerate(result["kinds"])}
    joined = sorted(result["by_count"].join(result["edges"], on=["players", "type"], how="left").iter_rows(named=True),
                    key=lambda r: (r["players"], index[r["type"]]))
    per_strategy = result["by_strategy"]
    below, above = per_strategy["mean"] - per_strategy["lo"], per_strategy["hi"] - per_strategy["mean"]
    half = float(np.nanmax(np.maximum(below.to_numpy(), above.to_numpy())))
    means = {(r["players"], r["strategy"], r["type"]): r["mean"] for r in per_strategy.iter_rows(named=True)}
    rank = {s: i for i, s in enumerate(data.order)}
    keys = sorted({(p, s) for p, s, _ in means}, key=lambda k: (k[0], rank.get(k[1], len(rank))))
    kinds = result["kinds"]
    return [
        table("Points by card type and player count (all strategies together)", joined, ("Players", "players"),
              ("Type", "type", type_name), ("Mean points per player", "mean", num),
              ("95% CI (bootstrap)", ("lo", "hi"), num_ci), ("Share of points", "share", pct),
              ("Winner − others (same game)", "edge", num), ("95% CI (bootstrap)", ("edge_lo", "edge_hi"), num_ci)),
        table(f"Mean points per player by strategy and card type (every mean's 95% bootstrap interval lies within "
              f"±{num(half)} points of it)", [{"p": p, "s": s} for p, s in keys], ("Players", "p"), ("Strategy", "s"),
              *((type_name(t), lambda r, t=t: num(means[(r["p"], r["s"], t)], 1)) for t in kinds),
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
        ax.set(yticks=positions, yticklabels=order, ylim=(len(order) - 0.5, -0.5))
        ax.set(title=f"{players} players", xlabel="Mean points per player")
    return finished_chart(fig, axes[0], f"{data.title}: where the points come from, by strategy and card type",
                          data.out_dir, f"{data.slug}_points_by_type.png",
                          "Mean points per player from each card type, stacked, so a bar's length is the mean score; "
                          "strategies in order of win share (best first), one panel per player count. Intervals are "
                          "in the tables below.")


# ---------------------------------------------------------------- breakage and repair


def breakage_rates(data: GameData) -> pl.DataFrame:
    """Per player count and strategy (and 'all'): broken and repaired items per player (bootstrap), the share
    of kept items that end broken and the share of breakages mended (ratios, bootstrap over players)."""
    out = []
    for key, group in with_all(data.rows):
        broken, repaired, items = (group[c].to_numpy().astype(float) for c in ("broken", "repaired", "items"))
        fixable = (repaired + broken).sum()
        ended, mended = ratio_ci(broken, items), ratio_ci(repaired, repaired + broken)
        out.append({**key, "n": group.height, **mean_ci(broken, "broken"), **mean_ci(repaired, "repaired"),
                    "ended_broken": broken.sum() / items.sum() if items.sum() else float("nan"),
                    "ended_lo": ended[0], "ended_hi": ended[1], "mended_lo": mended[0], "mended_hi": mended[1],
                    "mended": repaired.sum() / fixable if fixable else float("nan")})
    return pl.DataFrame(out)


def breakage_finding(breakage: pl.DataFrame, data: GameData) -> Finding:
    """How much breaks and how much is mended, per player count in the table; who repairs most."""
    overall = breakage.filter(pl.col("strategy") == "all").sort("players")
    text = (f"{spread(overall['ended_broken']).capitalize()} of kept items end the game broken and "
            f"{spread(overall['mended'])} of the items that broke are mended, by player count.")
    strategies = breakage.filter(pl.col("strategy") != "all")
    if strategies["strategy"].n_unique() > 1:
        most = strategies.sort("repaired", descending=True).row(0, named=True)
        text += (f" Most repairs: {most['strategy']}, {num(most['repaired'])} items per player at "
                 f"{most['players']} players, the most of any strategy at any player count.")
    return Finding("Breakage and repair.", text, table("", overall, ("Players", "players"),
                                                       *est("Kept items ending broken", "ended_broken", pct, pct_ci,
                                                            "ended_lo", "ended_hi"),
                                                       *est("Breakages mended", "mended", pct, pct_ci),
                                                       ("Repairs per player", "repaired", num)))


def breakage_table(breakage: pl.DataFrame, _) -> list:
    return [table("Breakage and repair by player count and strategy ('all' = every player)", breakage,
                  ("Players", "players"), ("Strategy", "strategy"), ("Player results", "n", count),
                  *est("Broken at end", "broken"), *est("Repaired", "repaired"),
                  *est("Kept items ending broken", "ended_broken", pct, pct_ci, "ended_lo", "ended_hi"),
                  *est("Breakages mended", "mended", pct, pct_ci))]


def breakage_chart(breakage: pl.DataFrame, data: GameData) -> Chart:
    """Grouped horizontal bars per strategy: share of kept items ending broken, share of breakages mended."""
    labels, counts = ["all", *data.order], data.player_counts
    fig, axes = panels(len(counts), 3.6 * len(counts) + 1.8, 2.0 + 0.5 * len(labels), sharey=True, sharex=True)
    for ax, players in zip(axes, counts):
        panel = aligned(breakage.filter(pl.col("players") == players), "strategy", labels)
        bars_with_ci(ax, labels, {
            "kept items that end broken": (panel["ended_broken"], panel["ended_lo"], panel["ended_hi"]),
            "broken items that were mended": (panel["mended"], panel["mended_lo"], panel["mended_hi"])},
            horizontal=True)
        ax.set_xlim(0, 1)
        ax.set(title=f"{players} players", xlabel="Share of items")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[-1], f"{data.title}: breakage and repair (95% bootstrap intervals)",
                          data.out_dir, f"{data.slug}_breakage.png",
                          "Per strategy and player count: the share of kept items that are broken at the end of the "
                          "game, and the share of the items that broke which were repaired; 'all' is every player.")


# ---------------------------------------------------------------- ingots


def ingot_flow(data: GameData) -> pl.DataFrame:
    """Per player count and strategy (and 'all'): ingots held at the end, how many sit beside a scoring
    storage box, the share of players scoring a box (Wilson) and their box points (bootstrap)."""
    out = []
    for key, group in with_all(data.rows):
        ingots = group["ingots"].to_numpy().astype(float)
        box = group["points_box"].to_numpy().astype(float) if "points_box" in group.columns else np.zeros_like(ingots)
        boxed = box > 0
        lo, hi = wilson(boxed.sum(), boxed.size)
        out.append({**key, "n": group.height, **mean_ci(ingots, "ingots"),
                    "boxed_ingots": float((ingots * boxed).mean()), **mean_ci(ingots * ~boxed, "idle"),
                    "box_share": float(boxed.mean()), "box_lo": lo, "box_hi": hi, **mean_ci(box, "box_points")})
    return pl.DataFrame(out)


def ingot_finding(ingots: pl.DataFrame, _) -> Finding:
    """The ingots left at the end and what storage boxes make of them."""
    overall = ingots.filter(pl.col("strategy") == "all").sort("players")
    idle = float(overall["idle"].sum() / overall["ingots"].sum()) if overall["ingots"].sum() else float("nan")
    text = (f"Players end the game holding {spread(overall['ingots'], num)} ingots each, by player count; "
            f"{pct(idle)} of them with no storage box to score them.")
    strategies = ingots.filter(pl.col("strategy") != "all")
    if strategies["strategy"].n_unique() > 1:
        most = strategies.sort("ingots", descending=True).row(0, named=True)
        text += (f" Most ingots left: {most['strategy']}, {num(most['ingots'])} per player at {most['players']} "
                 "players, the most of any strategy at any player count.")
    return Finding("Ingots held at the end.", text, table("", overall, ("Players", "players"),
                                                          *est("Ingots per player", "ingots"),
                                                          ("With no scoring box", "idle", num),
                                                          *est("Players scoring a box", "box_share", pct, pct_ci,
                                                               "box_lo", "box_hi")))


def ingot_table(ingots: pl.DataFrame, _) -> list:
    return [table("Ingots held at the end, and storage boxes ('all' = every player)", ingots, ("Players", "players"),
                  ("Strategy", "strategy"), ("Player results", "n", count), *est("Ingots at end", "ingots"),
                  *est("Without a scoring box", "idle"),
                  *est("Scores a storage box", "box_share", pct, pct_ci, "box_lo", "box_hi"),
                  *est("Box points", "box_points"))]


def ingot_chart(ingots: pl.DataFrame, data: GameData) -> Chart:
    """Stacked horizontal bars: mean ingots at the end, split by whether a storage box scores them."""
    labels, counts, colours = ["all", *data.order], data.player_counts, palette(2)
    fig, axes = panels(len(counts), 3.6 * len(counts) + 1.8, 2.0 + 0.38 * len(labels), sharey=True, sharex=True)
    positions = np.arange(len(labels))
    for ax, players in zip(axes, counts):
        panel = aligned(ingots.filter(pl.col("players") == players), "strategy", labels)
        boxed, idle = (np.nan_to_num(panel[c].to_numpy().astype(float)) for c in ("boxed_ingots", "idle"))
        total = panel["ingots"].to_numpy().astype(float)
        error = np.nan_to_num([total - panel["ingots_lo"].to_numpy(), panel["ingots_hi"].to_numpy() - total])
        ax.barh(positions, boxed, height=0.7, color=colours[0], label="held beside a scoring storage box")
        ax.barh(positions, idle, left=boxed, height=0.7, color=colours[1], label="held with no box (worth nothing)",
                xerr=error, ecolor="#333", capsize=3, error_kw={"elinewidth": 1})
        ax.set(yticks=positions, yticklabels=labels, ylim=(len(labels) - 0.5, -0.5))
        ax.set(title=f"{players} players", xlabel="Mean ingots held at the end")
    return finished_chart(fig, axes[-1], f"{data.title}: ingots left at the end of the game",
                          data.out_dir, f"{data.slug}_ingots.png",
                          "Mean ingots per player at the end of the game, split by whether the player scores a "
                          "storage box (which counts ingots, up to a cap); error bars are 95% bootstrap intervals on "
                          "the total.")


# ---------------------------------------------------------------- restricted play


def restricted_variants(rows: pl.DataFrame) -> pl.DataFrame:
    """The BASE-no-TYPE strategies in rows: strategy, base, banned type."""
    names = sorted(s for s in rows["strategy"].unique() if RESTRICTED in s)
    out = [{"strategy": s, "base": s.partition(RESTRICTED)[0], "banned": s.partition(RESTRICTED)[2]} for s in names]
    return pl.DataFrame(out, schema={"strategy": pl.String, "base": pl.String, "banned": pl.String})


def restricted_play(rows: pl.DataFrame, variants: pl.DataFrame) -> pl.DataFrame:
    """Each variant's win share against its base's, per player count and 'all', in the experiments where both
    played at that player count (so both faced the same pool of opponents).

    Shares pool those (experiment, player count) strata, each weighted by the variant's games in it; the base
    is standardised to the same weights. A single stratum's shares carry Wilson intervals; standardised base
    shares and every difference (variant − base) carry percentile bootstrap intervals that resample whole
    games within each stratum, so a variant and its base at the same table move together."""
    seats = rows.group_by(*GAME_KEY, "players", "strategy").agg(wins=pl.col("win").sum(), seats=pl.len())
    out = []
    for variant, base, banned in variants.iter_rows():
        pair = seats.filter(pl.col("strategy").is_in([variant, base]))
        both = (pair.group_by("experiment", "players").agg(kinds=pl.col("strategy").n_unique())
                .filter(pl.col("kinds") == 2).sort("players", "experiment"))
        strata = [restricted_stratum(pair.filter((pl.col("experiment") == e) & (pl.col("players") == p)), variant,
                                     base, i) for i, (e, p, _) in enumerate(both.iter_rows())]
        names = {"strategy": variant, "base": base, "banned": banned}
        if not strata:
            out.append({"players": "all", **names, "counts": 0, "games": 0})
            continue
        counts = sorted({s["players"] for s in strata})
        pooled = [("all", strata)] + [(str(p), [s for s in strata if s["players"] == p]) for p in counts]
        out += [{"players": label, **names, "counts": len(counts), **combine_strata(group)} for label, group in pooled]
    return pl.DataFrame(out)


def restricted_stratum(pair: pl.DataFrame, variant: str, base: str, seed: int) -> dict:
    """One (experiment, player count): the variant's and base's wins and seats, and bootstrap shares."""
    is_v, is_b = pl.col("strategy") == variant, pl.col("strategy") == base
    games = (pair.group_by(GAME_KEY).agg(vw=pl.col("wins").filter(is_v).sum(), vn=pl.col("seats").filter(is_v).sum(),
                                         bw=pl.col("wins").filter(is_b).sum(), bn=pl.col("seats").filter(is_b).sum())
             .select("vw", "vn", "bw", "bn").to_numpy().astype(float))
    sums = resampled_sums(games, seed=seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot_v, boot_b = sums[:, 0] / sums[:, 1], sums[:, 2] / sums[:, 3]
    vw, vn, bw, bn = games.sum(axis=0)
    return {"players": int(pair["players"][0]), "vw": vw, "vn": vn, "bw": bw, "bn": bn, "boot_v": boot_v,
            "boot_b": boot_b}


def combine_strata(strata: list[dict]) -> dict:
    """Win shares of variant and base over strata weighted by the variant's games, and their difference."""
    total = sum(s["vn"] for s in strata)
    weights = [s["vn"] / total for s in strata]
    share = sum(s["vw"] for s in strata) / total
    base_share = sum(w * s["bw"] / s["bn"] for w, s in zip(weights, strata))
    boot_b = sum(w * s["boot_b"] for w, s in zip(weights, strata))
    boot_v = sum(w * s["boot_v"] for w, s in zip(weights, strata))
    lo, hi = wilson(sum(s["vw"] for s in strata), total)
    if len(strata) == 1:
        base_lo, base_hi = wilson(strata[0]["bw"], strata[0]["bn"])
    else:
        base_lo, base_hi = (float(q) for q in np.nanquantile(boot_b, [0.025, 0.975]))
    diff_lo, diff_hi = (float(q) for q in np.nanquantile(boot_v - boot_b, [0.025, 0.975]))
    return {"games": int(total), "share": share, "lo": lo, "hi": hi, "base_games": int(sum(s["bn"] for s in strata)),
            "base_share": base_share, "base_lo": base_lo, "base_hi": base_hi, "diff": share - base_share,
            "diff_lo": diff_lo, "diff_hi": diff_hi}


def restricted(data: GameData) -> pl.DataFrame | None:
    """Restricted play, where some variant played beside its base (None otherwise: nothing to compare)."""
    variants = restricted_variants(data.rows)
    result = None if variants.is_empty() else restricted_play(data.rows, variants)
    return result if result is not None and (result["games"] > 0).any() else None


def restricted_finding(result: pl.DataFrame, _) -> Finding:
    """Which card types' removal changes each base strategy's win share most; the differences in the table."""
    pooled = result.filter((pl.col("players") == "all") & (pl.col("games") > 0))
    by_size = pooled.with_columns(size=pl.col("diff").abs()).sort("size", descending=True)
    sentences = [restricted_sentence(base, group.to_dicts())
                 for (base,), group in sorted(by_size.partition_by("base", as_dict=True, maintain_order=True).items())]
    missing = result.filter(pl.col("games") == 0)["strategy"].to_list()
    if missing:
        sentences.append(f"No unrestricted base in the same experiment and player count for {', '.join(missing)}.")
    return Finding("Restricted play (which card types matter).", " ".join(sentences), table(
        "", by_size, ("Variant", "strategy"), ("Win share", "share", pct), ("Base's", "base_share", pct),
        *est("Difference", "diff", pp, pp_ci), ("Clear?", ("diff_lo", "diff_hi"), lambda lo, hi: yes(clear(lo, hi)))))


def restricted_sentence(base: str, ranked: list[dict]) -> str:
    """One base strategy's variants in two sentences: the largest change and its verdict; the other clear losses,
    gains and no-changes."""
    def kinds(rs: list[dict]) -> str:
        return listing(plural(r["banned"]) for r in rs)

    top = ranked[0]
    if not any(clear(r["diff_lo"], r["diff_hi"]) for r in ranked):
        return (f"No card type's removal changes {base}'s win share clearly; the largest change is without "
                f"{kinds([top])}.")
    verdict = (f"so {plural(top['banned'])} are worth wins to {base}" if top["diff"] < 0 else
               f"so {base} does better without {plural(top['banned'])}: it overvalues them")
    text = f"Leaving out {kinds([top])} changes {base}'s win share the most, {verdict}."
    losses = [r for r in ranked[1:] if r["diff_hi"] < 0]
    gains = [r for r in ranked[1:] if r["diff_lo"] > 0]
    unclear = [r for r in ranked if not clear(r["diff_lo"], r["diff_hi"])]
    rest = ([f"losses also without {kinds(losses)}"] if losses else []) + \
        ([f"gains without {kinds(gains)} ({base} overvalues them)"] if gains else [])
    if unclear:
        text += (f" {'Clear ' + listing(rest) + '; w' if rest else 'W'}ithout {kinds(unclear)} there is no clear "
                 f"change: they matter least to {base}.")
    elif rest:
        text += f" Clear {listing(rest)}."
    return text


def restricted_table(result: pl.DataFrame, _) -> list:
    """Each variant against its base, per player count and pooled, biggest loss first."""
    size = result.filter(pl.col("players") == "all").select("strategy", size=pl.col("diff").abs())
    position = pl.when(pl.col("players") == "all").then(0).otherwise(pl.col("players").cast(pl.Int64, strict=False))
    ordered = (result.join(size, on="strategy", how="left").with_columns(position=position)
               .sort("base", "size", "strategy", "position", descending=[False, True, False, False], nulls_last=True)
               .filter((pl.col("players") != "all") | (pl.col("counts") != 1)))  # with one count 'all' repeats it
    return [table("Restricted play: win share of BASE-no-TYPE against BASE (difference = variant − base; 'all' "
                  "standardises the base to the variant's player counts)", ordered, ("Players", "players"),
                  ("Variant", "strategy"), ("Type never kept", "banned", type_name), ("Base", "base"),
                  ("Variant games", "games", count), *share_ci("Variant wins"),
                  *share_ci("Base wins", "base_share", "base_lo", "base_hi"), ("Difference", "diff", pp),
                  ("95% CI (bootstrap)", ("diff_lo", "diff_hi"), pp_ci),
                  ("Clear?", ("diff_lo", "diff_hi"), lambda lo, hi: yes(clear(lo, hi))))]


def restricted_chart(result: pl.DataFrame, data: GameData) -> Chart:
    """Horizontal bars: variant − base win share with 95% intervals; 'all' first, then each player count."""
    shown = result.filter(pl.col("games") > 0)
    order = (shown.filter(pl.col("players") == "all").with_columns(size=pl.col("diff").abs())
             .sort("size", descending=True)["strategy"].to_list())
    counts = sorted(p for p in shown["players"].unique() if p != "all")
    labels = counts if len(counts) == 1 else ["all", *counts]
    fig, axes = panels(len(labels), max(6.4, 3.2 * len(labels) + 2.2), 2.4 + 0.42 * len(order), sharey=True,
                       sharex=True)
    for ax, players in zip(axes, labels):
        panel = aligned(shown.filter(pl.col("players") == players), "strategy", order)
        bars_with_ci(ax, order, {"variant − base": (panel["diff"], panel["diff_lo"], panel["diff_hi"])},
                     horizontal=True)
        ax.axvline(0, color="#555", linewidth=1.0)
        ax.set_title("all player counts" if players == "all" else f"{players} players")
        ax.set_xlabel("Win share: variant − base (pp)")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0, symbol=""))
    fig.suptitle(f"{data.title}: restricted play\nwin share of BASE-no-TYPE minus BASE (95% bootstrap intervals)")
    return save_chart(fig, data.out_dir, f"{data.slug}_restricted_play.png",
                      "How much each BASE-no-TYPE strategy's win share differs from its unrestricted BASE, in "
                      "percentage points; bars left of zero mean the type is worth wins to that strategy. Largest "
                      "change first.")


def caveats(_, data: GameData) -> list[str]:
    counted = {e: data.params(e, p).get("tie_items_count_broken") for e in data.rows["experiment"].unique().sort()
               for p in data.player_counts}
    off = sorted(e for e, on in counted.items() if on is False)
    items = ("`items` counts broken items too (tie_items_count_broken = true)" if not off else
             f"`items` counts broken items too, except in {listing(off)} (tie_items_count_broken = false), where the "
             "share is of unbroken items instead")
    return [f"{data.title}: restricted-play differences compare a variant with its base in the same pool of opponents, "
            "but not the same opponents game by game (the variant never faces itself, the base never faces itself), "
            "and they describe what the type is worth to that bot's way of playing, not to a person.",
            f"{data.title}: for 'kept items that end broken', {items}."]


ANALYSES = [
    Analysis("The first player marker", marker, intro=rounds_led_sentence, finding=marker_finding),
    Analysis("Points by card type", card_types, chart=type_points_chart, tables=type_tables, finding=type_finding,
             intro="Where the points come from: the mean points per player from each card type (broken pottery "
                   "scores nothing). 'Winner − others' compares, within each game with a single winner, the winner's "
                   "points from a type with the mean of the other players': the types winners score on."),
    Analysis("Breakage and repair", breakage_rates, chart=breakage_chart, tables=breakage_table,
             finding=breakage_finding, caveats=caveats,
             intro="Items are the cards kept in a collection (trays and boxes included; they never break). An item "
                   "'ends broken' if it is broken and unrepaired at the end; of the items that broke, 'mended' is the "
                   "share repaired (repaired items never break again). One leftover breaks every matching item at "
                   "once, so the items of one collection break together: the intervals on these shares resample "
                   "players, not items (bootstrap)."),
    Analysis("Ingots", ingot_flow, chart=ingot_chart, tables=ingot_table, finding=ingot_finding,
             intro="Ingots held at the end of the game are worth nothing, except through a storage box (each box "
                   "scores its owner's ingots, up to a cap). A player 'scores a box' if the box points are above "
                   "zero."),
    Analysis("Restricted play: which card types matter", restricted, chart=restricted_chart, tables=restricted_table,
             finding=restricted_finding,
             intro="A BASE-no-TYPE strategy plays like BASE but never keeps a card of TYPE (it sells it, or drafts "
                   "something else). Its win share minus BASE's, counted only in the experiments and at the player "
                   "counts where both played (so both faced the same pool of opponents), shows what the type is "
                   "worth: a large loss means the type carries the strategy, no change means it is dead weight, a "
                   "gain means BASE overvalues it. Intervals on the difference resample whole games (bootstrap), "
                   "since a variant and its base often sit at the same table. Where several experiments or player "
                   "counts are pooled, each weighs by the variant's games in it.",
             absent="No restricted strategies (BASE-no-TYPE, e.g. greedy-no-teapot) took part in these experiments "
                    "beside their unrestricted BASE. Run experiments/broken_beautiful_restricted.toml to see how much "
                    "each card type is worth to a strategy."),
]
