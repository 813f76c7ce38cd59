"""Kaleido's own report section: seat advantage per experiment, mid-game against end-game points, what
turning scored boards is worth (rotator against greedy on the same games), stalls, boards and white tiles,
and where boards end up.

Kaleido rows carry `midgame_points` (boards scored during play), `endgame_points` (end-game hexagons; the
two sum to `score`), `boards_placed`, `whites_used`, `turns` (turns in which the player placed a tile) and
`stalled` (the same on every row of a game: every hole was full and nobody with tiles had a board left, so
the game was ended and scored there); newer results also carry `board_q` / `board_r`, lists with the axial
position of every board the seat placed. At 2 players each player plays two colours. The HIGHEST score
wins; ties share the win. Kaleido deals nothing at random: games with the same `deal` index are the same
game (the same random numbers for the strategies) under different seatings.
"""

import math
from pathlib import Path

import matplotlib
import numpy as np
import polars as pl
from matplotlib.patches import RegularPolygon
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
from reports.stats import bootstrap_mean_ci, ratio_ci, resampled_sums, wilson, with_wilson

GAME = "kaleido"
TITLE = "Kaleido"
ROTATOR, BASE = "rotator", "greedy"  # rotator plays exactly like greedy but turns the boards it scores
# Coloured tiles a player places in a game that runs to the end (the rulebook's set-up table, less the two
# score markers; at 2 players each player plays two colours of the 4-player set-up).
TILES = {2: 2 * 11, 3: 12, 4: 11, 5: 11}
STARTING_BOARDS = ((0, 0), (1, 0))  # axial positions of the two boards in the middle at the start


def allotment(players: int) -> int:
    """Boards (and white tiles) each player gets: 4 in the 2-player variant, otherwise 2."""
    return 4 if players == 2 else 2


def section(rows: pl.DataFrame, out_dir: Path) -> Section:
    """The Kaleido section of the report (rows: Kaleido rows only)."""
    order = strategy_order(rows)
    split = point_split(rows)
    decided = endgame_decides(rows)
    rotation = rotation_value(rows)
    stalls = stall_rates(rows)
    stall_wins = stall_winners(rows)
    by_strategy = stalls_by_strategy(rows)
    usage = board_usage(rows)
    by_seat = seat_profile(rows)
    result = Section(f"{TITLE}: points, rotation, stalls and boards")
    result.blocks = [
        (
            "Seat 0 is the start player. In the 2-player variant each player plays two colours in turn "
            "(seat 0 the first and third colour of every round of turns, seat 1 the second and fourth), so seat "
            "0 still moves first."
        ),
    ]
    compensation = start_player_compensation(rows, higher_wins=True, handicaps=range(-6, 7))  # scores run high
    result.blocks += [
        Heading("Seat compensation"),
        (
            "The start player's win share if their final score were raised (positive) or lowered (negative) by a "
            "fixed number of points, all other scores unchanged; tied players share the win."
        ),
        compensation_chart(compensation, out_dir, GAME, TITLE),
        compensation_table(compensation),
    ]
    result.findings = [compensation_finding(compensation, higher_wins=True)]
    if rows["experiment"].n_unique() > 1:
        seats = seat_shares_by_experiment(rows)
        result.blocks += [
            Heading("Seat advantage by experiment"),
            (
                "The seat numbers above pool every experiment. Which seat does well depends on who sits at the "
                "table, so here each experiment is shown on its own (its strategy pool in brackets)."
            ),
            seat_experiment_chart(seats, rows, out_dir),
            first_player_table(seats, rows),
        ]
        result.findings.append(seat_experiment_finding(seats, rows))
    result.blocks += [
        Heading("Mid-game and end-game points"),
        (
            "A board scores during play when its sixth hole fills (mid-game points); at the end every hexagon of "
            "three mutually adjacent boards with all six holes filled scores the same way (end-game points). "
            "The two add up to the score. 'End-game share' is the end-game points' share of all points "
            "(bootstrap over player results). The second table compares each game's actual winners with its "
            "leaders on mid-game points alone."
        ),
        point_split_chart(split, order, out_dir),
        point_split_table(split),
        endgame_decides_table(decided),
        Heading(f"How much rotation is worth: {ROTATOR} against {BASE}"),
        rotation_intro(),
    ]
    result.findings.append(point_finding(split, decided))
    if rotation.is_empty():
        result.blocks.append(
            f"No game in these data has both {ROTATOR} and {BASE} at the table. Run "
            "experiments/kaleido_rotation.toml to measure what turning scored boards is worth."
        )
        result.findings.append(
            f"Rotation: no game with both {ROTATOR} and {BASE}, so its worth is not measured in these data."
        )
    else:
        result.blocks += [rotation_chart(rotation, out_dir), rotation_table(rotation)]
        result.findings.append(rotation_finding(rotation))
    result.blocks += [
        Heading("Stalls"),
        (
            "The rules stall when every hole is full and every player who still has tiles has placed all their "
            "boards: nobody can open a hole again, and the rulebook would skip turns for ever. The simulation "
            "ends the game there and scores it as usual. A player is 'stuck' if they still held tiles when it "
            f"stalled (a full game places {TILES[3]} tiles each at 3 players, {TILES[4]} at 4 or 5 and "
            f"{TILES[2]} (two colours) at 2). Stall rates are per game (Wilson intervals)."
        ),
        stall_chart(stalls, stall_wins, out_dir),
        stall_table(stalls),
        stall_winner_table(stall_winners(rows, ("experiment", "players"))),
    ]
    if not by_strategy.is_empty():
        result.blocks.append(stall_strategy_table(by_strategy))
    result.findings.append(
        stall_finding(stalls, stall_wins, stall_winners(rows, ("experiment", "players")), by_strategy, rows)
    )
    result.blocks += [
        Heading("Boards placed and white tiles used"),
        (
            "Each player has 2 boards and 2 white tiles to place (4 and 4 in the 2-player variant); a board must "
            "be placed when every hole is full at the start of the player's turn. Means per player with 95% "
            "bootstrap intervals; 'own tiles placed' counts the player's coloured tiles (one per turn)."
        ),
        usage_chart(usage, order, out_dir),
        usage_table(usage),
        Heading("Where boards end up"),
    ]
    result.findings.append(usage_finding(usage))
    missing = experiments_without_positions(rows)
    if len(missing) < rows["experiment"].n_unique():
        cells = board_cells(rows)
        result.blocks += [
            (
                "The table grows from the two starting boards in the middle (outlined). Each cell's colour is the "
                "share of games in which a player placed a board there; a cell holds one board at most, so the "
                "shares of one panel add up to the mean number of boards placed per game."
                + (f" Without board positions, and so left out of the map: {', '.join(missing)}." if missing else "")
            ),
            board_map_chart(cells, out_dir),
            board_cell_table(cells),
        ]
    else:
        result.blocks.append(
            "These results carry no board positions (the `board_q` / `board_r` columns), so there is no map of "
            "the table; the seat heat map below shows who places the boards."
        )
    result.blocks += [
        (
            "By seat: how many of their boards each seat places, and how much of its score comes from the "
            "end-game hexagons, for every experiment and player count."
        ),
        seat_heatmap_chart(by_seat, out_dir),
        seat_profile_table(by_seat),
    ]
    result.caveats = [
        (
            f"{TITLE}: games with the same deal index are played with the same random numbers under different "
            "seatings, so they are not independent. The rotation comparison resamples whole deals (every "
            "seating of a game index together); the Wilson intervals on stall rates and win shares treat games "
            "as independent and may be a little narrow."
        ),
        (
            f"{TITLE}: strategies' means (points, boards, white tiles) pool every experiment they played in, so "
            "they mix tables of different company; the rotation comparison and the per-experiment seat and "
            "stall numbers do not."
        ),
        (
            f"{TITLE}: stalled and completed games differ in who sat where (stalls come with particular strategies "
            "and seatings), so the start player's share in stalled against completed games describes what happened "
            "rather than what the stall caused; the stuck-against-others comparison is within the same games."
        ),
        (
            f"{TITLE}: 'stuck' players are those whose tiles placed fall short of a full game's "
            f"({TILES[3]} at 3 players, {TILES[4]} at 4 or 5, {TILES[2]} at 2); this follows the rulebook's "
            "set-up table and would be wrong for a variant that hands out more or fewer tiles."
        ),
    ]
    return result


