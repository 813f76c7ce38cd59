"""The report's first screen: one row per game and player count, from that game's headline experiment, and a
chart of the start player's edge beside them; below, each game's rule holes per experiment and what each strategy
does.

A game's headline experiment at a player count is the one its file marks `headline = true` (of several, the one
with the most games there); without one, the experiment with the most games there. A table under the first one
names it. Every number of a row comes from that one experiment (findings.py), never from several pooled.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from reports.analysis import GameData
from reports.charts import new_figure, save_chart
from reports.compensation import brief
from reports.findings import seat_verdict, select
from reports.fmt import count, listing, pct, pct_ci, pp, pp_ci, seat_name
from reports.generic.ladder import is_ladder, top_edge
from reports.render import Block, Chart, Fold, Glossary, Link, Row, Table
from reports.spec import GameReport

DEFINITIONS = ("Player 1 starts. With P players a fair share of wins is 1/P; a game is fair when every player's 95% "
               "interval holds 1/P, unfair when some player's share differs from 1/P even after correcting for "
               "testing P players (Holm), unclear in between. Edge: Player 1's win share − 1/P, in percentage "
               "points (pp).")
BOTS = ("Bots are not people. Every number here describes bots: scripted heuristics, and in the edge under search "
        "players that look ahead by playing the game out from worlds consistent with what they see; human players "
        "adapt, bluff, make mistakes and read the table, so a balance problem the bots show is a lead to test at the "
        "table, not a verdict.")
ROW_HEIGHT = 0.18  # inches per row of the forest chart


def headlines(experiments: list[GameData]) -> dict[int, GameData]:
    """Per player count, the experiment whose numbers answer the game's headline questions: never a skill ladder,
    whose rungs are not pooled (the overview shows its strongest rung beside the headline)."""
    out: dict[int, GameData] = {}
    pooled = [data for data in experiments if not is_ladder(data)]
    for players in sorted({p for data in pooled for p in data.player_counts}):
        played = [data for data in pooled if players in data.player_counts]
        marked = [data for data in played if data.headline]
        games = {data.experiment: data.rows.filter(data.rows["players"] == players)["game_id"].n_unique()
                 for data in played}
        by_name = sorted(marked or played, key=lambda data: data.experiment)  # of equal games, the first name
        out[players] = max(by_name, key=lambda data: games[data.experiment])
    return out


def overview_row(data: GameData, players: int, numbers: list[dict], own: GameReport) -> dict:
    """The overview's row for one game at one player count, from its headline experiment's numbers."""
    mine = select(numbers, experiment=data.experiment, players=players)
    seats = sorted(select(mine, metric="seat_win_share"), key=lambda r: r["seat"])
    start = select(mine, metric="start_advantage")[0]
    verdict = seat_verdict(seats)
    best = max(seats, key=lambda r: (r["estimate"], -r["seat"]))
    worst = min(seats, key=lambda r: (r["estimate"], r["seat"]))
    strategies = select(mine, metric="strategy_win_share")
    strongest = max(strategies, key=lambda r: (r["estimate"] / r["fair"], r["strategy"])) if len(strategies) > 1 \
        else None
    return {
        "game": data.title, "page": f"{data.name}.html", "players": players, "experiment": data.experiment,
        "games": start["games"], "pool": data.pools()[data.experiment],
        "edge": (start["estimate"], start["low"], start["high"]),
        "start": f"{pp(start['estimate'])} ({pp_ci(start['low'], start['high'])})".replace(" pp", ""),
        "search": search_cell(top_edge(numbers, players)), "ladder": top_edge(numbers, players),
        "verdict": verdict,
        "best": f"{seat_name(best['seat'])}: {pct(best['estimate'])}" if verdict == "unfair" else "",
        "worst": f"{seat_name(worst['seat'])}: {pct(worst['estimate'])}" if verdict == "unfair" else "",
        "strongest": "–" if strongest is None else strategy_link(data, strongest["strategy"],
                                                                  f": {pct(strongest['estimate'])}"),
        "handicap": handicap_cell(mine), "key": (own.key_finding and own.key_finding(mine, players)) or "–",
    }


def search_cell(edge: dict | None) -> str:
    """The start edge at the strongest rung of the game's skill ladder, and that rung; '–' without a ladder."""
    if edge is None:
        return "–"
    return f"{pp(edge['estimate'])} ({pp_ci(edge['low'], edge['high'])}) at {edge['strategy']}".replace(" pp", "")


