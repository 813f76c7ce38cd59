"""Broken and Beautiful's own analyses: the first player marker, points by card type, breakage and repair, ingots
and storage boxes, and restricted play (strategies that never keep one card type, against their unrestricted base).

Broken and Beautiful rows carry `rounds`, `ingots` (held at the end), `repaired` (repaired items), `broken` (broken
items at the end), `items` (items in the collection, broken ones counted) and `points_TYPE` for each scored type
(they sum to `score`); the manifest's facts give the scored `types` and the `rounds` per player count. Strategies
are named `base[@knob][-no-TYPE]`, e.g. "greedy", "hater@3", "greedy-no-teapot".

Every interval is cluster-robust over deals (matches in match mode), reports.stats.paired_ratio and
paired_difference: the games of one deal share its cards, so they are not independent.
"""

from itertools import pairwise

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData, opponent_share, record
from reports.charts import aligned, bars_with_ci, finished_chart, palette, panels
from reports.fmt import at_counts, by_phrase, clear, count, listing, num, num_ci, pct, pct_ci, pp, pp_ci, spread, yes
from reports.render import Chart, Finding, Table, est, table
from reports.spec import GameReport
from reports.stats import cluster_columns, cluster_unit, clustered, paired_difference

PLURALS = {"tray": "serving trays", "box": "storage boxes"}
RESTRICTED = "-no-"  # "greedy-no-teapot" = greedy that never keeps a teapot
ONE = pl.lit(1.0)  # the weight of a mean per player (or per game)
NAMES = {"mean": "Points per player", "edge": "Winner − others"}  # the measures of the points-by-type finding


def type_name(kind: str) -> str:
    """'tea_jar' -> 'tea jar'."""
    return kind.replace("_", " ")


def plural(kind: str) -> str:
    return PLURALS.get(kind, type_name(kind) + "s")


def scored_types(data: GameData) -> list[str]:
    """The scored card types in the manifest's order (every player count's), that have a points column."""
    kinds = [k for facts in data.facts["types"].to_list() for k in facts]
    return [k for k in dict.fromkeys(kinds) if f"points_{k}" in data.rows.columns]


def games_at(data: GameData, players: int) -> int:
    return data.rows.filter(pl.col("players") == players)["game_id"].n_unique()


# ---------------------------------------------------------------- clustered estimates and their records


def per_strategy(rows: pl.DataFrame, measures: dict[str, tuple[pl.Expr, pl.Expr]]) -> pl.DataFrame:
    """Per player count and strategy, 'all' (every player) first: each measure NAME: (value, weight) as NAME,
    NAME_lo and NAME_hi (clustered), with the games of the group and the method."""
    everyone = pl.concat([rows.with_columns(strategy=pl.lit("all")), rows])
    return clustered(everyone, measures, ["players", "strategy"]).sort("players", pl.col("strategy") != "all",
                                                                        "strategy")


def records(data: GameData, frame: pl.DataFrame, metric: str, name: str, **about: str) -> list[dict]:
    """A record of findings.json for every row of frame: the estimate NAME with NAME_lo and NAME_hi; `about` maps a
    record key to the column that gives it (type=, seat=)."""
    return [record(data, r["players"], metric, r[name], r[f"{name}_lo"], r[f"{name}_hi"], r["games"], r["method"],
                   **{key: r[column] for key, column in about.items()}) for r in frame.iter_rows(named=True)]


def leaders(strategies: pl.DataFrame, name: str, every: list[int]) -> str:
    """Per player count, the strategy with the highest NAME, and whether its interval lies above the next's:
    'greedy at 2 and 3 players and banker at 4 players (not clearly above hater)'."""
    phrases = {}
    for (players,), group in sorted(strategies.partition_by("players", as_dict=True).items()):
        top, *rest = group.sort(name, descending=True).iter_rows(named=True)
        behind = rest and top[f"{name}_lo"] <= rest[0][f"{name}_hi"]
        phrases[players] = top["strategy"] + (f" (not clearly above {rest[0]['strategy']})" if behind else "")
    return by_phrase(phrases, every)


