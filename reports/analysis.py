"""The declarative core of the report: a game's results with its manifest facts (`GameData`), and the analysis
unit (`Analysis`: title, compute, tables, chart, finding, caveats) that a section is assembled from.

An analysis computes one result from the data; everything else it shows (intro, chart, tables, finding, caveats)
is a function of that result. A compute that returns None means the analysis does not apply to these data; it
then shows `absent` instead, if given (a string, or a function of the data)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import polars.selectors as cs

from reports.findings import rounded, unit_of
from reports.load import ResultsError
from reports.render import Chart, Finding, Heading, Section, Table
from reports.stats import LEVEL, METHODS, cluster_unit

GAME_KEY = ["experiment", "game_id"]  # identifies one game across experiments
FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")  # a name `atelier run` accepts: a plain file name


@dataclass
class GameData:
    """The rows of one experiment of a game, its manifest and where charts go; or, for the analyses that compare
    experiments (and only those), every experiment of the game, each number still from one experiment."""
    name: str
    rows: pl.DataFrame
    manifests: list[dict]
    out_dir: Path
    memo: dict = field(default_factory=dict)  # results computed once and used by several analyses
    leading: bool = False  # the game's headline experiment at some player count (overview.headlines)
    alone: bool = True  # the game's only experiment: its section also says which comparisons it cannot make
    draw: bool = True  # False: compute every analysis but draw no chart (`atelier report --json`)

    def computed(self, key: str, compute: Callable[[], Any]) -> Any:
        """`compute()`, once per data: a result that the page and findings.json both use."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    @property
    def experiment(self) -> str | None:
        """The experiment's name; None when the data hold several, to be compared."""
        return str(self.manifests[0]["experiment"]) if len(self.manifests) == 1 else None

    @property
    def slug(self) -> str:
        """A file-name prefix for this data's charts, unique in the report: the experiment's name where it is one
        that `atelier run` accepts, else a digest of it (no name `run` accepts starts with '_'), so that a name
        read from a results folder is never a path."""
        if self.experiment is None:
            return f"{self.name}_compared"
        if FILE_NAME.fullmatch(self.experiment):
            return self.experiment
        return "_" + hashlib.sha256(self.experiment.encode("utf-8", "surrogateescape")).hexdigest()[:16]

    @property
    def question(self) -> str:
        """What the experiment answers, as its file states it (its name when it states none)."""
        return str(self.manifests[0].get("question") or self.experiment or "")

    @property
    def headline(self) -> bool:
        return bool(self.manifests[0].get("headline")) if self.experiment else False

    @cached_property
    def title(self) -> str:
        return str(self.manifests[0].get("title") or self.name.replace("_", " ").title())

    @cached_property
    def lowest_wins(self) -> bool:
        """The score direction, as every manifest of the game records it (never guessed from the data)."""
        values = {m.get("lowest_wins") for m in self.manifests}
        if None in values or len(values) != 1:
            names = ", ".join(str(m["experiment"]) for m in self.manifests)
            raise ResultsError(f"the manifests of {names} do not agree on `lowest_wins` (or lack it): run the "
                               "experiments again with this version of atelier")
        return bool(values.pop())

    @cached_property
    def tie_breakers(self) -> tuple[str, ...]:
        """The result columns that settle equal scores, in order (the most wins), as the manifests record them."""
        return tuple(self.manifests[0].get("tie_breakers") or ())

    @property
    def direction(self) -> str:
        return "lower" if self.lowest_wins else "higher"

    @cached_property
    def order(self) -> list[str]:
        """Strategies by win share relative to fair (1/P), best first, as in the strategy section."""
        ratio = (self.rows.group_by("strategy").agg(ratio=pl.col("win").sum() / (1 / pl.col("players")).sum())
                 .sort("ratio", "strategy", descending=[True, False]))
        return ratio["strategy"].to_list()

    @cached_property
    def player_counts(self) -> list[int]:
        return self.rows["players"].unique().sort().to_list()

    @cached_property
    def facts(self) -> pl.DataFrame:
        """One row per (experiment, players): every fact its manifest records, a column per fact name."""
        records = [{"experiment": m["experiment"], "players": int(p), **facts}
                   for m in self.manifests for p, facts in (m.get("facts") or {}).items()]
        schema = {"experiment": pl.String, "players": self.rows.schema["players"]}
        return pl.DataFrame(records).cast(schema) if records else pl.DataFrame(schema=schema)

    def with_facts(self, rows: pl.DataFrame, *names: str) -> pl.DataFrame:
        """rows joined with the named facts of their experiment and player count."""
        missing = [n for n in names if n not in self.facts.columns]
        if missing:
            raise ResultsError(f"the manifests of {self.title} lack the fact(s) {', '.join(missing)} that the "
                               "report needs: run the experiments again with this version of atelier")
        keys = ["experiment", "players"]
        facts = rows.select(keys).join(self.facts.select(*keys, *names), on=keys, how="left", maintain_order="left")
        return rows.with_columns(facts.drop(keys))  # the rows' own columns are not copied

    def fact(self, name: str, players: int) -> Any:
        """A fact at a player count, which must be the same in every experiment that played it."""
        values = self.with_facts(pl.DataFrame({"experiment": [m["experiment"] for m in self.manifests]})
                                 .with_columns(players=pl.lit(players, self.rows.schema["players"])), name)
        known = [v for v in values[name].to_list() if v is not None]
        if not known or any(v != known[0] for v in known):
            raise ResultsError(f"{self.title}: the experiments differ on `{name}` at {players} players, or lack it")
        return known[0]

    def params(self, experiment: str, players: int) -> dict:
        """The resolved Params of one experiment at one player count, as its manifest records them."""
        manifest = next(m for m in self.manifests if m["experiment"] == experiment)
        return (manifest.get("resolved") or {}).get("params", {}).get(str(players), {})

    def pools(self) -> dict[str, str]:
        """Each experiment's strategies, in order of first appearance: {'kaleido_rotation': 'greedy, rotator'}."""
        return {e: ", ".join(g["strategy"].unique(maintain_order=True).to_list())
                for (e,), g in partitions(self.rows.select("experiment", "strategy"), "experiment")}


