"""Kaleido's own analyses: mid-game against end-game points, what turning scored boards is worth (rotator against
greedy on the same games), stalls, boards and white tiles, and where boards end up.

Kaleido rows carry `midgame_points` (boards scored during play), `endgame_points` (end-game hexagons; the two sum
to `score`), `boards_placed`, `whites_used`, `turns` (turns in which the player placed a tile) and `stalled` (the
same on every row of a game: every hole was full and nobody with tiles had a board left, so the game was ended and
scored there); newer results also carry `board_q` / `board_r`, the axial position of every board the seat placed.
The manifest's facts give the colours in play, `tiles_each` (tiles a player places in a full game), `boards_each`,
`whites_each` and the `starting_boards`. Games with the same `deal` are the same game under different seatings.
"""

import math

import matplotlib
import numpy as np
import polars as pl
from matplotlib.patches import RegularPolygon
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData, groups, mean_ci, with_all
from reports.charts import aligned, bars_with_ci, finished_chart, new_figure, palette, panels, save_chart
from reports.findings import record, select
from reports.fmt import at_counts, count, listing, num, pct, pct_ci, pp, pp_ci, spread
from reports.render import Chart, Finding, est, share_ci, table
from reports.stats import ratio_ci, resampled_sums, wilson, with_wilson

SECTION = "points, rotation, stalls and boards"
ROTATOR, BASE = "rotator", "greedy"  # rotator plays exactly like greedy but turns the boards it scores
KEEPS = 0.005  # a strategy 'keeps boards back' if more of its players than this end with a board unplaced


