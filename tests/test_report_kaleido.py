"""The Kaleido report section, on synthetic results with planted effects.

Planted: rotator scores 10 more end-game points than everyone else (so +10 over greedy, with the same
mid-game points); the start player (seat 0) gets 6 extra mid-game points; 60% of 5-player games stall
(10% at 2 to 4 players), and in a stalled game the last seat is left holding a tile and loses 8 points;
hoarder never uses a white tile. The tournament carries board positions, the rotation experiment does not.
"""

import json
import math
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import resultsdir
from resultsdir import KALEIDO_TILES as TILES
from resultsdir import assert_start_advantage_above_zero, finding, game_data, section, write_experiment
from test_report import synthetic_games

from reports.analysis import GameData
from reports.build import build_report
from reports.findings import select
from reports.fmt import pct
from reports.kaleido import REPORT
from reports.kaleido.boards import board_cells, board_map, experiments_without_positions
from reports.kaleido.points import COMEBACKS
from reports.kaleido.rotation import rotation_value
from reports.kaleido.stalls import ANALYSIS as STALL_ANALYSIS
from reports.kaleido.stalls import stall_rates, stall_winners, stalls, stalls_by_strategy
from reports.stats import wilson


def allotment(players: int) -> int:
    """Boards (and white tiles) each player gets: 4 in the 2-player variant, otherwise 2."""
    return 4 if players == 2 else 2


TOURNAMENT = ["random", "greedy", "majority", "rotator", "hoarder"]
ROTATION = ["greedy", "rotator"]
STALLS = {2: 0.1, 3: 0.1, 4: 0.1, 5: 0.6}
# cells around the starting boards (0, 0) and (1, 0), enough for every board of a 5-player game
CELLS = [(1, -1), (0, 1), (-1, 1), (1, 1), (0, -1), (2, -1), (-1, 0), (2, 0), (-2, 1), (3, -1), (0, 2), (1, -2)]
EXPERIMENTS = ("kal_rotation", "kal_tournament")
CHARTS = ["seat_win_share", "strategy_win_share", "rotation", "stalls"]  # as <experiment>_<chart>.png
DESCRIPTIVE = ["points_split", "boards_whites", "seat_heatmap"]  # the headline experiment's only
LABELS = ("Points.", "Rotation.", "Stalls.", "Boards and white tiles.")  # Kaleido's own findings


