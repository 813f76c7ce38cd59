"""The Kunst Stücke report section, on synthetic results with planted effects.

Planted: a target tile of size 1 comes true 90% of the time, falling to 20% for 6+ (SUCCESS); slider spends every
chip it has and each chip it starts with adds 3 points to its tiles' chance of coming true, so it gains most in the
chips sweep; each strategy discards a fixed number of pieces (DISCARDS); random never looks in a fifth of its games.
"""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from resultsdir import finding, game_data, report_fixtures, seat_columns, section, write_experiment

from reports import build
from reports.analysis import run_section
from reports.kunst_stuecke import (
    ANALYSES,
    correct_rates,
    discards,
    look_finding,
    spending,
    sweep,
    sweep_experiments,
    sweep_finding,
    target_finding,
    targets,
    tiles,
    with_look_timing,
    with_spent,
)
from reports.kunst_stuecke import COMPARED as ACROSS  # the analyses across experiments
from reports.load import load_results
from reports.stats import wilson

TOURNAMENT = ["random", "planner", "planner@6", "slider", "spoiler"]
SWEEP = ["random", "planner", "slider"]
SUCCESS = np.array([0.0, 0.9, 0.8, 0.6, 0.5, 0.3, 0.2])  # by size; 6 = 6+
DISCARDS = {"random": 1, "planner": 0, "planner@6": 0, "slider": 3, "spoiler": 2}
SPACES = np.array([15, 10, 10, 5, 5])
PIECES = {2: 26, 3: 18, 4: 13, 5: 11}
EXPERIMENTS = ["kunst_stuecke_tournament", *(f"kunst_stuecke_chips{chips}" for chips in (0, 5, 10, 15))]
CHARTS = ["targets", "chips_spent", "first_looks", "discards"]  # every experiment's, as <experiment>_<chart>.png
LABELS = ("Target tiles.", "Chips.", "First looks.", "Discards.")  # every experiment's own findings
COMPARED = "Kunst Stücke: the experiments compared"  # the section that holds the chips sweep, across experiments


def synthetic_kunst(players: int, games: int, seed: int, strategies: list[str], experiment: str,
                    chips: int = 10) -> pl.DataFrame:
    """Kunst Stücke-shaped rows with the planted effects above; the highest score wins, ties share. Strategies
    rotate through the seats."""
    rng = np.random.default_rng(seed)
    g = np.arange(games)[:, None]
    seat = np.broadcast_to(np.arange(players), (games, players))
    strategy = np.array(strategies)[(seat + g) % len(strategies)]
    slider = strategy == "slider"
    looks = ~((strategy == "random") & (rng.random((games, players)) < 0.2))
    taken = (rng.random((games, players, 5)) < 0.8) & looks[..., None]
    sizes = rng.integers(1, 7, (games, players, 5)) * taken
    chance = SUCCESS[sizes] + 0.03 * chips * slider[..., None]
    correct = taken & (rng.random((games, players, 5)) < chance)
    score = (correct * (sizes + SPACES)).sum(axis=2)
    best = score.max(axis=1, keepdims=True)
    win = (score == best) / (score == best).sum(axis=1, keepdims=True)
    rank = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)
    turns = players * PIECES[players]
    first_look = np.select([strategy == "planner", strategy == "planner@6"], [0, 6],
                           rng.integers(0, turns, (games, players)))
    spent = np.where(slider, chips, rng.integers(0, min(chips, 2) + 1, (games, players)))
    n = games * players
    flat_sizes, flat_correct = sizes.reshape(n, 5), correct.reshape(n, 5)
    return pl.DataFrame({
        **seat_columns(experiment, "kunst_stuecke", players, len(strategies), strategy, score, rank, win),
        "config_hash": np.full(n, "ks123"),
        "targets_taken": taken.sum(axis=2).ravel().astype(np.int8),
        "targets_correct": correct.sum(axis=2).ravel().astype(np.int8),
        "target_points": score.ravel().astype(np.int32),
        "chips_left": (chips - spent).ravel().astype(np.int16),
        "discards": np.vectorize(DISCARDS.get)(strategy).ravel().astype(np.int8),
        "first_look": np.where(looks, first_look, -1).ravel().astype(np.int16),
    }).with_columns(
        aimed_sizes=pl.Series([[int(s) for s in row if s] for row in flat_sizes], dtype=pl.List(pl.Int8)),
        space_sizes=pl.Series(flat_sizes.tolist(), dtype=pl.List(pl.Int8)),
        space_correct=pl.Series(flat_correct.tolist(), dtype=pl.List(pl.Boolean)))


