"""A game's report, declared: what it measures, and how shared code turns that into the computation, findings
records, tables, charts and sentences.

A game's report module holds `REPORT`, a `GameReport`: its analyses (most of them `Metrics`: clustered measures
per player count and strategy, with a sentence template), the analyses that compare its experiments, the numbers
its overview row states, its key finding and its rule holes. An analysis a game truly needs beyond that is an
`analysis.Analysis` (compute, tables, chart, finding), built from the same parts: `measured` for every clustered
number, `measure_records` for its records, `measure_table`/`measure_chart` for its display, and the sentence
templates below (`leader`, `pattern`, `versus`), each of which says "clearly" only where intervals part."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl
from matplotlib.ticker import PercentFormatter

from reports.analysis import GAME_KEY, Analysis, GameData, Of, groups, record
from reports.charts import aligned, bars_with_ci, finished_chart, panels
from reports.fmt import at_counts, by_phrase, count, num, num_ci, pct, pct_ci
from reports.render import Chart, Finding, Table, est, table
from reports.stats import cluster_columns, clustered

ONE = pl.lit(1.0)  # the weight of a mean per row
EVERYONE = "all"  # the strategy name of every player together


# ---------------------------------------------------------------- the game's declaration


@dataclass(frozen=True)
class GameReport:
    """What a game's report adds to the generic analyses (seats, compensation, strategies), every one declared."""
    analyses: tuple[Analysis, ...] = ()  # each experiment's section, after the generic analyses
    compared: tuple[Analysis, ...] = ()  # across the game's experiments (a lone experiment's section shows them)
    ladder: tuple[Analysis, ...] = ()  # a skill ladder's section, after the generic ladder analyses, rung by rung
    numbers: Callable[[GameData], list[dict]] | None = None  # the records the overview row states
    key_finding: Callable[[list[dict], int], str | None] | None = None  # the overview's line, from those records
    rule_holes: Callable[[list[dict]], tuple[str, list[dict]]] | None = None  # (definition, rate records)


# ---------------------------------------------------------------- measures


@dataclass(frozen=True)
class Measure:
    """One number per group: sum(value) / sum(weight) over the group's rows (a mean where weight is 1, a share
    where value is a part of weight), with its cluster-robust interval (stats.clustered)."""
    name: str  # its columns: NAME, NAME_lo, NAME_hi
    label: str  # its table header
    value: pl.Expr
    weight: pl.Expr = ONE
    metric: str | None = None  # its findings.json metric (findings.UNITS); None: shown, not recorded
    share: bool = False  # a share in [0, 1], shown in %

    def columns(self) -> list:
        return est(self.label, self.name, pct, pct_ci) if self.share else est(self.label, self.name, num, num_ci)


def measured(rows: pl.DataFrame | pl.LazyFrame, measures: Sequence[Measure],
             by: Sequence[str] = ("players", "strategy"), everyone: bool = True) -> pl.DataFrame:
    """Per group of `by`: each measure with its interval, the group's player results (`n`), games and method id;
    with `everyone`, also each group of every strategy together (strategy 'all', first). The rows may be lazy: only
    the columns the sums need are collected."""
    by, rows = list(by), rows.lazy()
    if everyone:
        rows = pl.concat([rows.with_columns(strategy=pl.lit(EVERYONE)), rows])
    found = clustered(rows, {m.name: (m.value, m.weight) for m in measures}, by)
    order = [key for c in by for key in ((pl.col(c) != EVERYONE, pl.col(c)) if c == "strategy" else (pl.col(c),))]
    return found.select(*by, *(c for c in found.columns if c not in (*by, "n")), "n").sort(order)


def per_game(rows: pl.DataFrame | pl.LazyFrame, **columns: pl.Expr) -> pl.DataFrame:
    """One row per game: its cluster columns and `columns` (expressions over its rows), for measures of games
    (a comeback, a stall) rather than of players."""
    return rows.lazy().group_by(GAME_KEY).agg(pl.col(*cluster_columns(rows)).first(), **columns).collect()


def measure_records(data: GameData, frame: pl.DataFrame, measures: Sequence[Measure], **about: str) -> list[dict]:
    """A findings record per row of a `measured` frame and recorded measure; `about` maps a record key to the
    column that gives it (strategy="strategy"). Rows of every strategy together are recorded without a strategy."""
    out = []
    for r in frame.iter_rows(named=True):
        keys = {k: r[c] for k, c in about.items() if not (c == "strategy" and r[c] == EVERYONE)}
        out += [record(data, r["players"], m.metric, r[m.name], r[f"{m.name}_lo"], r[f"{m.name}_hi"], r["games"],
                       r["method"], **keys) for m in measures if m.metric]
    return out


def measure_table(caption: str, frame: pl.DataFrame, measures: Sequence[Measure], *lead: tuple) -> Table:
    """The frame's groups (`lead` columns first, players and strategy by default) with every measure's estimate
    and interval."""
    lead = lead or (("Players", "players"), ("Strategy", "strategy"))
    return table(caption, frame, *lead, *(c for m in measures for c in m.columns()))


