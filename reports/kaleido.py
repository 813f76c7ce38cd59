"""Kaleido's own analyses: mid-game against end-game points, what turning scored boards is worth (rotator against
greedy on the same games), stalls, boards and white tiles, and where boards end up.

Kaleido rows carry `midgame_points` (boards scored during play), `endgame_points` (end-game hexagons; the two sum
to `score`), `boards_placed`, `whites_used`, `turns` (turns in which the player placed a tile) and `stalled` (the
same on every row of a game: every hole was full and nobody with tiles had a board left, so the game was ended and
scored there); newer results also carry `board_q` / `board_r`, the axial position of every board the seat placed.
The manifest's facts give the colours in play, `tiles_each` (tiles a player places in a full game), `boards_each`,
`whites_each` and the `starting_boards`. Games with the same `deal` are the same game under different seatings.

Every interval is cluster-robust over deals (matches in match mode): the games of one deal share its random
numbers, and the rows of one game its board, so neither is independent.
"""

import math

import matplotlib
import numpy as np
import polars as pl
from matplotlib.patches import RegularPolygon
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData, groups, record
from reports.charts import aligned, bars_with_ci, finished_chart, new_figure, palette, panels, save_chart
from reports.findings import select
from reports.fmt import at_counts, by_phrase, count, effect, listing, num, pct, pct_ci, pp, pp_ci, seat_name, spread
from reports.render import Chart, Finding, est, share_ci, table
from reports.spec import GameReport
from reports.stats import (
    cluster_codes,
    cluster_columns,
    cluster_ratio_interval,
    clustered,
    clustered_method,
    difference_interval,
    group_codes,
    per_cluster,
)

ROTATOR, BASE = "rotator", "greedy"  # rotator plays exactly like greedy but turns the boards it scores
KEEPS = 0.005  # a strategy leaves boards unplaced if, at some player count, more of its players end so than this
ONE = pl.lit(1.0)  # the weight of a mean per row
Measures = dict[str, tuple[pl.Expr, pl.Expr]]  # name: (value, weight), a ratio sum(value) / sum(weight)


# ---------------------------------------------------------------- intervals


def per_strategy(rows: pl.DataFrame, measures: Measures) -> pl.DataFrame:
    """clustered per player count and strategy, 'all' (every player) first, with the player results (n) of each."""
    everyone = pl.concat([rows.with_columns(strategy=pl.lit("all")), rows])
    counts = everyone.group_by("players", "strategy").agg(n=pl.len())
    return (clustered(everyone, measures, ["players", "strategy"]).join(counts, on=["players", "strategy"])
            .sort("players", pl.col("strategy") != "all", "strategy"))


def game_rows(rows: pl.DataFrame, **columns: pl.Expr) -> pl.DataFrame:
    """One row per game: its players, its cluster columns and `columns` (expressions over its rows)."""
    return rows.group_by(GAME_KEY).agg(pl.col(*cluster_columns(rows)).first(), **columns)


