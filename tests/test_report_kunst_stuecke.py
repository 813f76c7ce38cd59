"""The Kunst Stücke report section, on synthetic results with planted effects.

Planted: a target tile of size 1 comes true 90% of the time, falling to 20% for 6+ (SUCCESS); slider spends every
chip it has, the others 0 to 2, and each chip slider starts with adds 3 points to its tiles' chance of coming true,
so its win share rises in the chips sweep; each strategy discards a fixed number of pieces (DISCARDS); random never
looks in a fifth of its games; planner looks from turn 0, planner@6 from turn 6 (10–25% of the game).
"""

import copy
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import resultsdir
from resultsdir import (
    finding,
    game_data,
    report_fixtures,
    seat_columns,
    section,
    unrecorded_numbers,
    write_experiment,
)

from reports import build
from reports.analysis import GameData
from reports.kunst_stuecke import ANALYSES, discards
from reports.kunst_stuecke import COMPARED as ACROSS  # the analyses across experiments
from reports.kunst_stuecke.chips_sweep import sweep, sweep_experiments, sweep_finding
from reports.kunst_stuecke.looks import LOOKS, with_look_timing
from reports.kunst_stuecke.spending import SPENDING, SPENDING_TREND, with_spent
from reports.kunst_stuecke.targets import rates, target_finding, targets, tiles
from reports.load import load_results
from reports.spec import pattern

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
                     "kunst_stuecke", headline=True)
    for chips in (0, 5, 10, 15):
        name = f"kunst_stuecke_chips{chips}"
        write_experiment(root / name, [synthetic_kunst(3, 600, 20 + chips, SWEEP, name, chips)], "kunst_stuecke",
                         facts=kunst_facts(chips), params={"chips": chips})
    return root


everything, report, summary = report_fixtures("kunst_stuecke")


def two_players(tmp_path: Path, **columns) -> GameData:
    """A GameData of hand-made 2-player rows (one game and one deal per row: only the columns given matter)."""
    n = len(next(iter(columns.values())))
    rows = pl.DataFrame({"experiment": ["e"] * n, "game_id": list(range(n)), "deal": list(range(n)),
                         "players": pl.Series([2] * n, dtype=pl.Int8), "strategy": ["a"] * n, **columns})
    return game_data(rows, "kunst_stuecke", tmp_path)


def groups_of(buckets: list[tuple[str, int, float, float, float]], players: int = 2, **columns) -> pl.DataFrame:
    """Hand-made groups as Buckets.compute() gives them: (bucket, player results, × fair, low, high) in order."""
    n = len(buckets)
    return pl.DataFrame({
        "players": pl.Series([players] * n, dtype=pl.Int8), "bucket_index": list(range(1, n + 1)),
        "bucket": [b[0] for b in buckets], "n": [b[1] for b in buckets], "games": [b[1] for b in buckets],
        "vs_fair": [b[2] for b in buckets], "vs_fair_lo": [b[3] for b in buckets],
        "vs_fair_hi": [b[4] for b in buckets], "correct": [0.4] * n, "correct_lo": [0.35] * n,
        "correct_hi": [0.45] * n, "method": ["cluster_t"] * n,
        "who": [[{"strategy": "a", "share": 1.0}]] * n, **columns})


def test_the_section_builds_end_to_end_with_its_charts(report, summary):
    page = (report.parent / "kunst_stuecke.html").read_text()
    charts = [f"kunst_stuecke_tournament_{chart}.png" for chart in CHARTS]  # the headline experiment's alone
    assert summary.startswith("# Balance report: Kunst Stücke")
    assert "\n## Kunst Stücke\n" in summary
    for experiment in EXPERIMENTS:
        for label in LABELS:
            assert f"- {label} " in section(summary, experiment), (experiment, label)
    # the chips sweep compares the chips experiments, so it belongs with the experiments compared
    for experiment in EXPERIMENTS[1:]:  # the chips experiments keep their tables: the sweep charts them
        assert not any((report.parent / f"{experiment}_{chart}.png").exists() for chart in CHARTS), experiment
    for chart in [*charts, "kunst_stuecke_compared_chips_sweep.png"]:
        assert (report.parent / chart).stat().st_size > 10_000, chart
        assert f'src="{chart}"' in page, chart
    assert "- Chips sweep. " in section(summary, COMPARED)