def measure_chart(data: GameData, frame: pl.DataFrame, measures: Sequence[Measure], file: str, title: str,
                  caption: str, category: str = "strategy", fair: bool = False) -> Chart:
    """A panel per player count of bars over `category` (strategies: 'all' first, then by win share), a bar per
    measure with its 95% interval; shares on a % axis; `fair` draws the fair share 1/P."""
    counts = data.player_counts
    values = frame[category].unique(maintain_order=True).to_list()
    if category == "strategy":
        values = [v for v in [EVERYONE, *data.order] if v in values]
    fig, axes = panels(len(counts), max(4.2, 3.4 * len(counts) + 1.2), 3.4 + 0.1 * len(values), sharey=True)
    for ax, players in zip(axes, counts):
        panel = aligned(frame.filter(pl.col("players") == players), category, values)
        bars_with_ci(ax, [str(v) for v in values],
                     {m.label: (panel[m.name], panel[f"{m.name}_lo"], panel[f"{m.name}_hi"]) for m in measures})
        if fair:
            ax.axhline(1 / players, color="#555", linestyle="--", linewidth=1.2, label="fair share 1/P")
        if all(m.share for m in measures):
            ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.set(title=f"{players} players")
    return finished_chart(fig, axes[0], f"{data.title}: {title}", data.out_dir, f"{data.slug}_{file}.png", caption)


# ---------------------------------------------------------------- sentence templates


def leader(frame: pl.DataFrame, name: str, every: Sequence[int], what: str, largest: bool = True,
           by: str = "strategy") -> str:
    """Per player count, the group of `by` with the largest (or smallest) NAME where its interval lies beyond
    every other's: 'rotator {what} at every player count (at 5 players none clearly)'; 'no strategy clearly
    {what} at any player count' where none does."""
    picks = leaders(frame, name, largest, by)
    clear_picks = {p: s for p, s in picks.items() if s}
    if not clear_picks:
        return f"no {by} clearly {what} at any player count"
    unclear = [p for p, s in picks.items() if not s]
    text = by_phrase({p: f"{s} {what}" for p, s in clear_picks.items()}, every)
    return text + (f" (at {at_counts(unclear)} none clearly)" if unclear else "")


def leaders(frame: pl.DataFrame, name: str, largest: bool = True, by: str = "strategy") -> dict[int, str | None]:
    """Per player count, the group with the largest (smallest) NAME where its interval lies beyond every other's,
    else None (also where there is one group, or an interval is unknown). Every strategy together ('all') is no
    strategy."""
    out = {}
    for key, group in groups(frame.filter(pl.col(by) != EVERYONE) if by == "strategy" else frame, ["players"]):
        ranked = group.sort(name, by, descending=[largest, False])
        lo, hi = ranked[f"{name}_lo"], ranked[f"{name}_hi"]
        apart = ranked.height > 1 and (lo[0] > hi[1] if largest else hi[0] < lo[1])
        out[key["players"]] = str(ranked[by][0]) if apart else None
    return out


def pattern(ordered: pl.DataFrame, key: str) -> str:
    """How a measure runs over ordered groups, by their estimates and intervals (two groups differ clearly where
    their intervals do not overlap): 'rises' or 'falls' where every step goes that way and the last group differs
    clearly from the first ('higher' or 'lower' for two groups); 'up and down' where some group lies clearly above
    an earlier one and some clearly below one; 'uneven' where groups differ clearly in one direction only, yet the
    estimates do not rise or fall steadily; 'flat' where no two differ clearly (or an interval is unknown);
    'single' for one group."""
    if ordered.height < 2:
        return "single"
    value, lo, hi = (ordered[c].to_numpy().astype(float) for c in (key, f"{key}_lo", f"{key}_hi"))
    if np.isnan(lo).any() or np.isnan(hi).any():
        return "flat"
    later = np.triu(np.ones((len(value), len(value)), bool), 1)  # [i, j]: group j comes after group i
    above, below = later & (lo[None, :] > hi[:, None]), later & (hi[None, :] < lo[:, None])
    steps = np.diff(value)
    if (steps >= 0).all() and above[0, -1]:
        return "rises" if len(value) > 2 else "higher"
    if (steps <= 0).all() and below[0, -1]:
        return "falls" if len(value) > 2 else "lower"
    if above.any() and below.any():
        return "up and down"
    return "uneven" if above.any() or below.any() else "flat"


def versus(lo: float, hi: float, null: float, what: str = "chance") -> str:
    """Where a 95% interval lies against a null level: 'above chance', 'below chance' or 'not distinguishable from
    chance' (also where the interval is unknown)."""
    if math.isnan(lo) or math.isnan(hi):
        return f"not distinguishable from {what}"
    return f"above {what}" if lo > null else f"below {what}" if hi < null else f"not distinguishable from {what}"


# ---------------------------------------------------------------- an analysis of measures, declared


def whole_rows(data: GameData) -> pl.DataFrame:
    return data.rows