def handicap_cell(numbers: list[dict]) -> str:
    """The compensation that evens every player (or says none does, with the closest), in the words a player
    applies, briefly (compensation.brief; the win shares it gives are on the game's page)."""
    found = select(numbers, metric="compensation")
    return brief(found[0]) if found else "–"


def overview_table(rows: list[dict]) -> Table:
    columns = ["Game", "Players", "Verdict", "Start player's edge, pp (95% CI)",
               "Edge under search, pp (95% CI)", "Best seat", "Worst seat",
               "Compensation that evens the seats (points to or from each player's score)",
               "Strongest strategy: win share (interval on its page)"]
    cells = [[Link(r["game"], r["page"]), str(r["players"]), r["verdict"], r["start"], r["search"], r["best"],
              r["worst"],
              r["handicap"], r["strongest"]] for r in rows]
    return Table("Seat balance at a glance", columns, cells, whole=True)


def sources_table(rows: list[dict]) -> Table:
    """Where each overview row comes from: its experiment, its games, who played, and the game's key finding."""
    cells = [[r["game"], str(r["players"]), r["experiment"], count(r["games"]), r["pool"],
              ladder_source(r["ladder"]), r["key"]] for r in rows]
    return Table("Where each row comes from", ["Game", "Players", "Experiment", "Games", "Who played",
                                               "Edge under search from", "Key finding"], cells, whole=True)


def ladder_source(edge: dict | None) -> str:
    """The ladder experiment and the games of the rung that the overview's edge under search comes from."""
    return "–" if edge is None else f"{edge['experiment']} ({count(edge['games'])} games at {edge['strategy']})"


def forest_chart(rows: list[dict], out_dir: Path) -> Chart:
    """The start player's edge and its 95% interval, one line per game and player count, in two panels (the first
    with the first half of the rows)."""
    half = (len(rows) + 1) // 2
    halves = [rows[:half], rows[half:]] if len(rows) > 1 else [rows]
    fig = new_figure(7.2, ROW_HEIGHT * half + 0.55)
    axes = fig.subplots(1, len(halves), sharex=True)
    for ax, part in zip(np.atleast_1d(axes), halves):
        edges = 100 * np.array([r["edge"] for r in part], dtype=float)
        y = np.arange(len(part))
        clear = (edges[:, 1] > 0) | (edges[:, 2] < 0)
        colours = np.where(clear, "#b2182b", "#777777")
        ax.hlines(y, edges[:, 1], edges[:, 2], colors=colours, linewidth=2)
        ax.scatter(edges[:, 0], y, c=colours, s=18, zorder=3)
        searched = [(i, r["ladder"]) for i, r in enumerate(part) if r["ladder"] is not None]
        if searched:
            at = np.array([i for i, _ in searched]) + 0.3
            found = 100 * np.array([(e["estimate"], e["low"], e["high"]) for _, e in searched], dtype=float)
            ax.hlines(at, found[:, 1], found[:, 2], colors="#2166ac", linewidth=1)
            ax.scatter(found[:, 0], at, facecolors="white", edgecolors="#2166ac", marker="D", s=16, zorder=3)
        ax.axvline(0, color="#333", linewidth=1)
        labels = [f"{r['game']}  {r['players']}" if i == 0 or part[i - 1]["game"] != r["game"] else str(r["players"])
                  for i, r in enumerate(part)]
        ax.set_yticks(y, labels)
        ax.set_ylim(half - 0.5, -0.5)
        ax.set_xlabel("Start player's edge (pp)")
        ax.grid(axis="y", visible=False)
    return save_chart(fig, out_dir, "overview_start_edge.png",
                      DEFINITIONS + " The start player's edge (dots) at each game and player count, from the game's "
                      "headline experiment (which one, and its key finding: under the table); lines are 95% intervals, "
                      "red where they exclude 0. Open blue diamonds, where the game has a skill ladder: the edge when "
                      "every seat plays its strongest rung. The table names the best and worst seats only where the "
                      "game is unfair; its compensation is the one each game's page recommends; a strategy's name "
                      "links to what it does.")


