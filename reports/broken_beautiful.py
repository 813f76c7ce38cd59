"""Broken and Beautiful's own report section: the start player's compensation in points, points by card
type, breakage and repair, ingots and storage boxes, and restricted play (strategies that never keep one
card type, against their unrestricted base).

Broken and Beautiful rows carry `rounds`, `ingots` (held at the end), `repaired` (repaired items),
`broken` (broken items at the end), `items` (items in the collection, broken ones counted) and
`points_TYPE` for each scored type (they sum to `score`). Strategies are named `base[@knob][-no-TYPE]`,
e.g. "greedy", "hater@3", "greedy-no-teapot". The HIGHEST score wins; ties go to the most repaired
items, then the most items; players still tied share the win.
"""

from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.frames import GAME_KEY, clear, groups, strategy_order
from reports.render import (
    Chart,
    Heading,
    Section,
    Table,
    bars_with_ci,
    compensation_finding,
    count,
    legend_below,
    new_figure,
    num,
    num_ci,
    palette,
    pct,
    pct_ci,
    pp,
    pp_ci,
    save_chart,
)
from reports.seats import compensation_chart, compensation_table, start_player_compensation
from reports.stats import bootstrap_mean_ci, ratio_ci, resampled_sums, wilson

GAME = "broken_beautiful"
TITLE = "Broken and Beautiful"
TYPES = ("cup", "saucer", "plate", "bowl", "tea_jar", "vase", "teapot", "tray", "box")
PLURALS = {
    "cup": "cups",
    "saucer": "saucers",
    "plate": "plates",
    "bowl": "bowls",
    "tea_jar": "tea jars",
    "vase": "vases",
    "teapot": "teapots",
    "tray": "serving trays",
    "box": "storage boxes",
}
RESTRICTED = "-no-"  # "greedy-no-teapot" = greedy that never keeps a teapot


def section(rows: pl.DataFrame, out_dir: Path) -> Section:
    """The Broken and Beautiful section of the report (rows: Broken and Beautiful rows only)."""
    order = strategy_order(rows)
    compensation = start_player_compensation(rows, higher_wins=True, key=tie_key(), unit=1_000_000)
    by_type = type_points(rows, ["players"])
    edges = winner_edges(rows)
    breakage = breakage_rates(rows)
    ingots = ingot_flow(rows)
    result = Section(f"{TITLE}: compensation, card types, breakage, ingots and restricted play")
    result.blocks = [
        Heading("Points that would offset the start player's edge"),
        (
            "Seat 0 holds the first player marker in round 1; the marker then passes clockwise every round. "
            + rounds_led_sentence(rows)
            + " The table gives seat 0's win share if that player's final score were raised (positive) or "
            "lowered (negative) by a fixed number of points, all other scores unchanged; ties still go to the "
            "most repaired items, then the most items. Higher scores win, so adding points helps the start "
            "player. The fair share is 1/P."
        ),
        compensation_chart(compensation, out_dir, GAME, TITLE),
        compensation_table(compensation),
        Heading("Points by card type"),
        (
            "Where the points come from: the mean points per player from each card type (broken pottery scores "
            "nothing). 'Winner − others' compares, within each game with a single winner, the winner's points "
            "from a type with the mean of the other players': the types winners score on."
        ),
        type_points_chart(type_points(rows, ["players", "strategy"]), order, out_dir),
        type_points_table(by_type, edges, rows),
        strategy_type_table(type_points(rows, ["players", "strategy"]), order),
        Heading("Breakage and repair"),
        (
            "Items are the cards kept in a collection (trays and boxes included; they never break). An item "
            "'ends broken' if it is broken and unrepaired at the end; of the items that broke, 'mended' is the "
            "share repaired (repaired items never break again). One leftover breaks every matching item at "
            "once, so the items of one collection break together: the intervals on these shares resample "
            "players, not items (bootstrap)."
        ),
        breakage_chart(breakage, order, out_dir),
        breakage_table(breakage),
        Heading("Ingots"),
        (
            "Ingots held at the end of the game are worth nothing, except through a storage box (each box "
            "scores its owner's ingots, up to a cap). A player 'scores a box' if the box points are above zero."
        ),
        ingot_chart(ingots, order, out_dir),
        ingot_table(ingots),
    ]
    result.findings = [
        compensation_finding(compensation, higher_wins=True) + " " + rounds_led_sentence(rows),
        type_finding(type_points(rows, []), winner_edges(rows, [])),
        breakage_finding(breakage),
        ingot_finding(ingots),
    ]
    variants = restricted_variants(rows)
    result.blocks.append(Heading("Restricted play: which card types matter"))
    if variants.is_empty():
        result.blocks.append(
            "No restricted strategies (BASE-no-TYPE, e.g. greedy-no-teapot) took part in these experiments. Run "
            "experiments/broken_beautiful_restricted.toml to see how much each card type is worth to a strategy."
        )
        result.findings.append(
            "Restricted play: no BASE-no-TYPE strategies in these data, so which card types matter most is "
            "read only from the points by type."
        )
    else:
        restricted = restricted_play(rows, variants)
        result.blocks += [
            (
                "A BASE-no-TYPE strategy plays like BASE but never keeps a card of TYPE (it sells it, or drafts "
                "something else). Its win share minus BASE's, counted only in the experiments and at the player "
                "counts where both played (so both faced the same pool of opponents), shows what the type is "
                "worth: a large loss means the type carries the strategy, no change means it is dead weight, a "
                "gain means BASE overvalues it. Intervals on the difference resample whole games (bootstrap), "
                "since a variant and its base often sit at the same table. Where several experiments or player "
                "counts are pooled, each weighs by the variant's games in it."
            ),
            restricted_chart(restricted, out_dir),
            restricted_table(restricted),
        ]
        result.findings.append(restricted_finding(restricted))
    result.caveats = [
        (
            f"{TITLE}: restricted-play differences compare a variant with its base in the same pool of opponents, "
            "but not the same opponents game by game (the variant never faces itself, the base never faces "
            "itself), and they describe what the type is worth to that bot's way of playing, not to a person."
        ),
        (
            f"{TITLE}: 'kept items that end broken' takes `items` to count broken items too (the default "
            "tie_items_count_broken = true); with that parameter off, the share is of unbroken items instead."
        ),
    ]
    return result