# ---------------------------------------------------------------- shared helpers


def mean_with_ci(values, prefix: str) -> dict:
    """{prefix, prefix_lo, prefix_hi}: a mean with its percentile bootstrap interval."""
    values = np.asarray(values, dtype=float)
    lo, hi = bootstrap_mean_ci(values)
    return {prefix: float(values.mean()) if values.size else float("nan"), f"{prefix}_lo": lo, f"{prefix}_hi": hi}


def with_all(rows: pl.DataFrame) -> list[tuple[dict, pl.DataFrame]]:
    """Groups by player count and strategy, each player count's 'all' (every player) first."""
    everyone = rows.with_columns(strategy=pl.lit("all"))
    out = [*groups(everyone, ["players", "strategy"]), *groups(rows, ["players", "strategy"])]
    return sorted(out, key=lambda kv: (kv[0]["players"], kv[0]["strategy"] != "all"))


def pools(rows: pl.DataFrame) -> dict[str, str]:
    """Each experiment's strategies, in order of first appearance: {'kaleido_rotation': 'greedy, rotator'}."""
    return {
        experiment: ", ".join(group["strategy"].unique(maintain_order=True).to_list())
        for (experiment,), group in sorted(rows.partition_by("experiment", as_dict=True).items())
    }


def players_label(players: int) -> str:
    return f"{players} players"


# ---------------------------------------------------------------- seat advantage by experiment


def seat_shares_by_experiment(rows: pl.DataFrame) -> pl.DataFrame:
    """Win share by (experiment, players, seat) with Wilson intervals and the fair share 1/P."""
    shares = (
        rows.group_by("experiment", "players", "seat")
        .agg(games=pl.len(), wins=pl.col("win").sum())
        .sort("experiment", "players", "seat")
        .with_columns(share=pl.col("wins") / pl.col("games"), fair=1 / pl.col("players"))
    )
    return with_wilson(shares, "wins", "games")


def seat_experiment_finding(seats: pl.DataFrame, rows: pl.DataFrame) -> str:
    """Start player's advantage per experiment and player count, in words."""
    names = pools(rows)
    parts = []
    for (experiment,), group in sorted(
        seats.filter(pl.col("seat") == 0).partition_by("experiment", as_dict=True).items()
    ):
        counts = ", ".join(
            f"{pp(r['share'] - r['fair'])} at {r['players']} players "
            f"(95% CI {pp_ci(r['lo'] - r['fair'], r['hi'] - r['fair'])})"
            for r in group.sort("players").iter_rows(named=True)
        )
        parts.append(f"in {experiment} ({names[experiment]}) {counts}")
    return (
        "Seat advantage by experiment (start player's win share minus 1/P; it depends on who plays): "
        + "; ".join(parts)
        + "."
    )


def first_player_table(seats: pl.DataFrame, rows: pl.DataFrame) -> Table:
    """Start player's share and advantage per experiment and player count."""
    names = pools(rows)
    return Table(
        "First-player advantage by experiment (start player's win share − 1/P)",
        [
            "Experiment",
            "Strategies",
            "Players",
            "Games",
            "Start player wins",
            "95% CI",
            "Advantage",
            "95% CI",
            "Clear?",
        ],
        [
            [
                r["experiment"],
                names[r["experiment"]],
                str(r["players"]),
                count(r["games"]),
                pct(r["share"]),
                pct_ci(r["lo"], r["hi"]),
                pp(r["share"] - r["fair"]),
                pp_ci(r["lo"] - r["fair"], r["hi"] - r["fair"]),
                "yes" if clear(r["lo"] - r["fair"], r["hi"] - r["fair"]) else "no",
            ]
            for r in seats.filter(pl.col("seat") == 0).iter_rows(named=True)
        ],
    )


def seat_experiment_chart(seats: pl.DataFrame, rows: pl.DataFrame, out_dir: Path) -> Chart:
    """Win share by seat, bars per experiment, one panel per player count, with the fair line 1/P."""
    player_counts = seats["players"].unique().sort().to_list()
    experiments = seats["experiment"].unique().sort().to_list()
    names = pools(rows)
    widths = [max(2, p) + 0.8 for p in player_counts]
    fig = new_figure(0.95 * sum(widths) + 1.2, 4.2)
    axes = np.atleast_1d(fig.subplots(1, len(player_counts), sharey=True, width_ratios=widths))
    for ax, players in zip(axes, player_counts):
        categories = [str(s) for s in range(players)]
        bars = {}
        for experiment in experiments:
            panel = pl.DataFrame({"seat": list(range(players))}, schema={"seat": seats["seat"].dtype}).join(
                seats.filter((pl.col("experiment") == experiment) & (pl.col("players") == players)),
                on="seat",
                how="left",
                maintain_order="left",
            )
            bars[f"{experiment} ({names[experiment]})"] = (panel["share"], panel["lo"], panel["hi"])
        bars_with_ci(ax, categories, bars)
        ax.axhline(1 / players, color="#555", linestyle="--", linewidth=1.2, label="fair share 1/P")
        ax.set_title(players_label(players))
        ax.set_xlabel("Seat (0 = start player)")
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    axes[0].set_ylim(bottom=0)
    axes[0].set_ylabel("Share of victories")
    legend_below(fig, axes[-1])
    fig.suptitle(f"{TITLE}: win share by seat in each experiment (95% Wilson intervals)")
    return save_chart(
        fig,
        out_dir,
        f"{GAME}_seat_by_experiment.png",
        "Win share of each seat (0 = start player), one bar per experiment (its strategies in brackets), one "
        "panel per player count; the dashed line is the fair share 1/P.",
    )


# ---------------------------------------------------------------- mid-game and end-game points


def point_split(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player): mean mid-game and end-game points and score
    (bootstrap), and the end-game points' share of all points (ratio of sums, bootstrap over players)."""
    out = []
    for key, group in with_all(rows):
        mid, end = (group[c].to_numpy().astype(float) for c in ("midgame_points", "endgame_points"))
        total = mid + end
        lo, hi = ratio_ci(end, total)
        out.append(
            {
                **key,
                "n": group.height,
                **mean_with_ci(mid, "mid"),
                **mean_with_ci(end, "end"),
                **mean_with_ci(total, "score"),
                "share": end.sum() / total.sum() if total.sum() else float("nan"),
                "share_lo": lo,
                "share_hi": hi,
            }
        )
    return pl.DataFrame(out)