def rule_holes(title: str, experiments: list[GameData], numbers: list[dict], own: GameReport) -> list[Block]:
    """A game's rule holes (its report's `rule_holes` hook: their definition and rate records), per experiment
    and player count with their 95% intervals, beside who played; [] where the game's report counts none."""
    definition, found = own.rule_holes(numbers) if own.rule_holes else ("", [])
    if not found:
        return []
    pools = {name: pool for data in experiments for name, pool in data.pools().items()}
    counts = sorted({r["players"] for r in found})
    by_experiment: dict[str, dict[int, dict]] = {}
    for r in found:
        by_experiment.setdefault(r["experiment"], {})[r["players"]] = r
    cells = [[name, pools.get(name, "–"), *(hole_cell(mine.get(p)) for p in counts)]
             for name, mine in sorted(by_experiment.items())]
    return [f"Rule holes in {title}: {definition}",
            Table(f"{title}: share of games with a rule hole, per experiment (95% CI)",
                              ["Experiment", "Who played", *(f"{p} players" for p in counts)], cells, whole=True)]


def hole_cell(found: dict | None) -> str:
    if found is None:
        return "–"
    return f"{pct(found['estimate'])} ({pct_ci(found['low'], found['high'])}): {count(found['count'])} of " \
           f"{count(found['games'])}"


def rule_holes_block(holes: dict[str, list[Block]]) -> list[Block]:
    """The overview's rule holes: each game's blocks, and one line for the games whose reports count none."""
    counted = [block for blocks in holes.values() for block in blocks]
    none = [title for title, blocks in holes.items() if not blocks]
    return [*counted, *([f"Rule holes: the results of {listing(none)} count no game that stalls or stays "
                         "unfinished."] if none else [])]


def strategy_anchor(game: str, strategy: str) -> str:
    return "strategy-" + re.sub(r"[^a-z0-9]+", "-", f"{game} {strategy}".lower()).strip("-")


def described(data: GameData) -> dict[str, str]:
    """The game's strategies and their one-line descriptions, as the manifest records them ({} where it does not)."""
    return next((m["strategies"] for m in data.manifests if isinstance(m.get("strategies"), dict)), {})


def base_name(strategy: str) -> str:
    """A catalogue entry's name without its kind: 'camouflage (policy)' -> 'camouflage'."""
    return strategy.split(" (")[0]


def strategy_link(data: GameData, strategy: str, tail: str) -> Link | str:
    """A played strategy's name linked to the description of the first strategy it is built on ('greedy-no-teapot'
    and 'greedy@3' on 'greedy', 'camouflage+bayes' on 'camouflage'); plain text where the manifest describes none."""
    bases = {base_name(name) for name in described(data)}
    found = next((word for word in re.findall(r"[A-Za-z0-9_]+", strategy) if word in bases), None)
    return strategy + tail if found is None else Link(strategy, "#" + strategy_anchor(data.name, found), tail)


def glossary(data: GameData) -> list[Glossary]:
    """What each of the game's strategies does, each an anchor for the names that link to it."""
    entries = tuple((strategy_anchor(data.name, base_name(name)), name, text) for name, text in described(data).items())
    return [Glossary(f"{data.title}: the strategies", entries)] if entries else []


def overview_opening(rows: list[dict], holes: dict[str, list[Block]], glossaries: list[Glossary], out_dir: Path
                     ) -> list[Block]:
    """The overview: the forest chart beside the definitions and how to read it, the compact table, the rule holes,
    the bots' caveat, then folded: where each row comes from; last, what each strategy does."""
    if not rows:
        return [*rule_holes_block(holes), BOTS, *glossaries]
    return [Row((forest_chart(rows, out_dir),), "lead"), Row((overview_table(rows),), "glance"),
            *rule_holes_block(holes), BOTS,
            Fold("Where each row comes from: its experiment, its games, who played, and the key finding",
                 (sources_table(rows),)),
            *glossaries]
