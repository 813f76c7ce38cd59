"""Verdicts the report states, each against the data it rests on: tests that fail for the wrong answers a mutation
test of the report code let through (issue 30): the strategy gap's sign, cycles looked for in one orientation or
called clear on one clear leg, ten deals given no interval, Kintsugi's deals of different player counts pooled
into one cluster, and sentences that say more than the data (a tiny effect called clear, a claim about every
strategy or every pair of experiments that holds for one); and the report of a deliberately unfair game and of a
deliberately fair one, each verdict sentence checked against the records it rests on."""

import itertools
import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from resultsdir import finding, game_data, section, write_experiment
from test_report import synthetic_games
from test_report_layout import fair_games

from reports.build import build_report
from reports.compensation import phrase
from reports.fmt import effect
from reports.generic.experiments import apart_pairs
from reports.generic.matchups import cycle_clause
from reports.generic.seats import strategy_seat_sentence
from reports.generic.strategies import strategy_analysis, strategy_numbers
from reports.ratings import cycles
from reports.stats import clustered, paired_difference, paired_ratio


def duel_rows(strength: dict[str, float], games_per_pair: int, seed: int) -> pl.DataFrame:
    """Two-player games between every pair of strategies, both seatings: a seat's score is its strategy's strength
    in that pairing plus noise, the higher wins; a deal per pair of games (one per seating)."""
    rng = np.random.default_rng(seed)
    records, game = [], 0
    for a, b in itertools.permutations(sorted({s for pair in strength for s in pair.split(">")}), 2):
        edge = strength.get(f"{a}>{b}", -strength.get(f"{b}>{a}", 0.0))
        for _ in range(games_per_pair):
            a_score = edge + rng.normal()
            win_a = float(a_score > 0)
            for seat, (strategy, won) in enumerate(((a, win_a), (b, 1 - win_a))):
                records.append({"experiment": "duels", "game": "mystery_game", "players": 2, "game_id": game,
                                "deal": game, "seat": seat, "strategy": strategy, "score": int(won),
                                "rank": 1 if won else 2, "win": won})
            game += 1
    return pl.DataFrame(records).with_columns(pl.col("players", "seat").cast(pl.Int8))


@pytest.mark.parametrize("orientation", [("A", "B", "C"), ("A", "C", "B")])
def test_a_cycle_is_found_in_either_orientation(orientation):
    a, b, c = orientation
    rows = duel_rows({f"{a}>{b}": 1.0, f"{b}>{c}": 1.0, f"{c}>{a}": 1.0}, 200, 1)
    found = cycles(rows)
    assert len(found) == 1 and found[0]["verdict"] == "clear"
    legs = {(leg["winner"], leg["loser"]) for leg in found[0]["legs"]}
    assert legs == {(a, b), (b, c), (c, a)}
    assert all(leg["lo"] > 0.5 for leg in found[0]["legs"])


def test_a_cycle_with_one_unclear_leg_is_not_called_clear():
    rows = duel_rows({"A>B": 1.5, "B>C": 1.5, "C>A": 0.08}, 150, 2)
    found = cycles(rows)
    assert len(found) == 1 and found[0]["verdict"] == "likely"
    legs = {leg["winner"]: leg for leg in found[0]["legs"]}
    assert legs["A"]["lo"] > 0.5 and legs["B"]["lo"] > 0.5
    assert legs["C"]["estimate"] > 0.5 > legs["C"]["lo"]


def test_cycles_are_mentioned_only_where_three_strategies_could_form_one():
    assert cycle_clause([], 2) == ""
    assert "circle" in cycle_clause([], 3)


def test_the_strategy_gap_is_the_strongest_strategy_minus_the_weakest(tmp_path):
    rows = duel_rows({"A>B": 0.6, "B>C": 0.4, "A>C": 0.9}, 300, 3)
    data = game_data(rows, "mystery_game", tmp_path, lowest_wins=False)
    gaps = [n for n in strategy_numbers(strategy_analysis(data), data) if n["metric"] == "strategy_gap"]
    assert len(gaps) == 1
    gap = gaps[0]
    assert (gap["strategy"], gap["against"]) == ("A", "C")
    share = {s: g["win"].mean() for (s,), g in rows.partition_by("strategy", as_dict=True).items()}
    assert gap["share_a"] == pytest.approx(share["A"]) and gap["share_b"] == pytest.approx(share["C"])
    assert gap["estimate"] == pytest.approx(share["A"] - share["C"]) and gap["estimate"] > 0.2
    assert gap["low"] < gap["estimate"] < gap["high"] and gap["low"] > 0


@pytest.mark.parametrize("deals", [2, 10])
def test_a_few_deals_still_give_an_interval(deals):
    rows = synthetic_games(3, deals, 4)
    shares = paired_ratio(rows, pl.col("win"), pl.lit(1.0), ["seat"])
    assert shares["lo"].is_finite().all() and shares["hi"].is_finite().all()
    assert ((shares["lo"] <= shares["estimate"]) & (shares["estimate"] <= shares["hi"])).all()
    gap = paired_difference(rows, pl.col("seat") == 0, pl.lit(True))
    assert np.isfinite(gap["lo"]) and np.isfinite(gap["hi"])