def endgame_decides(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count, how the end-game hexagons change the result against mid-game points alone: games
    won by a player who was behind on mid-game points (`comeback`), and games whose mid-game lead was tied
    and the end-game hexagons settled it (`settled`); Wilson intervals on both."""
    games = (
        rows.with_columns(
            leader=pl.col("midgame_points") == pl.col("midgame_points").max().over(GAME_KEY),
            winner=pl.col("win") > 0,
        )
        .group_by(GAME_KEY)
        .agg(
            players=pl.col("players").first(),
            comeback=(pl.col("winner") & ~pl.col("leader")).any(),
            changed=(pl.col("leader") != pl.col("winner")).any(),
        )
        .group_by("players")
        .agg(
            games=pl.len(),
            comebacks=pl.col("comeback").sum(),
            settled=(pl.col("changed") & ~pl.col("comeback")).sum(),
        )
        .sort("players")
        .with_columns(rate=pl.col("comebacks") / pl.col("games"), settled_rate=pl.col("settled") / pl.col("games"))
    )
    lo, hi = wilson(games["settled"].to_numpy(), games["games"].to_numpy())
    return with_wilson(games, "comebacks", "games").with_columns(
        settled_lo=pl.Series(lo, dtype=pl.Float64), settled_hi=pl.Series(hi, dtype=pl.Float64)
    )


def point_finding(split: pl.DataFrame, decided: pl.DataFrame) -> str:
    """Plain-words answer to 'how much of the score comes from the end-game hexagons, and do they decide games?'."""
    overall = split.filter(pl.col("strategy") == "all").sort("players")
    shares = ", ".join(
        f"{pct(r['share'])} at {r['players']} players (95% CI {pct_ci(r['share_lo'], r['share_hi'])})"
        for r in overall.iter_rows(named=True)
    )
    text = (
        f"Points: of all points scored, the end-game hexagons bring {shares}; the rest comes from boards scored "
        "in play."
    )
    strategies = split.filter(pl.col("strategy") != "all")
    if strategies["strategy"].n_unique() > 1:
        leaders = strategies.sort("share", descending=True).group_by("players", maintain_order=True).first()
        names = leaders["strategy"].unique().to_list()
        if len(names) == 1:
            top = strategies.filter(pl.col("strategy") == names[0]).sort("players")
            listed = ", ".join(
                f"{pct(r['share'])} at {r['players']} players ({pct_ci(r['share_lo'], r['share_hi'])})"
                for r in top.iter_rows(named=True)
            )
            text += f" {names[0]} takes the largest share of its points from them at every player count: {listed}."
        else:
            listed = ", ".join(
                f"{r['strategy']} at {r['players']} players ({pct(r['share'])}, 95% CI "
                f"{pct_ci(r['share_lo'], r['share_hi'])})"
                for r in leaders.sort("players").iter_rows(named=True)
            )
            text += f" The largest end-game share of a strategy's points: {listed}."
    comebacks = ", ".join(
        f"{pct(r['rate'])} of {r['players']}-player games (95% CI {pct_ci(r['lo'], r['hi'])})"
        for r in decided.iter_rows(named=True)
    )
    settled = ", ".join(
        f"{pct(r['settled_rate'])} at {r['players']} players ({pct_ci(r['settled_lo'], r['settled_hi'])})"
        for r in decided.iter_rows(named=True)
    )
    return text + (
        f" They decide many games: a player who was behind on mid-game points wins {comebacks}; in another "
        f"{settled} they break a tie for the mid-game lead."
    )


def point_split_table(split: pl.DataFrame) -> Table:
    """Mid-game and end-game points per player, and the end-game share, per player count and strategy."""
    return Table(
        "Mid-game and end-game points per player by player count and strategy ('all' = every player; "
        "95% bootstrap intervals)",
        [
            "Players",
            "Strategy",
            "Player results",
            "Mid-game points",
            "95% CI",
            "End-game points",
            "95% CI",
            "Score",
            "95% CI",
            "End-game share",
            "95% CI",
        ],
        [
            [
                str(r["players"]),
                r["strategy"],
                count(r["n"]),
                num(r["mid"]),
                num_ci(r["mid_lo"], r["mid_hi"]),
                num(r["end"]),
                num_ci(r["end_lo"], r["end_hi"]),
                num(r["score"]),
                num_ci(r["score_lo"], r["score_hi"]),
                pct(r["share"]),
                pct_ci(r["share_lo"], r["share_hi"]),
            ]
            for r in split.iter_rows(named=True)
        ],
    )


def endgame_decides_table(decided: pl.DataFrame) -> Table:
    """How often the end-game hexagons change the result, per player count."""
    return Table(
        "What the end-game hexagons change, against mid-game points alone",
        [
            "Players",
            "Games",
            "Won by a player behind on mid-game points",
            "95% CI",
            "Tie for the mid-game lead broken",
            "95% CI",
        ],
        [
            [
                str(r["players"]),
                count(r["games"]),
                pct(r["rate"]),
                pct_ci(r["lo"], r["hi"]),
                pct(r["settled_rate"]),
                pct_ci(r["settled_lo"], r["settled_hi"]),
            ]
            for r in decided.iter_rows(named=True)
        ],
    )


def point_split_chart(split: pl.DataFrame, order: list[str], out_dir: Path) -> Chart:
    """Stacked horizontal bars: mean mid-game and end-game points per strategy, one panel per player count;
    the end-game share is written at the end of each bar."""
    labels = ["all", *order]
    player_counts = split["players"].unique().sort().to_list()
    colours = palette(2)
    fig = new_figure(3.6 * len(player_counts) + 1.8, 2.2 + 0.4 * len(labels))
    axes = np.atleast_1d(fig.subplots(1, len(player_counts), sharey=True))
    positions = np.arange(len(labels))
    for ax, players in zip(axes, player_counts):
        panel = pl.DataFrame({"strategy": labels}).join(
            split.filter(pl.col("players") == players), on="strategy", how="left", maintain_order="left"
        )
        mid, end, share = (panel[c].to_numpy().astype(float) for c in ("mid", "end", "share"))
        ax.barh(positions, np.nan_to_num(mid), height=0.7, color=colours[0], label="mid-game (boards scored in play)")
        ax.barh(
            positions,
            np.nan_to_num(end),
            left=np.nan_to_num(mid),
            height=0.7,
            color=colours[1],
            label="end-game hexagons",
        )
        for y, total, s in zip(positions, mid + end, share):
            if not math.isnan(total):
                ax.text(total, y, f" {100 * s:.0f}%", va="center", ha="left", fontsize="x-small", color="#333")
        ax.set_xlim(0, 1.2 * np.nanmax(mid + end))
        ax.set_yticks(positions, labels)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        ax.set_title(players_label(players))
        ax.set_xlabel("Mean points per player")
    legend_below(fig, axes[0])
    fig.suptitle(f"{TITLE}: mid-game and end-game points by strategy")
    return save_chart(
        fig,
        out_dir,
        f"{GAME}_points_split.png",
        "Mean points per player from boards scored during play and from the end-game hexagons, stacked, so a bar's "
        "length is the mean score; the percentage is the end-game share. 'all' is every player; strategies in "
        "order of win share. Intervals are in the table below.",
    )


# ---------------------------------------------------------------- rotation


def rotation_intro() -> str:
    return (
        f"{ROTATOR} plays exactly like {BASE} but turns every board it scores to set up end-game hexagons, so the "
        f"difference between the two is what rotation is worth. Only games with both at the table count, so both "
        "meet the same opponents in the same games. Win shares are per seat played (Wilson intervals); the "
        "differences (rotator − greedy) carry percentile bootstrap intervals that resample whole deals, i.e. "
        "every seating of one game index together, so the comparison stays paired. In kaleido_rotation the two "
        "are alone at the table under every seating; in a tournament they also meet the other strategies."
    )


def rotation_value(rows: pl.DataFrame) -> pl.DataFrame:
    """Per experiment and player count, over the games with both ROTATOR and BASE at the table: each one's
    win share (Wilson) and mean end-game and mid-game points, and the differences ROTATOR − BASE with
    bootstrap intervals that resample deals (all seatings of one game index)."""
    deal = "deal" if "deal" in rows.columns else "game_id"
    is_rot, is_base = pl.col("strategy") == ROTATOR, pl.col("strategy") == BASE
    sums = {
        "rw": pl.col("win").filter(is_rot).sum(),
        "rn": is_rot.sum(),
        "re": pl.col("endgame_points").filter(is_rot).sum(),
        "rm": pl.col("midgame_points").filter(is_rot).sum(),
        "bw": pl.col("win").filter(is_base).sum(),
        "bn": is_base.sum(),
        "be": pl.col("endgame_points").filter(is_base).sum(),
        "bm": pl.col("midgame_points").filter(is_base).sum(),
    }
    games = (
        rows.group_by(GAME_KEY)
        .agg(players=pl.col("players").first(), deal=pl.col(deal).first(), alone=(is_rot | is_base).all(), **sums)
        .filter((pl.col("rn") > 0) & (pl.col("bn") > 0))
    )
    if games.is_empty():
        return pl.DataFrame()
    deals = games.group_by("experiment", "players", "deal").agg(
        games=pl.len(), alone=pl.col("alone").all(), **{k: pl.col(k).sum().cast(pl.Float64) for k in sums}
    )
    out = []
    for i, (key, group) in enumerate(groups(deals, ["experiment", "players"])):
        units = group.select(*sums).to_numpy()
        boot = resampled_sums(units, seed=i)
        rw, rn, re, rm, bw, bn, be, bm = (boot[:, j] for j in range(8))
        t = dict(zip(sums, units.sum(axis=0)))
        lo, hi = wilson(t["rw"], t["rn"])
        base_lo, base_hi = wilson(t["bw"], t["bn"])
        out.append(
            {
                **key,
                "games": int(group["games"].sum()),
                "deals": group.height,
                "alone": bool(group["alone"].all()),  # only the two strategies at the table
                "rot_seats": int(t["rn"]),
                "base_seats": int(t["bn"]),
                "share": t["rw"] / t["rn"],
                "lo": lo,
                "hi": hi,
                "base_share": t["bw"] / t["bn"],
                "base_lo": base_lo,
                "base_hi": base_hi,
                "fair": 1 / key["players"],
                **difference("diff", t["rw"] / t["rn"] - t["bw"] / t["bn"], rw / rn - bw / bn),
                "end": t["re"] / t["rn"],
                "base_end": t["be"] / t["bn"],
                **difference("end_diff", t["re"] / t["rn"] - t["be"] / t["bn"], re / rn - be / bn),
                **difference("mid_diff", t["rm"] / t["rn"] - t["bm"] / t["bn"], rm / rn - bm / bn),
            }
        )
    return pl.DataFrame(out)


def difference(name: str, value: float, boot: np.ndarray) -> dict:
    """{name, name_lo, name_hi}: a difference and its percentile bootstrap interval."""
    lo, hi = np.nanquantile(boot, [0.025, 0.975])
    return {name: float(value), f"{name}_lo": float(lo), f"{name}_hi": float(hi)}


def rotation_finding(rotation: pl.DataFrame) -> str:
    """Plain-words answer to 'how much is turning scored boards worth?', per player count, from an experiment
    with only the two at the table if there is one (else the one with the most games holding both); other
    experiments in one sentence each."""
    best = (
        rotation.sort("alone", "games", descending=True)
        .group_by("players", maintain_order=True)
        .first()
        .sort("players")
    )
    parts = []
    for (experiment,), group in sorted(best.partition_by("experiment", as_dict=True).items()):
        parts.append(
            f"in {experiment}, "
            + "; ".join(
                f"at {r['players']} players {pp(r['diff'])} win share (95% CI {pp_ci(r['diff_lo'], r['diff_hi'])}: "
                f"{pct(r['share'])} against {pct(r['base_share'])}) and {r['end_diff']:+.1f} end-game points per "
                f"player (95% CI {r['end_diff_lo']:+.1f} to {r['end_diff_hi']:+.1f})"
                for r in group.sort("players").iter_rows(named=True)
            )
        )
    text = (
        f"Rotation: turning scored boards ({ROTATOR} against {BASE} in the same games) is worth, "
        + "; ".join(parts)
        + "."
    )
    if best["diff_lo"].min() > 0:
        text += f" {ROTATOR} wins clearly more often at every player count."
    elif best["diff_hi"].max() < 0:
        text += f" {ROTATOR} wins clearly less often at every player count."
    largest_mid = float(best["mid_diff"].abs().max())
    if largest_mid < 0.25 * float(best["end_diff"].abs().min()):
        text += (
            f" The difference comes from the end-game hexagons: mid-game points differ by at most "
            f"{num(largest_mid)} per player."
        )
    others = rotation.join(best.select("experiment", "players"), on=["experiment", "players"], how="anti")
    for (experiment,), group in sorted(others.partition_by("experiment", as_dict=True).items()):
        text += (
            f" In {experiment} the win-share difference is "
            + ", ".join(
                f"{pp(r['diff'])} at {r['players']} (95% CI {pp_ci(r['diff_lo'], r['diff_hi'])})"
                for r in group.sort("players").iter_rows(named=True)
            )
            + "."
        )
    return text


def rotation_table(rotation: pl.DataFrame) -> Table:
    """Rotator against greedy per experiment and player count."""
    return Table(
        f"{ROTATOR} against {BASE} in the same games (difference = {ROTATOR} − {BASE}; intervals on differences "
        "resample deals)",
        [
            "Experiment",
            "Players",
            "Games",
            f"{ROTATOR} wins",
            "95% CI",
            f"{BASE} wins",
            "95% CI",
            "Difference",
            "95% CI",
            f"End-game points {ROTATOR} / {BASE}",
            "Difference",
            "95% CI",
            "Mid-game difference",
            "95% CI",
        ],
        [
            [
                r["experiment"],
                str(r["players"]),
                count(r["games"]),
                pct(r["share"]),
                pct_ci(r["lo"], r["hi"]),
                pct(r["base_share"]),
                pct_ci(r["base_lo"], r["base_hi"]),
                pp(r["diff"]),
                pp_ci(r["diff_lo"], r["diff_hi"]),
                f"{num(r['end'], 1)} / {num(r['base_end'], 1)}",
                f"{r['end_diff']:+.2f}",
                f"{r['end_diff_lo']:+.2f} to {r['end_diff_hi']:+.2f}",
                f"{r['mid_diff']:+.2f}",
                f"{r['mid_diff_lo']:+.2f} to {r['mid_diff_hi']:+.2f}",
            ]
            for r in rotation.iter_rows(named=True)
        ],
    )


def rotation_chart(rotation: pl.DataFrame, out_dir: Path) -> Chart:
    """Two panels of horizontal bars per player count, one bar per experiment: the win-share difference
    and the end-game points difference, rotator − greedy, with 95% bootstrap intervals."""
    player_counts = rotation["players"].unique().sort().to_list()
    experiments = rotation["experiment"].unique().sort().to_list()
    categories = [players_label(p) for p in player_counts]
    fig = new_figure(10.0, 2.2 + 0.3 * len(player_counts) * max(2, len(experiments)))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, (column, xlabel) in zip(
        axes, [("diff", "Win share: rotator − greedy (pp)"), ("end_diff", "End-game points: rotator − greedy")]
    ):
        bars = {}
        for experiment in experiments:
            panel = pl.DataFrame({"players": player_counts}, schema={"players": rotation["players"].dtype}).join(
                rotation.filter(pl.col("experiment") == experiment), on="players", how="left", maintain_order="left"
            )
            bars[experiment] = (panel[column], panel[f"{column}_lo"], panel[f"{column}_hi"])
        bars_with_ci(ax, categories, bars, horizontal=True)
        ax.axvline(0, color="#555", linewidth=1.0)
        ax.set_xlabel(xlabel)
        ax.set_xlim(left=min(0.0, float(rotation[f"{column}_lo"].min()) * 1.1))
    axes[0].xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0, symbol=""))
    axes[0].set_title("Win share")
    axes[1].set_title("End-game points per player")
    legend_below(fig, axes[-1])
    fig.suptitle(f"{TITLE}: what turning scored boards is worth ({ROTATOR} − {BASE}, 95% bootstrap intervals)")
    return save_chart(
        fig,
        out_dir,
        f"{GAME}_rotation.png",
        f"{ROTATOR} minus {BASE} in the games where both played: the difference in win share (percentage points) "
        "and in end-game points per player, per player count, one bar per experiment. Bars right of zero mean "
        "turning boards pays.",
    )


# ---------------------------------------------------------------- stalls


def with_stuck(rows: pl.DataFrame) -> pl.DataFrame:
    """rows plus `left` (tiles still in hand: a full game's tiles minus turns) and `stuck` (a stalled game's
    player who still held tiles)."""
    full = pl.col("players").replace_strict(TILES, default=None, return_dtype=pl.Int64)
    left = pl.max_horizontal(full - pl.col("turns").cast(pl.Int64), pl.lit(0))
    return rows.with_columns(left=left).with_columns(stuck=pl.col("stalled") & (pl.col("left") > 0))


def stall_rates(rows: pl.DataFrame) -> pl.DataFrame:
    """Per experiment and player count: share of games that stalled (Wilson), and in those games the share of
    players left holding tiles and their mean tiles in hand."""
    games = (
        with_stuck(rows)
        .group_by(GAME_KEY)
        .agg(
            players=pl.col("players").first(),
            stalled=pl.col("stalled").any(),
            stuck=pl.col("stuck").sum(),
            left=pl.col("left").filter(pl.col("stuck")).sum(),
        )
    )
    rates = (
        games.group_by("experiment", "players")
        .agg(
            games=pl.len(),
            stalls=pl.col("stalled").sum(),
            stuck=pl.col("stuck").sum(),
            left=pl.col("left").sum(),
            seats=(pl.col("players").cast(pl.Int64) * pl.col("stalled")).sum(),
        )
        .sort("experiment", "players")
        .with_columns(
            rate=pl.col("stalls") / pl.col("games"),
            stuck_share=pl.col("stuck") / pl.col("seats"),
            left_per_stuck=pl.col("left") / pl.col("stuck"),
        )
    )
    return with_wilson(rates, "stalls", "games")


def stall_winners(rows: pl.DataFrame, by: tuple[str, ...] = ("players",)) -> pl.DataFrame:
    """Per group (default: player count, experiments pooled): in stalled games, the win share of players left
    holding tiles and of the others; and the start player's win share in stalled and in completed games
    (Wilson). `by` must include "players"."""
    marked = with_stuck(rows)
    out = []
    for key, group in groups(marked, list(by)):
        players = key["players"]
        stalled = group.filter(pl.col("stalled"))
        stuck, free = stalled.filter(pl.col("stuck")), stalled.filter(~pl.col("stuck"))
        start = group.filter(pl.col("seat") == 0)
        start_stalled, start_done = start.filter(pl.col("stalled")), start.filter(~pl.col("stalled"))
        row = {**key, "fair": 1 / players, "stalled_games": start_stalled.height}
        for name, part in (
            ("stuck", stuck),
            ("free", free),
            ("start_stalled", start_stalled),
            ("start_done", start_done),
        ):
            wins = float(part["win"].sum()) if part.height else 0.0
            lo, hi = wilson(wins, part.height)
            share = wins / part.height if part.height else float("nan")
            row |= {f"{name}_n": part.height, name: share, f"{name}_lo": lo, f"{name}_hi": hi}
        out.append(row)
    return pl.DataFrame(out)


def stalls_by_strategy(rows: pl.DataFrame) -> pl.DataFrame:
    """Per experiment, player count and strategy: the stall rate of games with and without it at the table
    (Wilson); only where some games of that experiment and player count lack it."""
    games = rows.group_by(GAME_KEY).agg(
        players=pl.col("players").first(), stalled=pl.col("stalled").any(), strategies=pl.col("strategy").unique()
    )
    out = []
    for key, group in groups(games, ["experiment", "players"]):
        for strategy in sorted(rows.filter(pl.col("experiment") == key["experiment"])["strategy"].unique()):
            present = group["strategies"].list.contains(strategy)
            with_s, without = group.filter(present), group.filter(~present)
            if without.is_empty() or with_s.is_empty():
                continue
            row = {**key, "strategy": strategy}
            for name, part in (("with", with_s), ("without", without)):
                stalls = int(part["stalled"].sum())
                lo, hi = wilson(stalls, part.height)
                row |= {f"{name}_n": part.height, name: stalls / part.height, f"{name}_lo": lo, f"{name}_hi": hi}
            out.append(row)
    return pl.DataFrame(out)


def stall_finding(
    stalls: pl.DataFrame,
    winners: pl.DataFrame,
    by_experiment: pl.DataFrame,
    by_strategy: pl.DataFrame,
    rows: pl.DataFrame,
) -> str:
    """Plain-words answer to 'how often do the rules leave players stuck, and does it decide games?'.

    winners: stall_winners per player count; by_experiment: the same per experiment and player count."""
    names = pools(rows)
    largest = int(stalls["players"].max())
    top = stalls.filter(pl.col("players") == largest).sort("rate", descending=True)
    first, *rest = top.iter_rows(named=True)
    text = (
        f"Stalls: the rules leave players stuck in {pct(first['rate'])} of {largest}-player games (95% CI "
        f"{pct_ci(first['lo'], first['hi'])}) in {first['experiment']} ({names[first['experiment']]})"
        + "".join(
            f" and in {pct(r['rate'])} (95% CI {pct_ci(r['lo'], r['hi'])}) in {r['experiment']} "
            f"({names[r['experiment']]})"
            for r in rest
        )
        + "."
    )
    smaller = stalls.filter(pl.col("players") < largest)
    if not smaller.is_empty():
        parts = [
            f"{experiment} "
            + ", ".join(
                f"{pct(r['rate'])} at {r['players']} ({pct_ci(r['lo'], r['hi'])})"
                for r in group.sort("players").iter_rows(named=True)
            )
            for (experiment,), group in sorted(smaller.partition_by("experiment", as_dict=True).items())
        ]
        text += " With fewer players (95% CI): " + "; ".join(parts) + "."
    decided = winners.filter((pl.col("stuck_n") > 0) & (pl.col("free_n") > 0))
    if not decided.is_empty():
        pairs = "; ".join(
            f"at {r['players']} players {pct(r['stuck'])} (95% CI {pct_ci(r['stuck_lo'], r['stuck_hi'])}) against "
            f"{pct(r['free'])} ({pct_ci(r['free_lo'], r['free_hi'])})"
            for r in decided.iter_rows(named=True)
        )
        lose = (decided["stuck_hi"] < decided["fair"]).all() and (decided["stuck_hi"] < decided["free_lo"]).all()
        if lose:
            text += (
                " Stalls change who wins: in stalled games the players left holding tiles win far less often than "
                f"those who had placed all their tiles: {pairs}."
            )
        else:
            text += (
                " In stalled games, the win share of the players left holding tiles against that of those who had "
                f"placed all theirs: {pairs}."
            )
    shifted = by_experiment.filter(
        (pl.col("start_stalled_n") > 0)
        & (pl.col("start_done_n") > 0)
        & (
            (pl.col("start_stalled_lo") > pl.col("start_done_hi"))
            | (pl.col("start_stalled_hi") < pl.col("start_done_lo"))
        )
    )
    if not shifted.is_empty():
        text += (
            " Stalls also move the start player's chances, with the win share in stalled against completed games "
            "(95% CIs): "
            + "; ".join(
                f"{pct(r['start_stalled'])} ({pct_ci(r['start_stalled_lo'], r['start_stalled_hi'])}) against "
                f"{pct(r['start_done'])} ({pct_ci(r['start_done_lo'], r['start_done_hi'])}) at {r['players']} "
                f"players in {r['experiment']}"
                for r in shifted.sort("experiment", "players").iter_rows(named=True)
            )
            + "."
        )
    if not by_strategy.is_empty():
        rises = (
            by_strategy.with_columns(gap=pl.col("with") - pl.col("without"))
            .filter(pl.col("with_lo") > pl.col("without_hi"))
            .sort("gap", descending=True)
            .group_by("experiment", "players", maintain_order=True)
            .first()
            .sort("players", "experiment")
        )
        if not rises.is_empty():
            text += (
                " Who is at the table matters: "
                + "; ".join(
                    f"at {r['players']} players in {r['experiment']}, {pct(r['with'])} of games with {r['strategy']} "
                    f"stall (95% CI {pct_ci(r['with_lo'], r['with_hi'])}) against {pct(r['without'])} without it "
                    f"({pct_ci(r['without_lo'], r['without_hi'])})"
                    for r in rises.iter_rows(named=True)
                )
                + "."
            )
    return text


def stall_table(stalls: pl.DataFrame) -> Table:
    """Stall rate per experiment and player count, and how many players were left holding tiles."""
    return Table(
        "How often the rules stall, per experiment and player count",
        [
            "Experiment",
            "Players",
            "Games",
            "Stalled",
            "95% CI",
            "Players stuck in a stalled game",
            "Tiles left per stuck player",
        ],
        [
            [
                r["experiment"],
                str(r["players"]),
                count(r["games"]),
                pct(r["rate"]),
                pct_ci(r["lo"], r["hi"]),
                pct(r["stuck_share"]) if r["stalls"] else "–",
                num(r["left_per_stuck"], 1) if r["stuck"] else "–",
            ]
            for r in stalls.iter_rows(named=True)
        ],
    )


def stall_winner_table(winners: pl.DataFrame) -> Table:
    """Who wins in stalled games, per experiment and player count."""

    def cell(r: dict, name: str) -> list[str]:
        if not r[f"{name}_n"]:
            return ["–", "–"]
        return [pct(r[name]), pct_ci(r[f"{name}_lo"], r[f"{name}_hi"])]

    return Table(
        "Who wins when the rules stall, per experiment and player count (fair share 1/P)",
        [
            "Experiment",
            "Players",
            "Stalled games",
            "Fair share",
            "Stuck players win",
            "95% CI",
            "Others in stalled games win",
            "95% CI",
            "Start player wins, stalled games",
            "95% CI",
            "Start player wins, completed games",
            "95% CI",
        ],
        [
            [
                r["experiment"],
                str(r["players"]),
                count(r["stalled_games"]),
                pct(r["fair"]),
                *cell(r, "stuck"),
                *cell(r, "free"),
                *cell(r, "start_stalled"),
                *cell(r, "start_done"),
            ]
            for r in winners.iter_rows(named=True)
        ],
    )


def stall_strategy_table(by_strategy: pl.DataFrame) -> Table:
    """Stall rate of games with and without each strategy at the table."""
    return Table(
        "Stall rate of games with and without each strategy at the table (only where some games lack it)",
        [
            "Experiment",
            "Players",
            "Strategy",
            "Games with it",
            "Stalled",
            "95% CI",
            "Games without",
            "Stalled",
            "95% CI",
        ],
        [
            [
                r["experiment"],
                str(r["players"]),
                r["strategy"],
                count(r["with_n"]),
                pct(r["with"]),
                pct_ci(r["with_lo"], r["with_hi"]),
                count(r["without_n"]),
                pct(r["without"]),
                pct_ci(r["without_lo"], r["without_hi"]),
            ]
            for r in by_strategy.iter_rows(named=True)
        ],
    )


def stall_chart(stalls: pl.DataFrame, winners: pl.DataFrame, out_dir: Path) -> Chart:
    """Left: stall rate per player count, one bar per experiment. Right: in stalled games, the win share of
    the players left holding tiles and of the others, with the fair share marked."""
    player_counts = stalls["players"].unique().sort().to_list()
    categories = [str(p) for p in player_counts]
    experiments = stalls["experiment"].unique().sort().to_list()
    fig = new_figure(11.0, 4.6)
    left, right = fig.subplots(1, 2)
    bars = {}
    for experiment in experiments:
        panel = pl.DataFrame({"players": player_counts}, schema={"players": stalls["players"].dtype}).join(
            stalls.filter(pl.col("experiment") == experiment), on="players", how="left", maintain_order="left"
        )
        bars[experiment] = (panel["rate"], panel["lo"], panel["hi"])
    bars_with_ci(left, categories, bars)
    left.set_ylim(0, min(1.0, 1.15 * float(stalls["hi"].max()) + 0.02))
    left.set_xlabel("Players")
    left.set_ylabel("Games that stall")
    left.set_title("How often the rules stall")
    left.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    left.legend(loc="upper left", frameon=False, fontsize="small")
    panel = pl.DataFrame({"players": player_counts}, schema={"players": winners["players"].dtype}).join(
        winners, on="players", how="left", maintain_order="left"
    )
    bars_with_ci(
        right,
        categories,
        {
            "players left holding tiles": (panel["stuck"], panel["stuck_lo"], panel["stuck_hi"]),
            "players who placed all their tiles": (panel["free"], panel["free_lo"], panel["free_hi"]),
        },
    )
    for i, players in enumerate(player_counts):
        right.plot(
            [i - 0.45, i + 0.45],
            [1 / players] * 2,
            color="#555",
            linestyle="--",
            linewidth=1.2,
            label="fair share 1/P" if i == 0 else None,
        )
    right.set_ylim(0, 1.05)
    right.set_xlabel("Players")
    right.set_ylabel("Win share in stalled games")
    right.set_title("Who wins a stalled game")
    right.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    right.legend(loc="upper right", frameon=False, fontsize="small")
    fig.suptitle(f"{TITLE}: stalls (95% Wilson intervals)")
    return save_chart(
        fig,
        out_dir,
        f"{GAME}_stalls.png",
        "Left: share of games in which every hole filled while everyone still holding tiles had placed all their "
        "boards, per player count and experiment. Right: in those games (experiments pooled), the win share of the "
        "players left holding tiles and of the others; dashes mark the fair share 1/P. Missing bars: no such "
        "games or players.",
    )


# ---------------------------------------------------------------- boards and white tiles


def board_usage(rows: pl.DataFrame) -> pl.DataFrame:
    """Per player count and strategy ('all' = every player): mean boards placed, white tiles used and own
    tiles placed (bootstrap), and the allotment of boards and white tiles."""
    out = []
    for key, group in with_all(rows):
        out.append(
            {
                **key,
                "n": group.height,
                "allotment": allotment(key["players"]),
                **mean_with_ci(group["boards_placed"].to_numpy(), "boards"),
                **mean_with_ci(group["whites_used"].to_numpy(), "whites"),
                **mean_with_ci(group["turns"].to_numpy(), "turns"),
            }
        )
    return pl.DataFrame(out)


def usage_finding(usage: pl.DataFrame) -> str:
    """Boards and white tiles used, as a share of the allotment, in words."""
    overall = usage.filter(pl.col("strategy") == "all").sort("players")
    parts = [
        f"at {r['players']} players {num(r['boards'])} of {r['allotment']} boards (95% CI "
        f"{num_ci(r['boards_lo'], r['boards_hi'])}) and {num(r['whites'])} of {r['allotment']} white tiles "
        f"({num_ci(r['whites_lo'], r['whites_hi'])})"
        for r in overall.iter_rows(named=True)
    ]
    text = "Boards and white tiles placed per player: " + "; ".join(parts) + "."
    strategies = usage.filter(pl.col("strategy") != "all").with_columns(
        boards_used=pl.col("boards") / pl.col("allotment"), whites_used=pl.col("whites") / pl.col("allotment")
    )
    if strategies["strategy"].n_unique() > 1:
        fewest = strategies.sort("whites_used").row(0, named=True)
        most = strategies.sort("boards_used", descending=True).row(0, named=True)
        text += (
            f" Fewest white tiles: {fewest['strategy']}, {num(fewest['whites'])} of {fewest['allotment']} at "
            f"{fewest['players']} players (95% CI {num_ci(fewest['whites_lo'], fewest['whites_hi'])}); most boards: "
            f"{most['strategy']}, {num(most['boards'])} of {most['allotment']} at {most['players']} players "
            f"(95% CI {num_ci(most['boards_lo'], most['boards_hi'])})."
        )
    return text


def usage_table(usage: pl.DataFrame) -> Table:
    """Boards, white tiles and own tiles placed per player, per player count and strategy."""
    return Table(
        "Boards placed, white tiles used and own tiles placed per player ('all' = every player; 95% bootstrap "
        "intervals)",
        [
            "Players",
            "Strategy",
            "Player results",
            "Boards each",
            "Boards placed",
            "95% CI",
            "White tiles used",
            "95% CI",
            "Own tiles placed",
            "95% CI",
        ],
        [
            [
                str(r["players"]),
                r["strategy"],
                count(r["n"]),
                str(r["allotment"]),
                num(r["boards"]),
                num_ci(r["boards_lo"], r["boards_hi"]),
                num(r["whites"]),
                num_ci(r["whites_lo"], r["whites_hi"]),
                num(r["turns"]),
                num_ci(r["turns_lo"], r["turns_hi"]),
            ]
            for r in usage.iter_rows(named=True)
        ],
    )


def usage_chart(usage: pl.DataFrame, order: list[str], out_dir: Path) -> Chart:
    """Horizontal bars with 95% intervals: boards placed (top row) and white tiles used (bottom row) per
    strategy, one column per player count; the dashed line is the allotment."""
    labels = ["all", *order]
    player_counts = usage["players"].unique().sort().to_list()
    fig = new_figure(3.3 * len(player_counts) + 1.8, 2.0 + 0.62 * len(labels))
    axes = np.atleast_2d(fig.subplots(2, len(player_counts), sharey=True, sharex=True, squeeze=False))
    colours = palette(2)
    for column, players in enumerate(player_counts):
        panel = pl.DataFrame({"strategy": labels}).join(
            usage.filter(pl.col("players") == players), on="strategy", how="left", maintain_order="left"
        )
        for row, (measure, what) in enumerate([("boards", "Boards placed"), ("whites", "White tiles used")]):
            ax = axes[row, column]
            values, lo, hi = (panel[c].to_numpy().astype(float) for c in (measure, f"{measure}_lo", f"{measure}_hi"))
            ax.barh(
                np.arange(len(labels)),
                np.nan_to_num(values),
                height=0.7,
                color=colours[row],
                xerr=np.nan_to_num([values - lo, hi - values]),
                ecolor="#333",
                capsize=3,
                error_kw={"elinewidth": 1},
            )
            ax.axvline(allotment(players), color="#555", linestyle="--", linewidth=1.2)
            ax.set_yticks(np.arange(len(labels)), labels)
            ax.set_ylim(len(labels) - 0.5, -0.5)
            ax.set_xlabel(what)
            if row == 0:
                ax.set_title(players_label(players))
    axes[0, 0].set_xlim(0, 4.3)
    fig.suptitle(f"{TITLE}: boards placed and white tiles used per player (95% bootstrap intervals)")
    return save_chart(
        fig,
        out_dir,
        f"{GAME}_boards_whites.png",
        "Mean boards placed (top) and white tiles used (bottom) per player, by strategy and player count; the "
        "dashed line is what each player has (2, or 4 in the 2-player variant). 'all' is every player.",
    )


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
    placed = (
        rows.select("players", "board_q", "board_r")
        .explode("board_q", "board_r")
        .drop_nulls()
        .group_by("players", "board_q", "board_r")
        .agg(boards=pl.len())
        .join(games, on="players")
        .with_columns(share=pl.col("boards") / pl.col("games"))
        .sort("players", "share", descending=[False, True])
    )
    return with_wilson(placed, "boards", "games")


def board_cell_table(cells: pl.DataFrame, top: int = 6) -> Table:
    """The most used cells per player count."""
    best = cells.group_by("players", maintain_order=True).head(top)
    return Table(
        f"The {top} cells most often given a board, per player count (axial q, r; the starting boards sit at "
        "(0, 0) and (1, 0))",
        ["Players", "Cell (q, r)", "Games", "Board placed there", "95% CI"],
        [
            [
                str(r["players"]),
                f"({r['board_q']}, {r['board_r']})",
                count(r["games"]),
                pct(r["share"]),
                pct_ci(r["lo"], r["hi"]),
            ]
            for r in best.iter_rows(named=True)
        ],
    )


def hex_centre(q: int, r: int) -> tuple[float, float]:
    """Centre of the pointy-top hexagon of circumradius 1 at axial (q, r): (+1, 0) is to the right, (0, +1)
    down and to the right."""
    return math.sqrt(3) * (q + r / 2), -1.5 * r


def board_map_chart(cells: pl.DataFrame, out_dir: Path, floor: float = 0.002) -> Chart:
    """Honeycomb heat map per player count: share of games with a board at each cell; cells under `floor`
    are left out, the starting boards are outlined."""
    player_counts = cells["players"].unique().sort().to_list()
    shown = cells.filter(pl.col("share") >= floor)
    top = float(shown["share"].max()) if shown.height else 1.0
    coords = [*zip(shown["board_q"], shown["board_r"]), *STARTING_BOARDS]
    xs, ys = zip(*(hex_centre(q, r) for q, r in coords))
    fig = new_figure(3.4 * len(player_counts) + 1.4, 4.4)
    axes = np.atleast_1d(fig.subplots(1, len(player_counts)))
    cmap = matplotlib.colormaps["viridis"]
    norm = matplotlib.colors.Normalize(0, top)
    for ax, players in zip(axes, player_counts):
        for q, r in STARTING_BOARDS:
            ax.add_patch(
                RegularPolygon(hex_centre(q, r), 6, radius=0.97, facecolor="#d9d9d9", edgecolor="black", linewidth=1.6)
            )
            ax.text(*hex_centre(q, r), "start", ha="center", va="center", fontsize="xx-small")
        for r in shown.filter(pl.col("players") == players).iter_rows(named=True):
            centre = hex_centre(r["board_q"], r["board_r"])
            ax.add_patch(
                RegularPolygon(
                    centre, 6, radius=0.97, facecolor=cmap(norm(r["share"])), edgecolor="white", linewidth=0.5
                )
            )
            if r["share"] >= 0.05:
                ax.text(
                    *centre,
                    f"{100 * r['share']:.0f}",
                    ha="center",
                    va="center",
                    fontsize="xx-small",
                    color="black" if norm(r["share"]) > 0.6 else "white",
                )
        ax.set_xlim(min(xs) - 1.2, max(xs) + 1.2)
        ax.set_ylim(min(ys) - 1.3, max(ys) + 1.3)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(players_label(players))
    colourbar = fig.colorbar(
        matplotlib.cm.ScalarMappable(norm=norm, cmap=cmap),
        ax=list(axes),
        shrink=0.8,
        format=PercentFormatter(1.0, decimals=0),
    )
    colourbar.set_label("Games with a board placed here")
    fig.suptitle(f"{TITLE}: where players place their boards")
    return save_chart(
        fig,
        out_dir,
        f"{GAME}_board_map.png",
        "The table seen from above, one panel per player count: each hexagon is a place a board can go, coloured by "
        f"the share of games in which a player put a board there (numbers: % where at least 5%; places under "
        f"{100 * floor:.1f}% are left out). The two outlined boards are the starting boards.",
    )


def seat_profile(rows: pl.DataFrame) -> pl.DataFrame:
    """Per experiment, player count and seat: boards placed (bootstrap mean; share of the allotment), the
    end-game share of points (ratio, bootstrap) and the win share (Wilson)."""
    out = []
    for key, group in groups(rows, ["experiment", "players", "seat"]):
        end, score = (group[c].to_numpy().astype(float) for c in ("endgame_points", "score"))
        lo, hi = ratio_ci(end, score)
        wins = float(group["win"].sum())
        win_lo, win_hi = wilson(wins, group.height)
        boards = mean_with_ci(group["boards_placed"].to_numpy(), "boards")
        out.append(
            {
                **key,
                "n": group.height,
                **boards,
                "boards_used": boards["boards"] / allotment(key["players"]),
                "end_share": end.sum() / score.sum() if score.sum() else float("nan"),
                "end_share_lo": lo,
                "end_share_hi": hi,
                "win": wins / group.height,
                "win_lo": win_lo,
                "win_hi": win_hi,
            }
        )
    return pl.DataFrame(out)


def seat_profile_table(by_seat: pl.DataFrame) -> Table:
    """Boards placed, end-game share and win share per experiment, player count and seat."""
    return Table(
        "By seat: boards placed, end-game share of points and win share",
        [
            "Experiment",
            "Players",
            "Seat",
            "Player results",
            "Boards placed",
            "95% CI",
            "End-game share",
            "95% CI",
            "Win share",
            "95% CI",
        ],
        [
            [
                r["experiment"],
                str(r["players"]),
                str(r["seat"]),
                count(r["n"]),
                num(r["boards"]),
                num_ci(r["boards_lo"], r["boards_hi"]),
                pct(r["end_share"]),
                pct_ci(r["end_share_lo"], r["end_share_hi"]),
                pct(r["win"]),
                pct_ci(r["win_lo"], r["win_hi"]),
            ]
            for r in by_seat.iter_rows(named=True)
        ],
    )


def seat_heatmap_chart(by_seat: pl.DataFrame, out_dir: Path) -> Chart:
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
    fig = new_figure(4.2 + 1.3 * seats, 1.6 + 0.42 * len(labels))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, (column, title, cmap) in zip(
        axes,
        [
            ("boards_used", "Boards placed (% of the seat's boards)", "Blues"),
            ("end_share", "End-game share of the seat's points", "Oranges"),
        ],
    ):
        grid = grids[column]
        low, high = np.nanmin(grid), np.nanmax(grid)
        image = ax.imshow(
            grid, cmap=matplotlib.colormaps[cmap].with_extremes(bad="#f2f2f2"), vmin=low, vmax=high, aspect="auto"
        )
        for (i, j), value in np.ndenumerate(grid):
            if not np.isnan(value):
                dark = high > low and (value - low) / (high - low) > 0.6
                ax.text(
                    j,
                    i,
                    f"{100 * value:.0f}",
                    ha="center",
                    va="center",
                    fontsize="small",
                    color="white" if dark else "black",
                )
        ax.set_xticks(range(seats), [str(s) for s in range(seats)])
        ax.set_yticks(range(len(labels)), labels)
        ax.set_xlabel("Seat (0 = start player)")
        ax.set_title(title, fontsize="medium")
        ax.grid(False)
        fig.colorbar(image, ax=ax, shrink=0.85, format=PercentFormatter(1.0, decimals=0))
    fig.suptitle(f"{TITLE}: boards and end-game points by seat")
    return save_chart(
        fig,
        out_dir,
        f"{GAME}_seat_heatmap.png",
        "Rows: experiment and player count; columns: seat. Left: the share of their own boards that players in "
        "the seat place (2 each, 4 at 2 players). Right: the share of the seat's points that come from the "
        "end-game hexagons. Numbers are percentages; grey: no such seat. Intervals are in the table below.",
    )