def two_colour_sentence(data: GameData) -> str:
    """Which player counts play more than one colour each, from the colours in play."""
    several = {p: len(data.fact("colours", p)) // p for p in data.player_counts if len(data.fact("colours", p)) > p}
    return "".join(f" At {p} players each player plays {n} colours in turn (seat 0 plays the first colour of every "
                   "round of turns), so seat 0 still moves first." for p, n in several.items())


# ---------------------------------------------------------------- mid-game and end-game points


def point_split(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player): mean mid-game and end-game points and score
    (bootstrap), and the end-game points' share of all points (ratio of sums, bootstrap over players)."""
    out = []
    for key, group in with_all(rows):
        mid, end = (group[c].to_numpy().astype(float) for c in ("midgame_points", "endgame_points"))
        total = mid + end
        lo, hi = ratio_ci(end, total)
        out.append({**key, "n": group.height, **mean_ci(mid, "mid"), **mean_ci(end, "end"),
                    **mean_ci(total, "score"), "share": end.sum() / total.sum() if total.sum() else float("nan"),
                    "share_lo": lo, "share_hi": hi})
    return pl.DataFrame(out)


def endgame_decides(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count, how the end-game hexagons change the result against mid-game points alone: games
    won by a player who was behind on mid-game points (`comeback`), and games whose mid-game lead was tied
    and the end-game hexagons settled it (`settled`); Wilson intervals on both."""
    games = (rows.with_columns(leader=pl.col("midgame_points") == pl.col("midgame_points").max().over(GAME_KEY),
                               winner=pl.col("win") > 0)
             .group_by(GAME_KEY).agg(players=pl.col("players").first(),
                                     comeback=(pl.col("winner") & ~pl.col("leader")).any(),
                                     changed=(pl.col("leader") != pl.col("winner")).any())
             .group_by("players").agg(games=pl.len(), comebacks=pl.col("comeback").sum(),
                                      settled=(pl.col("changed") & ~pl.col("comeback")).sum())
             .sort("players")
             .with_columns(rate=pl.col("comebacks") / pl.col("games"),
                           settled_rate=pl.col("settled") / pl.col("games")))
    lo, hi = wilson(games["settled"].to_numpy(), games["games"].to_numpy())
    return with_wilson(games, "comebacks", "games").with_columns(settled_lo=pl.Series(lo, dtype=pl.Float64),
                                                                 settled_hi=pl.Series(hi, dtype=pl.Float64))


def points(data: GameData) -> dict:
    return {"split": point_split(data.rows), "decided": endgame_decides(data.rows)}


def point_finding(result: dict, data: GameData) -> Finding:
    """How much of the score comes from the end-game hexagons, and how often they change who wins."""
    split, decided = result["split"], result["decided"]
    overall = split.filter(pl.col("strategy") == "all").sort("players")
    text = f"The end-game hexagons bring {spread(overall['share'])} of all points, by player count"
    strategies = split.filter(pl.col("strategy") != "all")
    leaders = strategies.sort("share", descending=True).group_by("players", maintain_order=True).first()
    if strategies["strategy"].n_unique() > 1:
        names = leaders["strategy"].unique().to_list()
        text += (f"; {names[0]} takes the largest share of its points from them at every player count" if
                 len(names) == 1 else "; which strategy relies on them most depends on the player count")
    text += (f". A player behind on mid-game points wins {spread(decided['rate'])} of games, and in another "
             f"{spread(decided['settled_rate'])} the hexagons break a tie for the mid-game lead.")
    rows = overall.join(decided, on="players").join(leaders.select("players", leader="strategy"), on="players",
                                                    how="left")
    return Finding("Points.", text, table("", rows, ("Players", "players"),
                                          *est("End-game share", "share", pct, pct_ci),
                                          ("Relies on them most", "leader"), *share_ci("Comebacks", "rate"),
                                          *share_ci("Ties broken", "settled_rate", "settled_lo", "settled_hi")))


def point_tables(result: dict, _) -> list:
    return [
        table("Mid-game and end-game points per player by player count and strategy ('all' = every player; 95% "
              "bootstrap intervals)", result["split"], ("Players", "players"), ("Strategy", "strategy"),
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
    win share (Wilson) and mean end-game and mid-game points, and the differences ROTATOR − BASE with
    bootstrap intervals that resample deals (all seatings of one game index)."""
    deal = "deal" if "deal" in rows.columns else "game_id"
    is_rot, is_base = pl.col("strategy") == ROTATOR, pl.col("strategy") == BASE
    sums = {f"{who}{what}": (pl.col(column).filter(is_) if column else is_).sum()
            for who, is_ in (("r", is_rot), ("b", is_base))
            for what, column in (("w", "win"), ("n", None), ("e", "endgame_points"), ("m", "midgame_points"))}
    games = (rows.group_by(GAME_KEY)
             .agg(players=pl.col("players").first(), deal=pl.col(deal).first(), alone=(is_rot | is_base).all(), **sums)
             .filter((pl.col("rn") > 0) & (pl.col("bn") > 0)))
    if games.is_empty():
        return pl.DataFrame()
    deals = games.group_by("experiment", "players", "deal").agg(
        games=pl.len(), alone=pl.col("alone").all(), **{k: pl.col(k).sum().cast(pl.Float64) for k in sums})
    out = []
    for i, (key, group) in enumerate(groups(deals, ["experiment", "players"])):
        units = group.select(*sums).to_numpy()
        b = dict(zip(sums, resampled_sums(units, seed=i).T))
        t = dict(zip(sums, units.sum(axis=0)))
        lo, hi = wilson(t["rw"], t["rn"])
        base_lo, base_hi = wilson(t["bw"], t["bn"])
        diffs: dict = {}
        for what, name in (("w", "diff"), ("e", "end_diff"), ("m", "mid_diff")):
            diffs |= difference(name, t[f"r{what}"] / t["rn"] - t[f"b{what}"] / t["bn"],
                                b[f"r{what}"] / b["rn"] - b[f"b{what}"] / b["bn"])
        out.append({**key, "games": int(group["games"].sum()), "deals": group.height,
                    "alone": bool(group["alone"].all()),  # only the two strategies at the table
                    "rot_seats": int(t["rn"]), "base_seats": int(t["bn"]), "share": t["rw"] / t["rn"], "lo": lo,
                    "hi": hi, "base_share": t["bw"] / t["bn"], "base_lo": base_lo, "base_hi": base_hi,
                    "fair": 1 / key["players"], "end": t["re"] / t["rn"], "base_end": t["be"] / t["bn"], **diffs})
    return pl.DataFrame(out)


def difference(name: str, value: float, boot: np.ndarray) -> dict:
    """{name, name_lo, name_hi}: a difference and its percentile bootstrap interval."""
    lo, hi = np.nanquantile(boot, [0.025, 0.975])
    return {name: float(value), f"{name}_lo": float(lo), f"{name}_hi": float(hi)}


def rotation(data: GameData) -> pl.DataFrame | None:
    value = rotation_value(data.rows)
    return None if value.is_empty() else value


def rotation_finding(rotation: pl.DataFrame, data: GameData) -> Finding:
    """What turning scored boards is worth, per player count, from an experiment with only the two at the table if
    there is one (else the one with the most games holding both); every experiment's numbers in the table."""
    best = (rotation.sort("alone", "games", descending=True).group_by("players", maintain_order=True).first()
            .sort("players"))
    where = listing(best["experiment"].unique().sort().to_list())
    text = (f"Turning scored boards ({ROTATOR} against {BASE} in the same games, in {where}) is worth "
            f"{spread(best['diff'].to_list(), pp)} win share and "
            f"{spread(best['end_diff'].to_list(), lambda x: f'{x:+.1f}')} end-game "
            "points per player, by player count")
    if best["diff_lo"].min() > 0:
        text += f"; {ROTATOR} wins clearly more often at every player count"
    elif best["diff_hi"].max() < 0:
        text += f"; {ROTATOR} wins clearly less often at every player count"
    largest_mid = float(best["mid_diff"].abs().max())
    if largest_mid < 0.25 * float(best["end_diff"].abs().min()):
        text += (f". The difference comes from the end-game hexagons: mid-game points differ by at most "
                 f"{num(largest_mid)} per player")
    return Finding("Rotation.", text + ".", table(
        "", rotation.sort("players", "experiment"), ("Players", "players"), ("Experiment", "experiment"),
        *est("Win share difference", "diff", pp, pp_ci),
        ("End-game points difference", "end_diff", lambda x: f"{x:+.1f}"),
        ("95% CI", ("end_diff_lo", "end_diff_hi"), lambda lo, hi: f"{lo:+.1f} to {hi:+.1f}")))


def rotation_table(rotation: pl.DataFrame, _) -> list:
    signed = ("95% CI", None, lambda lo, hi: f"{lo:+.2f} to {hi:+.2f}")
    return [table(f"{ROTATOR} against {BASE} in the same games (difference = {ROTATOR} − {BASE}; intervals on "
                  "differences resample deals)", rotation, ("Experiment", "experiment"), ("Players", "players"),
                  ("Games", "games", count), *share_ci(f"{ROTATOR} wins"),
                  *share_ci(f"{BASE} wins", "base_share", "base_lo", "base_hi"),
                  *est("Difference", "diff", pp, pp_ci),
                  (f"End-game points {ROTATOR} / {BASE}", lambda r: f"{num(r['end'], 1)} / {num(r['base_end'], 1)}"),
                  ("Difference", "end_diff", lambda x: f"{x:+.2f}"),
                  (signed[0], ("end_diff_lo", "end_diff_hi"), signed[2]),
                  ("Mid-game difference", "mid_diff", lambda x: f"{x:+.2f}"),
                  (signed[0], ("mid_diff_lo", "mid_diff_hi"), signed[2]))]


def rotation_chart(rotation: pl.DataFrame, data: GameData) -> Chart:
    """Two panels of horizontal bars per player count, one bar per experiment: the win-share difference
    and the end-game points difference, rotator − greedy, with 95% bootstrap intervals."""
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
                          "({ROTATOR} − {BASE}, 95% bootstrap intervals)",
                          data.out_dir, f"{data.slug}_rotation.png",
                          f"{ROTATOR} minus {BASE} in the games where both played: the difference in win share "
                          "(percentage points) and in end-game points per player, per player count, one bar per "
                          "experiment. Bars right of zero mean turning boards pays.")


ROTATION_INTRO = (
    f"{ROTATOR} plays exactly like {BASE} but turns every board it scores to set up end-game hexagons, so the "
    "difference between the two is what rotation is worth. Only games with both at the table count, so both meet "
    "the same opponents in the same games. Win shares are per seat played (Wilson intervals); the differences "
    f"({ROTATOR} − {BASE}) carry percentile bootstrap intervals that resample whole deals, i.e. every seating of one "
    "game index together, so the comparison stays paired. In an experiment whose pool is just the two they are "
    "alone at the table under every seating; in a tournament they also meet the other strategies.")


# ---------------------------------------------------------------- stalls


def with_stuck(rows: pl.DataFrame) -> pl.DataFrame:
    """rows (with the `tiles_each` fact) plus `left` (tiles still in hand: a full game's tiles minus turns) and
    `stuck` (a stalled game's player who still held tiles)."""
    left = pl.max_horizontal(pl.col("tiles_each").cast(pl.Int64) - pl.col("turns").cast(pl.Int64), pl.lit(0))
    return rows.with_columns(left=left).with_columns(stuck=pl.col("stalled") & (pl.col("left") > 0))


def stall_rates(rows: pl.DataFrame) -> pl.DataFrame:
    """Per experiment and player count: share of games that stalled (Wilson), and in those games the share of
    players left holding tiles and their mean tiles in hand."""
    games = with_stuck(rows).group_by(GAME_KEY).agg(
        players=pl.col("players").first(), stalled=pl.col("stalled").any(), stuck=pl.col("stuck").sum(),
        left=pl.col("left").filter(pl.col("stuck")).sum())
    rates = (games.group_by("experiment", "players")
             .agg(games=pl.len(), stalls=pl.col("stalled").sum(), stuck=pl.col("stuck").sum(),
                  left=pl.col("left").sum(), seats=(pl.col("players").cast(pl.Int64) * pl.col("stalled")).sum())
             .sort("experiment", "players")
             .with_columns(rate=pl.col("stalls") / pl.col("games"), stuck_share=pl.col("stuck") / pl.col("seats"),
                           left_per_stuck=pl.col("left") / pl.col("stuck")))
    return with_wilson(rates, "stalls", "games")


def numbers(data: GameData) -> list[dict]:
    """Kaleido's own numbers: how often the rules stall (every hole full, nobody with tiles holds a board)."""
    return [record(data, r["players"], "stall_rate", r["rate"], r["lo"], r["hi"], r["games"],
                   "Wilson interval (games taken as independent)", stalls=r["stalls"])
            for r in stall_rates(data.with_facts(data.rows, "tiles_each")).iter_rows(named=True)]


def rule_holes(numbers: list[dict], players: int) -> str | None:
    """The overview's line for Kaleido's rule hole: games that stall."""
    found = select(numbers, metric="stall_rate", players=players)
    if not found:
        return None
    r = found[0]
    return f"{count(r['stalls'])} of {count(r['games'])} games stall ({pct(r['estimate'])})"


def stall_winners(rows: pl.DataFrame, by: tuple[str, ...] = ("players",)) -> pl.DataFrame:
    """Per group (default: player count): in stalled games, the win share of players left
    holding tiles and of the others; and the start player's win share in stalled and in completed games
    (Wilson). `by` must include "players"."""
    out = []
    for key, group in groups(with_stuck(rows), list(by)):
        stalled, start = group.filter(pl.col("stalled")), group.filter(pl.col("seat") == 0)
        parts = {"stuck": stalled.filter(pl.col("stuck")), "free": stalled.filter(~pl.col("stuck")),
                 "start_stalled": start.filter(pl.col("stalled")), "start_done": start.filter(~pl.col("stalled"))}
        row = {**key, "fair": 1 / key["players"], "stalled_games": parts["start_stalled"].height}
        for name, part in parts.items():
            row |= rate(name, float(part["win"].sum()) if part.height else 0.0, part.height, float("nan"))
        out.append(row)
    return pl.DataFrame(out)


def rate(name: str, successes: float, n: int, empty: float | None = None) -> dict:
    """{name_n, name, name_lo, name_hi}: a rate and its Wilson interval (`empty` when n is 0)."""
    lo, hi = wilson(successes, n)
    return {f"{name}_n": n, name: successes / n if n else empty, f"{name}_lo": lo, f"{name}_hi": hi}


def stall_split(games: pl.DataFrame, by: list[str], split: pl.Expr, names: tuple[str, str]) -> list[dict]:
    """Per group of games: the stall rate (Wilson) where `split` holds and where it does not, named by `names`."""
    out = []
    for key, group in groups(games, by):
        row = dict(key)
        for name, part in zip(names, (group.filter(split), group.filter(~split))):
            row |= rate(name, int(part["stalled"].sum()), part.height)
        out.append(row)
    return out


def stalls_by_strategy(rows: pl.DataFrame) -> pl.DataFrame:
    """Per experiment, player count and strategy: the stall rate of games with and without it at the table
    (Wilson); only where some games of that experiment and player count lack it."""
    games = rows.group_by(GAME_KEY).agg(players=pl.col("players").first(), stalled=pl.col("stalled").any(),
                                        strategies=pl.col("strategy").unique())
    out = []
    for strategy in sorted(rows["strategy"].unique()):
        played = rows.filter(pl.col("strategy") == strategy)["experiment"].unique().to_list()
        present = pl.col("strategies").list.contains(strategy)
        mine = games.filter(pl.col("experiment").is_in(played))
        out += [{**r, "strategy": strategy} for r in stall_split(mine, ["experiment", "players"], present,
                                                                 ("with", "without")) if r["with_n"] and r["without_n"]]
    return pl.DataFrame(out).sort("experiment", "players", "strategy") if out else pl.DataFrame()


def board_keepers(rows: pl.DataFrame) -> pl.DataFrame:
    """Per strategy: the share of its player results that end with a board unplaced (the `boards_each` fact)."""
    return (rows.group_by("strategy").agg(n=pl.len(), kept=(pl.col("boards_placed") < pl.col("boards_each")).mean())
            .with_columns(keeps=pl.col("kept") > KEEPS).sort("kept", "strategy"))


def stall_lineups(rows: pl.DataFrame, keepers: pl.DataFrame) -> pl.DataFrame:
    """Per experiment and player count: the stall rate of games in which every seat places all its boards (only
    strategies that never keep one back) and of games with a seat that keeps boards back."""
    keep = keepers.filter(pl.col("keeps"))["strategy"].to_list()
    games = rows.group_by(GAME_KEY).agg(players=pl.col("players").first(), stalled=pl.col("stalled").any(),
                                        placers=(~pl.col("strategy").is_in(keep)).all())
    return pl.DataFrame(stall_split(games, ["experiment", "players"], pl.col("placers"), ("placers", "keepers")))


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
            f"game places {result['tiles']}, as the manifest records). Stall rates are per game (Wilson intervals).")