def test_the_deals_of_different_player_counts_are_never_one_cluster():
    """Deal 7 at 2 players and deal 7 at 3 players are different deals: pooled over player counts (Kintsugi's
    guessing accuracy, a game's own measures), an interval must be the one where the deals carry distinct names."""
    rows = pl.concat([synthetic_games(2, 40, 5), synthetic_games(3, 40, 6)], how="diagonal_relaxed")
    renamed = rows.with_columns(deal=pl.col("deal") + 1000 * pl.col("players").cast(pl.Int64))
    pooled = paired_ratio(rows, pl.col("guess_correct"), pl.lit(1.0), [])
    apart = paired_ratio(renamed, pl.col("guess_correct"), pl.lit(1.0), [])
    assert pooled["estimate"].to_list() == apart["estimate"].to_list() and pooled["clusters"].to_list() == [80]
    assert pooled["lo"].to_list() == pytest.approx(apart["lo"].to_list(), abs=1e-12)
    assert pooled["hi"].to_list() == pytest.approx(apart["hi"].to_list(), abs=1e-12)
    measures = {"right": (pl.col("guess_correct"), pl.lit(1.0)), "pieces": (pl.col("pieces"), pl.lit(1.0))}
    both = clustered(rows, measures, ["strategy"])
    for name in measures:
        alone = paired_ratio(renamed, measures[name][0], measures[name][1], ["strategy"])
        assert both[name].to_list() == pytest.approx(alone["estimate"].to_list())
        assert both[f"{name}_lo"].to_list() == pytest.approx(alone["lo"].to_list())


def test_a_clear_but_tiny_effect_is_not_called_clear():
    assert effect(0.0005, 0.0012, 0.0008) == "tiny"  # 0.08 pp of a share
    assert effect(0.02, 0.10, 0.06, level=4.1) == "tiny"  # +0.06 copies of about 4.1
    assert effect(0.05, 0.21, 0.13, level=42.0) == "tiny"  # +0.13 turns of 42
    assert effect(0.03, 0.05, 0.04) == "clear"
    assert effect(0.3, 0.9, 0.6, level=4.1) == "clear"
    assert effect(-0.01, 0.05, 0.02) == "unclear"
    assert effect(float("nan"), float("nan"), 0.5) == "unclear"


def test_a_sentence_about_every_strategy_needs_more_than_one():
    one = pl.DataFrame({"strategy": ["random", "random"], "players": [2, 3], "clear": [True, True]})
    assert "every strategy" not in strategy_seat_sentence(one)
    assert "for random" in strategy_seat_sentence(one)
    two = pl.concat([one, one.with_columns(strategy=pl.lit("greedy"))])
    assert "every strategy" in strategy_seat_sentence(two)


def test_experiments_differ_only_between_the_pairs_whose_intervals_are_apart():
    start = pl.DataFrame({"players": [3, 3, 3], "experiment": ["a", "b", "c"], "advantage_lo": [0.05, 0.00, -0.10],
                          "advantage_hi": [0.08, 0.06, -0.04]})
    apart, pairs = apart_pairs(start)
    assert pairs == 3
    assert apart == [(3, "a", "c"), (3, "b", "c")]  # a and b overlap


# ---------------------------------------------------------------- each verdict sentence against its records


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> Path:
    """A game with a planted start-player edge (Kintsugi-shaped, at 2 and 3 players) and a game no seat is favoured
    in, reported together."""
    root = tmp_path_factory.mktemp("planted")
    rows = pl.concat([synthetic_games(2, 1500, seed=2),
                      synthetic_games(3, 1500, seed=3).with_columns(pl.col("game_id", "deal") + 1500)])
    write_experiment(root / "unfair", [rows.with_columns(experiment=pl.lit("unfair"))], "kintsugi")
    write_experiment(root / "even", [fair_games(3, 3000, seed=5)], "even_game", title="Even Game")
    return build_report(root, tmp_path_factory.mktemp("report")).parent


def records_of(report: Path, experiment: str, metric: str) -> list[dict]:
    found = json.loads((report / "findings.json").read_text())["records"]
    return [r for r in found if r["experiment"] == experiment and r["metric"] == metric]


@pytest.mark.parametrize("experiment", ["unfair", "even"])
def test_the_start_players_verdict_is_the_one_its_interval_gives(planted, experiment):
    text = finding(section((planted / "summary.md").read_text().replace("**", ""), experiment), "Seat advantage.")
    for start in records_of(planted, experiment, "start_advantage"):
        verdict = ("clearly more than a fair share" if start["low"] > 0 else "clearly less than a fair share"
                   if start["high"] < 0 else "a share not distinguishable from fair")
        assert re.search(rf"{verdict} at (\d+ and )?{start['players']}( and \d+)? players|{verdict} at every player",
                         text), (verdict, text)
    assert ("unfair" == experiment) == ("clearly more" in text)


@pytest.mark.parametrize("experiment", ["unfair", "even"])
def test_the_compensation_sentence_is_the_one_its_record_gives(planted, experiment):
    text = finding(section((planted / "summary.md").read_text().replace("**", ""), experiment), "Handicaps.")
    seats = records_of(planted, experiment, "seat_win_share")
    for chosen in records_of(planted, experiment, "compensation"):
        fair = all(r["low"] <= r["fair"] <= r["high"] for r in seats if r["players"] == chosen["players"])
        needed = any(chosen["points"]) or chosen["tie_order"] is not None
        assert needed != fair  # none is needed exactly where every seat's interval holds 1/P
        assert f"At {chosen['players']} players" in text and phrase(chosen) in text
        assert ("no compensation is needed" in phrase(chosen)) == fair
    assert ("no compensation is needed" in text) == (experiment == "even")
