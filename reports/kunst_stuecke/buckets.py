"""The shape of the Kunst Stücke analyses that group players by a choice their strategy makes (the chips spent, the
timing of the first look): per player count and ordered bucket of that choice, the group's win share over the fair
share and the share of its target tiles that came true, with the strategies it is made of; and per strategy, the
measures of the choice itself. Groups of a handful of players are shown, not compared."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from reports.analysis import Analysis, GameData, groups, record
from reports.fmt import by_phrase, count, listing, pct, spread
from reports.kunst_stuecke.common import CORRECT, STANDING, VS_FAIR, counts_phrase, standing, times
from reports.render import Chart, Finding, Table, est, table
from reports.spec import EVERYONE, Measure, measure_chart, measure_records, measure_table, measured, pattern

FEW_PLAYERS = 100  # groups smaller than this are shown in tables but not compared in findings
FEW_WORDS = "a hundred"  # FEW_PLAYERS as the summary writes it (a constant, not a finding)
BY = ["players", "bucket_index", "bucket"]
CHARTED = (Measure("win", "win share", pl.col("win"), share=True),  # standing()'s shares, as the charts draw them
           Measure("correct", "target tiles correct", CORRECT.value, CORRECT.weight, share=True))


def labelled(labels: tuple[str, ...]) -> pl.Expr:
    """The label of each row's `bucket_index`."""
    return pl.col("bucket_index").replace_strict(list(range(len(labels))), list(labels), return_dtype=pl.String)


