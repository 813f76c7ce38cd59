"""A game's report is its declaration (reports/spec.py): a made-up game declared in a few lines gets its analysis
computed, recorded, tabled, charted and said, and the sentence templates say "clearly" only where intervals part."""

import json
import sys
import types
from importlib.machinery import ModuleSpec
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from resultsdir import finding, game_data, write_experiment
from test_report import synthetic_games

from reports.analysis import GameData, record
from reports.build import build_report
from reports.spec import GameReport, Measure, Metrics, leader, leaders, pattern, versus

PIECES = Measure("pieces", "Pieces per player", pl.col("pieces"), metric="points_per_player")
WINS = Measure("won", "Win share", pl.col("win"), share=True)


def pieces_sentence(frame: pl.DataFrame, data) -> str:
    return "Of the strategies, " + leader(frame, "pieces", data.player_counts, "keeps the most pieces",
                                          largest=True) + "."


WON = Measure("won", "Win share", pl.col("win"), metric="token_use_share", share=True)


def even_half(frame: pl.DataFrame, data) -> list[dict]:
    return [record(data, p, "even_copy_share", 0.5, 0.5, 0.5, 1, "exact") for p in frame["players"].unique()]


DECLARED = GameReport(analyses=(Metrics("Pieces kept", (PIECES, WINS), pieces_sentence,
                                        "Pieces per player and win share by strategy", charted=("pieces",),
                                        chart_caption="Mean pieces per player.").analysis(),
                                Metrics("Wins", (WON,), lambda frame, data: "Said on every player together.",
                                        "Win share by strategy", overall=True, named="kind", more=even_half,
                                        recorded=lambda frame, m, data: frame.filter(pl.col("strategy") != "all"))
                                .analysis()))


@pytest.fixture(scope="module")
def declared_report(tmp_path_factory):
    rows = synthetic_games(3, 900, 7).with_columns(game=pl.lit("declared_game"), experiment=pl.lit("declared3"))
    root = tmp_path_factory.mktemp("declared_results")
    write_experiment(root / "declared3", [rows], "declared_game", title="Declared Game", lowest_wins=True)
    package = types.ModuleType("reports.declared_game")  # as if reports/declared_game/ declared it
    package.__spec__, package.REPORT = ModuleSpec(package.__name__, None), DECLARED
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, package.__name__, package)
        index = build_report(root, tmp_path_factory.mktemp("declared_report"))
    return rows, index.parent


def test_a_declared_analysis_is_computed_recorded_tabled_charted_and_said(declared_report):
    rows, out = declared_report
    records = [r for r in json.loads((out / "findings.json").read_text())["records"]
               if r["metric"] == "points_per_player"]
    means = rows.group_by("strategy").agg(pl.col("pieces").mean())
    expected = {**dict(means.iter_rows()), None: rows["pieces"].mean()}
    assert {r.get("strategy"): r["estimate"] for r in records} == pytest.approx(expected, rel=1e-9)
    assert all(r["unit"] == "points" and r["method"] == "cluster_t" and r["low"] < r["estimate"] < r["high"]
               for r in records)
    said = finding((out / "summary.md").read_text().replace("**", ""), "Pieces kept.")
    assert said.startswith("Of the strategies, no strategy clearly keeps the most pieces at any player count.\n")
    page = (out / "declared_game.html").read_text()
    assert "Pieces per player and win share by strategy" in page and "declared3_pieces.png" in page
    assert (out / "declared3_pieces.png").stat().st_size > 5_000


def test_a_declared_analysis_records_only_the_measures_that_name_a_metric(declared_report):
    _, out = declared_report
    metrics = {r["metric"] for r in json.loads((out / "findings.json").read_text())["records"]}
    assert "points_per_player" in metrics and "won" not in metrics


def test_a_declared_analysis_records_the_groups_it_chooses_with_each_measure_s_own_keys():
    rows = synthetic_games(3, 300, 11).with_columns(twice=2 * pl.col("pieces"))
    data = GameData("declared_game", rows, [{"experiment": "declared3"}], Path())
    chosen = Metrics("Pieces kept", (PIECES, Measure("twice", "Twice", pl.col("twice"), metric="mean_score")),
                     pieces_sentence, "", recorded=lambda frame, m, data: frame.filter(pl.col("strategy") == "all"),
                     about_measure=lambda m: {"doubled": f"{m.name}_hi"} if m.name == "twice" else {})
    frame = chosen.compute(data)
    records = chosen.finding(frame, data).numbers
    everyone = frame.filter(pl.col("strategy") == "all").row(0, named=True)
    assert len(records) == 2 and all("strategy" not in r and r["players"] == 3 for r in records)
    twice, pieces = sorted(records, key=lambda r: r["metric"])
    assert "doubled" not in pieces and twice["doubled"] == pytest.approx(everyone["twice_hi"])
    assert twice["estimate"] == pytest.approx(2 * pieces["estimate"])
    assert len(Metrics("Pieces kept", (PIECES,), pieces_sentence, "").finding(frame, data).numbers) == frame.height


