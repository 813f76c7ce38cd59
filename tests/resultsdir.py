"""Write an experiment folder by hand, as sim/results.py would, for report tests on synthetic rows.

The manifest carries the game's `title`, `lowest_wins`, `tie_breakers` and per-player-count `facts` like a real one;
for a registered game they come from its rules, and any of them can be overridden (a made-up game gets none).
"""

import functools
import hashlib
import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path

import polars as pl

from sim.dataset import HIVE, PARTITIONS, fingerprint, part_bytes, part_path
from sim.registry import GAMES, get_game


def rules_of(game: str):
    """The registered game's rules, or None for a game the tests make up."""
    return get_game(game).rules if game in GAMES else None


def rules_facts(game: str, players: int) -> dict:
    """What the runner records of the rules at this player count: the game's own `facts`, with default Params."""
    rules = rules_of(game)
    return rules.facts(rules.make_params(players, {})) if rules else {}


BB_TYPES = rules_facts("broken_beautiful", 3)["types"]
KALEIDO_TILES = {p: rules_facts("kaleido", p)["tiles_each"] for p in (2, 3, 4, 5)}


def write_experiment(directory: Path, frames: list[pl.DataFrame], game: str, complete: bool = True, *,
                     title: str | None = None, lowest_wins: bool | None = None,
                     facts: Callable[[int], dict] | None = None, params: dict | None = None,
                     question: str = "", headline: bool = False, strategies: dict | None = None,
                     ladder: list[str] | None = None, layout: str | None = HIVE) -> None:
    """manifest.json and one finished Parquet part per frame and player count; the config hash follows the experiment
    name.

    title, lowest_wins and facts (a function of the player count) default to the game's own; params are the
    resolved Params recorded for every player count; question and headline say how the report presents the
    experiment, as an experiment file's keys of those names do; strategies, each strategy's one line, are recorded
    where given; ladder, a skill ladder's rungs, is recorded as the runner records it. layout None writes the parts
    as atelier did before the hive layout: whole rows in parts/ itself."""
    name = frames[0]["experiment"][0]
    rules = rules_of(game)
    finished = {}
    parts = [part for frame in frames for part in frame.partition_by("players", maintain_order=True)]  # as run
    for i, frame in enumerate(parts):
        chunk = f"P{frame['players'][0]}-c{i:05d}"
        data = part_bytes(frame.drop(*PARTITIONS, strict=False) if layout else frame)  # hand-made rows may lack game
        path = part_path(directory, {"game": game, "layout": layout}, chunk)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        finished[chunk] = {"games": frame["game_id"].n_unique(), "rows": frame.height, **fingerprint(data)}
    counts = sorted({int(p) for frame in frames for p in frame["players"].unique()})
    manifest = {"experiment": name, "config_hash": hashlib.sha256(name.encode()).hexdigest()[:12], "game": game,
                "question": question, "headline": headline,
                "title": title or (rules.title if rules else game.replace("_", " ").title()),
                "lowest_wins": (rules.lowest_wins if rules else False) if lowest_wins is None else lowest_wins,
                "tie_breakers": list(rules.tie_breakers) if rules else [],
                "facts": {str(p): (facts or functools.partial(rules_facts, game))(p) for p in counts}, "seed": 1,
                "resolved": {"params": {str(p): {"players": p, **(params or {})} for p in counts},
                             **({"ladder": ladder} if ladder else {})},
                "games": {str(p): sum(f.filter(pl.col("players") == p)["game_id"].n_unique() for f in frames)
                          for p in counts},
                **({"layout": layout} if layout else {}), "finished": finished, "complete": complete,
                **({"strategies": strategies} if strategies else {})}
    (directory / "manifest.json").write_text(json.dumps(manifest))


def game_data(rows: pl.DataFrame, game: str, out_dir: Path, **overrides):
    """A GameData for report functions on rows, with manifests as write_experiment would write them: of one
    experiment when the rows hold one (as the report analyses every experiment), of all of them (as the report
    compares experiments) when they hold several."""
    from reports.analysis import GameData

    manifests = []
    for (experiment,), frame in sorted(rows.partition_by("experiment", as_dict=True).items()):
        directory = out_dir / "results" / str(experiment)
        write_experiment(directory, [frame], game, **overrides)
        manifests.append(json.loads((directory / "manifest.json").read_text()))
    return GameData(game, rows, manifests, out_dir)