def record(data: GameData, players: int, metric: str, estimate: float, low: float, high: float, games: int,
           method: str, **about: Any) -> dict[str, Any]:
    """One number of findings.json (reports/findings.py), its keys in the order the file writes them: `method` the
    id of its method (a key of stats.METHODS), with its parameters, the level and what a cluster is (a deal, or a
    match in match mode). Its floats are rounded as findings.json writes them, so that what the page states from
    a record is what the file holds."""
    if method not in METHODS:
        raise ValueError(f"the method {method!r} of {metric} is no method id of reports.stats.METHODS")
    params = {} if method in ("count", "exact") else {"level": LEVEL, "cluster": cluster_unit(data.rows)}
    return rounded({"game": data.name, "experiment": data.experiment, "players": int(players), **about,
                    "metric": metric, "unit": unit_of(metric), "estimate": float(estimate), "low": float(low),
                    "high": float(high), "games": int(games), "method": method, **params})


def opponent_share(rows: pl.DataFrame, player: str, opponent: pl.Expr) -> float:
    """The share of `player`'s opponent seats (the other seats of its games) that the rows matching `opponent` hold:
    whom a strategy met, for findings that compare strategies of one pool."""
    held = opponent.cast(pl.Float64)
    seats = rows.select("strategy", met=held.sum().over(GAME_KEY) - held, opponents=pl.col("players") - 1)
    mine = seats.filter(pl.col("strategy") == player)
    return float(mine["met"].sum() / mine["opponents"].sum())


def seat_rows(rows: pl.DataFrame, seats: np.ndarray) -> np.ndarray | None:
    """The row of seat `seats[i]` of row i's game, for every row i, counted where each game's rows lie together in
    seat order (as results load); None where they do not."""
    seat = rows["seat"].cast(pl.Int64).to_numpy()
    index = np.arange(rows.height) - seat + seats
    if rows.height and 0 <= index.min() and index.max() < rows.height and (seat[index] == seats).all() and all(
            (rows[c].gather(index) == rows[c]).all() for c in GAME_KEY):
        return index
    return None


