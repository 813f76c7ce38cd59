"""The skill ladder's report, on rows with a planted truth: the start edge rung by rung and its paired change, the
stronger seat's share, the games a tighter interval needs, what hidden information is worth; a ladder's rungs never
pooled (no generic seat or strategy section, no headline of the overview); and a real ladder run end to end."""

import json
import math

import numpy as np
import polars as pl
import pytest
from resultsdir import game_data, unrecorded_numbers, write_experiment

from reports.build import build_report
from reports.findings import select
from reports.generic import LADDER, SEATS, STRATEGIES
from reports.generic.ladder import (
    TIGHTER_PP,
    games_needed,
    hidden_finding,
    hidden_information,
    one_up_finding,
    one_up_ladder,
    symmetric_finding,
    symmetric_ladder,
)
from reports.kaleido.stalls import ladder_stall_finding, ladder_stalls
from sim.experiment import ladder_lineups

RUNGS = ["h", "s8", "s32"]
EDGE = {"h": 0.25, "s8": 0.12, "s32": 0.0}  # the start player's planted edge when every seat plays the rung
UP = 0.75  # the planted win share of one seat a rung above the other


def ladder_games(deals: int, seed: int, experiment: str = "lad", game: str = "kintsugi",
                 edge: dict[str, float] = EDGE) -> pl.DataFrame:
    """2-player rows of every ladder lineup of RUNGS on each deal, the winner drawn from the planted truth: in a
    symmetric game the start player wins 1/2 + EDGE[rung]; in a one-up game the stronger seat wins UP."""
    rng = np.random.default_rng(seed)
    lineups = ladder_lineups(RUNGS, 2)
    rows = []
    for deal in range(deals):
        for k, lineup in enumerate(lineups):
            if lineup[0] == lineup[1]:
                first = rng.random() < 0.5 + edge[lineup[0]]
            else:
                stronger = max(range(2), key=lambda s: RUNGS.index(lineup[s]))
                first = (rng.random() < UP) == (stronger == 0)
            game_id = deal * len(lineups) + k
            for seat in range(2):
                win = float(first == (seat == 0))
                rows.append({"experiment": experiment, "config_hash": "abc", "game": game, "players": 2,
                             "game_id": game_id, "deal": deal, "lineup": k, "seat": seat, "player": seat,
                             "strategy": lineup[seat], "score": int(win), "rank": 2 - int(win), "win": win})
    return pl.DataFrame(rows).with_columns(pl.col("players").cast(pl.Int8), pl.col("seat").cast(pl.Int8))


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    rows = ladder_games(600, seed=12)
    return game_data(rows, "kintsugi", tmp_path_factory.mktemp("ladder"), ladder=RUNGS)


def test_the_start_edge_is_read_rung_by_rung_and_its_change_is_paired(planted) -> None:
    found = symmetric_ladder(planted)
    edges = found["edges"].sort("rung")
    for r in edges.iter_rows(named=True):
        assert r["advantage_lo"] < EDGE[RUNGS[r["rung"]]] < r["advantage_hi"]
        assert r["games"] == 600
    change = found["changes"][0]
    assert change["method"] == "paired_cluster_t" and change["clusters"] == 600
    assert change["lo"] < EDGE["s32"] - EDGE["h"] < change["hi"] < 0
    text = symmetric_finding(found, planted).text
    assert "it shrinks" in text and "The clear edge among h is not confirmed at s32" in text


def test_the_stronger_seat_wins_its_planted_share_from_every_seat(planted) -> None:
    found = one_up_ladder(planted)
    for r in found["overall"].iter_rows(named=True):
        assert r["lo"] < UP < r["hi"] and r["lo"] > 0.5 and r["games"] == 1200
        assert r["weaker_lo"] < 1 - UP < r["weaker_hi"]
    assert found["by_seat"].height == 4 and (found["by_seat"]["games"] == 600).all()
    text = one_up_finding(found, planted).text
    assert "clearly more than fair for s8 and s32" in text and "no rung's share differs clearly" in text


def test_a_start_edge_that_appears_only_with_skill_is_called_so(tmp_path) -> None:
    rows = ladder_games(600, seed=12, edge={"h": 0.0, "s8": 0.1, "s32": 0.2})
    data = game_data(rows, "kintsugi", tmp_path, ladder=RUNGS)
    text = symmetric_finding(symmetric_ladder(data), data).text
    assert "Among h the edge is not clear; at s32 it is." in text and "it grows" in text


def test_the_games_a_tighter_interval_needs_follow_the_square_root_law(planted) -> None:
    records = select(symmetric_finding(symmetric_ladder(planted), planted).numbers, metric="games_for_tighter_edge")
    top = select(symmetric_finding(symmetric_ladder(planted), planted).numbers, metric="ladder_start_advantage",
                 strategy="s32")[0]
    played = planted.rows["game_id"].n_unique()
    width = top["high"] - top["low"]
    assert records[0]["estimate"] == pytest.approx(played * (width / (2 * TIGHTER_PP)) ** 2, rel=0.01)
    assert games_needed(2 * TIGHTER_PP, planted, 2) == played  # an interval already that tight needs no more
    assert games_needed(math.nan, planted, 2) is None