def test_every_number_of_the_summary_is_in_findings_json(report):
    assert unrecorded_numbers(report.parent) == []


def test_summary_names_the_sizes_that_come_true_most_and_least_often(summary):
    for experiment in EXPERIMENTS:
        text = finding(section(summary, experiment), "Target tiles.")
        assert text.startswith("All strategies together, "), experiment
        assert "Most often true: size 1 at " in text and "; least often: size 6+ at " in text, experiment
        assert "Against tiles on a 5-point space, tiles on the 15-point space come true " in text, experiment
        assert "| size 6+ |" in text and "| bonus 15 |" in text, experiment
    tournament = finding(section(summary, "kunst_stuecke_tournament"), "Target tiles.")
    assert "| Tiles | 2 players | 3 players | 4 players | 5 players |" in tournament  # a column per player count


def test_pattern_needs_every_step_one_way_and_the_ends_apart():
    def run(*groups: tuple[float, float, float]) -> str:
        return pattern(pl.DataFrame(groups, schema=["x", "x_lo", "x_hi"], orient="row"), "x")

    assert run((1.0, 0.9, 1.1), (1.2, 1.1, 1.3), (1.5, 1.4, 1.6)) == "rises"
    assert run((1.5, 1.4, 1.6), (1.5, 1.4, 1.6), (1.0, 0.9, 1.1)) == "falls"
    # the example: the two ends alike and high, 1 to 7 chips far lower
    chips = [(1.08, 1.06, 1.09), (0.67, 0.60, 0.74), (0.63, 0.58, 0.69), (0.61, 0.57, 0.65), (0.54, 0.50, 0.59),
             (1.11, 1.08, 1.14)]
    assert run(*chips) == "up and down"
    assert run(*chips[:1], *chips[-1:]) == "flat"  # the ends alone overlap
    assert run((1.0, 0.9, 1.1), (1.05, 0.95, 1.15), (1.1, 1.0, 1.2)) == "flat"  # monotone, ends overlapping
    # the first looks: down within the noise, then clearly up: no steady pattern
    looks = [(1.00, 0.98, 1.01), (0.95, 0.91, 0.99), (1.07, 1.03, 1.11)]
    assert run(*looks) == "uneven"
    assert run((0.54, 0.5, 0.6), (0.57, 0.5, 0.65), (0.53, 0.48, 0.6), (1.9, 1.8, 2.0)) == "uneven"
    assert run((1.0, 0.9, 1.1), (1.5, 1.4, 1.6)) == "higher"  # two groups are a comparison, not a pattern
    assert run((1.5, 1.4, 1.6), (1.0, 0.9, 1.1)) == "lower"
    assert run((1.0, float("nan"), float("nan")), (2.0, 1.9, 2.1), (3.0, 2.9, 3.1)) == "flat"
    assert run((1.0, 0.9, 1.1)) == "single"


