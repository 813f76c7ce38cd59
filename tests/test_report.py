import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from resultsdir import assert_start_advantage_above_zero, write_experiment

from reports.build import build_report, check_results
from reports.generic import head_to_head
from reports.kintsugi import winner_changes
from reports.load import ResultsError, load_results

pytestmark = pytest.mark.xdist_group("test_report")  # one worker builds its module fixtures once

STRATEGIES = ["greedy+oracle", "random+uniform", "camouflage+uniform"]
CHARTS = [
    "kintsugi_seat_win_share.png",
    "kintsugi_score_by_seat.png",
    "kintsugi_strategy_win_share.png",
    "kintsugi_score_by_strategy.png",
    "kintsugi_head_to_head.png",
    "kintsugi_guess_accuracy.png",
]


def synthetic_games(players: int, games: int, seed: int, match: bool = False) -> pl.DataFrame:
    """Kintsugi-shaped rows with a planted start-player edge (one piece fewer) and an "oracle" guesser
    that is always right; other guessers pick one of the three colours that are not their own."""
    rng = np.random.default_rng(seed)
    g = np.arange(games)[:, None]
    seat = np.broadcast_to(np.arange(players), (games, players))
    player = (seat + g) % players if match else seat
    strategy = np.array(STRATEGIES)[(player + (0 if match else g)) % len(STRATEGIES)]
    colour = rng.random((games, 4)).argsort(axis=1)[:, :players]
    pieces = rng.integers(2, 8, (games, players)) - (seat == 0)
    target = (seat + 1) % players
    target_colour = np.take_along_axis(colour, target, axis=1)
    random_pick = rng.integers(0, 3, (games, players))
    random_guess = random_pick + (random_pick >= colour)
    guess = np.where(np.char.endswith(strategy, "+oracle"), target_colour, random_guess)
    correct = guess == target_colour
    score = pieces - correct * np.take_along_axis(pieces, target, axis=1)
    best = score.min(axis=1, keepdims=True)
    win = (score == best) / (score == best).sum(axis=1, keepdims=True)
    rank = 1 + (score[:, None, :] < score[:, :, None]).sum(axis=2)
    columns = {
        "experiment": np.full(games * players, f"synthetic{players}{'m' if match else ''}"),
        "config_hash": np.full(games * players, "abc123"),
        "game": np.full(games * players, "kintsugi"),
        "players": np.full(games * players, players),
        "game_id": np.repeat(np.arange(games), players),
        "deal": np.repeat(np.arange(games), players),
        "lineup": np.zeros(games * players, dtype=int),
        "seat": seat.ravel(),
        "player": player.ravel(),
        "strategy": strategy.ravel(),
        "score": score.ravel(),
        "rank": rank.ravel(),
        "win": win.ravel(),
        "color": colour.ravel(),
        "pieces": pieces.ravel(),
        "guess": guess.ravel(),
        "guess_correct": correct.ravel(),
        "target_color": target_colour.ravel(),
    }
    if match:
        columns["match_id"] = np.repeat(np.arange(games) // players, players)
    return pl.DataFrame(columns)


def write_split(directory: Path, rows: pl.DataFrame, parts: int = 2) -> None:
    """An experiment folder with the rows split over several Parquet parts."""
    step = -(-rows.height // parts)
    write_experiment(directory, [rows.slice(i * step, step) for i in range(parts)], "kintsugi")


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("results")
    for players in (2, 3, 4):
        write_split(root / f"exp{players}", synthetic_games(players, 1500, seed=players))
    write_split(root / "match3", synthetic_games(3, 600, seed=9, match=True))
    return root


@pytest.fixture(scope="module")
def report(results, tmp_path_factory) -> Path:
    return build_report(results, tmp_path_factory.mktemp("report"))


def test_report_writes_html_markdown_and_charts(report):
    out = report.parent
    assert report == out / "index.html"
    html = report.read_text()
    assert html.startswith("<!DOCTYPE html>") and "<table>" in html
    assert "http://" not in html and "https://" not in html
    for chart in CHARTS:
        assert (out / chart).stat().st_size > 10_000
        assert f'src="{chart}"' in html
    assert (out / "summary.md").read_text().startswith("# Balance report: Kintsugi")


def test_summary_findings_lead_with_their_label(report):
    html = report.read_text()
    assert '<div class="finding"><p><strong>Seat advantage.</strong> The start player wins' in html
    assert "- **Strategy strength.** " in (report.parent / "summary.md").read_text()


def test_summary_names_the_planted_first_player_advantage(report):
    summary = (report.parent / "summary.md").read_text().replace("**", "")  # content, not emphasis
    finding = summary.split("- Seat advantage. ")[1].split("\n- ")[0]
    assert finding.startswith("The start player wins clearly more than a fair share at every player count")
    for players in (2, 3, 4):
        assert_start_advantage_above_zero(finding, players)


def test_summary_names_the_always_right_guesser_at_100_percent(report):
    summary = (report.parent / "summary.md").read_text().replace("**", "")
    assert re.search(r"oracle is right 100\.0% of the time \(95% CI [\d.]+–100(\.0+)?%, above chance\)", summary)
    assert re.search(r"uniform is right 3\d\.\d% of the time", summary)


def test_report_has_the_match_table_and_caveats(report):
    html = report.read_text()
    assert '<h3 id="matches">Matches</h3>' in html and "Match win share" in html
    assert "Bots are not people" in html and "chance level" in html


def test_loaded_win_shares_sum_to_one_per_game(results):
    rows, manifests = load_results(results)
    assert len(manifests) == 4 and rows.height == 1500 * (2 + 3 + 4) + 600 * 3
    totals = rows.group_by("experiment", "game_id").agg(pl.col("win").sum())["win"]
    assert np.allclose(totals.to_numpy(), 1.0)


def test_inconsistent_win_shares_are_rejected(results):
    rows, _ = load_results(results)
    with pytest.raises(ResultsError, match="sum to 1"):
        check_results(rows.with_columns(win=pl.col("win") * 2))


def test_empty_results_raise(tmp_path):
    with pytest.raises(ResultsError, match="holds no results"):
        build_report(tmp_path, tmp_path / "report")
    (tmp_path / "exp" / "parts").mkdir(parents=True)
    (tmp_path / "exp" / "manifest.json").write_text("{}")
    with pytest.raises(ResultsError, match="is not an atelier manifest"):
        build_report(tmp_path, tmp_path / "report")


def test_head_to_head_counts_ties_as_half():
    rows = pl.DataFrame(
        {
            "experiment": ["e"] * 6,
            "game_id": [0, 0, 1, 1, 2, 2],
            "strategy": ["a", "b"] * 3,
            "rank": [1, 2, 1, 1, 2, 1],
        }
    )
    shares = {(r["strategy"], r["strategy_b"]): r["share"] for r in head_to_head(rows).iter_rows(named=True)}
    assert shares == {("a", "b"): pytest.approx(0.5), ("b", "a"): pytest.approx(0.5)}
    first_game = {
        (r["strategy"], r["strategy_b"]): r["share"] for r in head_to_head(rows.head(2)).iter_rows(named=True)
    }
    assert first_game == {("a", "b"): 1.0, ("b", "a"): 0.0}


def test_winner_change_compares_winners_by_pieces_with_actual_winners():
    # game 0: seat 1 had fewer pieces but seat 0 guessed right and won; game 1: nothing changed.
    rows = pl.DataFrame(
        {
            "experiment": ["e"] * 4,
            "game_id": [0, 0, 1, 1],
            "players": [2] * 4,
            "pieces": [3, 2, 2, 4],
            "win": [1.0, 0.0, 1.0, 0.0],
            "guess_correct": [True, False, False, False],
        }
    )
    changes = winner_changes(rows).row(0, named=True)
    assert (changes["games"], changes["changed"], changes["with_correct"]) == (2, 1, 1)
    assert changes["rate"] == 0.5 and changes["rate_correct"] == 1.0