def stall_finding(result: dict, _) -> Finding:
    """How often the rules stall, who loses when they do, and which lineups stall: all from the numbers."""
    rates, winners, keepers, lineups = result["rates"], result["winners"], result["keepers"], result["lineups"]
    largest = int(rates["players"].max())
    top = rates.filter(pl.col("players") == largest).sort("rate", descending=True)
    text = ("The rules stall in " + listing(f"{pct(r['rate'])} of {largest}-player games in {r['experiment']}"
                                            for r in top.iter_rows(named=True)))
    decided = winners.filter((pl.col("stuck_n") > 0) & (pl.col("free_n") > 0))
    if not decided.is_empty():
        lose = (decided["stuck_hi"] < decided["fair"]).all() and (decided["stuck_hi"] < decided["free_lo"]).all()
        text += ("; stalls change who wins, as the players left holding tiles win far less often than those who had "
                 "placed all theirs" if lose else "; in stalled games the players left holding tiles do not clearly "
                                                 "lose more often than the others at every player count")
    keep, place = keepers.filter(pl.col("keeps")), keepers.filter(~pl.col("keeps"))
    if keep.is_empty():
        text += ". Every strategy places all its boards, so no stall comes from a bot keeping boards back."
    else:
        held = f"{listing(keep['strategy'])} keep a board back in {spread(keep['kept'])} of their games"
        only = lineups.filter(pl.col("placers_n") > 0)
        if only.is_empty():
            text += f". Stalls need bots that keep boards back: {held}" + (
                ", and no strategy here places every board." if place.is_empty() else f", while "
                f"{listing(place['strategy'])} places every board but no game here has only it at the table.")
        else:
            stalls, games = (only["placers"] * only["placers_n"]).sum(), only["placers_n"].sum()
            others = lineups.filter(pl.col("keepers_n") > 0)
            text += (f". Stalls come from bots that keep boards back ({held}): games with only "
                     f"{listing(place['strategy'])} at the table stall in {pct(stalls / games)} of {count(games)}, "
                     f"against {pct((others['keepers'] * others['keepers_n']).sum() / others['keepers_n'].sum())} "
                     "of the others.")
    return Finding("Stalls.", text if text.endswith(".") else text + ".", lineup_table(lineups, ""))