def pool_make_up(rows: pl.DataFrame) -> str:
    """How the strategies' games are made up, in words: the same deals or not, and whether a strategy ever faces
    itself."""
    per_deal = rows.group_by("players", "deal").agg(kinds=pl.col("strategy").n_unique())
    pools = rows.group_by("players").agg(pool=pl.col("strategy").n_unique())
    same = per_deal.join(pools, on="players").select((pl.col("kinds") == pl.col("pool")).all()).item()
    itself = rows.group_by(*GAME_KEY, "strategy").len()["len"].max() > 1
    return (f"every strategy plays {'the same deals' if same else 'partly different deals'}, against the others of "
            f"the pool{' and sometimes itself' if itself else ', never against itself'}")


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
    """E.g. 'At 2 players Player 1 is first player in 5 of the 9 rounds, Player 2 in 4; ...'."""
    parts = []
    for (players,), group in sorted(led.partition_by("players", as_dict=True).items()):
        counts, rounds = group["led"].to_list(), group["rounds"][0]
        more = [s for s, n in enumerate(counts) if n == counts[0]]
        if len(more) == players:
            parts.append(f"at {players} players every player is first player in {counts[0]} of the {rounds} rounds")
            continue
        first = "Player 1" if len(more) == 1 else f"Players 1–{more[-1] + 1}"
        rest = f"Player {players}" if len(more) == players - 1 else "the others"
        parts.append(f"at {players} players {first} {'is' if len(more) == 1 else 'are'} first player in {counts[0]} "
                     f"of the {rounds} rounds, {rest} in {counts[-1]}")
    text = "; ".join(parts)
    return ("Player 1 holds the first player marker in round 1; the marker then passes to the next player every round. "
            + text[0].upper() + text[1:] + ".")


def marker_finding(led: pl.DataFrame, data: GameData) -> Finding:
    """Which seats are first player in one round more than the others, at which player counts."""
    per_count = led.group_by("players").agg(rounds=pl.col("rounds").first(), led=pl.col("led").sort_by("seat"))
    ahead: dict[str, list[int]] = {}
    for players, each in per_count.select("players", "led").sort("players").iter_rows():
        leading = each.count(max(each))
        if leading < players:
            ahead.setdefault("Player 1 is" if leading == 1 else f"Players 1–{leading} are", []).append(players)
    even = sorted(set(data.player_counts) - {p for counts in ahead.values() for p in counts})
    clauses = [f"at {at_counts(counts)} {seats} first player in one round more than the other players"
               for seats, counts in ahead.items()]
    clauses += [f"at {at_counts(even, data.player_counts)} every player is first player equally often"] if even else []
    text = "The marker starts with Player 1 and passes to the next player every round, so " + "; ".join(clauses) + "."
    led_by_seat = ("Rounds as first player, by seat", "led", lambda led: ", ".join(map(str, led)))
    return Finding("First player marker.", text, table("", per_count.sort("players"), ("Players", "players"),
                                                       ("Rounds", "rounds"), led_by_seat),
                   tuple(marker_numbers(led, data)))


def marker_numbers(led: pl.DataFrame, data: GameData) -> list[dict]:
    """The rounds at each player count and each seat's rounds as first player (counts from the manifest's rules)."""
    method = "count (the manifest's rounds; the marker passes to the next seat every round)"
    out = []
    for (players,), group in sorted(led.partition_by("players", as_dict=True).items()):
        games, rounds = games_at(data, players), group["rounds"][0]
        out.append(record(data, players, "rounds", rounds, rounds, rounds, games, method))
        out += [record(data, players, "rounds_as_first_player", n, n, n, games, method, seat=seat)
                for seat, n in group.select("seat", "led").iter_rows()]
    return out


# ---------------------------------------------------------------- points by type