def seat_pairs(rows: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    """Every ordered pair of two seats of one game: a row's `columns` beside another seat's, suffixed _b. Gathered
    seat by seat where each game's rows lie together in seat order (as results load), else joined."""
    theirs = rows.select(pl.col(c).alias(f"{c}_b") for c in columns)
    if "seat" in rows.columns:
        seat, players = (rows[c].cast(pl.Int64).to_numpy() for c in ("seat", "players"))
        found = [(k, seat_rows(rows, (seat + k) % players)) for k in range(1, int(players.max(initial=0)))]
        if all(index is not None for _, index in found):
            mine = rows.select(columns)
            return pl.concat([pl.concat([mine, theirs[index]], how="horizontal").filter(k < players)
                              for k, index in found] or [pl.concat([mine, theirs], how="horizontal").clear()])
    both = rows.select(*dict.fromkeys([*GAME_KEY, *columns])).with_row_index("_row")
    return (both.join(both, on=GAME_KEY, suffix="_b").filter(pl.col("_row") != pl.col("_row_b"))
            .select(*columns, *(pl.col(c if c in GAME_KEY else f"{c}_b").alias(f"{c}_b") for c in columns)))


def sorted_names(names: pl.Series) -> pl.Enum:
    """The distinct names as a polars Enum in sorted order: a column cast to it holds 4-byte codes, and sorts and
    groups as its names do."""
    return pl.Enum(names.drop_nulls().unique().sort())


def with_names(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with its Enum-coded columns (sorted_names) as plain names again."""
    return frame.with_columns(cs.enum().cast(pl.String))


def groups(rows: pl.DataFrame, by: list[str]):
    """(key dict, group frame) pairs in sorted key order; one group, key {}, when by is empty."""
    if not by:
        yield {}, rows
        return
    for key, group in partitions(rows, *by):
        yield dict(zip(by, key)), group


def partitions(rows: pl.DataFrame, *by: str) -> list[tuple[tuple, pl.DataFrame]]:
    """(key, rows) pairs of every value of the columns `by`, in sorted key order; a single group is the rows
    themselves, not a copy (an experiment at one player count)."""
    keys = rows.select(by).unique()
    if keys.height == 1:
        return [(keys.row(0), rows)]
    return sorted(rows.partition_by(*by, as_dict=True).items())


def with_all(rows: pl.DataFrame, by: str = "players") -> list[tuple[dict, pl.DataFrame]]:
    """Groups by `by` and strategy, each value's 'all' (every player) first."""
    everyone = rows.with_columns(strategy=pl.lit("all"))
    out = [*groups(everyone, [by, "strategy"]), *groups(rows, [by, "strategy"])]
    return sorted(out, key=lambda kv: (kv[0][by], kv[0]["strategy"] != "all"))


Of = Callable[[Any, GameData], Any]  # a function of (computed result, game data)


@dataclass(frozen=True)
class Analysis:
    """One question answered from the data: computed once, then shown as intro, chart, tables and a finding."""
    title: str  # its sub-heading ('' for none)
    compute: Callable[[GameData], Any]  # None: does not apply to these data
    intro: str | Of = ""
    chart: Of | None = None  # -> Chart
    tables: Of | None = None  # -> list of Table
    finding: Of | None = None  # -> Finding or None
    caveats: tuple[str, ...] | Of = ()
    absent: str | Callable[[GameData], str] | None = None  # shown when compute gives None
    headline: bool = False  # the chart answers a headline question: it leads the game's summary
    leading_only: bool = False  # its chart is drawn for the game's headline experiments only (the rest keep tables)

    def run(self, data: GameData, section: Section) -> None:
        """Compute, then add this analysis's blocks, finding, headline chart and caveats to section."""
        drawn = self.chart is not None and data.draw and (data.leading or not self.leading_only)
        if self.chart is not None and not drawn and not (self.tables or self.finding):
            return  # a chart alone, not drawn for this experiment
        result = self.compute(data)
        if self.title and (result is not None or self.absent):
            section.blocks.append(Heading(self.title))
        if result is None:
            if self.absent:
                section.blocks.append(self.absent(data) if callable(self.absent) else self.absent)
            return
        intro = self.intro(result, data) if callable(self.intro) else self.intro
        chart: Chart | None = self.chart(result, data) if drawn else None
        tables: list[Table] = self.tables(result, data) if self.tables else []
        if chart and self.headline:  # shown once, at the top of the game's summary
            section.headline.append(chart)
            chart = None
        section.blocks += [b for b in (intro, chart, *tables) if b]
        finding: Finding | None = self.finding(result, data) if self.finding else None
        if finding:
            section.findings.append(finding)
        section.caveats += list(self.caveats(result, data) if callable(self.caveats) else self.caveats)


def run_section(title: str, analyses: list[Analysis], data: GameData,
                analysed: Callable[[], None] | None = None) -> Section:
    """A section of the report: the analyses in order; `analysed()` after each."""
    section = Section(title)
    for analysis in analyses:
        analysis.run(data, section)
        if analysed:
            analysed()
    return section