def lineup_table(lineups: pl.DataFrame, caption: str):
    return table(caption, lineups, ("Experiment", "experiment"), ("Players", "players"),
                 ("Games, every board placed", "placers_n", count),
                 ("Stalled", ("placers", "placers_lo", "placers_hi"), lambda s, lo, hi: f"{pct(s)} ({pct_ci(lo, hi)})"),
                 ("Games with a keeper", "keepers_n", count),
                 ("Stalled", ("keepers", "keepers_lo", "keepers_hi"), lambda s, lo, hi: f"{pct(s)} ({pct_ci(lo, hi)})"))


def stall_tables(result: dict, _) -> list:
    def cells(name: str, label: str) -> list:
        return [(label, lambda r: pct(r[name]) if r[f"{name}_n"] else "–"),
                ("95% CI", lambda r: pct_ci(r[f"{name}_lo"], r[f"{name}_hi"]) if r[f"{name}_n"] else "–")]

    placers = listing(result["keepers"].filter(~pl.col("keeps"))["strategy"]) or "no strategy does"
    out = [
        table("How often the rules stall, per experiment and player count", result["rates"],
              ("Experiment", "experiment"), ("Players", "players"), ("Games", "games", count),
              *share_ci("Stalled", "rate"),
              ("Players stuck in a stalled game", lambda r: pct(r["stuck_share"]) if r["stalls"] else "–"),
              ("Tiles left per stuck player", lambda r: num(r["left_per_stuck"], 1) if r["stuck"] else "–")),
        table("Who wins when the rules stall, per experiment and player count (fair share 1/P)",
              result["by_experiment"], ("Experiment", "experiment"), ("Players", "players"),
              ("Stalled games", "stalled_games", count), ("Fair share", "fair", pct),
              *cells("stuck", "Stuck players win"), *cells("free", "Others in stalled games win"),
              *cells("start_stalled", "Start player wins, stalled games"),
              *cells("start_done", "Start player wins, completed games")),
    ]
    if not result["by_strategy"].is_empty():
        out.append(table("Stall rate of games with and without each strategy at the table (only where some games lack "
                         "it)", result["by_strategy"], ("Experiment", "experiment"), ("Players", "players"),
                         ("Strategy", "strategy"), ("Games with it", "with_n", count),
                         *share_ci("Stalled", "with", "with_lo", "with_hi"), ("Games without", "without_n", count),
                         *share_ci("Stalled", "without", "without_lo", "without_hi")))
    return [*out, lineup_table(result["lineups"], f"Stall rate of games in which every seat places all its boards "
                                                  f"({placers}) and of games with a seat that keeps boards back"),
            table("How often each strategy ends a game with a board unplaced", result["keepers"],
                  ("Strategy", "strategy"), ("Player results", "n", count), ("Board kept back", "kept", pct))]


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
    fig.suptitle(f"{data.title}: stalls (95% Wilson intervals)")
    return save_chart(fig, data.out_dir, f"{data.slug}_stalls.png",
                      "Left: share of games in which every hole filled while everyone still holding tiles had placed "
                      "all their boards, per player count. Right: in those games, "
                      "the win share of the players left holding tiles and of the others; dashes mark the fair share "
                      "1/P. Missing bars: no such games or players.")