def by_type(rows: pl.DataFrame, kinds: list[str], keep: list[str]) -> pl.DataFrame:
    """rows (with points_KIND columns) as one row per row and type: the columns keep, type and points."""
    keys = [*dict.fromkeys([*keep, *cluster_columns(rows), "game_id"])]
    return (rows.unpivot([f"points_{k}" for k in kinds], index=keys, variable_name="type", value_name="points")
            .with_columns(type=pl.col("type").str.strip_prefix("points_")))


def type_points(rows: pl.DataFrame, kinds: list[str], by: list[str], share: bool = True) -> pl.DataFrame:
    """Long frame: per group of `by` and card type, the mean points per player from the type (mean, mean_lo,
    mean_hi) and, with share, the type's share of all points (share, share_lo, share_hi), clustered."""
    points = pl.col("points")
    measures = {"mean": (points, ONE), **({"share": (points, pl.col("score"))} if share else {})}
    return clustered(by_type(rows, kinds, [*by, "score"]), measures, [*by, "type"])


def winner_edges(rows: pl.DataFrame, kinds: list[str], by: list[str]) -> pl.DataFrame:
    """Per group and type: in games with a single winner, the winner's points from the type minus the mean of the
    other players' (edge, edge_lo, edge_hi: clustered over the deals of those games)."""
    sole = rows.filter((pl.col("win").max() >= 1 - 1e-9).over(GAME_KEY))
    if sole.is_empty():
        return pl.DataFrame(schema={**{b: rows.schema[b] for b in by}, "type": pl.String, "games": pl.Int64,
                                    "method": pl.String, "edge": pl.Float64, "edge_lo": pl.Float64,
                                    "edge_hi": pl.Float64})
    won, lost = pl.col("win") >= 1 - 1e-9, pl.col("win") < 1 - 1e-9
    games = sole.group_by(GAME_KEY).agg(
        pl.col(*dict.fromkeys([*by, *cluster_columns(rows)])).first(),
        **{f"points_{k}": pl.col(f"points_{k}").filter(won).first() - pl.col(f"points_{k}").filter(lost).mean()
           for k in kinds})
    return clustered(by_type(games, kinds, by), {"edge": (pl.col("points"), ONE)}, [*by, "type"])