def test_a_declared_finding_records_the_groups_it_chooses_names_its_measures_and_adds_records(declared_report):
    rows, out = declared_report
    records = json.loads((out / "findings.json").read_text())["records"]
    won = [r for r in records if r["metric"] == "token_use_share"]
    assert sorted(r["strategy"] for r in won) == sorted(rows["strategy"].unique())  # no record of every player
    assert all(r["kind"] == "won" for r in won)
    assert [(r["estimate"], r["method"]) for r in records if r["metric"] == "even_copy_share"] == [(0.5, "exact")]
    assert "kind" not in next(r for r in records if r["metric"] == "points_per_player")  # not a share




def test_a_declared_analysis_adds_aggregates_of_each_groups_rows_to_its_frame_and_records(tmp_path):
    rows = synthetic_games(3, 300, 7)
    data = game_data(rows, "declared_game", tmp_path)
    declared = Metrics("Pieces kept", (PIECES,), pieces_sentence, "", extra={"most": pl.col("pieces").max()},
                       about={"strategy": "strategy", "most": "most"})
    found = declared.compute(data)
    expected = {**dict(rows.group_by("strategy").agg(pl.col("pieces").max()).iter_rows()), "all": rows["pieces"].max()}
    assert found.height == len(expected) and dict(found.select("strategy", "most").iter_rows()) == expected
    assert {r.get("strategy", "all"): r["most"] for r in declared.finding(found, data).numbers} == expected

def frame(values: dict[str, tuple[float, float, float]], players: int = 2) -> pl.DataFrame:
    """A measured frame of one measure `x` at one player count: strategy -> (estimate, low, high)."""
    return pl.DataFrame([{"players": players, "strategy": s, "x": e, "x_lo": lo, "x_hi": hi}
                         for s, (e, lo, hi) in values.items()])


def test_leader_names_a_strategy_only_where_its_interval_clears_every_other():
    apart = frame({"a": (5.0, 4.5, 5.5), "b": (3.0, 2.5, 3.5), "all": (9.0, 8.0, 10.0)})
    touching = frame({"a": (5.0, 4.0, 6.0), "b": (4.5, 3.9, 5.1)}, players=3)
    both = pl.concat([apart, touching])
    assert leaders(both, "x") == {2: "a", 3: None}  # 'all' (every strategy together) is no strategy
    assert leaders(both, "x", largest=False) == {2: "b", 3: None}
    assert leader(both, "x", [2, 3], "leads") == "a leads at 2 players (at 3 players none clearly)"
    assert leader(touching, "x", [3], "leads") == "no strategy clearly leads at any player count"
    assert leaders(frame({"a": (5.0, 4.0, 6.0)}), "x") == {2: None}  # alone: nothing to lead


def test_pattern_reads_a_run_of_groups_by_their_intervals():
    def run(*points):
        return pl.DataFrame({"x": [float(p[0]) for p in points], "x_lo": [float(p[1]) for p in points],
                             "x_hi": [float(p[2]) for p in points]})

    assert pattern(run((1, 0.9, 1.1), (2, 1.9, 2.1), (3, 2.9, 3.1)), "x") == "rises"
    assert pattern(run((3, 2.9, 3.1), (1, 0.9, 1.1)), "x") == "lower"
    assert pattern(run((1, 0, 2), (1.5, 0.5, 2.5)), "x") == "flat"
    assert pattern(run((1, 0.9, 1.1), (3, 2.9, 3.1), (0, -0.1, 0.1)), "x") == "up and down"
    assert pattern(run((1, 0.9, 1.1), (3, 2.9, 3.1), (2, 1.5, 3.05)), "x") == "uneven"
    assert pattern(run((1, np.nan, np.nan), (5, 4.9, 5.1)), "x") == "flat"
    assert pattern(run((1, 0.9, 1.1)), "x") == "single"


def test_versus_says_above_or_below_only_where_the_interval_excludes_the_level():
    assert versus(0.4, 0.5, 1 / 3) == "above chance"
    assert versus(0.1, 0.3, 1 / 3) == "below chance"
    assert versus(0.3, 0.4, 1 / 3) == "not distinguishable from chance"
    assert versus(np.nan, np.nan, 1 / 3, "fair") == "not distinguishable from fair"


def test_a_declared_finding_records_the_groups_it_picks_and_tables_those_it_states(tmp_path):
    rows = synthetic_games(3, 300, 7).with_columns(game=pl.lit("declared_game"), experiment=pl.lit("declared3"))
    data = game_data(rows, "declared_game", tmp_path)
    first = sorted(rows["strategy"].unique())[0]
    picked = Metrics("Pieces kept", (PIECES, WINS), pieces_sentence, "", overall=True,
                     recorded=lambda found, *_: found.filter(pl.col("strategy").is_in(["all", first])))
    frame = picked.compute(data)
    said = picked.finding(frame, data)
    assert [n.get("strategy") for n in said.numbers] == [None, first]  # every player, then the strategy picked
    assert [n["estimate"] for n in said.numbers] == pytest.approx(
        [rows["pieces"].mean(), rows.filter(pl.col("strategy") == first)["pieces"].mean()], rel=1e-9)
    assert said.table.rows == Metrics("Pieces kept", (PIECES, WINS), pieces_sentence, "",
                                      overall=True).finding(frame, data).table.rows  # the 'all' groups alone
    unpicked = Metrics("Pieces kept", (PIECES, WINS), pieces_sentence, "").finding(frame, data)
    assert len(unpicked.numbers) == frame.height  # by default, every group it states