@dataclass(frozen=True)
class Metrics:
    """An analysis declared by its measures: per group of `by` (player count and strategy; 'all' = every player),
    each measure with its cluster-robust interval (`measured`); a page table of them all, a chart of the `charted`
    ones, and a finding: the sentence `sentence(frame, data)` writes, with a record of each measure it states per
    group. A finding on every player together (`overall`) states, records and tables the 'all' groups only.
    `rows` picks and derives the rows it reads (None or no rows: the analysis does not apply); `measures` may be
    a function of the data (one measure per colour in play); `recorded` picks the groups the finding records where
    they are not the groups it states (those the sentence names)."""
    title: str  # the sub-heading
    measures: tuple[Measure, ...] | Callable[[GameData], tuple[Measure, ...]]
    sentence: Callable[[pl.DataFrame, GameData], str] | None  # None: a table (and chart) with no finding
    caption: str | Callable[[GameData], str]  # the page table's
    label: str = ""  # the finding's label: the title and a full stop by default
    rows: Callable[[GameData], pl.DataFrame | None] = whole_rows
    by: tuple[str, ...] = ("players", "strategy")
    everyone: bool = True
    stated: tuple[str, ...] = ()  # the measures the finding states and records; none: every one with a metric
    overall: bool = False
    shown: tuple[str, ...] = ()  # the measures of the page table; none: all
    lead: tuple[tuple, ...] = ()  # the page table's first columns: the `by` columns and the player results if none
    charted: tuple[str, ...] = ()  # the measures drawn; none: no chart
    file: str = ""  # the chart's file name after the experiment's: the charted measures' names if none
    chart_title: str = ""
    chart_caption: str = ""
    intro: str | Of = ""
    caveats: tuple[str, ...] | Of = ()
    absent: str | None = None
    leading_only: bool = False  # the chart is drawn for the game's headline experiments only
    about: dict[str, str] = field(default_factory=lambda: {"strategy": "strategy"})
    recorded: Callable[[pl.DataFrame, Measure, GameData], pl.DataFrame] | None = None  # the groups a stated
    # measure records; none: the groups the finding states
    about_measure: Callable[[Measure], dict[str, str]] | None = None  # a measure's own record keys, from columns
    named: str = ""  # a record key that names the measure of each share record (action="stash"); none: no key
    more: Callable[[pl.DataFrame, GameData], list[dict]] | None = None  # records the finding adds (an even share)
    draw: Callable[[pl.DataFrame, GameData], Chart] | None = None  # the analysis's own chart, where bars of the
    # charted measures would show less (stacked parts, a heat map of many shares)
    extra: dict[str, pl.Expr] = field(default_factory=dict)  # more columns per group: aggregates of its rows

    def measures_of(self, data: GameData) -> tuple[Measure, ...]:
        return self.measures(data) if callable(self.measures) else self.measures

    def compute(self, data: GameData) -> pl.DataFrame | None:
        rows = self.rows(data)
        if rows is None or rows.is_empty():
            return None
        frame = measured(rows, self.measures_of(data), self.by, self.everyone)
        if not self.extra:
            return frame
        if self.everyone:
            rows = pl.concat([rows.with_columns(strategy=pl.lit(EVERYONE)), rows])
        extra = rows.group_by(self.by).agg(**self.extra)
        return frame.join(extra, on=list(self.by), nulls_equal=True, maintain_order="left")

    def finding(self, frame: pl.DataFrame, data: GameData) -> Finding:
        measures = self.measures_of(data)
        said = [m for m in measures if m.name in self.stated] or [m for m in measures if m.metric]
        groups_said = frame.filter(pl.col("strategy") == EVERYONE) if self.overall else frame
        numbers = [{**r, **({self.named: m.name} if self.named and m.share else {})} for m in said
                   for r in measure_records(data, self.recorded(frame, m, data) if self.recorded else groups_said, [m],
                                            **self.about, **(self.about_measure(m) if self.about_measure else {}))]
        numbers += self.more(frame, data) if self.more else []
        shown = measure_table("", groups_said, said, ("Players", "players")) if self.overall else None
        return Finding(self.label or f"{self.title}.", self.sentence(frame, data), shown, tuple(numbers))

    def tables(self, frame: pl.DataFrame, data: GameData) -> list[Table]:
        lead = self.lead or (*((k.replace("_", " ").capitalize(), k) for k in self.by), ("Player results", "n", count))
        measures = [m for m in self.measures_of(data) if not self.shown or m.name in self.shown]
        caption = self.caption(data) if callable(self.caption) else self.caption
        return [measure_table(caption, frame, measures, *lead)]

    def chart(self, frame: pl.DataFrame, data: GameData) -> Chart:
        if self.draw:
            return self.draw(frame, data)
        drawn = [m for m in self.measures_of(data) if m.name in self.charted]
        file = self.file or "_".join(m.name for m in drawn)
        return measure_chart(data, frame, drawn, file, self.chart_title or self.title, self.chart_caption)

    def analysis(self) -> Analysis:
        drawn = self.chart if self.charted or self.draw else None
        finding = self.finding if self.sentence else None
        return Analysis(self.title, self.compute, self.intro, drawn, self.tables, finding, self.caveats, self.absent,
                        leading_only=self.leading_only)