def kunst_facts(chips: int):
    return lambda p: {"colours": ["red", "yellow", "green", "blue", "purple"], "pieces_each": PIECES[p],
                      "chips": chips, "spaces": SPACES.tolist(), "shapes": ["L5"] * 12}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """A tournament at 2 to 5 players and a chips sweep (0, 5, 10, 15 chips) at 3 players."""
    root = tmp_path_factory.mktemp("kunst_results")
    write_experiment(root / "kunst_stuecke_tournament",
                     [synthetic_kunst(p, 300, p, TOURNAMENT, "kunst_stuecke_tournament") for p in (2, 3, 4, 5)],
                     "kunst_stuecke")
    for chips in (0, 5, 10, 15):
        name = f"kunst_stuecke_chips{chips}"
        write_experiment(root / name, [synthetic_kunst(3, 600, 20 + chips, SWEEP, name, chips)], "kunst_stuecke",
                         facts=kunst_facts(chips))
    return root


everything, report, summary = report_fixtures("kunst_stuecke")


def two_players(tmp_path: Path, **columns) -> object:
    """A GameData of hand-made 2-player rows (one game per row: only the columns given matter)."""
    n = len(next(iter(columns.values())))
    rows = pl.DataFrame({"experiment": ["e"] * n, "game_id": list(range(n)), "players": [2] * n,
                         "strategy": ["a"] * n, **columns})
    return game_data(rows, "kunst_stuecke", tmp_path)


def test_the_section_builds_end_to_end_with_its_charts(report, summary):
    page = (report.parent / "kunst_stuecke.html").read_text()
    charts = [f"{experiment}_{chart}.png" for experiment in EXPERIMENTS for chart in CHARTS]
    assert summary.startswith("# Balance report: Kunst Stücke")
    assert "\n## Kunst Stücke\n" in summary
    for experiment in EXPERIMENTS:
        for label in LABELS:
            assert f"- {label} " in section(summary, experiment), (experiment, label)
    # the chips sweep compares the chips experiments, so it belongs with the experiments compared
    for chart in [*charts, "kunst_stuecke_compared_chips_sweep.png"]:
        assert (report.parent / chart).stat().st_size > 10_000, chart
        assert f'src="{chart}"' in page, chart
    assert "- Chips sweep. " in section(summary, COMPARED)


def test_summary_names_the_surest_and_least_sure_targets(summary):
    for experiment in EXPERIMENTS:
        text = finding(section(summary, experiment), "Target tiles.")
        assert "the surest are size 1 (" in text and "the least sure size 6+ (" in text, experiment
        assert "Tiles with a 15-point bonus come true in" in text and "with a 5-point bonus" in text, experiment


def test_summary_says_spending_goes_with_winning_and_slider_gains_from_chips(summary, everything):
    for experiment in EXPERIMENTS:
        chips = finding(section(summary, experiment), "Chips.")
        if experiment == "kunst_stuecke_chips0":
            assert chips.startswith("Every player spent 0 chips, so spending cannot be set against winning here.")
        else:
            assert "spending more goes with winning more" in chips, experiment
    text = sweep_finding(sweep(everything), everything).text  # the sweep needs every chips experiment at once
    assert text.startswith("With 0 chips each, players score") and "with 15 chips," in text
    assert "Of the strategies, slider gains most from more chips" in text and "loses most" in text


def test_tiles_rates_by_size_and_by_bonus(tmp_path):
    data = two_players(tmp_path, space_sizes=[[3, 6, 0, 1, 2], [3, 0, 6, 1, 0]],
                       space_correct=[[True, False, False, True, False], [False, False, True, True, False]])
    taken = tiles(data)
    assert taken.height == 7 and taken["bonus"].to_list() == [15, 10, 5, 5, 15, 10, 5]
    by_size = {r["size"]: (r["tiles"], r["rate"]) for r in correct_rates(taken, ["size"]).iter_rows(named=True)}
    assert by_size == {1: (2, 1.0), 2: (1, 0.0), 3: (2, 0.5), 6: (2, 0.5)}
    by_bonus = correct_rates(taken, ["bonus"])
    assert by_bonus["rate"].to_list() == pytest.approx([2 / 3, 0.5, 0.5])
    assert (by_bonus["lo"][0], by_bonus["hi"][0]) == pytest.approx(wilson(2, 3))


def test_target_finding_reads_the_rates(tmp_path):
    data = two_players(tmp_path, space_sizes=[[1, 6, 6, 6, 6]] * 4, space_correct=[[True] + [False] * 4] * 4,
                       targets_taken=[5] * 4, targets_correct=[1] * 4, score=[16] * 4)
    text = target_finding(targets(data), data).text
    assert text.startswith("20.0% of target tiles come true; the surest are size 1 (100.0%) and the least sure size "
                           "6+ (0.0%).")
    assert "players keep their surest targets for the biggest bonus" in text  # 4 of 4 on 15 against 0 of 8 on 5