def run_alone(rows: pl.DataFrame, game: str, out_dir: Path, analyses: list) -> tuple:
    """The report section run on the one experiment in rows as the game's only experiment, which heads it; and the
    text of the section's blocks."""
    from reports.analysis import run_section

    alone = game_data(rows, game, out_dir)
    alone.leading = True
    own = run_section("own", analyses, alone)
    return own, " ".join(b for b in own.blocks if isinstance(b, str))


def two_player_games(deals: list[int], **columns: list) -> pl.DataFrame:
    """Rows written out by hand for two-player games of experiment "e", game g dealt deals[g] (its two seats in
    turn), with the given columns."""
    game_ids = [g for g in range(len(deals)) for _ in range(2)]
    return pl.DataFrame({"experiment": ["e"] * len(game_ids), "game_id": game_ids, "deal": [deals[g] for g in game_ids],
                         "players": [2] * len(game_ids), **columns})


def assert_start_advantage_above_zero(finding: str, players: int) -> None:
    """The seat finding's row for this player count shows a start-player advantage whose interval excludes 0."""
    match = re.search(rf"\| {players} \| [\d.]+% \| [\d.]+–[\d.]+% \| [\d.]+% \| ([+-][\d.]+) pp \| "
                      r"([+-][\d.]+) to ([+-][\d.]+) pp \|", finding)
    assert match, f"no seat numbers for {players} players"
    advantage, lo, hi = map(float, match.groups())
    assert 0 < lo < advantage < hi


def finding(summary: str, label: str) -> str:
    """The text of one finding in a report's summary.md (bold marks removed), after its label."""
    return summary.split(f"- {label} ")[1].split("\n- ")[0]


def section(summary: str, heading: str) -> str:
    """One experiment's part of a report's summary.md: the text under `### heading` (its question, or its name),
    up to the next heading."""
    return re.split(r"\n##+ ", summary.split(f"\n### {heading}\n", 1)[1], maxsplit=1)[0]


def report_fixtures(game: str) -> tuple:
    """The module fixtures of a game's report tests over a `results` fixture (a folder of its experiments):
    `everything` (every experiment in one GameData, as the report compares them), `report` (the built report's
    index.html) and `summary` (its summary.md without bold marks)."""
    import pytest

    from reports.analysis import GameData
    from reports.build import build_report
    from reports.load import load_results

    @pytest.fixture(scope="module", name="everything")
    def everything(results, tmp_path_factory) -> GameData:
        rows, manifests = load_results(results)
        return GameData(game, rows, manifests, tmp_path_factory.mktemp(f"{game}_compared"))

    @pytest.fixture(scope="module", name="report")
    def report(results, tmp_path_factory) -> Path:
        return build_report(results, tmp_path_factory.mktemp(f"{game}_report"))

    @pytest.fixture(scope="module", name="summary")
    def summary(report) -> str:
        return (report.parent / "summary.md").read_text().replace("**", "")

    return everything, report, summary