def synthetic_kaleido(
    players: int, games: int, seed: int, strategies: list[str], experiment: str, positions: bool = True
) -> pl.DataFrame:
    """Kaleido-shaped rows with the planted effects described above; the highest score wins, ties share.
    Strategies rotate through the seats; each deal is played under len(strategies) seatings."""
    rng = np.random.default_rng(seed)
    g = np.arange(games)[:, None]
    seat = np.broadcast_to(np.arange(players), (games, players))
    strategy = np.array(strategies)[(seat + g) % len(strategies)]
    stalled = np.broadcast_to(rng.random((games, 1)) < STALLS[players], (games, players))
    stuck = stalled & (seat == players - 1)
    mid = 4 * rng.integers(3, 8, (games, players)) + 6 * (seat == 0) - 8 * stuck  # points come in steps of 4
    end = 4 * rng.integers(1, 6, (games, players)) + 10 * (strategy == "rotator")
    score = mid + end
    best = score.max(axis=1, keepdims=True)
    win = (score == best) / (score == best).sum(axis=1, keepdims=True)
    rank = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)
    boards = rng.integers(0, allotment(players) + 1, (games, players))
    whites = rng.integers(0, allotment(players) + 1, (games, players)) * (strategy != "hoarder")
    n = games * players
    columns = {
        "experiment": np.full(n, experiment),
        "config_hash": np.full(n, "kal123"),
        "game": np.full(n, "kaleido"),
        "players": np.full(n, players, dtype=np.int8),
        "game_id": np.repeat(100_000 * players + np.arange(games), players),  # unique within an experiment
        "deal": np.repeat(np.arange(games) // len(strategies), players),
        "lineup": np.repeat(np.arange(games) % len(strategies), players),
        "seat": seat.ravel().astype(np.int8),
        "player": seat.ravel().astype(np.int8),
        "strategy": strategy.ravel(),
        "score": score.ravel(),
        "rank": rank.ravel(),
        "win": win.ravel(),
        "midgame_points": mid.ravel(),
        "endgame_points": end.ravel(),
        "boards_placed": boards.ravel(),
        "whites_used": whites.ravel(),
        "turns": (TILES[players] - stuck).ravel(),
        "stalled": stalled.ravel(),
    }
    rows = pl.DataFrame(columns)
    if not positions:
        return rows
    q, r = [], []
    for game in range(games):
        free = iter(rng.permutation(len(CELLS)))
        for s in range(players):
            placed = [CELLS[next(free)] for _ in range(boards[game, s])]
            q.append([c[0] for c in placed])
            r.append([c[1] for c in placed])
    return rows.with_columns(board_q=pl.Series(q, dtype=pl.List(pl.Int8)), board_r=pl.Series(r, dtype=pl.List(pl.Int8)))


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A report over a folder holding Kaleido (a tournament with positions, a rotation run without) and Kintsugi."""
    root = tmp_path_factory.mktemp("kaleido_results")
    write_experiment(
        root / "kal_tournament",
        [synthetic_kaleido(p, 700, p, TOURNAMENT, "kal_tournament") for p in (2, 3, 4, 5)],
        "kaleido", headline=True,
    )
    write_experiment(
        root / "kal_rotation",
        [synthetic_kaleido(p, 700, 10 + p, ROTATION, "kal_rotation", positions=False) for p in (2, 3, 4, 5)],
        "kaleido",
    )
    write_experiment(root / "kintsugi3", [synthetic_games(3, 600, seed=3)], "kintsugi")
    return build_report(root, tmp_path_factory.mktemp("kaleido_report"))


@pytest.fixture(scope="module")
def summary(report) -> str:
    return (report.parent / "summary.md").read_text().replace("**", "")  # content, not emphasis


@pytest.fixture(scope="module")
def numbers(report) -> list[dict]:
    return json.loads((report.parent / "findings.json").read_text())["records"]


def test_both_games_get_their_pages_and_charts(report, summary):
    kaleido, kintsugi = ((report.parent / f"{game}.html").read_text() for game in ("kaleido", "kintsugi"))
    charts = [f"{experiment}_{chart}.png" for experiment in EXPERIMENTS for chart in CHARTS]
    charts += [f"kal_tournament_{chart}.png" for chart in DESCRIPTIVE]
    assert not any((report.parent / f"kal_rotation_{chart}.png").exists() for chart in DESCRIPTIVE)
    for page, chart in [*((kaleido, c) for c in [*charts, "kal_tournament_board_map.png",
                                                  "kaleido_compared_seat_by_experiment.png"]),
                        (kintsugi, "synthetic3_guess_accuracy.png"), (kintsugi, "synthetic3_seat_win_share.png")]:
        assert (report.parent / chart).stat().st_size > 10_000, chart
        assert f'src="{chart}"' in page, chart
    assert summary.startswith("# Balance report: Kaleido, Kintsugi")
    assert "\n## Kaleido\n" in summary and "\n## Kintsugi\n" in summary
    for experiment in EXPERIMENTS:
        for label in LABELS:
            assert f"- {label} " in section(summary, experiment), (experiment, label)
    assert "- Guessing accuracy. " in section(summary, "synthetic3")
    # the rotation run carries no board positions: its section says so and draws no map
    rotation = kaleido.split(">kal_rotation</h2>")[1].split("<h2")[0]
    assert "These results carry no board positions" in rotation
    assert "These results carry no board positions" not in kaleido.split(">kal_tournament</h2>")[1].split("<h2")[0]
    assert not (report.parent / "kal_rotation_board_map.png").exists()


def test_summary_names_the_start_player_advantage(summary):
    for experiment in EXPERIMENTS:
        seats = finding(section(summary, experiment), "Seat advantage.")
        assert seats.startswith("The start player wins clearly more than a fair share at every player count")
        for players in (2, 3, 4, 5):
            assert_start_advantage_above_zero(seats, players)
    compared = section(summary, "Kaleido: the experiments compared")
    by_experiment = re.findall(r"\| \d \| kal_rotation \(greedy, rotator\) \| (.*?) \|", compared)
    assert len(by_experiment) == 4 and all(a.startswith("+") for a in by_experiment)


def test_summary_names_what_rotation_is_worth(summary):
    rotation = finding(section(summary, "kal_rotation"), "Rotation.")
    assert rotation.startswith("Turning scored boards is worth +")
    assert ("measured as rotator against greedy in the games where both played: the two alone at 2 players and only "
            "the two (one of them at several seats) at 3, 4 and 5 players;") in rotation
    for players in (2, 3, 4, 5):
        match = re.search(rf"\| {players} \| (?:[\d,]+ \| )?([+-][\d.]+) pp \| ([+-][\d.]+) to ([+-][\d.]+) pp \| "
                          r"([+-][\d.]+) \| ([+-][\d.]+) to ([+-][\d.]+) \|", rotation)
        assert match, f"no rotation numbers at {players} players"
        diff, lo, hi, points, points_lo, points_hi = map(float, match.groups())
        assert 0 < lo < diff < hi
        assert 8 < points_lo < points < points_hi < 12 and abs(points - 10) < 1.2
    assert "rotator wins clearly more often at every player count" in rotation
    assert "The points difference lies in the end-game hexagons" in rotation
    tournament = finding(section(summary, "kal_tournament"), "Rotation.")
    assert tournament.startswith("Turning scored boards is worth +")
    assert "with the other seats taken from " in tournament  # at 3 to 5 players they meet the rest of the pool
    differences = re.findall(r"\| \d \| (?:[\d,]+ \| )?(.*?) pp \|", tournament)
    assert differences and all(diff.startswith("+") for diff in differences)


def test_summary_names_the_stalls_and_who_they_hurt(summary, numbers):
    for experiment in EXPERIMENTS:
        part = section(summary, experiment)
        match = re.search(r"Stalls\. The rules stall in ([\d.]+)% of 5-player games and in ", part)
        assert match, f"no stall finding in {experiment}"
        (stalls,) = select(numbers, experiment=experiment, players=5, metric="stall_rate")
        assert stalls["games"] == 700 and match.group(1) + "%" == pct(stalls["estimate"])
        assert stalls["low"] < stalls["estimate"] < stalls["high"] and 0.55 < stalls["estimate"] < 0.65
        assert re.search(r"in stalled games the players left holding tiles win [\d.]+% to [\d.]+% of the time, "
                         r"against [\d.]+% to [\d.]+% for the players of the same games who had placed all their "
                         r"tiles, by player count \(intervals apart at every player count with both\)", part)


def test_summary_says_where_the_points_come_from(summary):
    for experiment in EXPERIMENTS:
        points = finding(section(summary, experiment), "Points.")
        assert re.search(r"^The end-game hexagons bring [\d.]+% to [\d.]+% of all points", points)
        assert re.search(r"\| 2 \| [\d.]+% \| [\d.]+–[\d.]+% \|", points)
        assert "rotator takes the largest share of its points from them at every player count" in points
    assert "hoarder uses the fewest white tiles at every player count (0.0% of its white tiles)" in section(
        summary, "kal_tournament")


def test_rotation_value_pairs_rotator_and_greedy_in_the_same_games():
    rows = resultsdir.two_player_games(
        [0, 0, 1],
        strategy=["rotator", "greedy", "greedy", "rotator", "rotator", "random"],  # game 2: no greedy
        win=[1.0, 0.0, 0.5, 0.5, 1.0, 0.0],
        endgame_points=[30, 20, 24, 26, 40, 0],
        midgame_points=[10, 10, 12, 12, 0, 0],
    )
    result = rotation_value(rows).row(0, named=True)
    assert (result["games"], result["deals"], result["rot_seats"]) == (2, 1, 2)
    assert result["share"] == pytest.approx(0.75) and result["base_share"] == pytest.approx(0.25)
    assert result["diff"] == pytest.approx(0.5) and result["end_diff"] == pytest.approx(6.0)
    assert result["mid_diff"] == pytest.approx(0.0)
    # one deal: nothing to measure the spread between deals by, so no interval
    assert all(math.isnan(result[k]) for k in ("diff_lo", "diff_hi", "end_diff_lo", "end_diff_hi"))
    assert result["others"] == [] and result["one_each"]  # game 2 has no greedy, so it does not count
    assert rotation_value(rows.filter(pl.col("strategy") != "rotator")).is_empty()
    crowded = synthetic_kaleido(3, 60, 5, TOURNAMENT, "t", positions=False)
    assert (rotation_value(crowded)["others"].list.len() > 0).all()  # the two meet the rest of the pool


def test_comebacks_are_told_apart_from_broken_ties():
    rows = resultsdir.two_player_games(
        [0, 1, 2],
        midgame_points=[10, 5, 8, 8, 9, 3],
        win=[0.0, 1.0, 1.0, 0.0, 1.0, 0.0],  # comeback; tie for the lead broken; leader wins
    )
    result = COMEBACKS.compute(GameData("kaleido", rows, [], Path())).row(0, named=True)
    assert (result["games"], result["comebacks"], result["settled_games"]) == (3, 1, 1)


def test_stalls_count_games_and_the_players_left_holding_tiles():
    rows = synthetic_kaleido(4, 400, 1, ROTATION, "e", positions=False).with_columns(tiles_each=pl.lit(TILES[4]))
    stalls = stall_rates(rows).row(0, named=True)
    stalled_games = rows.filter(pl.col("stalled"))["game_id"].n_unique()
    assert stalls["stalls"] == stalled_games and stalls["games"] == 400
    assert stalls["stuck"] == stalled_games and stalls["left_per_stuck"] == pytest.approx(1.0)
    assert stalls["stuck_share"] == pytest.approx(0.25)
    winners = stall_winners(rows).row(0, named=True)
    assert winners["stuck_n"] == stalled_games and winners["free_n"] == 3 * stalled_games
    assert winners["stuck"] < winners["free"]


def test_stall_rates_resample_deals_not_games():
    rows = synthetic_kaleido(4, 2000, 3, TOURNAMENT, "e", positions=False)  # five seatings of each of 400 deals
    by_deal = np.random.default_rng(0).random(rows["deal"].max() + 1) < 0.3  # every seating of a deal stalls alike
    rows = rows.with_columns(stalled=pl.Series(by_deal[rows["deal"].to_numpy()]), tiles_each=pl.lit(TILES[4]))
    stalls = stall_rates(rows).row(0, named=True)
    lo, hi = wilson(stalls["stalls"], stalls["games"])
    assert stalls["rate_hi"] - stalls["rate_lo"] > 1.8 * (hi - lo)  # about √5 times the width of games as trials


OWN_METRICS = {"endgame_points_share", "comeback_share", "midgame_tie_broken_share", "stall_rate", "stalled_win_share",
               "board_unplaced_share", "boards_placed", "white_tiles_used", "rotation_win_share_difference"}


def test_kaleido_intervals_resample_deals(numbers):
    own = [r for r in numbers if r["game"] == "kaleido" and r["metric"] in OWN_METRICS]
    assert {r["metric"] for r in own} == OWN_METRICS
    for r in own:
        assert r["method"] in ("cluster_t", "paired_cluster_t") and r["cluster"] == "deal", r
        assert "independent" not in r["method"], r
        assert r["low"] <= r["estimate"] <= r["high"]
    unplaced = [r for r in own if r["metric"] == "board_unplaced_share"]
    assert unplaced and all(r["low"] < r["estimate"] < r["high"] for r in unplaced)


def test_stalls_by_strategy_compares_games_with_and_without_it():
    rows = resultsdir.two_player_games(
        [0, 1, 2, 3],
        strategy=["random", "greedy", "random", "greedy", "greedy", "rotator", "greedy", "rotator"],
        stalled=[True, True, True, True, False, False, True, True],
    )
    result = {r["strategy"]: r for r in stalls_by_strategy(rows).iter_rows(named=True)}
    assert "greedy" not in result  # greedy is in every game: nothing to compare
    assert (result["random"]["with"], result["random"]["without"]) == (1.0, 0.5)
    assert (result["rotator"]["with_n"], result["rotator"]["without_n"]) == (2, 2)


def test_board_cells_share_is_per_game_and_ignores_experiments_without_positions(tmp_path):
    with_positions = synthetic_kaleido(3, 200, 2, ROTATION, "a")
    without = synthetic_kaleido(3, 200, 3, ROTATION, "b", positions=False)
    rows = pl.concat([with_positions, without], how="diagonal_relaxed")
    assert experiments_without_positions(rows) == ["b"]
    cells = board_cells(rows)
    assert cells["games"].unique().to_list() == [200]
    assert cells["boards"].sum() == with_positions["boards_placed"].sum()
    assert cells["share"].sum() == pytest.approx(with_positions["boards_placed"].sum() / 200)
    # experiment by experiment, as the report maps them: the one without positions gets no map
    mapped = board_map(game_data(with_positions, "kaleido", tmp_path / "a"))
    cell = ["players", "board_q", "board_r"]
    assert mapped["missing"] == [] and mapped["cells"].sort(cell).equals(cells.sort(cell))
    assert board_map(game_data(without, "kaleido", tmp_path / "b")) is None


def test_section_without_rotator_or_positions_says_so(tmp_path):
    rows = synthetic_kaleido(3, 300, 4, ["greedy", "random"], "e", positions=False)
    _, text = resultsdir.run_alone(rows, "kaleido", tmp_path, REPORT.analyses)
    assert "No game in these data has both rotator and greedy" in text
    assert "These results carry no board positions" in text
    assert not (tmp_path / "e_rotation.png").exists()  # charts are named after their experiment
    assert not (tmp_path / "e_board_map.png").exists()
    for chart in ("e_points_split.png", "e_stalls.png", "e_seat_heatmap.png"):
        assert (tmp_path / chart).exists()


def test_stuck_players_follow_the_tiles_each_fact_of_the_manifest(tmp_path):
    rows = synthetic_kaleido(4, 400, 1, ROTATION, "e", positions=False)
    real = stalls(game_data(rows, "kaleido", tmp_path / "real"))
    assert real["rates"]["stuck"][0] == rows.filter(pl.col("stalled"))["game_id"].n_unique() > 0
    assert "a full game places 11 tiles each at 4 players" in STALL_ANALYSIS.intro(real, None)
    facts = {"tiles_each": 9, "boards_each": 2, "whites_each": 2, "colours": ["a"] * 4, "starting_boards": [[0, 0]]}
    short = stalls(game_data(rows, "kaleido", tmp_path / "short", facts=lambda p: facts))
    assert short["rates"]["stuck"][0] == 0  # every player placed 10 or 11 tiles: none short of 9
    assert short["winners"]["stuck_n"][0] == 0 and "9 tiles each at 4 players" in STALL_ANALYSIS.intro(short, None)


def test_stalls_are_compared_with_games_where_every_seat_places_its_boards(tmp_path):
    # random places every board and its games never stall; greedy keeps boards back and its games stall
    rows = pl.DataFrame({"experiment": ["e"] * 8, "game_id": [0, 0, 1, 1, 2, 2, 3, 3],
                         "deal": [0, 0, 1, 1, 2, 2, 3, 3], "players": [2] * 8,
                         "seat": [0, 1] * 4, "strategy": ["random", "random"] * 2 + ["random", "greedy"] * 2,
                         "boards_placed": [4, 4, 4, 4, 4, 2, 4, 3], "boards_each": [4] * 8, "turns": [22] * 8,
                         "tiles_each": [22] * 8, "win": [1.0, 0.0] * 4, "stalled": [False] * 4 + [True] * 4})
    data = game_data(rows.drop("boards_each", "tiles_each"), "kaleido", tmp_path)
    result = stalls(data)
    assert result["keepers"].filter(pl.col("keeps"))["strategy"].to_list() == ["greedy"]
    lineup = result["lineups"].row(0, named=True)
    assert (lineup["placers_n"], lineup["placers"], lineup["keepers_n"], lineup["keepers"]) == (2, 0.0, 2, 1.0)
    text = STALL_ANALYSIS.finding(result, data).text
    assert ("Games with only random at the table stall in 0.0% of games, against 100.0% of the games that seat a "
            "strategy ending some games with a board unplaced (greedy ends 100.0% of its games with a board unplaced; "
            "intervals not apart)") in text  # two games of each kind are too few to tell them apart


def test_a_section_where_nothing_stalls_says_so_in_one_line_without_a_table(tmp_path):
    rows = synthetic_kaleido(3, 300, 4, ["greedy", "random"], "e", positions=False).with_columns(stalled=pl.lit(False))
    data = game_data(rows, "kaleido", tmp_path)
    stalled = STALL_ANALYSIS.finding(stalls(data), data)
    assert (stalled.text, stalled.table) == ("No game stalls, at any player count.", None)
    [rate] = select(list(stalled.numbers), metric="stall_rate")  # the overview's rule holes still count them
    assert (rate["stalls"], rate["games"], rate["estimate"]) == (0, 300, 0.0)


def test_every_number_of_the_summary_is_in_findings_json(report):
    from resultsdir import unrecorded_numbers

    assert unrecorded_numbers(report.parent) == []