def test_chips_spent_follows_the_chips_fact(tmp_path):
    data = two_players(tmp_path / "ten", chips_left=[10, 9, 6, 0], win=[1.0, 0.0, 0.5, 0.5],
                       targets_taken=[2, 2, 2, 2], targets_correct=[2, 0, 1, 1])
    spent = with_spent(data)
    assert spent["spent"].to_list() == [0, 1, 4, 10]
    assert spent["bucket"].to_list() == ["0", "1", "3–4", "8–10"]
    pooled = spending(data)["pooled"]
    assert pooled["bucket"].to_list() == ["0", "1", "3–4", "8–10"]
    assert pooled["vs_fair"].to_list() == pytest.approx([2.0, 0.0, 1.0, 1.0])  # win share over 1/2
    assert pooled["correct"].to_list() == pytest.approx([1.0, 0.0, 0.5, 0.5])
    fifteen = game_data(pl.DataFrame({"experiment": ["e"], "game_id": [0], "players": [2], "chips_left": [0]}),
                        "kunst_stuecke", tmp_path / "fifteen", facts=kunst_facts(15))
    assert with_spent(fifteen)["bucket"].to_list() == ["11+"]


def test_first_looks_are_bucketed_by_their_share_of_the_game(tmp_path):
    turns = [-1, 0, 5, 6, 13, 26, 38, 39, 51]  # a 2-player game lasts 52 turns
    timed = with_look_timing(two_players(tmp_path, first_look=turns))
    assert timed["bucket"].to_list() == ["never", "first 10%", "first 10%", "10–25%", "25–50%", "50–75%", "50–75%",
                                         "last 25%", "last 25%"]
    assert timed["look_share"][0] is None and timed["look_share"][3] == pytest.approx(6 / 52)


def test_discards_per_player_have_bootstrap_intervals(tmp_path):
    rows = synthetic_kunst(4, 200, 1, TOURNAMENT, "e")
    result = discards(game_data(rows, "kunst_stuecke", tmp_path))
    by_strategy = {r["strategy"]: r for r in result.iter_rows(named=True)}
    for strategy, count in DISCARDS.items():  # a constant: the interval collapses onto it
        row = by_strategy[strategy]
        assert (row["discards_lo"], row["discards"], row["discards_hi"]) == pytest.approx((count,) * 3)
    everyone = by_strategy["all"]
    assert everyone["discards"] == pytest.approx(1.2)  # every strategy sits equally often
    assert everyone["discards_lo"] < 1.2 < everyone["discards_hi"]
    assert everyone["share"] == pytest.approx(1.2 / 13)


def test_the_sweep_is_the_experiments_that_differ_only_in_chips(results, everything, tmp_path):
    assert sweep_experiments(everything) == [f"kunst_stuecke_chips{c}" for c in (0, 5, 10, 15)]
    rows, manifests = load_results(results)
    for data in build.game_data(rows, manifests, tmp_path)["kunst_stuecke"]:  # one experiment alone is no sweep
        assert sweep_experiments(data) == [], data.experiment
    result = ACROSS[0].compute(everything)
    slider = result["pooled"].filter(pl.col("strategy") == "slider").sort("chips")
    assert slider["chips"].to_list() == [0, 5, 10, 15]
    assert slider["vs_fair"][0] < slider["vs_fair"][-1] and slider["vs_fair_hi"][0] < slider["vs_fair_lo"][-1]


def test_a_tournament_alone_says_it_has_no_sweep(tmp_path):
    rows = synthetic_kunst(3, 200, 7, TOURNAMENT, "kunst_stuecke_tournament")
    own = run_section("own", [*ANALYSES, *ACROSS],  # an experiment alone: its comparisons too
                       game_data(rows, "kunst_stuecke", tmp_path))
    text = " ".join(b for b in own.blocks if isinstance(b, str))
    assert "No chips sweep in these data" in text
    assert not (tmp_path / "kunst_stuecke_tournament_chips_sweep.png").exists()
    for chart in CHARTS:
        assert (tmp_path / f"kunst_stuecke_tournament_{chart}.png").exists(), chart
    assert [f.label for f in own.findings] == ["Target tiles.", "Chips.", "First looks.", "Discards."]


def test_the_first_look_finding_compares_no_group_of_a_handful_of_players():
    pooled = pl.DataFrame({
        "bucket": ["first 10%", "10–25%", "50–75%"], "bucket_index": [1, 2, 4], "n": [1000, 800, 5],
        "vs_fair": [1.0, 0.98, 0.0], "vs_fair_lo": [0.95, 0.9, 0.0], "vs_fair_hi": [1.05, 1.06, 0.0],
        "correct": [0.4, 0.38, 0.2], "correct_lo": [0.37, 0.35, 0.08], "correct_hi": [0.43, 0.41, 0.42]})
    finding = look_finding({"pooled": pooled}, None)
    assert "10–25%" in finding.text and "50–75%" not in finding.text  # 5 players are shown, not compared
    assert "no clear difference" in finding.text
