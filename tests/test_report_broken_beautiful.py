"""The Broken and Beautiful report section, on synthetic results with planted effects.

Planted: the start player (seat 0) gets 2 extra tray points; "greedy-no-teapot" scores no teapot points
(everyone else averages 6.5), so it loses far more often than greedy; "greedy-no-cup" moves its cup points
to plates, so its scores are distributed exactly like greedy's and its win share should not change. Every
seating of the strategies is played in turn, so each meets every other from every seat equally often.
Restricted play is also tested on deals played under every seating (pool_deals), where pairing pays.
"""

import json
import re
from itertools import permutations
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import resultsdir
from matplotlib.figure import Figure
from resultsdir import BB_TYPES as TYPES
from resultsdir import (
    assert_start_advantage_above_zero,
    finding,
    game_data,
    section,
    unrecorded_numbers,
    write_experiment,
)
from test_report import synthetic_games

from reports.analysis import run_section
from reports.broken_beautiful import REPORT
from reports.broken_beautiful.marker import rounds_led
from reports.broken_beautiful.restricted_play import restricted, restricted_finding, restricted_play
from reports.build import build_report
from reports.charts import bars_with_ci
from reports.handicap import NONE, Compensation, rescore
from reports.restricted import variants
from reports.stats import ratio_ci

STRATEGIES = ["greedy", "greedy-no-teapot", "greedy-no-cup", "banker"]
ROUNDS = {2: 9, 3: 6, 4: 5}
EXPERIMENTS = {players: f"bb{players}" for players in ROUNDS}  # one experiment per player count
CHARTS = ["seat_win_share", "strategy_win_share", "handicaps", "points_by_type", "breakage", "ingots",
          "restricted_play"]  # every experiment's, as <experiment>_<chart>.png
LABELS = ("First player marker.", "Points by type.", "Breakage and repair.", "Ingots held at the end.",
          "Restricted play (which card types matter).")  # the game's own findings


