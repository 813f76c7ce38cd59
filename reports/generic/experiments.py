"""Seat advantage by experiment: each experiment's seat numbers side by side, every number from its own games."""

import polars as pl

from reports.analysis import GameData
from reports.charts import aligned, bars_with_ci, finished_chart, panels
from reports.fmt import at_counts, clear, count, listing, pp, pp_ci, yes
from reports.generic.seats import around_zero, first_player_advantage, seat_win_shares
from reports.render import Chart, Finding, est, share_ci, table


def seat_by_experiment(data: GameData) -> pl.DataFrame | None:
    """Win share by (experiment, players, seat), when there is more than one experiment."""
    return seat_win_shares(data.rows, ("experiment",)) if data.rows["experiment"].n_unique() > 1 else None


def seat_experiment_finding(seats: pl.DataFrame, data: GameData) -> Finding:
    """Whether the start player's advantage differs between experiments (intervals apart) at each player count."""
    start = first_player_advantage(seats)
    apart, pairs = apart_pairs(start)
    shared = start.group_by("players").agg(n=pl.len()).filter(pl.col("n") > 1)["players"].sort().to_list()
    if not shared:
        text = "No player count was played in more than one experiment, so experiments cannot be compared."
    elif apart:
        overlap = "" if len(apart) == pairs else "; every other pair of experiments overlaps"
        text = ("It depends on who plays: the start player's advantage differs clearly (intervals apart) between "
                + listing(f"{a} and {b} at {players} players" for players, a, b in apart) + overlap + ".")
    else:
        text = f"The start player's advantage does not differ clearly between experiments at {at_counts(shared)}."
    names = data.pools()
    return Finding("Seat advantage by experiment.", text, table(  # its numbers: each experiment's start_advantage
        "", start.sort("players", "experiment"), ("Players", "players"),
        ("Experiment", lambda r: f"{r['experiment']} ({names[r['experiment']]})"),
        *est("Start player's advantage", "advantage", pp, pp_ci)))


def apart_pairs(start: pl.DataFrame) -> tuple[list[tuple[int, str, str]], int]:
    """The pairs of experiments whose start-player advantage intervals lie apart, as (players, a, b), and how many
    pairs there are in all (pairs of experiments that played the same player count)."""
    apart, pairs = [], 0
    for (players,), group in sorted(start.partition_by("players", as_dict=True).items()):
        rows = group.sort("experiment").to_dicts()
        for i, a in enumerate(rows):
            for b in rows[i + 1:]:
                pairs += 1
                if a["advantage_lo"] > b["advantage_hi"] or b["advantage_lo"] > a["advantage_hi"]:
                    apart.append((players, a["experiment"], b["experiment"]))
    return apart, pairs


def seat_experiment_table(seats: pl.DataFrame, data: GameData) -> list:
    names = data.pools()
    return [table("First-player advantage by experiment (start player's win share − 1/P)",
                  first_player_advantage(seats), ("Experiment", "experiment"),
                  ("Strategies", lambda r: names[r["experiment"]]), ("Players", "players"), ("Games", "games", count),
                  *share_ci("Start player wins"), *est("Advantage", "advantage", pp, pp_ci),
                  ("Clear?", ("advantage_lo", "advantage_hi"), lambda lo, hi: yes(clear(lo, hi))))]


def seat_experiment_chart(seats: pl.DataFrame, data: GameData) -> Chart:
    """Each seat's gap from 1/P (pp), bars per experiment, one panel per player count, around a zero line."""
    counts, names = seats["players"].unique().sort().to_list(), data.pools()
    widths = [max(2, p) + 0.8 for p in counts]
    fig, axes = panels(len(counts), 0.95 * sum(widths) + 1.2, 4.2, sharey=True, width_ratios=widths)
    for ax, players in zip(axes, counts):
        bars = {}
        for experiment in seats["experiment"].unique().sort().to_list():
            panel = aligned(seats.filter((pl.col("experiment") == experiment) & (pl.col("players") == players)),
                            "seat", list(range(players)))
            bars[experiment] = [100 * (panel[c] - 1 / players) for c in ("share", "lo", "hi")]
        bars_with_ci(ax, [str(s + 1) for s in range(players)], bars)
        around_zero(ax, players, "Player (1 starts)")
    axes[0].set_ylabel("Win share − fair share (pp)")
    return finished_chart(fig, axes[-1], f"{data.title}: each seat's gap from a fair share, experiment by experiment",
                          data.out_dir, f"{data.slug}_seat_by_experiment.png",
                          "Each seat's win share minus 1/P (percentage points), one bar per experiment, each from its "
                          "own games, one panel per player count; error bars are 95% cluster-robust intervals. "
                          "Strategy pools: " + "; ".join(f"{e}: {pool}" for e, pool in names.items()) + ".")