def seat_columns(experiment: str, game: str, players: int, lineups: int, strategy, score, rank, win) -> dict:
    """The columns every results row has, for synthetic (games, players) arrays of strategy, score, rank and win,
    each deal played under `lineups` seatings in turn, as `atelier run` writes them."""
    import numpy as np

    games = len(score)
    seat = np.broadcast_to(np.arange(players), (games, players))
    return {"experiment": np.full(games * players, experiment), "game": np.full(games * players, game),
            "players": np.full(games * players, players, dtype=np.int8),
            "game_id": np.repeat(100_000 * players + np.arange(games), players),
            "deal": np.repeat(np.arange(games) // lineups, players),
            "lineup": np.repeat(np.arange(games) % lineups, players),
            "seat": seat.ravel().astype(np.int8), "player": seat.ravel().astype(np.int8),
            "strategy": np.asarray(strategy).ravel(), "score": np.asarray(score).ravel().astype(np.int32),
            "rank": np.asarray(rank).ravel(), "win": np.asarray(win).ravel()}


# ---------------------------------------------------------------- every number of summary.md is in findings.json

NUMBER = re.compile(r"(?<![\w.@^])[+\-−]?\d[\d,]*(?:\.\d+)?(?!\w)")  # not a strategy's knob (search@8)
CONSTANT = ("95%", "5% level", "1/P", "1/k")  # the interval's level and fair-share notation, the same in every report


def summary_parts(summary: str) -> list[tuple[str, tuple[str, ...], str]]:
    """summary.md cut into (game, experiment, text): the overview's table rows, each from the experiment it names
    in its 'Experiment' cell (the glance table's rows from those of the table that names their experiments, row by
    row); each experiment's section, named by its 'What was played.' finding; a comparison of experiments
    (experiment '*': any of its game's). The text around them is ('*', '*', text): any record may carry it."""
    titles = dict(re.findall(r"^## (.+)\n\nEvery table and chart: \[(\w+)\.html\]", summary, re.M))
    parts, game = [], "*"
    for block in re.split(r"\n(?=##+ )", summary):
        heading = block.split("\n", 1)[0]
        if heading.startswith("## "):
            game = titles.get(heading[3:], "*")
        played = re.search(r"What was played\.(?:\*\*)? Experiment (\w+):", block)
        if heading.startswith("### "):
            parts.append((game, (played.group(1) if played else "*",), block))
            continue
        tables = markdown_tables(block)
        sources = next(([row_experiments(header, row) for row in rows] for header, rows in tables
                        if {"Experiment", "Players"} <= set(header)), [])
        for header, rows in tables:  # a table without experiments is the glance table: row by row as the sources
            experiments = [row_experiments(header, row) for row in rows] if "Experiment" in header else sources
            parts += [("*", experiment, row) for row, experiment in zip(rows, experiments)]
        rows = [row for _, table_rows in tables for row in table_rows]
        rest = "\n".join(line for line in block.splitlines() if line not in rows)
        parts.append((game, ("*",), rest))
    return parts


def row_experiments(header: list[str], row: str) -> tuple[str, ...]:
    """The experiments an overview row's numbers come from: its own, and the skill ladder its edge under search
    comes from, where it names one ('kintsugi_ladder (20 games at search@32)')."""
    row_cells = cells(row)
    ladder = row_cells[header.index("Edge under search from")].split(" ")[0] if "Edge under search from" in header \
        else "–"
    return (row_cells[header.index("Experiment")],) + (() if ladder == "–" else (ladder,))


def markdown_tables(block: str) -> list[tuple[list[str], list[str]]]:
    """Each Markdown table of a block that starts at the line's start: its header's cells and its rows' lines."""
    lines, tables = block.splitlines(), []
    for i, line in enumerate(lines):
        if line.startswith("| ") and (i == 0 or not lines[i - 1].startswith("|")):
            tables.append((cells(line), list(itertools.takewhile(lambda row: row.startswith("| "), lines[i + 2:]))))
    return tables


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split(" | ")]


def of_experiments(record: dict) -> list[str]:
    """The experiment a record comes from, or those it compares."""
    named = record["experiment"]
    return named if isinstance(named, list) else [named]


def values_of(record: dict) -> list[float]:
    """Every number a record holds, as itself and as a percentage: its fields', its lists', and those of the records
    it nests (a compensation's seats still off fair)."""
    out = []
    for value in record.values():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, dict):
                out += values_of(v)
            elif isinstance(v, int | float) and not isinstance(v, bool):
                out += [float(v), 100 * float(v)]
    return out


def stated(token: str, values: list[float]) -> bool:
    """Whether some value, as a share in % or as itself, prints as the token (its sign where it has one): lies within
    half a unit of its last digit (findings.json keeps 10 significant digits, so a value the page rounds from
    0.32349999... is written 0.3235)."""
    text = token.replace("−", "-").replace(",", "")
    decimals = len(text.split(".")[1]) if "." in text else 0
    signed = text[0] in "+-"
    target = float(text)
    return any(abs((v if signed else abs(v)) - target) <= 10 ** -decimals / 2 + 1e-9 for v in values)


def unrecorded_numbers(report_dir: Path) -> list[str]:
    """Every number of the report's summary.md that no record of its findings.json states, with where it stands.
    A record of the experiment (and game) a part comes from must carry it."""
    summary = (report_dir / "summary.md").read_text()
    numbers = json.loads((report_dir / "findings.json").read_text())["records"]
    missing = []
    for game, experiments, text in summary_parts(summary):
        mine = [n for n in numbers if game in ("*", n["game"])
                and any(e in ("*", *of_experiments(n)) for e in experiments)]
        values = [v for n in mine for v in values_of(n)]
        for constant in CONSTANT:
            text = text.replace(constant, "")
        for line in text.splitlines():
            missing += [f"{token!r} in {game}/{'+'.join(experiments)}: {line.strip()[:160]}"
                        for token in NUMBER.findall(line) if not stated(token, values)]
    return missing