def test_the_chips_finding_follows_every_group_not_the_two_ends(tmp_path):
    data = two_players(tmp_path, strategy=["planner", "slider"], win=[1.0, 0.0])
    by_count = groups_of([("0", 34_006, 1.08, 1.06, 1.09), ("1", 1_670, 0.67, 0.60, 0.74),
                          ("2", 2_214, 0.63, 0.58, 0.69), ("3–4", 3_598, 0.61, 0.57, 0.65),
                          ("5–7", 2_399, 0.54, 0.50, 0.59), ("8–10", 11_633, 1.11, 1.08, 1.14)],
                         bucket_index=list(range(6)))
    by_strategy = pl.DataFrame({"players": [2, 2], "strategy": ["planner", "slider"], "spent": [0.0, 9.9],
                                "spent_lo": [0.0, 9.8], "spent_hi": [0.0, 10.0], "most": [0, 10], "games": [5, 5],
                                "method": ["cluster_t", "cluster_t"]})
    text = SPENDING.finding({"by_count": by_count, "profile": by_strategy}, data).text
    assert text.startswith("Who spends is the strategies' choice: planner spent no chip and slider 9.90 chips on "
                           "average; so the groups by chips spent are made of different strategies")
    assert ("Win share goes up and down with the chips spent at 2 players: those who spent 0 chips win 1.08× their "
            "fair share, those who spent 8–10 chips 1.11× and those in between 0.54× to 0.67×.") in text
    assert "more goes with winning more" not in text


def test_summary_says_who_spends_and_how_win_share_runs_with_chips_spent(summary):
    for experiment in EXPERIMENTS:
        chips = finding(section(summary, experiment), "Chips.")
        if experiment == "kunst_stuecke_chips0":
            assert chips.startswith("No player spent a chip, so spending cannot be set against winning here.")
            continue
        each = "15" if experiment == "kunst_stuecke_chips15" else "5" if experiment == "kunst_stuecke_chips5" else "10"
        assert chips.startswith("Who spends is the strategies' choice: ") and f"slider {each}.00" in chips, experiment
        assert any(f"Win share {phrase}" in chips for phrase in SPENDING_TREND.values()), experiment
        assert re.search(r"\| (8–10|5–7|11\+) \| slider 100\.0% \|", chips), experiment  # the group slider makes up
    tournament = finding(section(summary, "kunst_stuecke_tournament"), "Chips.")
    assert ", by player count" in tournament and "| Players | Chips spent | Strategies in the group |" in tournament


def test_the_chips_sweep_says_how_its_experiments_differ_and_follows_each_strategy(summary, everything):
    text = finding(section(summary, COMPARED), "Chips sweep.")
    assert text.startswith("These experiments differ only in the chips each player starts with (0, 5, 10 and 15): "
                           "they play the same pool (random, planner, slider) in the same seatings with the same "
                           "other Params at 3 players, with the same seed.")
    assert re.search(r"[Ff]or (\w+, )*slider( and \w+)? the win share rises with the chips \(slider [\d.]+× to "
                     r"[\d.]+× its fair share", text)
    assert "gains most" not in text and "loses most" not in text  # no verdict from the two ends
    assert sweep_finding(sweep(everything), everything).text == text.split("\n")[0]


def test_tiles_rates_by_size_and_by_bonus(tmp_path):
    data = two_players(tmp_path, space_sizes=[[3, 6, 0, 1, 2], [3, 0, 6, 1, 0]],
                       space_correct=[[True, False, False, True, False], [False, False, True, True, False]])
    taken = tiles(data)
    assert taken.height == 7 and taken["bonus"].to_list() == [15, 10, 5, 5, 15, 10, 5]
    by_size = {r["size"]: (r["n"], r["rate"]) for r in rates(taken, ["players", "size"]).iter_rows(named=True)}
    assert by_size == {1: (2, 1.0), 2: (1, 0.0), 3: (2, 0.5), 6: (2, 0.5)}
    by_bonus = rates(taken, ["players", "bonus"])
    assert by_bonus["rate"].to_list() == pytest.approx([2 / 3, 0.5, 0.5])  # bonus 5, 10, 15
    # two deals: an interval all the same, t on 1 degree of freedom, so wide
    assert (by_bonus["rate_lo"] <= by_bonus["rate"]).all() and (by_bonus["rate"] <= by_bonus["rate_hi"]).all()
    assert ((by_bonus["rate_hi"] - by_bonus["rate_lo"]) > 0.5).all()
    assert by_bonus["method"][0] == "cluster_t"


