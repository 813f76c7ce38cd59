"""The overview answers on one screen and the report prints well (issue 30): a forest chart of the start player's
edge drawn at its natural size, a compact table naming players 1 to P with best and worst seats only where the game
is unfair, pp and 1/P defined before they are used, rule holes per experiment with intervals, strategy names linked
to their descriptions, and a print stylesheet. The browser measurements (what fits in 900 px, printed pages) are in
the report of issue 30; these check the structure that gives them."""

import html as html_lib
import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from resultsdir import write_experiment
from test_report import page_table, synthetic_games

from reports.build import build_report
from reports.charts import DPI, PRINT_WIDTH, panels, png_size, save_chart
from reports.fmt import seat_name
from reports.games import game_report
from reports.overview import rule_holes, seat_verdict
from reports.render import Table
from reports.stats import holm_min

FAIR_STRATEGIES = {"steady": "always takes the middle card", "dice": "rolls a die for every choice"}


def fair_games(players: int, games: int, seed: int) -> pl.DataFrame:
    """Rows of a game no seat is favoured in: every seat draws its score from the same dice, highest wins."""
    rng = np.random.default_rng(seed)
    seat = np.broadcast_to(np.arange(players), (games, players))
    score = rng.integers(0, 1000, (games, players))
    best = score.max(axis=1, keepdims=True)
    win = (score == best) / (score == best).sum(axis=1, keepdims=True)
    rank = 1 + (score[:, None, :] > score[:, :, None]).sum(axis=2)
    strategy = np.array(list(FAIR_STRATEGIES))[(seat + np.arange(games)[:, None]) % 2]
    n = games * players
    return pl.DataFrame({"experiment": np.full(n, "even"), "config_hash": np.full(n, "e1"),
                         "game": np.full(n, "even_game"), "players": np.full(n, players),
                         "game_id": np.repeat(np.arange(games), players), "deal": np.repeat(np.arange(games), players),
                         "lineup": np.zeros(n, dtype=int), "seat": seat.ravel(), "player": seat.ravel(),
                         "strategy": strategy.ravel(), "score": score.ravel(), "rank": rank.ravel(),
                         "win": win.ravel()})


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A Kintsugi experiment with a planted start-player edge at 2 and 3 players, and a fair game at 3 players whose
    manifest describes its strategies."""
    root = tmp_path_factory.mktemp("results")
    rows = pl.concat([synthetic_games(2, 1500, seed=2),
                      synthetic_games(3, 1500, seed=3).with_columns(pl.col("game_id", "deal") + 1500)])
    write_experiment(root / "unfair", [rows.with_columns(experiment=pl.lit("unfair"))], "kintsugi")
    write_experiment(root / "even", [fair_games(3, 3000, seed=5)], "even_game", title="Even Game",
                     strategies=FAIR_STRATEGIES)
    return build_report(root, tmp_path_factory.mktemp("report"))


@pytest.fixture(scope="module")
def numbers(report) -> list[dict]:
    return json.loads((report.parent / "findings.json").read_text())["records"]


def first_at(page: str, *needles: str) -> int:
    return min(page.index(needle) for needle in needles)


def test_the_forest_chart_of_the_start_players_edge_is_shown_at_its_natural_size(report):
    page = report.read_text()
    chart = report.parent / "overview_start_edge.png"
    width, height = png_size(chart)
    assert '<img src="overview_start_edge.png" alt="' in page
    assert re.search(rf'src="overview_start_edge.png"[^>]* width="{width}" height="{height}"', page)
    assert width <= 7.3 * 110 + 1  # charts.PRINT_WIDTH at charts.DPI: it prints at its natural size or near it
    assert first_at(page, "overview_start_edge.png") < first_at(page, "<table>")  # the chart opens the page


def test_every_chart_of_the_report_carries_its_size_and_none_is_stretched(report):
    for page in report.parent.glob("*.html"):
        text = page.read_text()
        for file, width, height in re.findall(r'<img src="([^"]+)"[^>]* width="(\d+)" height="(\d+)"', text):
            assert png_size(report.parent / file) == (int(width), int(height)), file
        assert text.count("<img ") == len(re.findall(r"<img [^>]* width=", text)), page.name
        assert not re.search(r"img \{[^}]*[^-]width: 100%", text)  # max-width only: never wider than drawn


def test_pp_and_one_over_p_are_defined_before_they_are_used_and_no_rate_is_said_to_carry_an_interval(report):
    page = html_lib.unescape(report.read_text())
    body = page[page.index("<h1>"):]
    caption = re.search(r"<figcaption>(.*?)</figcaption>", body).group(1)  # beside the forest chart, the first sight
    assert caption.startswith("Player 1 starts.")
    assert "fair share of wins is 1/P" in caption and "percentage points (pp" in caption
    assert body.index(caption) < min(body.index("<table>"), body.index("pp)", body.index(caption)))
    assert "1/P" not in body[:body.index("<img")] and "pp" not in body[:body.index("<img")]
    assert "every rate carries" not in page.lower()


def test_the_glance_table_judges_every_row_on_its_seats_and_names_best_and_worst_only_where_unfair(report, numbers):
    rows = page_table(report.read_text(), "Seat balance at a glance")
    sources = page_table(report.read_text(), "Where each row comes from")
    assert [(r["Experiment"], r["Players"]) for r in sources] == [("even", "3"), ("unfair", "2"), ("unfair", "3")]
    assert "Experiment" not in rows[0]  # the ids are out of the first table
    for row, source in zip(rows, sources):
        seats = [r for r in numbers if r["metric"] == "seat_win_share" and r["experiment"] == source["Experiment"]
                 and r["players"] == int(source["Players"])]
        fair = all(r["low"] <= r["fair"] <= r["high"] for r in seats)
        unfair = holm_min([r["p"] for r in seats]) < 0.05
        assert row["Verdict"] == ("unfair" if unfair else "fair" if fair else "unclear")
        if not unfair:
            assert row["Best seat"] == row["Worst seat"] == ""
            continue
        best = max(seats, key=lambda r: r["estimate"])
        worst = min(seats, key=lambda r: r["estimate"])
        assert row["Best seat"].startswith(f"Player {best['seat'] + 1}: ")
        assert row["Worst seat"].startswith(f"Player {worst['seat'] + 1}: ")
    verdicts = [r["Verdict"] for r in rows]
    assert verdicts == ["fair", "unfair", "unfair"]  # the planted edge shows; the even game does not


def test_players_are_numbered_from_one_in_the_overview_and_the_seat_section(report):
    assert [seat_name(s) for s in range(3)] == ["Player 1", "Player 2", "Player 3"]
    overview = html_lib.unescape(report.read_text())
    compensation = "Compensation that evens the seats (points to or from each player's score)"
    for row in page_table(report.read_text(), "Seat balance at a glance"):
        overview = overview.replace(row[compensation], "")
    assert not re.search(r"\bseat \d", overview, re.IGNORECASE)
    page = (report.parent / "kintsugi.html").read_text()
    shares = page_table(page, "Win share by seat")
    assert {r["Seat"] for r in shares} == {"Player 1", "Player 2", "Player 3"}
    assert "Player 1 starts" in html_lib.unescape(page) and "seat 0 is the start player" not in page


def test_strategy_names_link_to_their_one_line_description(report):
    page = report.read_text()
    links = re.findall(r'<a href="#(strategy-[^"]+)">([^<]+)</a>', page)
    assert links and {name for _, name in links} <= set(FAIR_STRATEGIES)
    for anchor, name in links:
        assert re.search(rf'<dt id="{anchor}">{name}</dt><dd>{FAIR_STRATEGIES[name]}</dd>', page)


def test_rule_holes_are_shown_per_experiment_with_intervals_and_a_definition():
    found = {("bots", 2): (0.14, 0.13, 0.15), ("bots", 5): (0.69, 0.68, 0.70), ("random_only", 2): (0.0, 0.0, 0.001)}
    records = [{"game": "kaleido", "experiment": name, "players": players, "metric": "stall_rate", "estimate": rate,
                "low": low, "high": high, "games": 4000, "stalls": round(rate * 4000), "method": "stalled / games"}
               for (name, players), (rate, low, high) in found.items()]
    definition, table = rule_holes("Kaleido", [], records, game_report("kaleido"))
    assert definition.startswith("Rule holes in Kaleido: A game stalls when") and definition.count(".") == 1
    assert isinstance(table, Table) and table.columns == ["Experiment", "Who played", "2 players", "5 players"]
    assert [row[0] for row in table.rows] == ["bots", "random_only"]
    assert table.rows[0][2] == "14.0% (13.0–15.0%): 560 of 4,000"
    assert table.rows[1][2] == "0.0% (0.0–0.1%): 0 of 4,000" and table.rows[1][3] == "–"  # not played at 5
    assert rule_holes("Even Game", [], records, game_report("even_game")) == []  # its report counts no rule hole


def test_the_print_stylesheet_fits_pages_and_keeps_details_folded(report):
    page = report.read_text()
    printed = page[page.index("@media print"):page.index("</style>")]
    assert "size: A4" in printed
    assert re.search(r"nav[^{]*details:not\(\[open\]\)[^{]*\{ display: none; \}", printed)
    assert "zoom: .7" in printed  # headline charts: 11 pt at 110 dpi print at 11 * 110 / 96 * .7 = 8.8 pt
    game_page = (report.parent / "kintsugi.html").read_text()
    assert "@media print" in game_page


def test_a_row_is_fair_unfair_or_unclear_as_its_seats_intervals_and_holms_correction_say():
    def seats(*found):
        return [{"seat": s, "low": low, "high": high, "fair": 0.5, "p": p} for s, (low, high, p) in enumerate(found)]

    assert seat_verdict(seats((0.45, 0.55, 0.9), (0.45, 0.55, 0.9))) == "fair"
    assert seat_verdict(seats((0.51, 0.6, 0.001), (0.4, 0.49, 0.001))) == "unfair"
    assert seat_verdict(seats((0.501, 0.6, 0.04), (0.45, 0.55, 0.9))) == "unclear"  # 0.04 × 2 seats is no longer clear
    assert seat_verdict(seats((0.501, 0.6, 0.02), (0.45, 0.55, 0.9))) == "unfair"  # 0.02 × 2 still is
    assert seat_verdict(seats((float("nan"), float("nan"), None), (0.45, 0.55, 0.9))) == "–"  # too few deals
    assert seat_verdict(seats((None, None, None), (0.3, 0.4, 0.001))) == "unfair"


def test_a_chart_wider_than_a_printed_page_is_narrowed_to_it_its_shared_x_label_written_once(tmp_path):
    fig, axes = panels(3, 12, 3)
    for ax in axes:
        ax.plot([0, 100], [0, 1])
        ax.set_xlabel("Points")
    chart = save_chart(fig, tmp_path, "wide.png", "three panels")
    assert (chart.width, chart.height) == png_size(tmp_path / "wide.png") == (round(PRINT_WIDTH * DPI), 3 * DPI)
    assert [ax.get_xlabel() for ax in axes] == ["Points", "", ""]
    assert all(len(ax.get_xticks()) <= 6 for ax in axes)  # fewer ticks on the narrower panels