def composition(rows: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Per group of `by`: `who`, its strategies with the share of the group's player results each holds, largest
    first (a list of {strategy, share})."""
    shares = (rows.group_by([*by, "strategy"]).agg(k=pl.len())
              .with_columns(share=pl.col("k") / pl.col("k").sum().over(by))
              .sort([*by, "share", "strategy"], descending=[*(False for _ in by), True, False]))
    return shares.group_by(by, maintain_order=True).agg(who=pl.struct("strategy", "share"))


def who(members: list[dict]) -> str:
    """'planner 50.0%, random 50.0%': a group's strategies and their shares of it."""
    return ", ".join(f"{m['strategy']} {pct(m['share'])}" for m in members)


def comparable(frame: pl.DataFrame) -> pl.DataFrame:
    """Per player count, the groups (rows with `n` players) large enough to compare, or all of that count's if
    none is: a handful of players gives an interval of little meaning, not a finding."""
    parts = []
    for _, group in groups(frame, ["players"]):
        large = group.filter(pl.col("n") >= FEW_PLAYERS)
        parts.append(large if large.height else group)
    return pl.concat(parts)


def few_note(frame: pl.DataFrame, compared: pl.DataFrame, name: Callable[[dict], str], data: GameData) -> str:
    """' Groups of fewer than a hundred ...: (which, where).' for the groups shown but not compared, `name` naming a
    group; else ''."""
    left = frame.join(compared.select("players", "bucket_index"), on=["players", "bucket_index"], how="anti")
    if left.is_empty():
        return ""
    where = {key["players"]: listing(name(r) for r in group.sort("bucket_index").iter_rows(named=True))
             for key, group in groups(left, ["players"])}
    return (f" Groups of fewer than {FEW_WORDS} player results are shown but not compared: "
            f"{by_phrase(where, data.player_counts)}.")


def ends(compared: pl.DataFrame, verb: str, name: Callable[[dict], str], data: GameData) -> str:
    """'those who {verb} X win a× their fair share, those who {verb} Y b× and those in between c× to d×': the
    first and the last group compared at each player count, and the groups between them, `name` naming a group."""
    first, last, between = [], [], []
    for _, group in groups(compared, ["players"]):
        ordered = list(group.sort("bucket_index").iter_rows(named=True))
        first.append(ordered[0])
        last += ordered[1:][-1:]
        between += ordered[1:-1]

    def side(rows: list[dict]) -> tuple[str, str]:
        names = list(dict.fromkeys(name(r) for r in rows))
        either = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
        return either, spread([r["vs_fair"] for r in rows], times)

    first_name, first_share = side(first)
    text = f"those who {verb} {first_name} win {first_share} their fair share"
    if last:
        last_name, last_share = side(last)
        text += f", those who {verb} {last_name} {last_share}"
    if between:
        text += f" and those in between {side(between)[1]}"
    return text + counts_phrase(data)


@dataclass(frozen=True)
class Buckets:
    """Players grouped by a choice into ordered buckets (`rows` gives each row its `bucket_index` and `bucket`;
    None: the analysis does not apply), and per strategy the `profile` measures of the choice. The finding is
    `sentence(self, result, data)`, most of it `course`: how the win share runs over the buckets."""
    title: str
    label: str  # the finding's
    rows: Callable[[GameData], pl.DataFrame | None]
    header: str  # the buckets' column
    key: str  # the records' key naming a bucket
    bounds: Callable[[int], dict]  # what the records say of a bucket's limits
    sentence: Callable[[Buckets, dict, GameData], str]
    trend: dict[str, str]  # the win share's course over the buckets in words, by pattern()
    verb: str  # 'those who {verb} X win ...'
    phrase: Callable[[dict], str]  # a group as ends() names it
    short: Callable[[dict], str]  # a group as few_note() names it
    tiles: bool  # the finding states, and records, each group's share of tiles that came true
    profile: tuple[Measure, ...]  # per strategy, recorded without 'all'
    profile_caption: str
    caption: str  # the table of the groups
    intro: str
    file: str  # the chart's, after the experiment's name
    chart_title: str
    chart_caption: str
    profile_by: tuple[str, ...] = ("players", "strategy")
    profile_extra: tuple[pl.Expr, ...] = ()  # more aggregates per strategy
    profile_lead: tuple[tuple, ...] = (("Players", "players"), ("Strategy", "strategy"),
                                       ("Player results", "n", count))
    profile_about: tuple[str, ...] = ("strategy",)  # the columns its records name
    absent: str | None = None

    def compute(self, data: GameData) -> dict | None:
        rows = self.rows(data)
        if rows is None:
            return None
        by_count = standing(rows, BY).join(composition(rows, BY), on=BY).sort(BY)
        return {"by_count": by_count, "profile": self.per_strategy(rows)}

    def per_strategy(self, rows: pl.DataFrame) -> pl.DataFrame:
        by = list(self.profile_by)
        found = measured(rows, self.profile, by)
        if self.profile_extra:
            everyone = pl.concat([rows.with_columns(strategy=pl.lit(EVERYONE)), rows])
            found = found.join(everyone.group_by(by).agg(*self.profile_extra), on=by, maintain_order="left")
        return found

    def course(self, groups_: pl.DataFrame, data: GameData) -> str:
        """'Win share {trend} at ...: {ends}.' over the groups large enough to compare, and which are not."""
        compared = comparable(groups_)
        trend = by_phrase({key["players"]: self.trend[pattern(group.sort("bucket_index"), "vs_fair")]
                           for key, group in groups(compared, ["players"])}, data.player_counts)
        return (f"Win share {trend}: {ends(compared, self.verb, self.phrase, data)}."
                f"{few_note(groups_, compared, self.short, data)}")

    def finding(self, result: dict, data: GameData) -> Finding:
        tiles = CORRECT.columns() if self.tiles else []
        return Finding(self.label, self.sentence(self, result, data), table(
            "", result["by_count"], ("Players", "players"), (self.header, "bucket"),
            ("Strategies in the group", "who", who), ("Player results", "n", count), *tiles,
            *est(VS_FAIR.label, "vs_fair", times)), tuple(self.records(result, data)))

    def records(self, result: dict, data: GameData) -> list[dict]:
        """Each group's win share over the fair share (and with `tiles` the share of its tiles that came true) and
        the share of its player results each strategy holds; then each strategy's recorded profile measures."""
        out = []
        for r in result["by_count"].iter_rows(named=True):
            where = {self.key: r["bucket"], **self.bounds(r["bucket_index"])}
            out.append(record(data, r["players"], VS_FAIR.metric, r["vs_fair"], r["vs_fair_lo"], r["vs_fair_hi"],
                              r["games"], r["method"], **where, player_results=r["n"], fair=1 / r["players"]))
            if self.tiles:
                out.append(record(data, r["players"], CORRECT.metric, r["correct"], r["correct_lo"],
                                  r["correct_hi"], r["games"], r["method"], **where))
            out += [record(data, r["players"], "strategy_share_of_group", m["share"], m["share"], m["share"],
                           r["games"], "count", **where, strategy=m["strategy"]) for m in r["who"]]
        if any(m.metric for m in self.profile):
            strategies = result["profile"].filter(pl.col("strategy") != EVERYONE)
            out += measure_records(data, strategies, self.profile, **{c: c for c in self.profile_about})
        return out

    def tables(self, result: dict, _) -> list[Table]:
        return [table(self.caption, result["by_count"], ("Players", "players"), (self.header, "bucket"),
                      ("Strategies in the group", "who", who), *STANDING),
                measure_table(self.profile_caption, result["profile"], self.profile, *self.profile_lead)]

    def chart(self, result: dict, data: GameData) -> Chart:
        return measure_chart(data, result["by_count"], CHARTED, self.file, self.chart_title,
                             self.chart_caption, category="bucket", fair=True)

    def analysis(self) -> Analysis:
        return Analysis(self.title, self.compute, self.intro, self.chart, self.tables, self.finding,
                        absent=self.absent, leading_only=True)
