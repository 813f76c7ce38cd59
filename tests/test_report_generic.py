"""The generic analyses and the report's layout: a game page whose table of contents links every section and whose
headings all have their anchors, a game the report has no module for, and the score direction read from the
manifest (never from the data)."""

import html
import json
import re

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from resultsdir import finding, game_data, section, write_experiment
from test_report import synthetic_games

from reports import generic
from reports.build import build_report
from reports.generic.matchups import rating_analysis
from reports.generic.scores import TIES_AND_GAPS
from reports.generic.strategies import mixed_games, strategy_analysis
from reports.load import ResultsError
from reports.render import slugs

GENERIC = {a.title for a in generic.SEATS + generic.STRATEGIES + generic.COMPARED}


def mystery(players: int, games: int, seed: int) -> pl.DataFrame:
    """Kintsugi-shaped rows renamed to a game the report knows nothing about (no module, no facts)."""
    return synthetic_games(players, games, seed).with_columns(game=pl.lit("mystery_game"),
                                                              experiment=pl.lit(f"mystery{players}"))


@pytest.fixture(scope="module")
def mystery_report(tmp_path_factory):
    root = tmp_path_factory.mktemp("mystery_results")
    for players in (2, 3):
        write_experiment(root / f"mystery{players}", [mystery(players, 800, players)], "mystery_game",
                         title="Mystery Game", lowest_wins=True)
    return build_report(root, tmp_path_factory.mktemp("mystery_report"))


def test_table_of_contents_links_every_section_and_every_heading_has_its_anchor(mystery_report):
    page = (mystery_report.parent / "mystery_game.html").read_text()
    toc, body = page.split('<nav class="toc">', 1)[1].split("</nav>", 1)
    headings = re.findall(r'<h([23]) id="([^"]+)">([^<]+)</h[23]>', body)
    ids = [anchor for _, anchor, _ in headings]
    assert len(ids) == len(set(ids)) > 10
    assert ids == slugs(html.unescape(text) for _, _, text in headings)  # GitHub's anchors, repeats numbered
    sections = [anchor for level, anchor, _ in headings if level == "2"]
    assert [s for s in sections if s != "caveats"] == ["mystery2", "mystery3", "mystery-game-the-experiments-compared"]
    assert re.findall(r'<a href="#([^"]+)">', toc) == sections  # every section, in order, and nothing else


def test_slugs_follow_github_and_number_repeats():
    assert slugs(["Kaleido: seat advantage", "Head-to-head", "Head-to-head", "Did it change?"]) == [
        "kaleido-seat-advantage", "head-to-head", "head-to-head-1", "did-it-change"]


def test_generic_analyses_run_for_a_game_without_a_module(mystery_report):
    out = mystery_report.parent
    page = (out / "mystery_game.html").read_text()
    summary = (out / "summary.md").read_text().replace("**", "")
    assert summary.startswith("# Balance report: Mystery Game")
    assert summary.count("\n## ") == 2  # the game, then the caveats
    assert re.findall(r"^### (.+)$", summary, re.MULTILINE) == ["mystery2", "mystery3",
                                                              "Mystery Game: the experiments compared"]
    assert set(re.findall(r'<h3 id="[^"]+">([^<]+)</h3>', page)) <= {html.escape(t, quote=True) for t in GENERIC}
    for experiment in ("mystery2", "mystery3"):  # each the headline one at its player count: every chart
        for chart in ("seat_win_share", "strategy_win_share", "score_by_seat", "score_by_strategy", "head_to_head",
                      "handicaps"):
            assert (out / f"{experiment}_{chart}.png").stat().st_size > 10_000
            assert f'src="{experiment}_{chart}.png"' in page
    assert (out / "mystery_game_compared_seat_by_experiment.png").stat().st_size > 10_000
    assert 'src="mystery_game_compared_seat_by_experiment.png"' in page
    # the planted start-player edge (one piece fewer, lowest wins) is found, and the handicaps go against it
    numbers = json.loads((out / "findings.json").read_text())["records"]
    for players in (2, 3):
        seats = finding(section(summary, f"mystery{players}"), "Seat advantage.")
        assert seats.startswith(f"The start player wins clearly more than a fair share at {players} players")
        mine = [r for r in numbers if r["experiment"] == f"mystery{players}"]
        [start_fair] = [r for r in mine if r["metric"] == "handicap" and r["seat"] == 0 and r["fair_point"]]
        assert start_fair["points"] < 0  # points taken from the start player
        [best] = [r for r in mine if r["metric"] == "compensated_win_share" and r.get("recommended") and r["seat"] == 0]
        assert best["points"][0] < max(best["points"]) or best["tie_order"] == list(range(players))[::-1]
        [start] = [r for r in mine if r["metric"] == "seat_win_share" and r["seat"] == 0]
        assert best["estimate"] < start["estimate"]


