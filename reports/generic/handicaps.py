"""Handicaps and compensation: every seat's win share with points to or from its score, and the compensation
that evens every seat (or the closest), re-scored from the recorded games (reports/handicap.py,
reports/compensation.py).

The manifest's `tie_breakers` (columns that settle equal scores, the most wins) shape the handicaps: re-scoring
honours them."""

import polars as pl

from reports.analysis import GameData, partitions
from reports.charts import finished_chart, palette, panels
from reports.compensation import amount, changes, compensate, compensation_records, phrase
from reports.fmt import listing, pct, pct_ci, seat_name, yes
from reports.generic.seats import around_zero
from reports.handicap import fair_handicaps, handicap_findings, seat_handicaps
from reports.render import Chart, Finding, Table, share_ci, table


def handicaps(data: GameData) -> dict[int, dict]:
    """Per player count: every seat's win share on a half-point grid of handicaps (`grid`, reports/handicap.py),
    and the compensation that evens every seat or the closest (`compensation`, reports/compensation.py), both
    re-scored from the recorded games."""
    return data.computed("handicaps", lambda: handicaps_of(data))


def handicaps_of(data: GameData) -> dict[int, dict]:
    out = {}
    for (players,), rows in partitions(data.rows, "players"):
        out[players] = {"grid": seat_handicaps(rows, data.lowest_wins, data.tie_breakers),
                        "compensation": compensate(rows, data.lowest_wins, data.tie_breakers)}
    return out


def handicap_intro(_, data: GameData) -> str:
    breakers = data.tie_breakers
    ties = (f"ties on score still go to the most {listing(f'`{c}`' for c in breakers)}" if breakers
            else "tied players share the win")
    return ("Each seat's win share if its final score had points in its favour, all other scores unchanged, "
            f"re-scored from the recorded games; {ties}. A half point (as Go's komi of 6.5) is the whole point below "
            "plus every tie at it. The fair point is the handicap that brings the seat closest to 1/P; the range is "
            "every handicap whose 95% interval holds 1/P. The compensation shown gives every player points at once "
            "and may settle the ties left on score (to the later or the earlier player); it evens the game when "
            "every player's 95% interval holds 1/P under it, and is the one with the fewest points in all that does "
            "(else the closest to fair). Players are numbered from 1, Player 1 starts.")


def points_words(points: float, lowest_wins: bool) -> str:
    """Points in a player's favour as the player applies them: 'adds 1.5' (to their score), 'subtracts 1'
    ('adds' where the highest score wins and the points are positive, or the lowest wins and they are negative),
    'nothing'."""
    if points == 0:
        return "nothing"
    raised = (points > 0) != lowest_wins
    return f"{'adds' if raised else 'subtracts'} {amount(abs(points))}"


def handicap_finding(result: dict[int, dict], data: GameData) -> Finding:
    """Per player count: the compensation that evens every seat (or the closest) and the shares it gives; every
    seat's fair point."""
    numbers = handicap_numbers(result, data)
    sentences, rows = [], []
    for players, found in result.items():
        [chosen] = [r for r in numbers if r["metric"] == "compensation" and r["players"] == players]
        shares = ", ".join(pct(r["estimate"]) for r in numbers if r["players"] == players and r.get("recommended"))
        before = ", ".join(pct(s) for s in found["compensation"].without.shares)
        if chosen["evens"] is None:
            sentences.append(f"At {players} players {phrase(chosen)}.")
        elif found["compensation"].chosen is found["compensation"].without:
            sentences.append(f"At {players} players {phrase(chosen)} (the players win {before}).")
        else:
            evens = "this evens every player: " if chosen["evens"] else ""
            sentences.append(f"At {players} players {evens}{phrase(chosen)}; the players would win {shares} "
                             f"instead of {before}.")
        for r in fair_handicaps(found["grid"]).iter_rows(named=True):
            rows.append({**r, "players": players})
    return Finding("Handicaps.", " ".join(sentences), table(
        "", rows, ("Players", "players"), ("Player", "seat", seat_name),
        ("Fair point (to or from their score)", "points", lambda p: points_words(p, data.lowest_wins)),
        ("Win share there", "estimate", pct), ("95% CI", ("low", "high"), pct_ci),
        ("Handicaps that could be fair", ("points_low", "points_high"),
         lambda lo, hi: f"{points_words(lo, data.lowest_wins)} to {points_words(hi, data.lowest_wins)}")),
        tuple(numbers))


def handicap_numbers(result: dict[int, dict], data: GameData) -> list[dict]:
    """Every seat's win share under each handicap of its grid (metric `handicap`, with `points` and the seat's
    `fair_point`); the chosen compensation (metric `compensation`) and every seat's share under each compensation
    shown (metric `compensated_win_share`, the chosen one's `recommended`)."""
    out = []
    for found in result.values():
        out += handicap_findings(found["grid"], data)
        out += compensation_records(found["compensation"], data)
    return out


def handicap_table(result: dict[int, dict], data: GameData) -> list[Table]:
    """Every seat's win share under every handicap of its grid, and every player's share under each compensation
    shown."""
    grid = pl.concat([found["grid"] for found in result.values()], how="diagonal_relaxed")
    shown = [{**r, "player": r["seat"] + 1, "compensation": changes(r)} for r in handicap_numbers(result, data)
             if r["metric"] == "compensated_win_share"]
    return [table("Win share with points to or from the player's score (95% cluster-robust intervals)", grid.sort(
                  "players", "seat", "points"), ("Players", "players"), ("Player", "seat", seat_name),
                  ("Points", "points", lambda p: points_words(p, data.lowest_wins)),
                  *share_ci("Win share", "estimate", "low", "high")),
            table("Win share of every player under the compensation chosen (first) and the others shown: none, "
                  "and the closest to fair with each tie order", shown, ("Players", "players"),
                  ("Compensation", "compensation"), ("Evens every player", "evens", yes), ("Player", "player"),
                  *share_ci("Win share", "estimate", "low", "high"))]


def handicap_chart(result: dict[int, dict], data: GameData) -> Chart:
    """Per player count: each seat's win share minus 1/P (pp) against the points in its favour, around zero."""
    counts = list(result)
    fig, axes = panels(len(counts), 4.2 * len(counts) + 0.8, 4.0)
    colours = palette(max(counts))
    for ax, players in zip(axes, counts):
        grid = result[players]["grid"]
        for seat in range(players):
            line = grid.filter(pl.col("seat") == seat).sort("points")
            gap = [100 * (v - 1 / players) for v in line["estimate"]]
            ax.fill_between(line["points"], 100 * (line["low"] - 1 / players), 100 * (line["high"] - 1 / players),
                            color=colours[seat], alpha=0.18, linewidth=0)
            ax.plot(line["points"], gap, color=colours[seat], marker="o", markersize=2.5, label=seat_name(seat))
        around_zero(ax, players, "Points in the seat's favour")
    axes[0].set_ylabel("Win share − 1/P (pp)")
    return finished_chart(fig, axes[-1], f"{data.title}: the handicap that makes each seat fair",
                          data.out_dir, f"{data.slug}_handicaps.png",
                          "Each seat's win share minus its fair share (percentage points) with points in its favour, "
                          "re-scored from the recorded games; bands are 95% cluster-robust intervals. Where a line "
                          "crosses zero, that handicap makes the seat fair.")