# ---------------------------------------------------------------- shared helpers


def mean_with_ci(values) -> dict:
    """{'mean', 'lo', 'hi'}: a mean with its percentile bootstrap interval."""
    values = np.asarray(values, dtype=float)
    lo, hi = bootstrap_mean_ci(values)
    return {"mean": float(values.mean()) if values.size else float("nan"), "lo": lo, "hi": hi}


def type_name(kind: str) -> str:
    """'tea_jar' -> 'tea jar'."""
    return kind.replace("_", " ")


def type_columns(rows: pl.DataFrame) -> list[str]:
    """The card types that have a points column in rows, in rulebook order."""
    return [t for t in TYPES if f"points_{t}" in rows.columns]


# ---------------------------------------------------------------- start player


def rounds_led(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and seat: rounds in the game and how many of them that seat starts as first player."""
    rounds = rows.group_by("players").agg(rounds=pl.col("rounds").max()).sort("players")
    out = [
        {"players": p, "seat": seat, "rounds": r, "led": len(range(seat, r, p))}
        for p, r in rounds.iter_rows()
        for seat in range(p)
    ]
    return pl.DataFrame(out)


def rounds_led_sentence(rows: pl.DataFrame) -> str:
    """E.g. 'At 2 players seat 0 is first player in 5 of the 9 rounds, seat 1 in 4; ...'."""
    parts = []
    for (players,), led in sorted(rounds_led(rows).partition_by("players", as_dict=True).items()):
        counts, rounds = led["led"].to_list(), led["rounds"][0]
        more = [s for s, n in enumerate(counts) if n == counts[0]]
        if len(more) == players:
            parts.append(f"at {players} players every seat is first player in {counts[0]} of the {rounds} rounds")
            continue
        first = "seat 0" if len(more) == 1 else f"seats 0–{more[-1]}"
        rest = f"seat {players - 1}" if len(more) == players - 1 else "the others"
        verb = "is" if len(more) == 1 else "are"
        parts.append(
            f"at {players} players {first} {verb} first player in {counts[0]} of the {rounds} rounds, "
            f"{rest} in {counts[-1]}"
        )
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "." if text else ""


def tie_key() -> pl.Expr:
    """Ending the Game: most points, then most repaired items, then most items, as one sortable integer."""
    return (pl.col("score").cast(pl.Int64) * 1000 + pl.col("repaired").cast(pl.Int64)) * 1000 + pl.col("items").cast(
        pl.Int64
    )


# ---------------------------------------------------------------- points by type


def type_points(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Long frame: per group and card type, mean points per player (bootstrap) and share of all points."""
    out = []
    for key, group in groups(rows, by):
        total = group["score"].sum()
        for kind in type_columns(rows):
            values = group[f"points_{kind}"].to_numpy()
            share = values.sum() / total if total else float("nan")
            out.append({**key, "type": kind, "players_n": group.height, **mean_with_ci(values), "share": share})
    return pl.DataFrame(out)


def winner_edges(rows: pl.DataFrame, by: list[str] | None = None) -> pl.DataFrame:
    """Per group (default: player count) and type: in games with a single winner, the winner's points from the
    type minus the mean of the other players' (bootstrap over games)."""
    by = ["players"] if by is None else by
    kinds = type_columns(rows)
    sole = rows.filter((pl.col("win").max() >= 1 - 1e-9).over(GAME_KEY))
    won, lost = pl.col("win") >= 1 - 1e-9, pl.col("win") < 1 - 1e-9
    games = sole.group_by(GAME_KEY).agg(
        players=pl.col("players").first(),
        **{k: pl.col(f"points_{k}").filter(won).first() - pl.col(f"points_{k}").filter(lost).mean() for k in kinds},
    )
    out = []
    for key, group in groups(games, by):
        for kind in kinds:
            edge = mean_with_ci(group[kind].to_numpy())
            out.append(
                {
                    **key,
                    "type": kind,
                    "games": group.height,
                    "edge": edge["mean"],
                    "edge_lo": edge["lo"],
                    "edge_hi": edge["hi"],
                }
            )
    return pl.DataFrame(out)


def type_finding(pooled: pl.DataFrame, edges: pl.DataFrame) -> str:
    """Plain-words answer to 'which card types bring the points, and which do winners score on?'."""
    top = pooled.sort("mean", descending=True).head(3).to_dicts()
    listed = [
        f"{PLURALS[r['type']]} {num(r['mean'])} points per player (95% CI {num_ci(r['lo'], r['hi'])}; "
        f"{pct(r['share'])} of all points)"
        for r in top
    ]
    text = "Points by type (all player counts together): the most come from " + ", then ".join(listed) + "."
    if edges.is_empty():
        return text
    edge = edges.sort("edge", descending=True).row(0, named=True)
    low = edges.sort("edge").row(0, named=True)
    return text + (
        f" Winners out-score the other players of their game most on {PLURALS[edge['type']]} "
        f"({num(edge['edge'], 2)} points more, 95% CI {num_ci(edge['edge_lo'], edge['edge_hi'])}, over "
        f"{count(edge['games'])} games with one winner) and least on {PLURALS[low['type']]} "
        f"({num(low['edge'])}, 95% CI {num_ci(low['edge_lo'], low['edge_hi'])}"
        + ("; winners score less there than the others" if low["edge_hi"] < 0 else "")
        + ")."
    )


def type_points_table(by_type: pl.DataFrame, edges: pl.DataFrame, rows: pl.DataFrame) -> Table:
    """Per player count and type: mean points per player, share of all points, the winner's edge."""
    joined = by_type.join(edges, on=["players", "type"], how="left")
    index = {t: i for i, t in enumerate(TYPES)}
    return Table(
        "Points by card type and player count (all strategies together)",
        [
            "Players",
            "Type",
            "Mean points per player",
            "95% CI (bootstrap)",
            "Share of points",
            "Winner − others (same game)",
            "95% CI (bootstrap)",
        ],
        [
            [
                str(r["players"]),
                type_name(r["type"]),
                num(r["mean"]),
                num_ci(r["lo"], r["hi"]),
                pct(r["share"]),
                num(r["edge"]) if r["edge"] is not None else "–",
                num_ci(r["edge_lo"], r["edge_hi"]) if r["edge"] is not None else "–",
            ]
            for r in sorted(joined.iter_rows(named=True), key=lambda r: (r["players"], index[r["type"]]))
        ],
    )


def strategy_type_table(per_strategy: pl.DataFrame, order: list[str]) -> Table:
    """Mean points per player by strategy (rows) and type (columns); the widest interval goes in the caption."""
    kinds = [t for t in TYPES if t in set(per_strategy["type"])]
    below, above = per_strategy["mean"] - per_strategy["lo"], per_strategy["hi"] - per_strategy["mean"]
    half = float(np.nanmax(np.maximum(below.to_numpy(), above.to_numpy())))
    means = {(r["players"], r["strategy"], r["type"]): r["mean"] for r in per_strategy.iter_rows(named=True)}
    rank = {s: i for i, s in enumerate(order)}
    keys = sorted({(p, s) for p, s, _ in means}, key=lambda k: (k[0], rank.get(k[1], len(rank))))
    return Table(
        f"Mean points per player by strategy and card type (every mean's 95% bootstrap interval lies within "
        f"±{num(half)} points of it)",
        ["Players", "Strategy", *(type_name(t) for t in kinds), "Total"],
        [
            [str(p), s, *(num(means[(p, s, t)], 1) for t in kinds), num(sum(means[(p, s, t)] for t in kinds), 1)]
            for p, s in keys
        ],
    )


def type_points_chart(per_strategy: pl.DataFrame, order: list[str], out_dir: Path) -> Chart:
    """Stacked horizontal bars: mean points per player by type, per strategy, one panel per player count."""
    kinds = [t for t in TYPES if t in set(per_strategy["type"])]
    colours = palette(len(kinds))
    player_counts = per_strategy["players"].unique().sort().to_list()
    fig = new_figure(3.6 * len(player_counts) + 1.8, 2.2 + 0.38 * len(order))
    axes = np.atleast_1d(fig.subplots(1, len(player_counts), sharey=True, sharex=True))
    positions = np.arange(len(order))
    for ax, players in zip(axes, player_counts):
        panel = per_strategy.filter(pl.col("players") == players)
        left = np.zeros(len(order))
        for colour, kind in zip(colours, kinds):
            means = dict(panel.filter(pl.col("type") == kind).select("strategy", "mean").iter_rows())
            widths = np.array([means.get(s, np.nan) for s in order])
            ax.barh(
                positions,
                np.nan_to_num(widths),
                left=left,
                height=0.7,
                color=colour,
                label=type_name(kind),
                edgecolor="white",
                linewidth=0.5,
            )
            left += np.nan_to_num(widths)
        ax.set_yticks(positions, order)
        ax.set_ylim(len(order) - 0.5, -0.5)
        ax.set_title(f"{players} players")
        ax.set_xlabel("Mean points per player")
    legend_below(fig, axes[0])
    fig.suptitle(f"{TITLE}: where the points come from, by strategy and card type")
    return save_chart(
        fig,
        out_dir,
        f"{GAME}_points_by_type.png",
        "Mean points per player from each card type, stacked, so a bar's length is the mean score; strategies "
        "in order of win share (best first), one panel per player count. Intervals are in the tables below.",
    )


# ---------------------------------------------------------------- breakage and repair


def breakage_rates(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy (and 'all'): broken and repaired items per player (bootstrap), the share
    of kept items that end broken and the share of breakages mended (ratios, bootstrap over players)."""
    out = []
    all_rows = rows.with_columns(strategy=pl.lit("all"))
    for key, group in [*groups(all_rows, ["players", "strategy"]), *groups(rows, ["players", "strategy"])]:
        broken, repaired, items = (group[c].to_numpy().astype(float) for c in ("broken", "repaired", "items"))
        ended = ratio_ci(broken, items)
        mended = ratio_ci(repaired, repaired + broken)
        per_broken, per_repaired = mean_with_ci(broken), mean_with_ci(repaired)
        out.append(
            {
                **key,
                "n": group.height,
                "broken": per_broken["mean"],
                "broken_lo": per_broken["lo"],
                "broken_hi": per_broken["hi"],
                "repaired": per_repaired["mean"],
                "repaired_lo": per_repaired["lo"],
                "repaired_hi": per_repaired["hi"],
                "ended_broken": broken.sum() / items.sum() if items.sum() else float("nan"),
                "ended_lo": ended[0],
                "ended_hi": ended[1],
                "mended": repaired.sum() / (repaired + broken).sum() if (repaired + broken).sum() else float("nan"),
                "mended_lo": mended[0],
                "mended_hi": mended[1],
            }
        )
    return pl.DataFrame(out)


def breakage_finding(breakage: pl.DataFrame) -> str:
    """Plain-words summary of how much breaks and how much is mended, per player count."""
    overall = breakage.filter(pl.col("strategy") == "all").sort("players")
    parts = [
        f"at {r['players']} players {pct(r['ended_broken'])} of kept items end the game broken "
        f"(95% CI {pct_ci(r['ended_lo'], r['ended_hi'])}) and {pct(r['mended'])} of the items that broke are "
        f"mended (95% CI {pct_ci(r['mended_lo'], r['mended_hi'])}), {num(r['repaired'])} repairs per player"
        for r in overall.iter_rows(named=True)
    ]
    text = "Breakage and repair: " + "; ".join(parts) + "."
    strategies = breakage.filter(pl.col("strategy") != "all")
    if strategies["strategy"].n_unique() > 1:
        most = strategies.sort("repaired", descending=True).row(0, named=True)
        text += (
            f" Most repairs: {most['strategy']}, {num(most['repaired'])} items per player at {most['players']} "
            f"players (95% CI {num_ci(most['repaired_lo'], most['repaired_hi'])}), the most of any strategy at any "
            "player count."
        )
    return text


def breakage_table(breakage: pl.DataFrame) -> Table:
    """Broken and repaired items per player, and the two shares, per player count and strategy."""
    return Table(
        "Breakage and repair by player count and strategy ('all' = every player)",
        [
            "Players",
            "Strategy",
            "Player results",
            "Broken at end",
            "95% CI",
            "Repaired",
            "95% CI",
            "Kept items ending broken",
            "95% CI",
            "Breakages mended",
            "95% CI",
        ],
        [
            [
                str(r["players"]),
                r["strategy"],
                count(r["n"]),
                num(r["broken"]),
                num_ci(r["broken_lo"], r["broken_hi"]),
                num(r["repaired"]),
                num_ci(r["repaired_lo"], r["repaired_hi"]),
                pct(r["ended_broken"]),
                pct_ci(r["ended_lo"], r["ended_hi"]),
                pct(r["mended"]),
                pct_ci(r["mended_lo"], r["mended_hi"]),
            ]
            for r in breakage.iter_rows(named=True)
        ],
    )


def breakage_chart(breakage: pl.DataFrame, order: list[str], out_dir: Path) -> Chart:
    """Grouped horizontal bars per strategy: share of kept items ending broken, share of breakages mended."""
    labels = ["all", *order]
    player_counts = breakage["players"].unique().sort().to_list()
    fig = new_figure(3.6 * len(player_counts) + 1.8, 2.0 + 0.5 * len(labels))
    axes = np.atleast_1d(fig.subplots(1, len(player_counts), sharey=True, sharex=True))
    for ax, players in zip(axes, player_counts):
        panel = pl.DataFrame({"strategy": labels}).join(
            breakage.filter(pl.col("players") == players), on="strategy", how="left", maintain_order="left"
        )
        bars_with_ci(
            ax,
            labels,
            {
                "kept items that end broken": (panel["ended_broken"], panel["ended_lo"], panel["ended_hi"]),
                "broken items that were mended": (panel["mended"], panel["mended_lo"], panel["mended_hi"]),
            },
            horizontal=True,
        )
        ax.set_xlim(0, 1)
        ax.set_title(f"{players} players")
        ax.set_xlabel("Share of items")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    legend_below(fig, axes[-1])
    fig.suptitle(f"{TITLE}: breakage and repair (95% bootstrap intervals)")
    return save_chart(
        fig,
        out_dir,
        f"{GAME}_breakage.png",
        "Per strategy and player count: the share of kept items that are broken at the end of the game, and the "
        "share of the items that broke which were repaired; 'all' is every player.",
    )


# ---------------------------------------------------------------- ingots


def ingot_flow(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy (and 'all'): ingots held at the end, how many sit beside a scoring
    storage box, the share of players scoring a box (Wilson) and their box points (bootstrap)."""
    out = []
    all_rows = rows.with_columns(strategy=pl.lit("all"))
    for key, group in [*groups(all_rows, ["players", "strategy"]), *groups(rows, ["players", "strategy"])]:
        ingots = group["ingots"].to_numpy().astype(float)
        box = group["points_box"].to_numpy().astype(float) if "points_box" in group.columns else np.zeros_like(ingots)
        boxed = box > 0
        held, idle, points = mean_with_ci(ingots), mean_with_ci(ingots * ~boxed), mean_with_ci(box)
        lo, hi = wilson(boxed.sum(), boxed.size)
        out.append(
            {
                **key,
                "n": group.height,
                "ingots": held["mean"],
                "ingots_lo": held["lo"],
                "ingots_hi": held["hi"],
                "boxed_ingots": float((ingots * boxed).mean()),
                "idle": idle["mean"],
                "idle_lo": idle["lo"],
                "idle_hi": idle["hi"],
                "box_share": float(boxed.mean()),
                "box_lo": lo,
                "box_hi": hi,
                "box_points": points["mean"],
                "box_points_lo": points["lo"],
                "box_points_hi": points["hi"],
            }
        )
    return pl.DataFrame(out)


def ingot_finding(ingots: pl.DataFrame) -> str:
    """Plain-words summary of the ingots left at the end and what storage boxes make of them."""
    overall = ingots.filter(pl.col("strategy") == "all").sort("players")
    parts = [
        f"at {r['players']} players {num(r['ingots'])} per player (95% CI {num_ci(r['ingots_lo'], r['ingots_hi'])}), "
        f"{num(r['idle'])} of them with no storage box to score them; {pct(r['box_share'])} of players score a box "
        f"(95% CI {pct_ci(r['box_lo'], r['box_hi'])})"
        for r in overall.iter_rows(named=True)
    ]
    text = "Ingots held at the end: " + "; ".join(parts) + "."
    strategies = ingots.filter(pl.col("strategy") != "all")
    if strategies["strategy"].n_unique() > 1:
        most = strategies.sort("ingots", descending=True).row(0, named=True)
        text += (
            f" Most ingots left: {most['strategy']}, {num(most['ingots'])} per player at {most['players']} players "
            f"(95% CI {num_ci(most['ingots_lo'], most['ingots_hi'])}), the most of any strategy at any player count."
        )
    return text


def ingot_table(ingots: pl.DataFrame) -> Table:
    """Ingots at the end and storage boxes, per player count and strategy."""
    return Table(
        "Ingots held at the end, and storage boxes ('all' = every player)",
        [
            "Players",
            "Strategy",
            "Player results",
            "Ingots at end",
            "95% CI",
            "Without a scoring box",
            "95% CI",
            "Scores a storage box",
            "95% CI",
            "Box points",
            "95% CI",
        ],
        [
            [
                str(r["players"]),
                r["strategy"],
                count(r["n"]),
                num(r["ingots"]),
                num_ci(r["ingots_lo"], r["ingots_hi"]),
                num(r["idle"]),
                num_ci(r["idle_lo"], r["idle_hi"]),
                pct(r["box_share"]),
                pct_ci(r["box_lo"], r["box_hi"]),
                num(r["box_points"]),
                num_ci(r["box_points_lo"], r["box_points_hi"]),
            ]
            for r in ingots.iter_rows(named=True)
        ],
    )


def ingot_chart(ingots: pl.DataFrame, order: list[str], out_dir: Path) -> Chart:
    """Stacked horizontal bars: mean ingots at the end, split by whether a storage box scores them."""
    labels = ["all", *order]
    player_counts = ingots["players"].unique().sort().to_list()
    colours = palette(2)
    fig = new_figure(3.6 * len(player_counts) + 1.8, 2.0 + 0.38 * len(labels))
    axes = np.atleast_1d(fig.subplots(1, len(player_counts), sharey=True, sharex=True))
    positions = np.arange(len(labels))
    for ax, players in zip(axes, player_counts):
        panel = pl.DataFrame({"strategy": labels}).join(
            ingots.filter(pl.col("players") == players), on="strategy", how="left", maintain_order="left"
        )
        boxed, idle = (np.nan_to_num(panel[c].to_numpy().astype(float)) for c in ("boxed_ingots", "idle"))
        total = panel["ingots"].to_numpy().astype(float)
        error = np.nan_to_num([total - panel["ingots_lo"].to_numpy(), panel["ingots_hi"].to_numpy() - total])
        ax.barh(positions, boxed, height=0.7, color=colours[0], label="held beside a scoring storage box")
        ax.barh(
            positions,
            idle,
            left=boxed,
            height=0.7,
            color=colours[1],
            label="held with no box (worth nothing)",
            xerr=error,
            ecolor="#333",
            capsize=3,
            error_kw={"elinewidth": 1},
        )
        ax.set_yticks(positions, labels)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        ax.set_title(f"{players} players")
        ax.set_xlabel("Mean ingots held at the end")
    legend_below(fig, axes[-1])
    fig.suptitle(f"{TITLE}: ingots left at the end of the game")
    return save_chart(
        fig,
        out_dir,
        f"{GAME}_ingots.png",
        "Mean ingots per player at the end of the game, split by whether the player scores a storage box (which "
        "counts ingots, up to a cap); error bars are 95% bootstrap intervals on the total.",
    )


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
    games within each stratum, so a variant and its base at the same table move together.
    """
    seats = rows.group_by(*GAME_KEY, "players", "strategy").agg(wins=pl.col("win").sum(), seats=pl.len())
    out = []
    for variant, base, banned in variants.iter_rows():
        pair = seats.filter(pl.col("strategy").is_in([variant, base]))
        both = (
            pair.group_by("experiment", "players")
            .agg(kinds=pl.col("strategy").n_unique())
            .filter(pl.col("kinds") == 2)
            .sort("players", "experiment")
        )
        strata = [
            restricted_stratum(pair.filter((pl.col("experiment") == e) & (pl.col("players") == p)), variant, base, i)
            for i, (e, p, _) in enumerate(both.iter_rows())
        ]
        if not strata:
            out.append({"players": "all", "strategy": variant, "base": base, "banned": banned, "counts": 0, "games": 0})
            continue
        counts = sorted({s["players"] for s in strata})
        pooled = [("all", strata)] + [(str(p), [s for s in strata if s["players"] == p]) for p in counts]
        out += [
            {
                "players": label,
                "strategy": variant,
                "base": base,
                "banned": banned,
                "counts": len(counts),
                **combine_strata(group),
            }
            for label, group in pooled
        ]
    return pl.DataFrame(out)


def restricted_stratum(pair: pl.DataFrame, variant: str, base: str, seed: int) -> dict:
    """One (experiment, player count): the variant's and base's wins and seats, and bootstrap shares."""
    games = (
        pair.group_by(GAME_KEY)
        .agg(
            vw=pl.col("wins").filter(pl.col("strategy") == variant).sum(),
            vn=pl.col("seats").filter(pl.col("strategy") == variant).sum(),
            bw=pl.col("wins").filter(pl.col("strategy") == base).sum(),
            bn=pl.col("seats").filter(pl.col("strategy") == base).sum(),
        )
        .select("vw", "vn", "bw", "bn")
        .to_numpy()
        .astype(float)
    )
    sums = resampled_sums(games, seed=seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        boot_v, boot_b = sums[:, 0] / sums[:, 1], sums[:, 2] / sums[:, 3]
    vw, vn, bw, bn = games.sum(axis=0)
    return {
        "players": int(pair["players"][0]),
        "vw": vw,
        "vn": vn,
        "bw": bw,
        "bn": bn,
        "boot_v": boot_v,
        "boot_b": boot_b,
    }


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
    return {
        "games": int(total),
        "share": share,
        "lo": lo,
        "hi": hi,
        "base_games": int(sum(s["bn"] for s in strata)),
        "base_share": base_share,
        "base_lo": base_lo,
        "base_hi": base_hi,
        "diff": share - base_share,
        "diff_lo": diff_lo,
        "diff_hi": diff_hi,
    }


def restricted_finding(restricted: pl.DataFrame) -> str:
    """Plain-words answer to 'which card types' removal changes the win rate most?', per base strategy."""
    pooled = restricted.filter((pl.col("players") == "all") & (pl.col("games") > 0))
    missing = restricted.filter(pl.col("games") == 0)["strategy"].to_list()
    by_size = pooled.with_columns(size=pl.col("diff").abs()).sort("size", descending=True)
    sentences = [
        restricted_sentence(base, group.to_dicts())
        for (base,), group in sorted(by_size.partition_by("base", as_dict=True, maintain_order=True).items())
    ]
    out = "Restricted play (which card types matter). " + " ".join(sentences)
    if missing:
        out += f" No unrestricted base in the same experiment and player count for {', '.join(missing)}."
    return out


def restricted_sentence(base: str, ranked: list[dict]) -> str:
    """One base strategy's restricted variants in words: clear losses (largest first), clear gains, no change."""

    def kind(r: dict) -> str:
        return PLURALS.get(r["banned"], r["banned"])

    def change(r: dict) -> str:
        return f"{pp(r['diff'])}, 95% CI {pp_ci(r['diff_lo'], r['diff_hi'])}"

    losses = [r for r in ranked if r["diff_hi"] < 0]
    gains = [r for r in ranked if r["diff_lo"] > 0]
    unclear = [kind(r) for r in ranked if not clear(r["diff_lo"], r["diff_hi"])]
    top = ranked[0]
    if not losses and not gains:
        return (
            f"No card type's removal changes {base}'s win share clearly; the largest change is without "
            f"{kind(top)} ({change(top)})."
        )
    parts = [
        f"Leaving out {kind(top)} changes {base}'s win share the most: {pp(top['diff'])} (95% CI "
        f"{pp_ci(top['diff_lo'], top['diff_hi'])}; {pct(top['share'])} against {pct(top['base_share'])}), "
        f"{restricted_verdict(top, base)}."
    ]
    rest = [r for r in losses if r is not top]
    if rest:
        parts.append(
            ("Next come " if top in losses else f"Clear losses for {base} without ")
            + " and ".join(f"{kind(r)} ({change(r)})" for r in rest[:2])
            + "."
        )
    if len(rest) > 2:
        parts.append(f"The smallest clear loss is without {kind(rest[-1])} ({change(rest[-1])}).")
    gains = [r for r in gains if r is not top]
    if gains:
        parts.append(
            f"{base} does better without "
            + " and ".join(f"{kind(r)} ({change(r)})" for r in gains)
            + ": it overvalues them."
        )
    if unclear:
        parts.append(f"Without {', '.join(unclear)} there is no clear change: they matter least to {base}.")
    return " ".join(parts)


def restricted_verdict(r: dict, base: str) -> str:
    """What a clear difference between a variant and its base says about the type it leaves out."""
    kind = PLURALS.get(r["banned"], r["banned"])
    if r["diff"] < 0:
        return f"so {kind} are worth wins to {base}"
    return f"so {base} does better without {kind}: it overvalues them"


def restricted_table(restricted: pl.DataFrame) -> Table:
    """Each variant against its base, per player count and pooled, biggest loss first."""
    size = restricted.filter(pl.col("players") == "all").select("strategy", size=pl.col("diff").abs())
    position = pl.when(pl.col("players") == "all").then(0).otherwise(pl.col("players").cast(pl.Int64, strict=False))
    ordered = (
        restricted.join(size, on="strategy", how="left")
        .with_columns(position=position)
        .sort("base", "size", "strategy", "position", descending=[False, True, False, False], nulls_last=True)
    )
    table_rows = []
    # with a single player count, the 'all' row repeats that count's row
    for r in ordered.filter((pl.col("players") != "all") | (pl.col("counts") != 1)).iter_rows(named=True):
        if not r["games"]:
            table_rows.append([r["players"], r["strategy"], type_name(r["banned"]), r["base"], "0", *["–"] * 7])
            continue
        table_rows.append(
            [
                r["players"],
                r["strategy"],
                type_name(r["banned"]),
                r["base"],
                count(r["games"]),
                pct(r["share"]),
                pct_ci(r["lo"], r["hi"]),
                pct(r["base_share"]),
                pct_ci(r["base_lo"], r["base_hi"]),
                pp(r["diff"]),
                pp_ci(r["diff_lo"], r["diff_hi"]),
                "yes" if clear(r["diff_lo"], r["diff_hi"]) else "no",
            ]
        )
    return Table(
        "Restricted play: win share of BASE-no-TYPE against BASE (difference = variant − base; "
        "'all' standardises the base to the variant's player counts)",
        [
            "Players",
            "Variant",
            "Type never kept",
            "Base",
            "Variant games",
            "Variant wins",
            "95% CI",
            "Base wins",
            "95% CI",
            "Difference",
            "95% CI (bootstrap)",
            "Clear?",
        ],
        table_rows,
    )


def restricted_chart(restricted: pl.DataFrame, out_dir: Path) -> Chart:
    """Horizontal bars: variant − base win share with 95% intervals; 'all' first, then each player count."""
    data = restricted.filter(pl.col("games") > 0)
    size = data.filter(pl.col("players") == "all").select("strategy", size=pl.col("diff").abs())
    order = size.sort("size", descending=True)["strategy"].to_list()
    panels = data["players"].unique().to_list()
    counts = sorted(p for p in panels if p != "all")
    panels = counts if len(counts) == 1 else ["all", *counts]
    fig = new_figure(max(6.4, 3.2 * len(panels) + 2.2), 2.4 + 0.42 * len(order))
    axes = np.atleast_1d(fig.subplots(1, len(panels), sharey=True, sharex=True))
    for ax, players in zip(axes, panels):
        panel = pl.DataFrame({"strategy": order}).join(
            data.filter(pl.col("players") == players), on="strategy", how="left", maintain_order="left"
        )
        bars_with_ci(
            ax, order, {"variant − base": (panel["diff"], panel["diff_lo"], panel["diff_hi"])}, horizontal=True
        )
        ax.axvline(0, color="#555", linewidth=1.0)
        ax.set_title("all player counts" if players == "all" else f"{players} players")
        ax.set_xlabel("Win share: variant − base (pp)")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0, symbol=""))
    fig.suptitle(f"{TITLE}: restricted play\nwin share of BASE-no-TYPE minus BASE (95% bootstrap intervals)")
    return save_chart(
        fig,
        out_dir,
        f"{GAME}_restricted_play.png",
        "How much each BASE-no-TYPE strategy's win share differs from its unrestricted BASE, in percentage "
        "points; bars left of zero mean the type is worth wins to that strategy. Largest change first.",
    )