def two_colour_sentence(data: GameData) -> str:
    """Which player counts play more than one colour each, from the colours in play."""
    several = {p: len(data.fact("colours", p)) // p for p in data.player_counts if len(data.fact("colours", p)) > p}
    return "".join(f" At {p} players each player plays {n} colours in turn (Player 1 plays the first colour of every "
                   "round of turns), so Player 1 still moves first." for p, n in several.items())


# ---------------------------------------------------------------- mid-game and end-game points


def point_split(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player): mean mid-game and end-game points and score, and the
    end-game points' share of all points (a ratio of sums), each with its cluster-robust interval."""
    mid, end = pl.col("midgame_points"), pl.col("endgame_points")
    return per_strategy(rows, {"mid": (mid, ONE), "end": (end, ONE), "score": (mid + end, ONE),
                               "share": (end, mid + end)})


def endgame_decides(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count, how the end-game hexagons change the result against mid-game points alone: games
    won by a player who was behind on mid-game points (`comeback`: rate, lo, hi), and games whose mid-game lead was
    tied and the end-game hexagons settled it (`settled`: settled_rate, settled_lo, settled_hi); cluster-robust
    intervals on both."""
    leader = pl.col("midgame_points") == pl.col("midgame_points").max().over(GAME_KEY)
    games = (game_rows(rows.with_columns(leader=leader, winner=pl.col("win") > 0),
                       comeback=(pl.col("winner") & ~pl.col("leader")).any(),
                       changed=(pl.col("leader") != pl.col("winner")).any())
             .with_columns(settled=pl.col("changed") & ~pl.col("comeback")))
    counts = games.group_by("players").agg(games=pl.len(), comebacks=pl.col("comeback").sum(),
                                           settled=pl.col("settled").sum())
    rates = clustered(games, {"rate": (pl.col("comeback"), ONE), "settled_rate": (pl.col("settled"), ONE)},
                      ["players"]).drop("games", "method")
    return (counts.join(rates, on="players").sort("players")
            .rename({"rate_lo": "lo", "rate_hi": "hi", "settled_rate_lo": "settled_lo",
                     "settled_rate_hi": "settled_hi"}))


def points(data: GameData) -> dict:
    return {"split": point_split(data.rows), "decided": endgame_decides(data.rows)}


def share_leader(strategies: pl.DataFrame, column: str, largest: bool = True) -> dict[int, str | None]:
    """Per player count, the strategy with the largest (or smallest) `column` when its interval lies beyond every
    other's (None where none does)."""
    out = {}
    for key, group in groups(strategies, ["players"]):
        ranked = group.sort(column, descending=largest)
        lo, hi = ranked[f"{column}_lo"], ranked[f"{column}_hi"]
        apart = ranked.height > 1 and (lo[0] > hi[1] if largest else hi[0] < lo[1])
        out[key["players"]] = ranked["strategy"][0] if apart else None
    return out


def leader_phrase(leaders: dict[int, str | None], what: str, counts: list[int]) -> str:
    """'rotator takes the largest share ... at every player count', from share_leader's picks."""
    clear = {p: s for p, s in leaders.items() if s}
    if not clear:
        return f"no strategy clearly {what} at any player count"
    text = by_phrase({p: f"{s} {what}" for p, s in clear.items()}, counts)
    unclear = [p for p, s in leaders.items() if not s]
    return text + (f" (at {at_counts(unclear)} none clearly)" if unclear else "")


def point_finding(result: dict, data: GameData) -> Finding:
    """How much of the score comes from the end-game hexagons, which strategy takes the largest share of its points
    from them, and how often they change who wins."""
    split, decided = result["split"], result["decided"]
    overall = split.filter(pl.col("strategy") == "all").sort("players")
    text = f"The end-game hexagons bring {spread(overall['share'])} of all points, by player count"
    strategies = split.filter(pl.col("strategy") != "all")
    leaders = share_leader(strategies, "share") if strategies["strategy"].n_unique() > 1 else {}
    if leaders:
        text += ("; of the strategies, each over the games it played, "
                 + leader_phrase(leaders, "takes the largest share of its points from them", data.player_counts))
    text += (f". A player behind on mid-game points wins {spread(decided['rate'])} of games, and in another "
             f"{spread(decided['settled_rate'])} the hexagons break a tie for the mid-game lead.")
    rows = overall.drop("games").join(decided, on="players").with_columns(
        leader=pl.col("players").replace_strict(leaders, default=None, return_dtype=pl.String))
    return Finding("Points.", text, table("", rows, ("Players", "players"),
                                          *est("End-game share", "share", pct, pct_ci),
                                          ("Largest end-game share", "leader"), *share_ci("Comebacks", "rate"),
                                          *share_ci("Ties broken", "settled_rate", "settled_lo", "settled_hi")),
                   tuple(point_records(data, rows)))


def point_records(data: GameData, rows: pl.DataFrame) -> list[dict]:
    """Per player count: the end-game share of all points, comebacks and ties for the mid-game lead broken."""
    out = []
    for r in rows.iter_rows(named=True):
        out += [record(data, r["players"], "endgame_points_share", r["share"], r["share_lo"], r["share_hi"],
                       r["games"], clustered_method(data.rows, "end-game points / all points")),
                record(data, r["players"], "comeback_share", r["rate"], r["lo"], r["hi"], r["games"],
                       clustered_method(data.rows, "games won by a player behind on mid-game points / games"),
                       comebacks=r["comebacks"]),
                record(data, r["players"], "midgame_tie_broken_share", r["settled_rate"], r["settled_lo"],
                       r["settled_hi"], r["games"],
                       clustered_method(data.rows, "games whose tie for the mid-game lead the end-game hexagons broke "
                                                   "/ games"),
                       settled=r["settled"])]
    return out


def point_tables(result: dict, _) -> list:
    return [
        table("Mid-game and end-game points per player by player count and strategy ('all' = every player; 95% "
              "intervals clustered by deal)", result["split"], ("Players", "players"), ("Strategy", "strategy"),
              ("Player results", "n", count), *est("Mid-game points", "mid"), *est("End-game points", "end"),
              *est("Score", "score"), *est("End-game share", "share", pct, pct_ci)),
        table("What the end-game hexagons change, against mid-game points alone", result["decided"],
              ("Players", "players"), ("Games", "games", count),
              *share_ci("Won by a player behind on mid-game points", "rate"),
              *share_ci("Tie for the mid-game lead broken", "settled_rate", "settled_lo", "settled_hi")),
    ]


def point_split_chart(result: dict, data: GameData) -> Chart:
    """Stacked horizontal bars: mean mid-game and end-game points per strategy, one panel per player count;
    the end-game share is written at the end of each bar."""
    split, labels, counts, colours = result["split"], ["all", *data.order], data.player_counts, palette(2)
    fig, axes = panels(len(counts), 3.6 * len(counts) + 1.8, 2.2 + 0.4 * len(labels), sharey=True)
    positions = np.arange(len(labels))
    for ax, players in zip(axes, counts):
        panel = aligned(split.filter(pl.col("players") == players), "strategy", labels)
        mid, end, share = (panel[c].to_numpy().astype(float) for c in ("mid", "end", "share"))
        ax.barh(positions, np.nan_to_num(mid), height=0.7, color=colours[0], label="mid-game (boards scored in play)")
        ax.barh(positions, np.nan_to_num(end), left=np.nan_to_num(mid), height=0.7, color=colours[1],
                label="end-game hexagons")
        for y, total, s in zip(positions, mid + end, share):
            if not math.isnan(total):
                ax.text(total, y, f" {100 * s:.0f}%", va="center", ha="left", fontsize="x-small", color="#333")
        ax.set_xlim(0, 1.2 * np.nanmax(mid + end))
        ax.set(yticks=positions, yticklabels=labels, ylim=(len(labels) - 0.5, -0.5))
        ax.set(title=f"{players} players", xlabel="Mean points per player")
    return finished_chart(fig, axes[0], f"{data.title}: mid-game and end-game points by strategy",
                          data.out_dir, f"{data.slug}_points_split.png",
                          "Mean points per player from boards scored during play and from the end-game hexagons, "
                          "stacked, so a bar's length is the mean score; the percentage is the end-game share. 'all' "
                          "is every player; strategies in order of win share. Intervals are in the table below.")


# ---------------------------------------------------------------- rotation


def rotation_value(rows: pl.DataFrame) -> pl.DataFrame:
    """Per experiment and player count, over the games with both ROTATOR and BASE at the table: each one's
    win share and mean end-game points, and the differences ROTATOR − BASE in win share, end-game and mid-game
    points, all with cluster-robust intervals over deals (all seatings of one game index; the differences paired);
    who else sat at those tables (rotation_company)."""
    is_rot, is_base = pl.col("strategy") == ROTATOR, pl.col("strategy") == BASE
    sums = {f"{who}{what}": (pl.col(column).filter(is_) if column else is_).sum()
            for who, is_ in (("r", is_rot), ("b", is_base))
            for what, column in (("w", "win"), ("n", None), ("e", "endgame_points"), ("m", "midgame_points"))}
    games = (rows.group_by(GAME_KEY)
             .agg(players=pl.col("players").first(), deal=pl.col("deal").first(), **sums)
             .filter((pl.col("rn") > 0) & (pl.col("bn") > 0)))
    if games.is_empty():
        return pl.DataFrame()
    company = rotation_company(rows, games)
    deals = games.group_by("experiment", "players", "deal").agg(
        games=pl.len(), **{k: pl.col(k).sum().cast(pl.Float64) for k in sums})
    out = []
    for key, group in groups(deals, ["experiment", "players"]):
        t = {k: group[k].to_numpy() for k in sums}
        shares = estimated(("share", "base_share"), cluster_ratio_interval(np.column_stack([t["rw"], t["bw"]]),
                                                                           np.column_stack([t["rn"], t["bn"]])),
                           (t["rw"].sum() / t["rn"].sum(), t["bw"].sum() / t["bn"].sum()))
        paired = difference_interval(np.stack([np.column_stack([t[f"r{w}"], t["rn"], t[f"b{w}"], t["bn"]])
                                               for w in "wem"], axis=2))
        diffs = estimated(("diff", "end_diff", "mid_diff"), (paired["lo"], paired["hi"]), paired["estimate"])
        out.append({**key, "games": int(group["games"].sum()), "deals": group.height,
                    "rot_seats": int(t["rn"].sum()), "base_seats": int(t["bn"].sum()), "fair": 1 / key["players"],
                    "end": t["re"].sum() / t["rn"].sum(), "base_end": t["be"].sum() / t["bn"].sum(),
                    **shares, **diffs})
    return pl.DataFrame(out).join(company, on=["experiment", "players"], how="left")


def rotation_company(rows: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """Per experiment and player count, over the games with both ROTATOR and BASE: `one_each` (every such game
    seats exactly one of each) and `others` (the other strategies at those tables, sorted)."""
    both = rows.join(games.select(GAME_KEY), on=GAME_KEY)
    others = (both.filter(~pl.col("strategy").is_in([ROTATOR, BASE])).group_by("experiment", "players")
              .agg(others=pl.col("strategy").unique().sort()))
    return (games.group_by("experiment", "players").agg(one_each=((pl.col("rn") == 1) & (pl.col("bn") == 1)).all())
            .join(others, on=["experiment", "players"], how="left")
            .with_columns(others=pl.col("others").fill_null(pl.lit([], dtype=pl.List(pl.String)))))


def estimated(names: tuple[str, ...], interval: tuple, estimates) -> dict:
    """{name, name_lo, name_hi} for each name: its estimate and interval, as floats."""
    lo, hi = interval
    return {key: float(value) for i, name in enumerate(names)
            for key, value in ((name, estimates[i]), (f"{name}_lo", lo[i]), (f"{name}_hi", hi[i]))}


def rotation(data: GameData) -> pl.DataFrame | None:
    value = rotation_value(data.rows)
    return None if value.is_empty() else value


def company_phrase(r: dict) -> str:
    """Who else sat at the tables where ROTATOR met BASE."""
    if r["others"]:
        return f"with the other seats taken from {listing(r['others'])}"
    return "the two alone" if r["one_each"] else "only the two (one of them at several seats)"


def rotation_finding(rotation: pl.DataFrame, data: GameData) -> Finding:
    """What turning scored boards is worth at each player count, in the games where ROTATOR met BASE; who else sat
    at those tables."""
    rotation = rotation.sort("players")
    company = by_phrase({r["players"]: company_phrase(r) for r in rotation.iter_rows(named=True)}, data.player_counts)
    text = (f"Turning scored boards is worth {spread(rotation['diff'].to_list(), pp)} win share and "
            f"{spread(rotation['end_diff'].to_list(), lambda x: f'{x:+.1f}')} end-game points per player, by player "
            f"count, measured as {ROTATOR} against {BASE} in the games where both played: {company}")
    effects = {(effect(r["diff_lo"], r["diff_hi"], r["diff"]), r["diff"] > 0) for r in rotation.iter_rows(named=True)}
    if len(effects) == 1 and next(iter(effects))[0] != "unclear":
        size, more = next(iter(effects))
        text += (f"; {ROTATOR} wins {'clearly' if size == 'clear' else 'slightly (under 1 pp)'} "
                 f"{'more' if more else 'less'} often at every player count")
    largest_mid = float(rotation["mid_diff"].abs().max())
    if largest_mid < 0.25 * float(rotation["end_diff"].abs().min()):
        text += (f". The points difference lies in the end-game hexagons: mid-game points differ by at most "
                 f"{num(largest_mid)} per player")
    return Finding("Rotation.", text + ".", table(
        "", rotation, ("Players", "players"), ("Games", "games", count),
        *est("Win share difference", "diff", pp, pp_ci),
        ("End-game points difference", "end_diff", lambda x: f"{x:+.1f}"),
        ("95% CI", ("end_diff_lo", "end_diff_hi"), lambda lo, hi: f"{lo:+.1f} to {hi:+.1f}")),
        tuple(rotation_records(rotation, data)))


def rotation_records(rotation: pl.DataFrame, data: GameData) -> list[dict]:
    """Per player count, ROTATOR − BASE in the games with both: win share, end-game and mid-game points."""
    method = "paired_cluster_t"
    return [record(data, r["players"], metric, r[key], r[f"{key}_lo"], r[f"{key}_hi"], r["games"], method,
                   strategy=ROTATOR, against=BASE)
            for r in rotation.iter_rows(named=True)
            for metric, key in (("rotation_win_share_difference", "diff"),
                                ("rotation_endgame_points_difference", "end_diff"),
                                ("rotation_midgame_points_difference", "mid_diff"))]


def rotation_table(rotation: pl.DataFrame, _) -> list:
    signed = ("95% CI", None, lambda lo, hi: f"{lo:+.2f} to {hi:+.2f}")
    return [table(f"{ROTATOR} against {BASE} in the same games (difference = {ROTATOR} − {BASE}; intervals clustered "
                  "by deal)", rotation, ("Experiment", "experiment"), ("Players", "players"),
                  ("Games", "games", count), *share_ci(f"{ROTATOR} wins", "share", "share_lo", "share_hi"),
                  *share_ci(f"{BASE} wins", "base_share", "base_share_lo", "base_share_hi"),
                  *est("Difference", "diff", pp, pp_ci),
                  (f"End-game points {ROTATOR} / {BASE}", lambda r: f"{num(r['end'], 1)} / {num(r['base_end'], 1)}"),
                  ("Difference", "end_diff", lambda x: f"{x:+.2f}"),
                  (signed[0], ("end_diff_lo", "end_diff_hi"), signed[2]),
                  ("Mid-game difference", "mid_diff", lambda x: f"{x:+.2f}"),
                  (signed[0], ("mid_diff_lo", "mid_diff_hi"), signed[2]))]


def rotation_chart(rotation: pl.DataFrame, data: GameData) -> Chart:
    """Two panels of horizontal bars per player count, one bar per experiment: the win-share difference
    and the end-game points difference, rotator − greedy, with 95% cluster-robust intervals over deals."""
    counts = rotation["players"].unique().sort().to_list()
    experiments = rotation["experiment"].unique().sort().to_list()
    fig, axes = panels(2, 10.0, 2.2 + 0.3 * len(counts) * max(2, len(experiments)), sharey=True)
    for ax, (column, xlabel) in zip(axes, [("diff", f"Win share: {ROTATOR} − {BASE} (pp)"),
                                           ("end_diff", f"End-game points: {ROTATOR} − {BASE}")]):
        bars = {}
        for experiment in experiments:
            panel = aligned(rotation.filter(pl.col("experiment") == experiment), "players", counts)
            bars[experiment] = (panel[column], panel[f"{column}_lo"], panel[f"{column}_hi"])
        bars_with_ci(ax, [f"{p} players" for p in counts], bars, horizontal=True)
        ax.axvline(0, color="#555", linewidth=1.0)
        ax.set_xlabel(xlabel)
        ax.set_xlim(left=min(0.0, float(rotation[f"{column}_lo"].min()) * 1.1))
    axes[0].xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0, symbol=""))
    axes[0].set_title("Win share")
    axes[1].set_title("End-game points per player")
    return finished_chart(fig, axes[-1],
                          f"{data.title}: what turning scored boards is worth "
                          f"({ROTATOR} − {BASE}, 95% intervals clustered by deal)",
                          data.out_dir, f"{data.slug}_rotation.png",
                          f"{ROTATOR} minus {BASE} in the games where both played: the difference in win share "
                          "(percentage points) and in end-game points per player, per player count, one bar per "
                          "experiment. Bars right of zero mean turning boards pays.")


ROTATION_INTRO = (
    f"{ROTATOR} plays exactly like {BASE} but turns every board it scores to set up end-game hexagons, so the "
    "difference between the two is what rotation is worth. Only games with both at the table count, so both meet "
    "the same opponents in the same games. Win shares are per seat played; their intervals and those of the "
    f"differences ({ROTATOR} − {BASE}) are cluster-robust intervals over whole deals, i.e. every "
    "seating of one game index together, so the comparison stays paired. In an experiment whose pool is just the "
    "two they are alone at the table under every seating; in a tournament they also meet the other strategies.")


# ---------------------------------------------------------------- stalls


def with_stuck(rows: pl.DataFrame) -> pl.DataFrame:
    """rows (with the `tiles_each` fact) plus `left` (tiles still in hand: a full game's tiles minus turns) and
    `stuck` (a stalled game's player who still held tiles)."""
    left = pl.max_horizontal(pl.col("tiles_each").cast(pl.Int64) - pl.col("turns").cast(pl.Int64), pl.lit(0))
    return rows.with_columns(left=left).with_columns(stuck=pl.col("stalled") & (pl.col("left") > 0))


def stall_rates(rows: pl.DataFrame) -> pl.DataFrame:
    """Per experiment and player count: share of games that stalled (rate, lo, hi: a cluster-robust interval),
    and in those games the share of players left holding tiles and their mean tiles in hand."""
    by = ["experiment", "players"]
    games = game_rows(with_stuck(rows), stalled=pl.col("stalled").any(), stuck=pl.col("stuck").sum(),
                      left=pl.col("left").filter(pl.col("stuck")).sum())
    rates = clustered(games, {"rate": (pl.col("stalled"), ONE)}, by).drop("games", "method")
    return (games.group_by(by)
            .agg(games=pl.len(), stalls=pl.col("stalled").sum(), stuck=pl.col("stuck").sum(),
                 left=pl.col("left").sum(), seats=(pl.col("players").cast(pl.Int64) * pl.col("stalled")).sum())
            .join(rates, on=by).sort(by).rename({"rate_lo": "lo", "rate_hi": "hi"})
            .with_columns(stuck_share=pl.col("stuck") / pl.col("seats"),
                          left_per_stuck=pl.col("left") / pl.col("stuck")))


def rule_holes(numbers: list[dict]) -> tuple[str, list[dict]]:
    """The overview's rule holes: what a stall is, in one line, and the stall rate of every experiment at every
    player count (the stall finding's stall_rate records), the games that stalled as `count`."""
    definition = ("A game stalls when every hole is full and no player with tiles left can open one: the rulebook "
                  "says nothing more, so the simulation ends the game there and scores it.")
    return definition, [{**r, "count": r["stalls"]} for r in select(numbers, metric="stall_rate")]


def part_rates(parts: pl.DataFrame, value: pl.Expr, within: list[str], names: tuple[str, ...]) -> pl.DataFrame:
    """Per group of `within`, for each NAME of `names`, over the rows whose `part` is NAME: NAME_n (their number),
    NAME (the mean of value) and NAME_lo, NAME_hi (its cluster-robust interval); a part without rows has NAME_n 0
    and nulls."""
    found = clustered(parts, {"rate": (value, ONE)}, [*within, "part"]).join(
        parts.group_by(*within, "part").agg(n=pl.len()), on=[*within, "part"])
    out = parts.select(within).unique()
    for name in names:
        out = out.join(found.filter(pl.col("part") == name).select(
            *within, **{f"{name}_n": "n", name: "rate", f"{name}_lo": "rate_lo", f"{name}_hi": "rate_hi"}),
            on=within, how="left")
    return out.with_columns(pl.col(f"{name}_n").fill_null(0) for name in names).sort(within)


STALL_PARTS = {"stuck": pl.col("stalled") & pl.col("stuck"), "free": pl.col("stalled") & ~pl.col("stuck"),
               "start_stalled": (pl.col("seat") == 0) & pl.col("stalled"),
               "start_done": (pl.col("seat") == 0) & ~pl.col("stalled")}  # the players stall_winners compares


def stall_winners(rows: pl.DataFrame, by: tuple[str, ...] = ("players",)) -> pl.DataFrame:
    """Per group (default: player count): in stalled games, the win share of players left
    holding tiles and of the others; and the start player's win share in stalled and in completed games
    (part_rates: cluster-robust intervals). `by` must include "players"."""
    rows = with_stuck(rows)
    parts = pl.concat([rows.filter(mask).with_columns(part=pl.lit(name)) for name, mask in STALL_PARTS.items()])
    return part_rates(parts, pl.col("win"), list(by), tuple(STALL_PARTS)).with_columns(
        fair=1 / pl.col("players"), stalled_games=pl.col("start_stalled_n"))


def stall_split(games: pl.DataFrame, by: list[str], split: pl.Expr, names: tuple[str, str]) -> pl.DataFrame:
    """Per group of games: the stall rate where `split` holds and where it does not, named by `names`
    (part_rates)."""
    parts = games.with_columns(part=pl.when(split).then(pl.lit(names[0])).otherwise(pl.lit(names[1])))
    return part_rates(parts, pl.col("stalled"), by, names)


def stalls_by_strategy(rows: pl.DataFrame) -> pl.DataFrame:
    """Per experiment, player count and strategy: the stall rate of games with and without it at the table
    (cluster-robust intervals); only where some games of that experiment and player count lack it."""
    games = game_rows(rows, stalled=pl.col("stalled").any(), strategies=pl.col("strategy").unique())
    out = []
    for strategy in sorted(rows["strategy"].unique()):
        played = rows.filter(pl.col("strategy") == strategy)["experiment"].unique().to_list()
        present = pl.col("strategies").list.contains(strategy)
        mine = games.filter(pl.col("experiment").is_in(played))
        out.append(stall_split(mine, ["experiment", "players"], present, ("with", "without"))
                   .filter((pl.col("with_n") > 0) & (pl.col("without_n") > 0)).with_columns(strategy=pl.lit(strategy)))
    found = pl.concat(out, how="diagonal_relaxed")
    return found.sort("experiment", "players", "strategy") if found.height else pl.DataFrame()


def board_keepers(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy: the share of its player results that end with a board unplaced (the
    `boards_each` fact; kept, kept_lo, kept_hi: a cluster-robust interval); `keeps` marks a strategy that does so
    in more than KEEPS of them at some player count."""
    unplaced = pl.col("boards_placed") < pl.col("boards_each")
    return (clustered(rows, {"kept": (unplaced, ONE)}, ["players", "strategy"])
            .join(rows.group_by("players", "strategy").agg(n=pl.len()), on=["players", "strategy"])
            .with_columns(keeps=(pl.col("kept") > KEEPS).any().over("strategy")).sort("players", "kept", "strategy"))


def stall_lineups(rows: pl.DataFrame, keepers: pl.DataFrame) -> pl.DataFrame:
    """Per experiment and player count: the stall rate of games whose every seat plays a strategy that does not leave
    boards unplaced (board_keepers), and of games with a seat whose strategy does."""
    keep = keepers.filter(pl.col("keeps"))["strategy"].unique().to_list()
    games = game_rows(rows, stalled=pl.col("stalled").any(), placers=(~pl.col("strategy").is_in(keep)).all())
    return stall_split(games, ["experiment", "players"], pl.col("placers"), ("placers", "keepers"))


def stalls(data: GameData) -> dict:
    rows = data.with_facts(data.rows, "tiles_each", "boards_each")
    keepers = board_keepers(rows)
    return {"rates": stall_rates(rows), "winners": stall_winners(rows),
            "by_experiment": stall_winners(rows, ("experiment", "players")), "by_strategy": stalls_by_strategy(rows),
            "keepers": keepers, "lineups": stall_lineups(rows, keepers), "tiles": tiles_phrase(data)}


def tiles_phrase(data: GameData) -> str:
    """'12 tiles each at 3 players, 11 at 4 and 5 and 22 at 2' from the `tiles_each` fact."""
    tiles: dict[int, list[int]] = {}
    for players in data.player_counts:
        tiles.setdefault(data.fact("tiles_each", players), []).append(players)
    return listing(f"{n} tiles each at {at_counts(counts)}" for n, counts in tiles.items())


def stall_intro(result: dict, _) -> str:
    return ("The rules stall when every hole is full and every player who still has tiles has placed all their "
            "boards: nobody can open a hole again, and the rulebook would skip turns for ever. The simulation ends the "
            "game there and scores it as usual. A player is 'stuck' if they still held tiles when it stalled (a full "
            f"game places {result['tiles']}, as the manifest records). Stall rates are per game; their intervals, like "
            "every other here, are clustered by deal (every seating of one deal together).")


def stall_finding(result: dict, data: GameData) -> Finding:
    """How often the rules stall, who wins a stalled game, and what the games say about strategies that leave boards
    unplaced: all from the numbers. The stall_rate records are also the overview's rule holes."""
    # the rates' "stuck" counts the stuck players; the winners' is their win share
    rates = result["rates"].drop("stuck").sort("players").join(result["winners"], on="players")
    numbers = stall_records(rates, data)
    if not rates["stalls"].sum():
        return Finding("Stalls.", "No game stalls, at any player count.", numbers=tuple(numbers))
    largest, rest = rates.row(-1, named=True), rates.head(-1)
    text = f"The rules stall in {pct(largest['rate'])} of {largest['players']}-player games"
    if rest.height:
        text += f" and in {spread(rest['rate'])} at {at_counts(rest['players'])}"
    keepers, keeper_numbers = keeper_sentence(result["keepers"], result["lineups"], data)
    text += stuck_sentence(rates) + f". {keepers}."
    return Finding("Stalls.", text, table("", rates, ("Players", "players"), ("Games", "games", count),
                                          *share_ci("Stalled", "rate"), *rate_cells("stuck", "Stuck players win"),
                                          *rate_cells("free", "Others in stalled games win")),
                   tuple(numbers + keeper_numbers))


def stuck_sentence(rates: pl.DataFrame) -> str:
    """In stalled games, the win share of the players left holding tiles against the others', where both exist."""
    both = rates.filter((pl.col("stuck_n") > 0) & (pl.col("free_n") > 0))
    if both.is_empty():
        return ""
    lower = both.filter(pl.col("stuck_hi") < pl.col("free_lo"))["players"].to_list()
    several = both.height > 1
    apart = ("intervals apart" + (" at every player count with both" if several else "") if len(lower) == both.height
             else f"clearly lower at {at_counts(lower)} only" if lower else "not clearly lower at any player count")
    return (f"; in stalled games the players left holding tiles win {spread(both['stuck'])} of the time, against "
            f"{spread(both['free'])} for the players of the same games who had placed all their tiles"
            f"{', by player count' if several else ''} ({apart})")


def keeper_sentence(keepers: pl.DataFrame, lineups: pl.DataFrame, data: GameData) -> tuple[str, list[dict]]:
    """Which strategies end games with a board unplaced, and the stall rate of games without one at the table
    against games with one, where the experiment has both kinds; with the records of the numbers it states."""
    keep, place = keepers.filter(pl.col("keeps")), keepers.filter(~pl.col("keeps"))
    if keep.is_empty():
        most = keepers.sort("kept").tail(1)
        return (f"No strategy here ends more than {pct(most['kept'][0])} of its games with a board unplaced",
                unplaced_records(most, data))
    names = keep["strategy"].unique(maintain_order=True)
    held = (f"{listing(names)} {'end' if len(names) > 1 else 'ends'} {spread(keep['kept'])} of "
            f"{'their' if len(names) > 1 else 'its'} games with a board unplaced"
            + (", by player count" if keep["players"].n_unique() > 1 else ""))
    both = lineups.filter((pl.col("placers_n") > 0) & (pl.col("keepers_n") > 0))
    if both.is_empty():
        return (f"Every game here seats a strategy that ends some games with a board unplaced ({held}), so these games "
                "cannot show how often the rules stall without one" if not lineups["placers_n"].sum() else
                f"No player count here has games both with and without such a strategy ({held})",
                unplaced_records(keep, data))
    apart_at = both.filter(pl.col("placers_hi") < pl.col("keepers_lo"))["players"].to_list()
    several = both.height > 1
    apart = ("intervals apart" + (" at every player count" if several else "") if len(apart_at) == both.height else
             f"intervals apart at {at_counts(apart_at)} only" if apart_at else "intervals not apart")
    return (f"Games with only {listing(place['strategy'].unique(maintain_order=True))} at the table stall in "
            f"{spread(both['placers'])} of games, against {spread(both['keepers'])} of the games that seat a "
            f"strategy ending some games with a board unplaced{', by player count' if several else ''} ({held}; "
            f"{apart})", unplaced_records(keep, data) + lineup_records(both, data))


def stall_records(rates: pl.DataFrame, data: GameData) -> list[dict]:
    """Per player count: the stall rate (the overview's rule holes) and, in stalled games, the win share of the
    players left holding tiles and of the others."""
    stalled = clustered_method(data.rows, "stalled games / games")
    out = [record(data, r["players"], "stall_rate", r["rate"], r["lo"], r["hi"], r["games"], stalled,
                  stalls=r["stalls"]) for r in rates.iter_rows(named=True)]
    method = clustered_method(data.rows, "share of a win per player (a k-way tie counts 1/k, summed as it is)")
    return out + [record(data, r["players"], "stalled_win_share", r[name], r[f"{name}_lo"], r[f"{name}_hi"],
                         r["stalled_games"], method, held_tiles=name == "stuck", players_counted=r[f"{name}_n"])
                  for r in rates.iter_rows(named=True) for name in ("stuck", "free") if r[f"{name}_n"]]


def unplaced_records(keepers: pl.DataFrame, data: GameData) -> list[dict]:
    """Per row of board_keepers: the strategy's share of player results with a board unplaced."""
    method = clustered_method(data.rows, "player results with a board unplaced / player results")
    return [record(data, r["players"], "board_unplaced_share", r["kept"], r["kept_lo"], r["kept_hi"], r["games"],
                   method, strategy=r["strategy"], player_results=r["n"])
            for r in keepers.iter_rows(named=True)]


def lineup_records(lineups: pl.DataFrame, data: GameData) -> list[dict]:
    """Per row of stall_lineups: the stall rate of games whose every seat places all its boards, and of the rest."""
    method = clustered_method(data.rows, "stalled games / games")
    return [record(data, r["players"], "lineup_stall_rate", r[name], r[f"{name}_lo"], r[f"{name}_hi"], r[f"{name}_n"],
                   method, every_seat_places_its_boards=name == "placers")
            for r in lineups.iter_rows(named=True) for name in ("placers", "keepers")]


def rate_cells(name: str, label: str) -> list:
    """Two columns: a rate and its interval, '–' where it rests on nothing."""
    return [(label, lambda r: pct(r[name]) if r[f"{name}_n"] else "–"),
            ("95% CI", lambda r: pct_ci(r[f"{name}_lo"], r[f"{name}_hi"]) if r[f"{name}_n"] else "–")]


def lineup_table(lineups: pl.DataFrame, caption: str):
    return table(caption, lineups, ("Experiment", "experiment"), ("Players", "players"),
                 ("Games of placers only", "placers_n", count),
                 ("Stalled", ("placers", "placers_lo", "placers_hi"), lambda s, lo, hi: f"{pct(s)} ({pct_ci(lo, hi)})"),
                 ("Games with another strategy", "keepers_n", count),
                 ("Stalled", ("keepers", "keepers_lo", "keepers_hi"), lambda s, lo, hi: f"{pct(s)} ({pct_ci(lo, hi)})"))


def stall_tables(result: dict, _) -> list:
    placers = listing(result["keepers"].filter(~pl.col("keeps"))["strategy"].unique(maintain_order=True)) or \
        "no strategy does"
    out = [
        table("How often the rules stall, per experiment and player count", result["rates"],
              ("Experiment", "experiment"), ("Players", "players"), ("Games", "games", count),
              *share_ci("Stalled", "rate"),
              ("Players stuck in a stalled game", lambda r: pct(r["stuck_share"]) if r["stalls"] else "–"),
              ("Tiles left per stuck player", lambda r: num(r["left_per_stuck"], 1) if r["stuck"] else "–")),
        table("Who wins when the rules stall, per experiment and player count (fair share 1/P)",
              result["by_experiment"], ("Experiment", "experiment"), ("Players", "players"),
              ("Stalled games", "stalled_games", count), ("Fair share", "fair", pct),
              *rate_cells("stuck", "Stuck players win"), *rate_cells("free", "Others in stalled games win"),
              *rate_cells("start_stalled", "Start player wins, stalled games"),
              *rate_cells("start_done", "Start player wins, completed games")),
    ]
    if not result["by_strategy"].is_empty():
        out.append(table("Stall rate of games with and without each strategy at the table (only where some games lack "
                         "it)", result["by_strategy"], ("Experiment", "experiment"), ("Players", "players"),
                         ("Strategy", "strategy"), ("Games with it", "with_n", count),
                         *share_ci("Stalled", "with", "with_lo", "with_hi"), ("Games without", "without_n", count),
                         *share_ci("Stalled", "without", "without_lo", "without_hi")))
    return [*out, lineup_table(result["lineups"], f"Stall rate of games of placers only (every seat's strategy "
                                                  f"places all its boards: {placers}) and of games with another "
                                                  "strategy at the table (one that ends some games with a board "
                                                  "unplaced)"),
            table("How often each strategy ends a game with a board unplaced", result["keepers"],
                  ("Players", "players"), ("Strategy", "strategy"), ("Player results", "n", count),
                  *share_ci("Board left unplaced", "kept", "kept_lo", "kept_hi"))]


def stall_chart(result: dict, data: GameData) -> Chart:
    """Left: stall rate per player count, one bar per experiment. Right: in stalled games, the win share of
    the players left holding tiles and of the others, with the fair share marked."""
    rates, winners = result["rates"], result["winners"]
    counts = rates["players"].unique().sort().to_list()
    categories = [str(p) for p in counts]
    fig, (left, right) = panels(2, 11.0, 4.6)
    bars = {}
    for experiment in rates["experiment"].unique().sort().to_list():
        panel = aligned(rates.filter(pl.col("experiment") == experiment), "players", counts)
        bars[experiment] = (panel["rate"], panel["lo"], panel["hi"])
    bars_with_ci(left, categories, bars)
    left.set_ylim(0, min(1.0, 1.15 * float(rates["hi"].max()) + 0.02))
    left.set(xlabel="Players", ylabel="Games that stall", title="How often the rules stall")
    left.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    left.legend(loc="upper left", frameon=False, fontsize="small")
    panel = aligned(winners, "players", counts)
    bars_with_ci(right, categories, {
        "players left holding tiles": (panel["stuck"], panel["stuck_lo"], panel["stuck_hi"]),
        "players who placed all their tiles": (panel["free"], panel["free_lo"], panel["free_hi"])})
    for i, players in enumerate(counts):
        right.plot([i - 0.45, i + 0.45], [1 / players] * 2, color="#555", linestyle="--", linewidth=1.2,
                   label="fair share 1/P" if i == 0 else None)
    right.set_ylim(0, 1.05)
    right.set(xlabel="Players", ylabel="Win share in stalled games", title="Who wins a stalled game")
    right.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    right.legend(loc="upper right", frameon=False, fontsize="small")
    fig.suptitle(f"{data.title}: stalls (95% intervals clustered by deal)")
    return save_chart(fig, data.out_dir, f"{data.slug}_stalls.png",
                      "Left: share of games in which every hole filled while everyone still holding tiles had placed "
                      "all their boards, per player count. Right: in those games, "
                      "the win share of the players left holding tiles and of the others; dashes mark the fair share "
                      "1/P. Missing bars: no such games or players.")


# ---------------------------------------------------------------- boards and white tiles


def board_usage(data: GameData) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player): mean boards placed, white tiles used and own tiles
    placed (cluster-robust intervals), and each player's boards and white tiles (the manifest's facts)."""
    means = per_strategy(data.rows, {name: (pl.col(column), ONE) for name, column in (
        ("boards", "boards_placed"), ("whites", "whites_used"), ("turns", "turns"))})
    each = {f"{kind}_each": pl.col("players").replace_strict({p: data.fact(f"{kind}_each", p)
                                                              for p in data.player_counts})
            for kind in ("boards", "whites")}
    return means.with_columns(**each)


def usage_finding(usage: pl.DataFrame, data: GameData) -> Finding:
    """Boards and white tiles used, as a share of what each player has; which strategy clearly places the most
    boards and uses the fewest white tiles."""
    usage = usage.with_columns(boards_used=pl.col("boards") / pl.col("boards_each"),
                               whites_used=pl.col("whites") / pl.col("whites_each"))
    overall = usage.filter(pl.col("strategy") == "all").sort("players")
    text = (f"Players place {spread(overall['boards_used'])} of their boards and {spread(overall['whites_used'])} of "
            "their white tiles, by player count.")
    strategies = usage.filter(pl.col("strategy") != "all")
    stated = overall
    if strategies["strategy"].n_unique() > 1:
        phrases = []
        for column, largest, what in (("boards", True, "places the most boards"),
                                      ("whites", False, "uses the fewest white tiles")):
            leaders = share_leader(strategies, column, largest)
            phrase, rows = usage_leader_phrase(strategies, leaders, column, what, data.player_counts)
            phrases.append(phrase)
            stated = pl.concat([stated, rows], how="diagonal_relaxed")
        text += f" By strategy, each over the games it played: {phrases[0]}; {phrases[1]}."
    return Finding("Boards and white tiles.", text, table(
        "", overall, ("Players", "players"), ("Boards each", "boards_each"), *est("Boards placed", "boards"),
        ("White tiles each", "whites_each"), *est("White tiles used", "whites")), tuple(usage_records(data, stated)))


def usage_leader_phrase(strategies: pl.DataFrame, leaders: dict[int, str | None], column: str, what: str,
                        counts: list[int]) -> tuple[str, pl.DataFrame]:
    """leader_phrase for boards or white tiles, with the share of its own the leader uses where one strategy leads
    at every player count; and the rows whose numbers it states."""
    phrase = leader_phrase(leaders, what, counts)
    names = set(leaders.values())
    if len(names) != 1 or None in names:
        return phrase, strategies.clear()
    rows = strategies.filter(pl.col("strategy") == names.pop())
    noun = "boards" if column == "boards" else "white tiles"
    return f"{phrase} ({spread(rows[f'{column}_used'])} of its {noun})", rows


def usage_records(data: GameData, usage: pl.DataFrame) -> list[dict]:
    """Per row (player count, and 'all' or a strategy): mean boards placed and white tiles used, with each player's
    allotment and the share of it used."""
    out, method = [], clustered_method(data.rows, "mean per player")
    for r in usage.iter_rows(named=True):
        about = {} if r["strategy"] == "all" else {"strategy": r["strategy"]}
        for column, metric, each in (("boards", "boards_placed", "boards_each"),
                                     ("whites", "white_tiles_used", "whites_each")):
            out.append(record(data, r["players"], metric, r[column], r[f"{column}_lo"], r[f"{column}_hi"],
                              r["games"], method, **about, **{each: r[each]},
                              share_used=r[f"{column}_used"]))
    return out


def usage_table(usage: pl.DataFrame, _) -> list:
    return [table("Boards placed, white tiles used and own tiles placed per player ('all' = every player; 95% "
                  "intervals clustered by deal)", usage, ("Players", "players"), ("Strategy", "strategy"),
                  ("Player results", "n", count), ("Boards each", "boards_each"), *est("Boards placed", "boards"),
                  *est("White tiles used", "whites"), *est("Own tiles placed", "turns"))]


def usage_intro(usage: pl.DataFrame, _) -> str:
    each = usage.group_by("players").agg(pl.col("boards_each", "whites_each").first()).sort("players")
    return ("Each player has " + listing(f"{r['boards_each']} boards and {r['whites_each']} white tiles at "
                                         f"{r['players']} players" for r in each.iter_rows(named=True))
            + "; a board must be placed when every hole is full at the start of the player's turn. Means per player "
              "with 95% intervals clustered by deal; 'own tiles placed' counts the player's coloured tiles "
              "(one per turn).")


def usage_chart(usage: pl.DataFrame, data: GameData) -> Chart:
    """Horizontal bars with 95% intervals: boards placed (top row) and white tiles used (bottom row) per
    strategy, one column per player count; the dashed line is what each player has."""
    labels, counts, colours = ["all", *data.order], data.player_counts, palette(2)
    fig = new_figure(3.3 * len(counts) + 1.8, 2.0 + 0.62 * len(labels))
    axes = fig.subplots(2, len(counts), sharey=True, sharex=True, squeeze=False)
    for column, players in enumerate(counts):
        panel = aligned(usage.filter(pl.col("players") == players), "strategy", labels)
        for row, (measure, what) in enumerate([("boards", "Boards placed"), ("whites", "White tiles used")]):
            ax = axes[row, column]
            values, lo, hi = (panel[c].to_numpy().astype(float) for c in (measure, f"{measure}_lo", f"{measure}_hi"))
            ax.barh(np.arange(len(labels)), np.nan_to_num(values), height=0.7, color=colours[row],
                    xerr=np.nan_to_num([values - lo, hi - values]), ecolor="#333", capsize=3,
                    error_kw={"elinewidth": 1})
            ax.axvline(data.fact(f"{measure}_each", players), color="#555", linestyle="--", linewidth=1.2)
            ax.set(yticks=np.arange(len(labels)), yticklabels=labels, ylim=(len(labels) - 0.5, -0.5))
            ax.set_xlabel(what)
            if row == 0:
                ax.set_title(f"{players} players")
    axes[0, 0].set_xlim(0, 0.3 + max(data.fact(f"{m}_each", p) for m in ("boards", "whites") for p in counts))
    fig.suptitle(f"{data.title}: boards placed and white tiles used per player (95% intervals clustered by deal)")
    return save_chart(fig, data.out_dir, f"{data.slug}_boards_whites.png",
                      "Mean boards placed (top) and white tiles used (bottom) per player, by strategy and player "
                      "count; the dashed line is what each player has. 'all' is every player.")


# ---------------------------------------------------------------- where boards end up


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


def seat_profile(data: GameData) -> pl.DataFrame:
    """Per experiment, player count and seat: boards placed (mean; and the share of the seat's boards), the end-game
    share of points (a ratio of sums) and the win share, with cluster-robust intervals."""
    rows = data.with_facts(data.rows, "boards_each")
    by = ["experiment", "players", "seat"]
    profile = clustered(rows, {"boards": (pl.col("boards_placed"), ONE), "end_share": (pl.col("endgame_points"),
                                                                                       pl.col("score")),
                               "win": (pl.col("win"), ONE)}, by)
    about = rows.group_by(by).agg(n=pl.len(), boards_each=pl.col("boards_each").first())
    return (profile.join(about, on=by).with_columns(boards_used=pl.col("boards") / pl.col("boards_each"))
            .drop("boards_each").sort(by))


def seat_profile_table(by_seat: pl.DataFrame, _) -> list:
    return [table("By seat: boards placed, end-game share of points and win share", by_seat,
                  ("Experiment", "experiment"), ("Players", "players"), ("Player", "seat", seat_name),
                  ("Player results", "n", count),
                  *est("Boards placed", "boards"), *est("End-game share", "end_share", pct, pct_ci),
                  *est("Win share", "win", pct, pct_ci))]


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


CAVEATS = (
    "Kaleido: a strategy's means (points, boards, white tiles) pool the tables it sat at within one experiment, "
    "whatever company it had there; the rotation comparison sets rotator against greedy on the same games.",
    "Kaleido: stalled and completed games may differ in who sat where (stalls may come with particular strategies "
    "and seatings), so the start player's share in stalled against completed games describes what happened rather "
    "than what the stall caused; the stuck-against-others comparison is within the same games.",
    "Kaleido: 'stuck' players are those whose tiles placed fall short of a full game's, as the manifest's "
    "`tiles_each` fact gives it for each experiment and player count.",
)

ANALYSES = [
    Analysis("Mid-game and end-game points", points, chart=point_split_chart, tables=point_tables,
             finding=point_finding, caveats=CAVEATS,
             intro=lambda _, data: "A board scores during play when its sixth hole fills (mid-game points); at the "
             "end every hexagon of three mutually adjacent boards with all six holes filled scores the same way "
             "(end-game points). The two add up to the score. 'End-game share' is the end-game points' share of all "
             "points. The second table compares each game's actual winners with its "
             "leaders on mid-game points alone." + two_colour_sentence(data),
             leading_only=True),
    Analysis(f"How much rotation is worth: {ROTATOR} against {BASE}", rotation, intro=ROTATION_INTRO,
             chart=rotation_chart, tables=rotation_table, finding=rotation_finding,
             absent=f"{ROTATION_INTRO} No game in these data has both {ROTATOR} and {BASE} at the table. Run "
                    "experiments/kaleido_rotation.toml to measure what turning scored boards is worth."),
    Analysis("Stalls", stalls, intro=stall_intro, chart=stall_chart, tables=stall_tables, finding=stall_finding),
    Analysis("Boards placed and white tiles used", board_usage, intro=usage_intro, chart=usage_chart,
             tables=usage_table, finding=usage_finding,
             leading_only=True),
    Analysis("Where boards end up", board_map, intro=board_map_intro, chart=board_map_chart, tables=board_cell_table,
             absent="These results carry no board positions (the `board_q` / `board_r` columns), so there is no map "
                    "of the table; the seat heat map below shows who places the boards.",
             leading_only=True),
    Analysis("", seat_profile, chart=seat_heatmap_chart, tables=seat_profile_table,
             intro="By seat: how many of their boards each seat places, and how much of its score comes from the "
                   "end-game hexagons, for every experiment and player count.", leading_only=True),
]


REPORT = GameReport(analyses=tuple(ANALYSES), rule_holes=rule_holes)