@pytest.mark.parametrize(("cheat", "fair"), [("peek@8", "search@8"), ("cheat@4:random", "mcts@4:random")])
def test_hidden_information_is_the_cheats_share_against_the_same_fair_search(tmp_path, cheat, fair) -> None:
    rng = np.random.default_rng(3)
    deals, rows = 400, []
    for deal in range(deals):
        for k, lineup in enumerate([(cheat, fair), (fair, cheat)]):
            cheat_wins = rng.random() < 0.8
            for seat in range(2):
                win = float(cheat_wins == (lineup[seat] == cheat))
                rows.append({"experiment": "hid", "game": "kintsugi", "players": 2, "game_id": 2 * deal + k,
                             "deal": deal, "lineup": k, "seat": seat, "strategy": lineup[seat], "win": win,
                             "score": int(win)})
    data = game_data(pl.DataFrame(rows), "kintsugi", tmp_path)
    found = hidden_information(data)
    share = found["overall"].row(0, named=True)
    assert share["lo"] < 0.8 < share["hi"] and share["games"] == 2 * deals and share["against"] == fair
    assert found["by_seat"].height == 2
    finding = hidden_finding(found, data)
    assert f"{cheat}, which sees every hidden part" in finding.text
    assert all(n["metric"] == "hidden_information_win_share" for n in finding.numbers)


def test_no_hidden_information_is_claimed_where_cheat_and_its_fair_search_do_not_meet(tmp_path) -> None:
    rows = ladder_games(5, seed=1).with_columns(strategy=pl.col("strategy").replace({"s8": "cheat@8", "s32":
                                                                                       "search@8"}))
    assert hidden_information(game_data(rows, "kintsugi", tmp_path)) is None  # cheat@8's fair one is mcts@8


def test_kaleidos_stall_rate_is_read_rung_by_rung(tmp_path) -> None:
    rows = ladder_games(200, seed=5, game="kaleido")
    stalls = {"h": 0.4, "s8": 0.1, "s32": 0.0}
    drawn = pl.Series(np.random.default_rng(3).random(rows["game_id"].max() + 1))
    rate = pl.col("strategy").replace_strict(stalls, return_dtype=pl.Float64).max().over("game_id")
    rows = rows.with_columns(stalled=rate > drawn.gather(rows["game_id"]))
    data = game_data(rows, "kaleido", tmp_path, ladder=RUNGS)
    rates = ladder_stalls(data).sort("rung")
    assert rates["games"].to_list() == [200, 200, 200] and rates["rate"][2] == 0.0
    for r in rates.head(2).iter_rows(named=True):
        assert r["rate_lo"] < stalls[r["strategy"]] < r["rate_hi"]
    numbers = ladder_stall_finding(rates, data).numbers
    assert [(n["metric"], n["strategy"]) for n in numbers] == [("ladder_stall_rate", r) for r in RUNGS]


def test_a_ladders_rungs_are_never_pooled_and_the_overview_shows_its_strongest_rung(tmp_path) -> None:
    results = tmp_path / "results"
    mystery = {"title": "Mystery Game", "lowest_wins": False}  # a game the report has no module for
    write_experiment(results / "lad", [ladder_games(120, seed=4, game="mystery_game")], "mystery_game", ladder=RUNGS,
                     **mystery)
    pool = ladder_games(120, seed=6, experiment="pool", game="mystery_game").filter(pl.col("lineup") >= 3)
    write_experiment(results / "pool", [pool], "mystery_game", **mystery)
    index = build_report(results, tmp_path / "report")
    page = (index.parent / "mystery_game.html").read_text()
    section = page.split('id="lad"', 1)[1].split('id="pool"', 1)[0]
    assert "Seat advantage along the skill ladder" in section
    for title in {a.title for a in SEATS + STRATEGIES} - {a.title for a in LADDER}:
        assert f">{title}<" not in section, f"the ladder's section pools its rungs in {title!r}"
    findings = json.loads((index.parent / "findings.json").read_text())["records"]
    assert not select(findings, experiment="lad", metric="seat_win_share")
    top = select(findings, experiment="lad", metric="ladder_start_advantage", strategy="s32")[0]
    overview = index.read_text()
    assert "Edge under search" in overview and "at s32" in overview
    assert select(findings, metric="start_advantage")[0]["experiment"] == "pool"  # the headline is no ladder
    assert f"{100 * top['estimate']:+.1f} (" in overview
    assert unrecorded_numbers(index.parent) == []