def test_target_finding_reads_the_rates(tmp_path):
    deals = 20  # enough for a cluster-robust interval
    data = two_players(tmp_path, space_sizes=[[1, 6, 6, 6, 6]] * deals,
                       space_correct=[[True] + [False] * 4] * deals, targets_taken=[5] * deals,
                       targets_correct=[1] * deals, score=[16] * deals)
    found = target_finding(targets(data), data)
    assert found.text == ("All strategies together, 20.0% of target tiles come true. Most often true: size 1 at 2 "
                          "players; least often: size 6+ at 2 players. Against tiles on a 5-point space, tiles on the "
                          "15-point space come true more often at 2 players.")  # 20 of 20 on 15 against 0 of 40 on 5
    assert {(n["metric"], n.get("size"), n.get("bonus"), n["estimate"]) for n in found.numbers} >= {
        ("target_come_true_share", None, None, 0.2), ("target_come_true_share", 1, None, 1.0),
        ("target_come_true_share", None, 15, 1.0), ("target_come_true_share", None, 5, 0.0)}


def test_chips_spent_follows_the_chips_fact(tmp_path):
    data = two_players(tmp_path / "ten", chips_left=[10, 9, 6, 0], win=[1.0, 0.0, 0.5, 0.5],
                       targets_taken=[2, 2, 2, 2], targets_correct=[2, 0, 1, 1])
    spent = with_spent(data)
    assert spent["spent"].to_list() == [0, 1, 4, 10]
    assert spent["bucket"].to_list() == ["0", "1", "3–4", "8–10"]
    by_count = SPENDING.compute(data)["by_count"]
    assert by_count["bucket"].to_list() == ["0", "1", "3–4", "8–10"]
    assert by_count["vs_fair"].to_list() == pytest.approx([2.0, 0.0, 1.0, 1.0])  # win share over 1/2
    assert by_count["correct"].to_list() == pytest.approx([1.0, 0.0, 0.5, 0.5])
    fifteen = game_data(pl.DataFrame({"experiment": ["e"], "game_id": [0], "players": [2], "chips_left": [0]}),
                        "kunst_stuecke", tmp_path / "fifteen", facts=kunst_facts(15))
    assert with_spent(fifteen)["bucket"].to_list() == ["11+"]


def test_first_looks_are_bucketed_by_their_share_of_the_game(tmp_path):
    turns = [-1, 0, 5, 6, 13, 26, 38, 39, 51]  # a 2-player game lasts 52 turns
    timed = with_look_timing(two_players(tmp_path, first_look=turns))
    assert timed["bucket"].to_list() == ["never", "first 10%", "first 10%", "10–25%", "25–50%", "50–75%", "50–75%",
                                         "75–100%", "75–100%"]
    assert timed["look_share"][0] is None and timed["look_share"][3] == pytest.approx(6 / 52)


def test_the_timing_groups_name_their_strategies(summary):
    text = finding(section(summary, "kunst_stuecke_tournament"), "First looks.")
    assert text.startswith("When a player first looks is up to its strategy, so the timing groups are made of "
                           "different strategies (the table gives each group's).")
    for players in (2, 3, 4, 5):  # planner first looks at turn 0, planner@6 at turn 6 of 52 to 55
        assert f"| {players} | first 10% | planner " in text and f"| {players} | 10–25% | planner@6 " in text