def card_types(data: GameData) -> dict:
    kinds, rows = scored_types(data), data.rows
    return {"kinds": kinds, "by_count": type_points(rows, kinds, ["players"]),
            "by_strategy": type_points(rows, kinds, ["players", "strategy"], share=False),
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
    numbers = (records(data, by_count, "points_per_player", "mean", type="type")
               + records(data, edges, "winner_points_lead", "edge", type="type"))
    return Finding("Points by type.", text, type_table(by_count, edges), tuple(numbers))


def type_table(by_count: pl.DataFrame, edges: pl.DataFrame) -> Table:
    """One row per type, richest first at the first player count; per player count its points per player and the
    winner's lead on it, each with its interval."""
    counts = by_count["players"].unique().sort().to_list()
    joined = by_count.join(edges.drop("games", "method"), on=["players", "type"], how="left")
    cells = {(r["players"], r["type"]): r for r in joined.iter_rows(named=True)}
    order = by_count.filter(pl.col("players") == counts[0]).sort("mean", descending=True)["type"].to_list()

    def cell(r: dict | None, name: str) -> str:
        return "–" if r is None or r[name] is None else f"{num(r[name])} ({num_ci(r[f'{name}_lo'], r[f'{name}_hi'])})"

    rows = [{"type": kind, **{f"{name}{p}": cell(cells.get((p, kind)), name) for p in counts for name in NAMES}}
            for kind in order]
    return table("", rows, ("Type", "type", type_name),
                 *((f"{header}, {p} players (95% CI)", f"{name}{p}") for p in counts for name, header in NAMES.items()))


def type_tables(result: dict, data: GameData) -> list:
    index = {t: i for i, t in enumerate(result["kinds"])}
    joined = sorted(result["by_count"].join(result["edges"].drop("games", "method"), on=["players", "type"],
                                            how="left").iter_rows(named=True),
                    key=lambda r: (r["players"], index[r["type"]]))
    per_strategy = result["by_strategy"]
    below, above = per_strategy["mean"] - per_strategy["mean_lo"], per_strategy["mean_hi"] - per_strategy["mean"]
    half = float(np.nanmax(np.maximum(below.to_numpy(), above.to_numpy())))
    means = {(r["players"], r["strategy"], r["type"]): r["mean"] for r in per_strategy.iter_rows(named=True)}
    rank = {s: i for i, s in enumerate(data.order)}
    keys = sorted({(p, s) for p, s, _ in means}, key=lambda k: (k[0], rank.get(k[1], len(rank))))
    kinds = result["kinds"]
    return [
        table("Points by card type and player count (all strategies together; 95% cluster-robust intervals over "
              "deals)", joined, ("Players", "players"), ("Type", "type", type_name),
              *est("Mean points per player", "mean"), *est("Share of points", "share", pct, pct_ci),
              *est("Winner − others (same game)", "edge")),
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
        ax.set(yticks=positions, yticklabels=order, ylim=(len(order) - 0.5, -0.5))
        ax.set(title=f"{players} players", xlabel="Mean points per player")
    return finished_chart(fig, axes[0], f"{data.title}: where the points come from, by strategy and card type",
                          data.out_dir, f"{data.slug}_points_by_type.png",
                          "Mean points per player from each card type, stacked, so a bar's length is the mean score; "
                          "strategies in order of win share (best first), one panel per player count. Intervals are "
                          "in the tables below.")


# ---------------------------------------------------------------- breakage and repair


def breakage_rates(data: GameData) -> pl.DataFrame:
    """Per player count and strategy ('all' first): broken and repaired items per player, the share of kept items
    that end broken and the share of breakages mended, each clustered."""
    broken, repaired, items = pl.col("broken"), pl.col("repaired"), pl.col("items")
    return per_strategy(data.rows, {"broken": (broken, ONE), "repaired": (repaired, ONE),
                                    "ended_broken": (broken, items), "mended": (repaired, repaired + broken)})


def by_count(counts: list[int]) -> str:
    """', depending on the player count' where there are several."""
    return ", depending on the player count" if len(counts) > 1 else ""


def breakage_finding(breakage: pl.DataFrame, data: GameData) -> Finding:
    """How much breaks and how much is mended, per player count; which strategy repairs most."""
    overall = breakage.filter(pl.col("strategy") == "all").sort("players")
    counts = overall["players"].to_list()
    text = (f"At {at_counts(counts)} {spread(overall['ended_broken'])} of kept items end the game broken and "
            f"{spread(overall['mended'])} of the items that broke are mended{by_count(counts)}.")
    strategies = breakage.filter(pl.col("strategy") != "all")
    if strategies["strategy"].n_unique() > 1:
        text += (f" Most repairs per player: {leaders(strategies, 'repaired', data.player_counts)} "
                 f"({pool_make_up(data.rows)}).")
    numbers = (records(data, overall, "kept_items_broken_share", "ended_broken")
               + records(data, overall, "breakages_mended_share", "mended")
               + records(data, overall, "repairs_per_player", "repaired"))
    return Finding("Breakage and repair.", text, table("", overall, ("Players", "players"),
                                                       *est("Kept items ending broken", "ended_broken", pct, pct_ci),
                                                       *est("Breakages mended", "mended", pct, pct_ci),
                                                       *est("Repairs per player", "repaired")), tuple(numbers))


def breakage_table(breakage: pl.DataFrame, _) -> list:
    return [table("Breakage and repair by player count and strategy ('all' = every player; 95% cluster-robust "
                  "intervals over deals)", breakage, ("Players", "players"), ("Strategy", "strategy"),
                  ("Games", "games", count), *est("Broken at end", "broken"), *est("Repaired", "repaired"),
                  *est("Kept items ending broken", "ended_broken", pct, pct_ci),
                  *est("Breakages mended", "mended", pct, pct_ci))]


def breakage_chart(breakage: pl.DataFrame, data: GameData) -> Chart:
    """Grouped horizontal bars per strategy: share of kept items ending broken, share of breakages mended."""
    labels, counts = ["all", *data.order], data.player_counts
    fig, axes = panels(len(counts), 3.6 * len(counts) + 1.8, 2.0 + 0.5 * len(labels), sharey=True, sharex=True)
    for ax, players in zip(axes, counts):
        panel = aligned(breakage.filter(pl.col("players") == players), "strategy", labels)
        bars_with_ci(ax, labels, {
            "kept items that end broken": (panel["ended_broken"], panel["ended_broken_lo"], panel["ended_broken_hi"]),
            "broken items that were mended": (panel["mended"], panel["mended_lo"], panel["mended_hi"])},
            horizontal=True)
        ax.set_xlim(0, 1)
        ax.set(title=f"{players} players", xlabel="Share of items")
        ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    return finished_chart(fig, axes[-1], f"{data.title}: breakage and repair (95% cluster-robust intervals)",
                          data.out_dir, f"{data.slug}_breakage.png",
                          "Per strategy and player count: the share of kept items that are broken at the end of the "
                          "game, and the share of the items that broke which were repaired; 'all' is every player.")


# ---------------------------------------------------------------- ingots


def ingot_flow(data: GameData) -> pl.DataFrame:
    """Per player count and strategy ('all' first): ingots held at the end, those held with no scoring storage box
    (per player, and as a share of the ingots), the share of players scoring a box and their box points; clustered.
    boxed_ingots: the ingots per player held beside a scoring box."""
    box = pl.col("points_box") if "points_box" in data.rows.columns else pl.lit(0)
    ingots = pl.col("ingots")
    idle = pl.when(box > 0).then(0).otherwise(ingots)
    flow = per_strategy(data.rows, {"ingots": (ingots, ONE), "idle": (idle, ONE), "idle_share": (idle, ingots),
                                    "box_share": (box > 0, ONE), "box_points": (box, ONE)})
    return flow.with_columns(boxed_ingots=pl.col("ingots") - pl.col("idle"))


def ingot_finding(ingots: pl.DataFrame, data: GameData) -> Finding:
    """The ingots left at the end and how many of them no storage box scores, per player count; who keeps most."""
    overall = ingots.filter(pl.col("strategy") == "all").sort("players")
    counts = overall["players"].to_list()
    text = (f"A player ends the game holding {spread(overall['ingots'], num)} ingots on average at "
            f"{at_counts(counts)}{by_count(counts)}; {spread(overall['idle_share'])} of those ingots are held by "
            "players with no scoring storage box, so they score nothing.")
    strategies = ingots.filter(pl.col("strategy") != "all")
    if strategies["strategy"].n_unique() > 1:
        text += (f" Most ingots left per player: {leaders(strategies, 'ingots', data.player_counts)} "
                 f"({pool_make_up(data.rows)}).")
    numbers = (records(data, overall, "ingots_per_player", "ingots")
               + records(data, overall, "ingots_without_box_share", "idle_share")
               + records(data, overall, "box_scoring_share", "box_share"))
    return Finding("Ingots held at the end.", text, table("", overall, ("Players", "players"),
                                                          *est("Ingots per player", "ingots"),
                                                          *est("Of them, held with no scoring box", "idle_share",
                                                               pct, pct_ci),
                                                          *est("Players scoring a box", "box_share", pct, pct_ci)),
                   tuple(numbers))


def ingot_table(ingots: pl.DataFrame, _) -> list:
    return [table("Ingots held at the end, and storage boxes ('all' = every player; 95% cluster-robust intervals "
                  "over deals)", ingots, ("Players", "players"), ("Strategy", "strategy"), ("Games", "games", count),
                  *est("Ingots at end", "ingots"), *est("Held with no scoring box", "idle"),
                  *est("Scores a storage box", "box_share", pct, pct_ci), *est("Box points", "box_points"))]


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
                          "storage box (which counts ingots, up to a cap); error bars are 95% cluster-robust "
                          "intervals on the total.")


# ---------------------------------------------------------------- restricted play


def restricted_variants(rows: pl.DataFrame) -> pl.DataFrame:
    """The BASE-no-TYPE strategies in rows: strategy, base, banned type."""
    names = sorted(s for s in rows["strategy"].unique() if RESTRICTED in s)
    out = [{"strategy": s, "base": s.partition(RESTRICTED)[0], "banned": s.partition(RESTRICTED)[2]} for s in names]
    return pl.DataFrame(out, schema={"strategy": pl.String, "base": pl.String, "banned": pl.String})


def restricted_play(rows: pl.DataFrame, variants: pl.DataFrame) -> pl.DataFrame:
    """Each variant against its base in every experiment and player count where both played (never pooled): the
    difference of their win shares, variant − base, with its paired interval (a cluster-robust interval over deals,
    matches in match mode: reports.stats.paired_difference) and the unpaired one beside it; and how their games
    are made up (make_up)."""
    out = []
    for (experiment, players), stratum in sorted(rows.partition_by("experiment", "players", as_dict=True).items()):
        present = set(stratum["strategy"].unique())
        for variant, base, banned in variants.iter_rows():
            if variant in present and base in present:
                difference = paired_difference(stratum, pl.col("strategy") == variant, pl.col("strategy") == base)
                out.append({"experiment": experiment, "players": players, "strategy": variant, "base": base,
                            "banned": banned, **difference, **make_up(stratum, variant, base)})
    return pl.DataFrame(out)


def make_up(stratum: pl.DataFrame, variant: str, base: str) -> dict:
    """How a variant's games and its base's are made up: same_deals (both play exactly the same deals),
    faces_itself (some game seats the variant, or the base, twice); base_met, the share of the variant's opponent
    seats that the base holds, and variants_met, the share of the base's that its variants (BASE-no-*) hold; and
    others: 'variants' where every other strategy of the stratum is a restricted variant, 'mixed' where some is
    not, 'none' where there is none."""
    pair = stratum.filter(pl.col("strategy").is_in([variant, base]))
    deals = [set(pair.filter(pl.col("strategy") == s)["deal"]) for s in (variant, base)]
    others = set(stratum["strategy"].unique()) - {variant, base}
    return {"same_deals": deals[0] == deals[1],
            "faces_itself": bool(pair.group_by(*GAME_KEY, "strategy").len()["len"].max() > 1),
            "base_met": opponent_share(stratum, variant, pl.col("strategy") == base),
            "variants_met": opponent_share(stratum, base, pl.col("strategy").str.starts_with(base + RESTRICTED)),
            "others": "none" if not others else "variants" if all(RESTRICTED in s for s in others) else "mixed"}


def restricted(data: GameData) -> pl.DataFrame | None:
    """Restricted play, where some variant played beside its base (None otherwise: nothing to compare)."""
    variants = restricted_variants(data.rows)
    result = None if variants.is_empty() else restricted_play(data.rows, variants)
    return None if result is None or result.is_empty() else result


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


def unmatched(rows: pl.DataFrame) -> list[str]:
    """A sentence for each player count where some variant played without its base."""
    variants = restricted_variants(rows)
    out = []
    for players, strategies in rows.group_by("players").agg(pl.col("strategy").unique()).sort("players").iter_rows():
        alone = [v for v, base, _ in variants.iter_rows() if v in strategies and base not in strategies]
        out += [f"No unrestricted base at {players} players for {listing(alone)}."] if alone else []
    return out


def restricted_numbers(result: pl.DataFrame, data: GameData) -> list[dict]:
    """Each difference variant − base, with its paired and unpaired intervals and both win shares; and whom each side
    met (opponent_share, as a count)."""
    out = []
    for r in result.iter_rows(named=True):
        variants = f"{r['base']}{RESTRICTED}TYPE"
        out += [record(data, r["players"], "restricted_win_share_difference", r["estimate"], r["lo"], r["hi"],
                       r["games"], r["method"], experiment=r["experiment"], strategy=r["strategy"], base=r["base"],
                       banned=r["banned"], share_variant=r["share_a"], share_base=r["share_b"],
                       low_unpaired=r["lo_unpaired"], high_unpaired=r["hi_unpaired"], width_ratio=r["width_ratio"],
                       games_factor=r["games_factor"], method_unpaired=r["method_unpaired"])]
        out += [record(data, r["players"], "opponent_share", share, share, share, games,
                       "count: the share of the strategy's opponent seats that the opponent held",
                       experiment=r["experiment"], strategy=player, opponent=opponent)
                for share, player, opponent, games in ((r["base_met"], r["strategy"], r["base"], r["games_a"]),
                                                       (r["variants_met"], r["base"], variants, r["games_b"]))]
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


def caveats(_, data: GameData) -> list[str]:
    counted = {e: data.params(e, p).get("tie_items_count_broken") for e in data.rows["experiment"].unique().sort()
               for p in data.player_counts}
    off = sorted(e for e, on in counted.items() if on is False)
    items = ("`items` counts broken items too (tie_items_count_broken = true)" if not off else
             f"`items` counts broken items too, except in {listing(off)} (tie_items_count_broken = false), where the "
             "share is of unbroken items instead")
    return [f"{data.title}: for 'kept items that end broken', {items}."]


def restricted_caveats(_, data: GameData) -> list[str]:
    return [f"{data.title}: restricted-play differences describe what a card type is worth to that bot's way of "
            "playing, against that pool of bots, not what it is worth to a person."]


ANALYSES = [
    Analysis("The first player marker", marker, intro=rounds_led_sentence, finding=marker_finding),
    Analysis("Points by card type", card_types, chart=type_points_chart, tables=type_tables, finding=type_finding,
             intro="Where the points come from: the mean points per player from each card type (broken pottery "
                   "scores nothing). 'Winner − others' compares, within each game with a single winner, the winner's "
                   "points from a type with the mean of the other players' points from it. Intervals are clustered by "
                   "deal, since the games of one deal share its cards.", leading_only=True),
    Analysis("Breakage and repair", breakage_rates, chart=breakage_chart, tables=breakage_table,
             finding=breakage_finding, caveats=caveats,
             intro="Items are the cards kept in a collection (trays and boxes included; they never break). After "
                   "each round's draft, the card left over and the top card of the deck each break every unbroken, "
                   "never-repaired item of their type in every collection, so the items of one collection break "
                   "together. An item 'ends broken' if it is broken and unrepaired at the end; of the items that "
                   "broke, 'mended' is the share repaired (repaired items never break again). The intervals on these "
                   "shares are clustered by deal, not by item.", leading_only=True),
    Analysis("Ingots", ingot_flow, chart=ingot_chart, tables=ingot_table, finding=ingot_finding,
             intro="Ingots held at the end of the game are worth nothing, except through a storage box (each box "
                   "scores its owner's ingots, up to a cap). A player 'scores a box' if the box points are above "
                   "zero.", leading_only=True),
    Analysis("Restricted play: which card types matter", restricted, chart=restricted_chart, tables=restricted_table,
             finding=restricted_finding, caveats=restricted_caveats,
             intro="A BASE-no-TYPE strategy plays like BASE but never keeps a card of TYPE (it sells it, or drafts "
                   "something else). Its win share minus BASE's, in each experiment and player count where both "
                   "played (never pooled over experiments or player counts), shows what the type is worth to BASE's "
                   "way of playing: a clear loss means the type is worth wins to it, a clear gain that it wins more "
                   "without the type. The interval of each difference is paired: a cluster-robust interval over deals "
                   "(matches in match mode) over the same deals for both win shares, a k-way tie's "
                   "1/k of a win summed as it is. Beside it stands the unpaired interval (Newcombe), which treats "
                   "every game as an independent sample.",
             absent="No restricted strategies (BASE-no-TYPE, e.g. greedy-no-teapot) took part in these experiments "
                    "beside their unrestricted BASE. Run experiments/broken_beautiful_restricted.toml to see how much "
                    "each card type is worth to a strategy."),
]


REPORT = GameReport(analyses=tuple(ANALYSES))
