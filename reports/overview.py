"""The report's first screen: one row per game and player count, from that game's headline experiment.

A game's headline experiment at a player count is the one its file marks `headline = true` (of several, the one
with the most games there); without one, the experiment with the most games there. The row names it. Every
number of a row comes from that one experiment (findings.py), never from several pooled.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from reports.analysis import GameData
from reports.compensation import phrase
from reports.findings import select
from reports.fmt import listing, pct, pct_ci, pp, pp_ci
from reports.generic import seat_name
from reports.render import Table

BOTS = ("Bots are not people. Every number here describes scripted heuristics playing each other; human players "
        "adapt, bluff, make mistakes and read the table, so a balance problem the bots show is a lead to test at the "
        "table, not a verdict.")


def headlines(experiments: list[GameData]) -> dict[int, GameData]:
    """Per player count, the experiment whose numbers answer the game's headline questions."""
    out: dict[int, GameData] = {}
    for players in sorted({p for data in experiments for p in data.player_counts}):
        played = [data for data in experiments if players in data.player_counts]
        marked = [data for data in played if data.headline]
        games = {data.experiment: data.rows.filter(data.rows["players"] == players)["game_id"].n_unique()
                 for data in played}
        by_name = sorted(marked or played, key=lambda data: data.experiment)  # of equal games, the first name
        out[players] = max(by_name, key=lambda data: games[data.experiment])
    return out


def verdict(seats: list[dict], players: int) -> str:
    """Which seats win clearly more or less than the fair share 1/P (their 95% intervals above or below it)."""
    fair = 1 / players
    ahead = [seat_name(r["seat"], players) for r in seats if r["low"] > fair]
    behind = [seat_name(r["seat"], players) for r in seats if r["high"] < fair]
    if not ahead and not behind:
        return "fair: no seat wins clearly more or less than 1/P"
    parts = ([f"{listing(ahead)} ahead"] if ahead else []) + ([f"{listing(behind)} behind"] if behind else [])
    return ", ".join(parts)


def overview_row(data: GameData, players: int, numbers: list[dict], module: ModuleType | None) -> dict:
    """The overview's row for one game at one player count, from its headline experiment's numbers."""
    mine = select(numbers, experiment=data.experiment, players=players)
    seats = sorted(select(mine, metric="seat_win_share"), key=lambda r: r["seat"])
    start = select(mine, metric="start_advantage")[0]
    best = max(seats, key=lambda r: (r["estimate"], -r["seat"]))
    worst = min(seats, key=lambda r: (r["estimate"], r["seat"]))
    strategies = select(mine, metric="strategy_win_share")
    strongest = max(strategies, key=lambda r: (r["estimate"] / r["fair"], r["strategy"])) if len(strategies) > 1 \
        else None
    hook: Callable = getattr(module, "key_finding", lambda numbers, players: None)
    holes: Callable = getattr(module, "rule_holes", lambda numbers, players: None)
    return {
        "game": data.title, "page": f"{data.name}.html", "players": players, "experiment": data.experiment,
        "games": start["games"],
        "start": f"{pp(start['estimate'])} ({pp_ci(start['low'], start['high'])})",
        "best": f"seat {best['seat']}, {pct(best['estimate'])}",
        "worst": f"seat {worst['seat']}, {pct(worst['estimate'])}",
        "verdict": verdict(seats, players),
        "strongest": "–" if strongest is None else
        f"{strongest['strategy']}: {pct(strongest['estimate'])} ({pct_ci(strongest['low'], strongest['high'])})",
        "handicap": handicap_cell(mine), "key": hook(mine, players) or "–",
        "holes": holes(mine, players) or "none counted",
    }


def handicap_cell(numbers: list[dict]) -> str:
    """The compensation that evens every player (or says none does, with the closest), in the words a player
    applies, and the win shares it gives, player by player."""
    found = select(numbers, metric="compensation")
    if not found:
        return "–"
    shares = sorted(select(numbers, metric="compensated_win_share", recommended=True), key=lambda r: r["seat"])
    return f"{phrase(found[0])} ({', '.join(pct(r['estimate']) for r in shares)})"


def overview_table(rows: list[dict]) -> Table:
    columns = ["Game", "Players", "Start player's edge (95% CI)", "Best seat", "Worst seat", "Verdict",
               "Recommended handicap: seats' win shares", "Strongest strategy: win share (95% CI)", "Key finding",
               "Rule holes", "From experiment"]
    cells = [[r["game"], str(r["players"]), r["start"], r["best"], r["worst"], r["verdict"], r["handicap"],
              r["strongest"], r["key"], r["holes"], r["experiment"]] for r in rows]
    return Table("Seat balance at a glance (seat 0 starts; the edge is the start player's win share minus 1/P)",
                 columns, cells, whole=True)


def bots_played(experiments: dict[str, list[GameData]]) -> str:
    """Which strategies played each game's headline experiments."""
    lines = []
    for title, games in experiments.items():
        pools = {data.experiment: data.pools()[data.experiment] for data in headlines(games).values()}
        lines.append(f"{title}: " + "; ".join(f"{pool} ({name})" for name, pool in pools.items()))
    return "Who played: " + ". ".join(lines) + "."
