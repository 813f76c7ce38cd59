"""The generic analyses and the report's layout: a table of contents that links every heading, a game the report
has no module for, and the score direction read from the manifest (never from the data)."""

import re

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from resultsdir import game_data, write_experiment
from test_report import synthetic_games

from reports.build import build_report
from reports.generic import mixed_games, strategy_analysis
from reports.load import ResultsError
from reports.render import slugs

pytestmark = pytest.mark.xdist_group("test_report_generic")  # one worker builds its module fixtures once


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


def test_table_of_contents_links_every_heading(mystery_report):
    html = mystery_report.read_text()
    toc, body = html.split("</nav>", 1)
    ids = re.findall(r'<h[23] id="([^"]+)">', body)
    assert len(ids) == len(set(ids)) > 10
    assert re.findall(r'<a href="#([^"]+)">', toc) == ids  # every heading, in order, and nothing else
    markdown = (mystery_report.parent / "summary.md").read_text()
    contents, rest = markdown.split("## Contents\n", 1)[1].split("\n## Summary\n", 1)
    headings = ["Summary", *re.findall(r"^#{2,3} (.+)$", rest, re.MULTILINE)]
    links = re.findall(r"^\s*- \[(.+)\]\(#(.+)\)$", contents, re.MULTILINE)
    assert [title for title, _ in links] == headings
    assert [anchor for _, anchor in links] == slugs(headings) == ids


def test_slugs_follow_github_and_number_repeats():
    assert slugs(["Kaleido: seat advantage", "Head-to-head", "Head-to-head", "Did it change?"]) == [
        "kaleido-seat-advantage", "head-to-head", "head-to-head-1", "did-it-change"]


def test_generic_analyses_run_for_a_game_without_a_module(mystery_report):
    out = mystery_report.parent
    html = mystery_report.read_text()
    summary = (out / "summary.md").read_text().replace("**", "")
    assert summary.startswith("# Balance report: Mystery Game")
    for section in ("seat advantage", "strategy strength"):
        assert f"## Mystery Game: {section}" in summary
    assert summary.count("\n## Mystery Game") == 2  # no game section of its own
    for chart in ("seat_win_share", "strategy_win_share", "score_by_seat", "score_by_strategy", "head_to_head",
                  "compensation", "seat_by_experiment"):
        assert (out / f"mystery_game_{chart}.png").stat().st_size > 10_000
        assert f'src="mystery_game_{chart}.png"' in html
    # the planted start-player edge (one piece fewer, lowest wins) is found, and compensation goes the right way
    assert "- Seat advantage. The start player wins clearly more than a fair share at every player count" in summary
    assert re.search(r"adding \d points? to the start player's final score comes closest", summary)


def test_score_direction_is_read_from_the_manifest(tmp_path):
    rows = synthetic_games(2, 600, seed=5).with_columns(game=pl.lit("mystery_game"))
    for lowest in (True, False):
        write_experiment(tmp_path / f"r{lowest}" / "e", [rows], "mystery_game", lowest_wins=lowest)
        build_report(tmp_path / f"r{lowest}", tmp_path / f"out{lowest}")
    lower, higher = ((tmp_path / f"out{flag}" / "summary.md").read_text() for flag in (True, False))
    assert "In this game lower scores win, so a negative score gap favours the start player." in lower
    assert "(lowest score wins)" in lower and "(highest score wins)" not in lower
    assert "In this game higher scores win, so a positive score gap favours the start player." in higher
    assert "(highest score wins)" in higher


def test_a_manifest_without_the_score_direction_is_refused(tmp_path):
    write_experiment(tmp_path / "e", [synthetic_games(2, 100, seed=1)], "kintsugi")
    manifest = (tmp_path / "e" / "manifest.json").read_text().replace('"lowest_wins": true, ', "")
    (tmp_path / "e" / "manifest.json").write_text(manifest)
    with pytest.raises(ResultsError, match="lowest_wins"):
        build_report(tmp_path, tmp_path / "out")


def test_strategy_strength_counts_only_games_where_strategies_meet(tmp_path):
    mixed = mystery(3, 600, 5)
    mirror = mystery(3, 600, 6).with_columns(strategy=pl.lit("random+uniform"), experiment=pl.lit("mirror3"),
                                             game_id=pl.col("game_id") + 10_000)
    data = game_data(pl.concat([mixed, mirror]), "mystery_game", tmp_path, title="Mystery Game", lowest_wins=True)
    pooled = strategy_analysis(data)["pooled"]
    alone = strategy_analysis(game_data(mixed, "mystery_game", tmp_path / "alone", title="Mystery Game",
                                        lowest_wins=True))["pooled"]
    # the 600 games of one strategy change nothing (up to the order in which polars adds floats)
    assert_frame_equal(pooled.sort("strategy"), alone.sort("strategy"), check_exact=False, rel_tol=1e-9)
    assert pooled.filter(pl.col("strategy") == "random+uniform")["games"].item() < 600 * 3
    assert mixed_games(mirror).height == mirror.height  # with no mixed game at all, every row is kept