def test_discards_per_player_have_clustered_intervals(tmp_path):
    rows = synthetic_kunst(4, 200, 1, TOURNAMENT, "e")
    result = discards.DISCARDS.compute(game_data(rows, "kunst_stuecke", tmp_path))
    assert result["strategy"].to_list() == ["all", *sorted(DISCARDS)]  # 'all' first, then by name
    by_strategy = {r["strategy"]: r for r in result.iter_rows(named=True)}
    for strategy, count in DISCARDS.items():  # a constant: the interval collapses onto it, or nearly
        row = by_strategy[strategy]  # (a count of 0 or 1 reads as a share at 0% or 100%: Wilson on the rows)
        assert row["discards"] == count and row["discards_lo"] <= count <= row["discards_hi"]
        assert row["discards_hi"] - row["discards_lo"] < 0.03
    everyone = by_strategy["all"]
    # every deal seats every strategy equally often, so resampling deals leaves no noise
    assert (everyone["discards_lo"], everyone["discards"], everyone["discards_hi"]) == pytest.approx((1.2,) * 3)
    assert everyone["share"] == pytest.approx(1.2 / 13)
    assert everyone["method"] == "cluster_t"


def test_the_sweep_is_the_experiments_that_differ_only_in_chips(results, everything, tmp_path):
    chips = [f"kunst_stuecke_chips{c}" for c in (0, 5, 10, 15)]
    assert sweep_experiments(everything) == chips
    rows, manifests = load_results(results)
    for data in build.game_data(rows, manifests, tmp_path)["kunst_stuecke"]:  # one experiment alone is no sweep
        assert sweep_experiments(data) == [], data.experiment
    other = copy.deepcopy(everything.manifests)  # one chips experiment on another board is not part of it
    next(m for m in other if m["experiment"] == chips[1])["resolved"]["params"]["3"]["board"] = 12
    assert sweep_experiments(GameData("kunst_stuecke", everything.rows, other, tmp_path)) == [chips[0], *chips[2:]]
    result = ACROSS[0].compute(everything)
    slider = result["by_count"].filter(pl.col("strategy") == "slider").sort("chips")
    assert slider["chips"].to_list() == [0, 5, 10, 15]
    assert slider["vs_fair"][0] < slider["vs_fair"][-1] and slider["vs_fair_hi"][0] < slider["vs_fair_lo"][-1]


def test_a_tournament_alone_says_it_has_no_sweep(tmp_path):
    rows = synthetic_kunst(3, 200, 7, TOURNAMENT, "kunst_stuecke_tournament")
    own, text = resultsdir.run_alone(rows, "kunst_stuecke", tmp_path, [*ANALYSES, *ACROSS])  # its comparisons too
    assert "No chips sweep in these data" in text
    assert not (tmp_path / "kunst_stuecke_tournament_chips_sweep.png").exists()
    for chart in CHARTS:
        assert (tmp_path / f"kunst_stuecke_tournament_{chart}.png").exists(), chart
    assert [f.label for f in own.findings] == ["Target tiles.", "Chips.", "First looks.", "Discards."]
    assert all(f.numbers for f in own.findings)


def test_the_first_look_finding_compares_no_group_of_a_handful_of_players(tmp_path):
    data = two_players(tmp_path, first_look=[0, 1])
    # the example: up, down and up again over the timing, and one group of two players
    by_count = groups_of([("first 10%", 42_969, 1.00, 0.98, 1.01), ("10–25%", 6_077, 0.95, 0.91, 0.99),
                          ("25–50%", 6_472, 1.07, 1.03, 1.11), ("50–75%", 2, 0.0, 0.0, 0.0)])
    text = LOOKS.finding({"by_count": by_count}, data).text
    assert ("Win share differs between the timing groups but does not rise or fall steadily with the timing at 2 "
            "players: those who first look in the first 10% of the game win 1.00× their fair share, those who first "
            "look 25–50% of the way through 1.07× and those in between 0.95×.") in text
    assert text.endswith("Groups of fewer than a hundred player results are shown but not compared: 50–75% at 2 "
                         "players.")
    assert "costs" not in text and "pays" not in text
    two = LOOKS.finding({"by_count": by_count.slice(0, 2).with_columns(vs_fair_hi=pl.Series([1.01, 1.02]))}, data)
    assert "does not differ clearly with the timing of the first look at 2 players" in two.text