def synthetic_bb(players: int, games: int, seed: int, strategies: list[str] = STRATEGIES) -> pl.DataFrame:
    """Broken-and-Beautiful-shaped rows with the planted effects described above; highest key wins. Game g plays
    the g-th seating of the strategies (every ordered choice of `players` of them, in turn)."""
    rng = np.random.default_rng(seed)
    lineups = np.array(list(permutations(range(len(strategies)), players)))
    seat = np.broadcast_to(np.arange(players), (games, players))
    strategy = np.array(strategies)[lineups[np.arange(games) % len(lineups)]]
    t = {kind: i for i, kind in enumerate(TYPES)}
    points = rng.integers(0, 6, (games, players, len(TYPES)))
    points[..., t["teapot"]] += 4
    points[..., t["teapot"]] *= strategy != "greedy-no-teapot"
    no_cup = strategy == "greedy-no-cup"
    points[..., t["plate"]] += no_cup * points[..., t["cup"]]
    points[..., t["cup"]] *= ~no_cup
    points[..., t["tray"]] += 2 * (seat == 0)
    ingots = rng.integers(0, 8, (games, players))
    points[..., t["box"]] = np.where(rng.random((games, players)) < 0.3, np.minimum(ingots, 4), 0)
    broken = rng.integers(0, 3, (games, players))
    repaired = rng.integers(0, 4, (games, players))
    items = broken + repaired + rng.integers(3, 10, (games, players))
    score = points.sum(axis=2)
    key = (score * 1000 + repaired) * 1000 + items
    best = key.max(axis=1, keepdims=True)
    win = (key == best) / (key == best).sum(axis=1, keepdims=True)
    rank = 1 + (key[:, None, :] > key[:, :, None]).sum(axis=2)
    n = games * players
    columns = {
        "experiment": np.full(n, f"bb{players}"),
        "config_hash": np.full(n, "def456"),
        "game": np.full(n, "broken_beautiful"),
        "players": np.full(n, players),
        "game_id": np.repeat(np.arange(games), players),
        "deal": np.repeat(np.arange(games), players),
        "lineup": np.zeros(n, dtype=int),
        "seat": seat.ravel(),
        "player": seat.ravel(),
        "strategy": strategy.ravel(),
        "score": score.ravel(),
        "rank": rank.ravel(),
        "win": win.ravel(),
        "rounds": np.full(n, ROUNDS[players]),
        "ingots": ingots.ravel(),
        "repaired": repaired.ravel(),
        "broken": broken.ravel(),
        "items": items.ravel(),
        **{f"points_{kind}": points[..., i].ravel() for i, kind in enumerate(TYPES)},
    }
    return pl.DataFrame(columns)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A report over a folder holding both games: three Broken and Beautiful experiments and one Kintsugi."""
    root = tmp_path_factory.mktemp("bb_results")
    for players in (2, 3, 4):
        write_experiment(root / f"bb{players}", [synthetic_bb(players, 2000, seed=players)], "broken_beautiful")
    write_experiment(root / "kintsugi3", [synthetic_games(3, 600, seed=3)], "kintsugi")
    return build_report(root, tmp_path_factory.mktemp("bb_report"))


@pytest.fixture(scope="module")
def summary(report) -> str:
    return (report.parent / "summary.md").read_text().replace("**", "")  # content, not emphasis


def test_both_games_get_their_pages_and_charts(report, summary):
    bb, kintsugi = ((report.parent / f"{game}.html").read_text() for game in ("broken_beautiful", "kintsugi"))
    charts = [(bb, f"{experiment}_{chart}.png") for experiment in EXPERIMENTS.values() for chart in CHARTS]
    for page, chart in [*charts, (kintsugi, "synthetic3_guess_accuracy.png"),
                        (kintsugi, "synthetic3_seat_win_share.png")]:
        assert (report.parent / chart).stat().st_size > 10_000, chart
        assert f'src="{chart}"' in page, chart
    assert summary.startswith("# Balance report: Broken and Beautiful, Kintsugi")
    assert "\n## Broken and Beautiful\n" in summary and "\n## Kintsugi\n" in summary
    for experiment in EXPERIMENTS.values():
        for label in LABELS:
            assert f"- {label} " in section(summary, experiment), (experiment, label)
    assert "- Guessing accuracy. " in section(summary, "synthetic3")


def test_score_direction_is_read_per_game(report):
    bb, kintsugi = ((report.parent / f"{game}.html").read_text() for game in ("broken_beautiful", "kintsugi"))
    higher = "In this game higher scores win, so a positive score gap favours the start player."
    lower = "In this game lower scores win, so a negative score gap favours the start player."
    assert higher in bb and lower not in bb
    assert lower in kintsugi and higher not in kintsugi


def test_summary_names_the_planted_seat_advantage_and_its_compensation(report, summary):
    for players, experiment in EXPERIMENTS.items():
        part = section(summary, experiment)
        seats = finding(part, "Seat advantage.")
        assert seats.startswith(f"The start player wins clearly more than a fair share at {players} players")
        assert_start_advantage_above_zero(seats, players)
        handicaps = finding(part, "Handicaps.")
        assert handicaps.startswith(f"At {players} players this evens every player: ")
        [chosen] = [r for r in json.loads((report.parent / "findings.json").read_text())["records"]
                    if r["metric"] == "compensation" and r["experiment"] == experiment]
        assert abs(chosen["points"][0] - float(np.median(chosen["points"][1:])) + 2) <= 0.5  # the 2 planted
        fair = re.search(r"\| Player 1 \| subtracts (\d(?:\.5)?) \| [\d.]+% \| ([\d.]+)–([\d.]+)% \|", handicaps)
        assert fair, f"no fair handicap for the start player at {players} players"
        points, lo, hi = map(float, fair.groups())
        assert abs(points - 2) <= 0.5 and lo < 100 / players < hi  # the 2 tray points planted
    page = (report.parent / "broken_beautiful.html").read_text()
    assert "At 2 players Player 1 is first player in 5 of the 9 rounds, Player 2 in 4" in page


def test_summary_names_the_planted_restricted_play_effect(summary):
    for players, experiment in EXPERIMENTS.items():
        text = finding(section(summary, experiment), "Restricted play (which card types matter).")
        assert re.match(rf"At {players} players greedy wins [\d.]+% of its games; leaving out teapots changes its "
                        r"win share the most \(", text)
        assert "so teapots are worth wins to greedy." in text
        # one base in one experiment and player count: the table leaves the constant columns out
        match = re.search(r"\| greedy-no-teapot \| [\d.]+% \| (-[\d.]+) pp \| (-[\d.]+) to (-[\d.]+) pp \| "
                          r"(-[\d.]+) to (-[\d.]+) pp \| [\d.]+ \| yes \|", text)
        assert match, f"the planted teapot effect is not in the table at {players} players"
        diff, lo, hi, lo_unpaired, hi_unpaired = map(float, match.groups())
        assert lo < diff < hi < -10 and lo_unpaired < diff < hi_unpaired < -10
        assert "Without cups the change is not clear." in text, players
        # each game is its own deal here: below 4 players a deal leaves out some strategy, at 4 it seats them all
        deals = "the same deals" if players == 4 else "partly different deals"
        assert f"Each variant and greedy play in the same pool on {deals}, but neither ever faces itself" in text


def test_every_number_of_the_summary_is_in_findings_json(report):
    assert unrecorded_numbers(report.parent) == []


def test_summary_says_which_seat_leads_more_rounds(summary):
    texts = {p: finding(section(summary, e), "First player marker.") for p, e in EXPERIMENTS.items()}
    assert "at 2 players Player 1 is first player in one round more than the other players." in texts[2]  # 9 rounds
    assert "at 3 players every player is first player equally often." in texts[3]  # 6 rounds
    assert "at 4 players Player 1 is first player in one round more than the other players." in texts[4]  # 5 rounds


def test_summary_says_where_the_points_come_from(summary):
    for players, experiment in EXPERIMENTS.items():
        part = section(summary, experiment)
        assert f"At {players} players the most points per player come from teapots" in part
        assert "the winner out-scores the other players most on teapots" in part
        assert re.search(rf"Breakage and repair\. At {players} players [\d.]+% of kept items end the game broken", part)
        assert re.search(r"Ingots held at the end\. A player ends the game holding [\d.]+ ingots on average", part)
        assert re.search(rf"\| {players} \| [\d.]+ \| [\d.]+ to [\d.]+ \| [\d.]+% \| [\d.]+–[\d.]+% \|", part)


def test_rescoring_without_compensation_gives_the_recorded_wins(tmp_path):
    rows = synthetic_bb(3, 500, seed=7)
    tie_breakers = game_data(rows, "broken_beautiful", tmp_path).tie_breakers  # as the manifest records them
    assert tie_breakers == ("repaired", "items")
    recorded = rows.select("game_id", "seat", "win").sort("game_id", "seat")
    assert rescore(rows, NONE, False, tie_breakers).sort("game_id", "seat")["win"].to_numpy() == pytest.approx(
        recorded["win"].to_numpy())


def test_handicaps_apply_the_tie_breakers(tmp_path):
    # seat 0 ties on points but has fewer repaired items: it loses; one more point makes it win outright.
    rows = resultsdir.two_player_games([0], seat=[0, 1], score=[10, 10], repaired=[0, 1], items=[5, 5])
    tie_breakers = game_data(rows, "broken_beautiful", tmp_path).tie_breakers
    shares = {points: rescore(rows, Compensation((points, 0)), False, tie_breakers).sort("seat")["win"][0]
              for points in (0, 1, -1)}
    assert shares == {0: 0.0, 1: 1.0, -1: 0.0}


def pool_deals(deals: int, seed: int, players: int = 3) -> pl.DataFrame:
    """Rows of deals each played under every seating of four strategies (pool mode): a deal gives each seat a hand
    worth luck (spread wide, the same under every seating) and every game adds its own small noise; greedy-no-teapot
    scores 2 points less than its hand, the others exactly their hand. Highest score wins."""
    strategies = ["greedy", "greedy-no-teapot", "greedy-no-cup", "banker"]
    rng = np.random.default_rng(seed)
    seatings = np.array(list(permutations(range(len(strategies)), players)))
    games = deals * len(seatings)
    deal = np.arange(games) // len(seatings)
    strategy = np.array(strategies)[seatings[np.arange(games) % len(seatings)]]
    score = rng.normal(0, 10, (deals, players))[deal] - 2 * (strategy == "greedy-no-teapot") \
        + rng.normal(0, 3, (games, players))
    n = games * players
    return pl.DataFrame({"experiment": np.full(n, "pool"), "players": np.full(n, players),
                         "game_id": np.repeat(np.arange(games), players), "deal": np.repeat(deal, players),
                         "seat": np.tile(np.arange(players), games), "strategy": strategy.ravel(),
                         "win": (score == score.max(axis=1, keepdims=True)).ravel().astype(float)})


def test_restricted_play_recovers_the_planted_effect_with_a_paired_interval_narrower_than_the_unpaired(tmp_path):
    rows = pool_deals(60, seed=0)
    data = game_data(rows, "broken_beautiful", tmp_path)
    result = {r["strategy"]: r for r in restricted(data).iter_rows(named=True)}
    truth = restricted_play(pool_deals(2000, seed=1)).filter(
        pl.col("strategy") == "greedy-no-teapot")["estimate"][0]  # the planted effect, from many deals
    teapot, cup = result["greedy-no-teapot"], result["greedy-no-cup"]
    assert teapot["lo"] < truth < teapot["hi"] < 0  # recovered, and clear
    assert cup["lo"] < 0 < cup["hi"]  # no effect planted: none found
    for r in (teapot, cup):  # the hands of a deal are the same under every seating: pairing takes that luck out
        assert r["hi"] - r["lo"] < r["hi_unpaired"] - r["lo_unpaired"] and r["width_ratio"] < 1
        assert r["lo_unpaired"] < r["estimate"] < r["hi_unpaired"]
        assert (r["same_deals"], r["faces_itself"], r["others"]) == (True, False, "mixed")
        # a variant's two opponents come from the other three strategies; greedy's are two of its variants or banker
        assert (r["base_met"], r["variants_met"]) == (pytest.approx(1 / 3), pytest.approx(2 / 3))
        assert r["others_met"] == pytest.approx(1 / 3)  # the other variant
    found = restricted_finding(restricted(data), data)
    met = {(r["strategy"], r["opponent"]): r["estimate"] for r in found.numbers if r["metric"] == "opponent_share"}
    assert met[("greedy-no-teapot", "other greedy-no-TYPE")] == pytest.approx(1 / 3)
    assert met[("greedy", "greedy-no-TYPE")] == pytest.approx(2 / 3)
    text = found.text
    assert ("Each variant and greedy play in the same pool on the same deals, but neither ever faces itself: greedy "
            "holds 33.3% of a variant's opponent seats and greedy's variants hold 66.7% of greedy's") in text
    assert "their other opponents are the pool's other strategies" in text  # banker
    assert "Every paired interval is narrower than the unpaired one" in text


def test_restricted_play_compares_each_variant_with_its_base_on_the_same_rows():
    rows = resultsdir.two_player_games([0, 1, 2, 3], strategy=["greedy", "greedy-no-vase"] * 4,
                                       win=[1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.5, 0.5])
    assert variants(rows) == [("greedy-no-vase", "greedy", "vase")]
    result = restricted_play(rows).row(0, named=True)
    assert (result["share_a"], result["share_b"]) == (pytest.approx(1.5 / 4), pytest.approx(2.5 / 4))
    assert result["estimate"] == pytest.approx(-0.25)
    # four deals give an interval: t on 3 degrees of freedom, clipped to [-1, 1] for a difference of shares
    assert -1 <= result["lo"] < -0.25 < result["hi"] <= 1 and result["method"] == "paired_cluster_t"
    assert (result["same_deals"], result["faces_itself"], result["others"]) == (True, False, "none")


def test_restricted_play_ignores_experiments_without_the_base(tmp_path):
    with_base = synthetic_bb(3, 300, seed=1).with_columns(experiment=pl.lit("a"))
    # an experiment where the variant plays only against banker: no base there, so it must not count
    without_base = synthetic_bb(3, 300, seed=2, strategies=["greedy-no-teapot", "banker", "banker"])
    rows = pl.concat([with_base, without_base.with_columns(experiment=pl.lit("b"))])
    result = restricted_play(rows).filter(pl.col("strategy") == "greedy-no-teapot")
    assert result["experiment"].to_list() == ["a"]
    assert result["games_a"][0] == with_base.filter(pl.col("strategy") == "greedy-no-teapot").height
    # experiment by experiment, as the report compares them: without its base the variant is not compared
    own = run_section("own", list(REPORT.analyses), game_data(without_base, "broken_beautiful", tmp_path))
    assert any("No restricted strategies" in b and "beside their unrestricted BASE" in b
               for b in own.blocks if isinstance(b, str))
    assert "Restricted play (which card types matter)." not in [f.label for f in own.findings]


def test_section_without_restricted_strategies_says_so(tmp_path):
    rows = synthetic_bb(2, 300, seed=3, strategies=["greedy", "banker"])
    result, _ = resultsdir.run_alone(rows, "broken_beautiful", tmp_path, list(REPORT.analyses))
    assert any("No restricted strategies" in b for b in result.blocks if isinstance(b, str))
    assert not (tmp_path / "bb2_restricted_play.png").exists()  # charts are named after their experiment
    assert (tmp_path / "bb2_points_by_type.png").exists()


def test_rounds_led_follow_the_marker_round_by_round():
    rows = pl.DataFrame({"players": [2, 4], "rounds": [9, 5]})
    led = {(r["players"], r["seat"]): r["led"] for r in rounds_led(rows).iter_rows(named=True)}
    assert led == {(2, 0): 5, (2, 1): 4, (4, 0): 2, (4, 1): 1, (4, 2): 1, (4, 3): 1}


def test_ratio_interval_contains_the_ratio():
    rng = np.random.default_rng(0)
    broken = rng.integers(0, 3, 2000)
    items = broken + rng.integers(1, 8, 2000)
    lo, hi = ratio_ci(broken, items)
    assert lo < broken.sum() / items.sum() < hi and hi - lo < 0.05


def test_horizontal_bars_on_an_even_number_of_shared_panels_keep_the_first_category_on_top():
    axes = Figure().subplots(1, 2, sharey=True)
    for ax in axes:
        bars_with_ci(ax, ["a", "b", "c"], {"x": ([1, 2, 3], [0, 1, 2], [2, 3, 4])}, horizontal=True)
    assert all(ax.yaxis_inverted() for ax in axes)