# ---------------------------------------------------------------- boards and white tiles


def board_usage(data: GameData) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player): mean boards placed, white tiles used and own tiles
    placed (bootstrap), and each player's boards and white tiles (the manifest's facts)."""
    out = []
    for key, group in with_all(data.rows):
        out.append({**key, "n": group.height, "boards_each": data.fact("boards_each", key["players"]),
                    "whites_each": data.fact("whites_each", key["players"]),
                    **mean_ci(group["boards_placed"].to_numpy(), "boards"),
                    **mean_ci(group["whites_used"].to_numpy(), "whites"),
                    **mean_ci(group["turns"].to_numpy(), "turns")})
    return pl.DataFrame(out)


def usage_finding(usage: pl.DataFrame, _) -> Finding:
    """Boards and white tiles used, as a share of what each player has."""
    usage = usage.with_columns(boards_used=pl.col("boards") / pl.col("boards_each"),
                               whites_used=pl.col("whites") / pl.col("whites_each"))
    overall = usage.filter(pl.col("strategy") == "all").sort("players")
    text = (f"Players place {spread(overall['boards_used'])} of their boards and {spread(overall['whites_used'])} of "
            "their white tiles, by player count.")
    strategies = usage.filter(pl.col("strategy") != "all")
    if strategies["strategy"].n_unique() > 1:
        fewest = strategies.sort("whites_used").row(0, named=True)
        most = strategies.sort("boards_used", descending=True).row(0, named=True)
        text += (f" Fewest white tiles: {fewest['strategy']}, {num(fewest['whites'])} of {fewest['whites_each']} at "
                 f"{fewest['players']} players; most boards: {most['strategy']}, {num(most['boards'])} of "
                 f"{most['boards_each']} at {most['players']} players.")
    return Finding("Boards and white tiles.", text, table(
        "", overall, ("Players", "players"), ("Boards each", "boards_each"), *est("Boards placed", "boards"),
        ("White tiles each", "whites_each"), *est("White tiles used", "whites")))


def usage_table(usage: pl.DataFrame, _) -> list:
    return [table("Boards placed, white tiles used and own tiles placed per player ('all' = every player; 95% "
                  "bootstrap intervals)", usage, ("Players", "players"), ("Strategy", "strategy"),
                  ("Player results", "n", count), ("Boards each", "boards_each"), *est("Boards placed", "boards"),
                  *est("White tiles used", "whites"), *est("Own tiles placed", "turns"))]


def usage_intro(usage: pl.DataFrame, _) -> str:
    each = usage.group_by("players").agg(pl.col("boards_each", "whites_each").first()).sort("players")
    return ("Each player has " + listing(f"{r['boards_each']} boards and {r['whites_each']} white tiles at "
                                         f"{r['players']} players" for r in each.iter_rows(named=True))
            + "; a board must be placed when every hole is full at the start of the player's turn. Means per player "
              "with 95% bootstrap intervals; 'own tiles placed' counts the player's coloured tiles (one per turn).")


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
    fig.suptitle(f"{data.title}: boards placed and white tiles used per player (95% bootstrap intervals)")
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
    """Per player count and axial cell (q, r): the share of games in which a player placed a board there
    (Wilson; a cell holds one board at most). Only games whose rows carry positions count."""
    rows = rows.filter(pl.col("board_q").is_not_null())  # experiments without positions do not count
    games = rows.group_by("players").agg(games=pl.struct(GAME_KEY).n_unique())
    placed = (rows.select("players", "board_q", "board_r").explode("board_q", "board_r").drop_nulls()
              .group_by("players", "board_q", "board_r").agg(boards=pl.len()).join(games, on="players")
              .with_columns(share=pl.col("boards") / pl.col("games"))
              .sort("players", "share", descending=[False, True]))
    return with_wilson(placed, "boards", "games")


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
    """Per experiment, player count and seat: boards placed (bootstrap mean; share of the seat's boards), the
    end-game share of points (ratio, bootstrap) and the win share (Wilson)."""
    out = []
    for key, group in groups(data.with_facts(data.rows, "boards_each"), ["experiment", "players", "seat"]):
        end, score = (group[c].to_numpy().astype(float) for c in ("endgame_points", "score"))
        lo, hi = ratio_ci(end, score)
        wins = float(group["win"].sum())
        win_lo, win_hi = wilson(wins, group.height)
        boards = mean_ci(group["boards_placed"].to_numpy(), "boards")
        out.append({**key, "n": group.height, **boards, "boards_used": boards["boards"] / group["boards_each"][0],
                    "end_share": end.sum() / score.sum() if score.sum() else float("nan"), "end_share_lo": lo,
                    "end_share_hi": hi, "win": wins / group.height, "win_lo": win_lo, "win_hi": win_hi})
    return pl.DataFrame(out)


def seat_profile_table(by_seat: pl.DataFrame, _) -> list:
    return [table("By seat: boards placed, end-game share of points and win share", by_seat,
                  ("Experiment", "experiment"), ("Players", "players"), ("Seat", "seat"),
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
        ax.set_xticks(range(seats), [str(s) for s in range(seats)])
        ax.set_yticks(range(len(labels)), labels)
        ax.set_xlabel("Seat (0 = start player)")
        ax.set_title(title, fontsize="medium")
        ax.grid(False)
        fig.colorbar(image, ax=ax, shrink=0.85, format=PercentFormatter(1.0, decimals=0))
    fig.suptitle(f"{data.title}: boards and end-game points by seat")
    return save_chart(fig, data.out_dir, f"{data.slug}_seat_heatmap.png",
                      "Rows: experiment and player count; columns: seat. Left: the share of their own boards that "
                      "players in the seat place. Right: the share of the seat's points that come from the end-game "
                      "hexagons. Numbers are percentages; grey: no such seat. Intervals are in the table below.")


CAVEATS = (
    "Kaleido: games with the same deal index are played with the same random numbers under different seatings, so "
    "they are not independent. The rotation comparison resamples whole deals (every seating of a game index "
    "together); the Wilson intervals on stall rates and win shares treat games as independent and may be a little "
    "narrow.",
    "Kaleido: a strategy's means (points, boards, white tiles) pool the tables it sat at within one experiment, "
    "whatever company it had there; the rotation comparison sets rotator against greedy on the same games.",
    "Kaleido: stalled and completed games differ in who sat where (stalls come with particular strategies and "
    "seatings), so the start player's share in stalled against completed games describes what happened rather "
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
             "points (bootstrap over player results). The second table compares each game's actual winners with its "
             "leaders on mid-game points alone." + two_colour_sentence(data)),
    Analysis(f"How much rotation is worth: {ROTATOR} against {BASE}", rotation, intro=ROTATION_INTRO,
             chart=rotation_chart, tables=rotation_table, finding=rotation_finding,
             absent=f"{ROTATION_INTRO} No game in these data has both {ROTATOR} and {BASE} at the table. Run "
                    "experiments/kaleido_rotation.toml to measure what turning scored boards is worth."),
    Analysis("Stalls", stalls, intro=stall_intro, chart=stall_chart, tables=stall_tables, finding=stall_finding),
    Analysis("Boards placed and white tiles used", board_usage, intro=usage_intro, chart=usage_chart,
             tables=usage_table, finding=usage_finding),
    Analysis("Where boards end up", board_map, intro=board_map_intro, chart=board_map_chart, tables=board_cell_table,
             absent="These results carry no board positions (the `board_q` / `board_r` columns), so there is no map "
                    "of the table; the seat heat map below shows who places the boards."),
    Analysis("", seat_profile, chart=seat_heatmap_chart, tables=seat_profile_table,
             intro="By seat: how many of their boards each seat places, and how much of its score comes from the "
                   "end-game hexagons, for every experiment and player count."),
]