@pytest.mark.parametrize(("lowest", "edge", "verdict"), [(False, 2, "clearly favours them"),
                                                         (True, 2, "clearly goes against them"),
                                                         (False, 0, "favours no one clearly")])
def test_the_start_players_score_gap_is_said_by_its_interval_and_the_score_direction(lowest, edge, verdict,
                                                                                      tmp_path):
    rows = synthetic_games(2, 600, seed=5)
    score = np.random.default_rng(2).integers(0, 10, rows.height)
    rows = rows.with_columns(score=pl.Series(score) + edge * (pl.col("seat") == 0))
    data = game_data(rows, "mystery_game", tmp_path, lowest_wins=lowest)
    ties = TIES_AND_GAPS.compute(data)
    assert ties["games"].to_list() == [600] and ties["gap"][0] == pytest.approx(edge, abs=0.6)
    assert f"other seats, {verdict} (" in TIES_AND_GAPS.finding(ties, data).text


def test_score_direction_is_read_from_the_manifest(tmp_path):
    rows = synthetic_games(2, 600, seed=5).with_columns(game=pl.lit("mystery_game"))
    for lowest in (True, False):
        write_experiment(tmp_path / f"r{lowest}" / "e", [rows], "mystery_game", lowest_wins=lowest)
        build_report(tmp_path / f"r{lowest}", tmp_path / f"out{lowest}")
    lower, higher = ((tmp_path / f"out{flag}" / "mystery_game.html").read_text() for flag in (True, False))
    assert "In this game lower scores win, so a negative score gap favours the start player." in lower
    assert "lower scores win, so a negative gap favours the start player)" in lower
    assert "higher scores win" not in lower
    assert "In this game higher scores win, so a positive score gap favours the start player." in higher
    assert "higher scores win, so a positive gap favours the start player)" in higher
    # the handicaps re-score the recorded scores the manifest's way: with no points, the rows' own winners (lowest
    # score) come back only where the manifest says the lowest score wins
    recorded = rows.filter(pl.col("seat") == 0)["win"].mean()
    for flag, same in ((True, True), (False, False)):
        numbers = json.loads((tmp_path / f"out{flag}" / "findings.json").read_text())["records"]
        [none] = [r for r in numbers if r["metric"] == "handicap" and r["seat"] == 0 and r["points"] == 0]
        assert (none["estimate"] == pytest.approx(recorded)) is same


def test_a_manifest_without_the_score_direction_is_refused(tmp_path):
    write_experiment(tmp_path / "e", [synthetic_games(2, 100, seed=1)], "kintsugi")
    manifest = (tmp_path / "e" / "manifest.json").read_text().replace('"lowest_wins": true, ', "")
    (tmp_path / "e" / "manifest.json").write_text(manifest)
    with pytest.raises(ResultsError, match="lowest_wins"):
        build_report(tmp_path, tmp_path / "out")


def test_strategy_strength_counts_only_games_where_strategies_meet(tmp_path):
    mixed = mystery(3, 600, 5)
    mirror = mystery(3, 600, 6).with_columns(strategy=pl.lit("random+uniform"), game_id=pl.col("game_id") + 10_000,
                                             deal=pl.col("deal") + 10_000)  # the same experiment, one strategy
    data = game_data(pl.concat([mixed, mirror]), "mystery_game", tmp_path, title="Mystery Game", lowest_wins=True)
    alone = game_data(mixed, "mystery_game", tmp_path / "alone", title="Mystery Game", lowest_wins=True)
    both, mixed_only = strategy_analysis(data)["per_count"], strategy_analysis(alone)["per_count"]
    # the 600 games of one strategy change nothing (up to the order in which polars adds floats)
    assert_frame_equal(both.sort("strategy"), mixed_only.sort("strategy"), check_exact=False, rel_tol=1e-9)
    assert both.filter(pl.col("strategy") == "random+uniform")["games"].item() == 600
    assert_frame_equal(rating_analysis(data)[3]["ratings"], rating_analysis(alone)[3]["ratings"], check_exact=False,
                       rel_tol=1e-9)
    assert mixed_games(mirror).height == mirror.height  # with no mixed game at all, every row is kept


def test_a_chart_title_wider_than_its_figure_is_wrapped_to_fit(tmp_path):
    from reports.charts import new_figure, save_chart

    fig = new_figure(4, 3)
    fig.subplots().plot([0, 1], [0, 1])
    words = "Kunst Stücke: win share against chips each (95% cluster-robust intervals over deals)"
    title = fig.suptitle(words)
    save_chart(fig, tmp_path, "wide.png", "")
    assert "\n" in title.get_text() and title.get_text().split() == words.split()
    assert title.get_window_extent(fig._get_renderer()).width <= fig.bbox.width
