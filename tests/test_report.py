import html as html_lib
import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import resultsdir
from resultsdir import assert_start_advantage_above_zero, finding, game_data, section, write_experiment
from test_cli import KINTSUGI_EXPERIMENT, invoke

from reports.analysis import GAME_KEY, GameData
from reports.build import build_report, check_results
from reports.findings import UNITS
from reports.fmt import p_value, pp, pp_ci
from reports.generic.matchups import head_to_head
from reports.generic.seats import seat_analysis, seat_tables
from reports.kintsugi.guessing import WINNER_CHANGES, guess_accuracy, with_policy_and_guesser, with_target_policy
from reports.kintsugi.matches import match_finding, matches
from reports.load import ResultsError, load, load_results
from reports.stats import cluster_unit, wilson

STRATEGIES = ["greedy+oracle", "random+uniform", "camouflage+uniform"]
EVERY_CHART = ["seat_win_share", "strategy_win_share"]  # drawn for every experiment
LEADING_CHART = ["score_by_seat", "handicaps", "score_by_strategy", "head_to_head",  # for headline experiments
                 "guess_accuracy"]
MATCH_QUESTION = "Does a full match wash out the start player's edge?"
# experiment -> (its heading on the game page and in summary.md, its player count)
KINTSUGI = {"synthetic3m": (MATCH_QUESTION, 3), "synthetic2": ("synthetic2", 2), "synthetic3": ("synthetic3", 3),
            "synthetic4": ("synthetic4", 4)}


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


def write_split(directory: Path, rows: pl.DataFrame, parts: int = 2, **manifest) -> None:
    """An experiment folder with the rows split over several Parquet parts."""
    step = -(-rows.height // parts)
    write_experiment(directory, [rows.slice(i * step, step) for i in range(parts)], "kintsugi", **manifest)


def mystery(players: int, games: int, seed: int, name: str) -> pl.DataFrame:
    """Kintsugi-shaped rows of a game the report has no module for."""
    return synthetic_games(players, games, seed).with_columns(game=pl.lit("mystery_game"), experiment=pl.lit(name))


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """Four Kintsugi experiments (the match marked as the headline at 3 players, though it has fewer games than
    synthetic3) and two of a second game at 2 players, neither marked."""
    root = tmp_path_factory.mktemp("results")
    for players in (2, 3, 4):
        write_split(root / f"exp{players}", synthetic_games(players, 1500, seed=players))
    write_split(root / "match3", synthetic_games(3, 600, seed=9, match=True), question=MATCH_QUESTION, headline=True)
    for name, games in (("mystery_big", 400), ("mystery_small", 200)):
        write_experiment(root / name, [mystery(2, games, len(name), name)], "mystery_game", title="Mystery Game",
                         lowest_wins=True)
    return root


@pytest.fixture(scope="module")
def report(results, tmp_path_factory) -> Path:
    return build_report(results, tmp_path_factory.mktemp("report"))


@pytest.fixture(scope="module")
def numbers(report) -> list[dict]:
    return json.loads((report.parent / "findings.json").read_text())["records"]


def page_table(page: str, caption: str) -> list[dict[str, str]]:
    """The rows of the HTML table whose caption starts with `caption`, each as {column: cell}."""
    found = re.search(r"<table><caption>" + re.escape(html_lib.escape(caption, quote=True)) + r".*?</table>", page)
    assert found, f"no table {caption!r}"
    columns = [html_lib.unescape(c) for c in re.findall(r"<th>(.*?)</th>", found.group())]
    rows = re.findall(r"<tr>((?:<td>.*?</td>)+)</tr>", found.group())
    return [dict(zip(columns, map(html_lib.unescape, re.findall(r"<td>(.*?)</td>", row)))) for row in rows]


def test_report_writes_its_pages_findings_and_charts(report):
    out = report.parent
    assert report == out / "index.html"
    assert sorted(p.name for p in out.glob("*.html")) == ["index.html", "kintsugi.html", "mystery_game.html"]
    for page in out.glob("*.html"):
        text = page.read_text()
        assert text.startswith("<!DOCTYPE html>") and "<table>" in text
        assert "http://" not in text and "https://" not in text
    page = (out / "kintsugi.html").read_text()
    leading = {"synthetic2", "synthetic3m", "synthetic4"}  # the headline experiment at each player count
    for experiment in KINTSUGI:
        for chart in EVERY_CHART + (LEADING_CHART if experiment in leading else []):
            assert (out / f"{experiment}_{chart}.png").stat().st_size > 10_000
            assert f'src="{experiment}_{chart}.png"' in page
        if experiment not in leading:
            assert not any((out / f"{experiment}_{chart}.png").exists() for chart in LEADING_CHART), experiment
    assert 'src="kintsugi_compared_seat_by_experiment.png"' in page
    assert (out / "summary.md").read_text().startswith("# Balance report: Kintsugi, Mystery Game")
    findings = json.loads((out / "findings.json").read_text())
    assert findings["schema"] == 1 and isinstance(findings["records"], list)
    assert {e["experiment"] for e in findings["experiments"]} == {r["experiment"] for r in findings["records"]}
    assert all(e["seed"] is not None and e["config_hash"] for e in findings["experiments"])
    assert all(isinstance(r["experiment"], str) and isinstance(r.get("strategy", ""), str) and r["unit"] in UNITS
               for r in findings["records"])


def test_pages_link_to_each_other_and_every_chart_is_shown(report):
    out = report.parent
    pages = {p.name: p.read_text() for p in out.glob("*.html")}
    shown = set()
    for name, text in pages.items():
        links = set(re.findall(r'href="([^"#]+)"', text))
        assert {link for link in links if link.endswith(".html")} == set(pages) - {name}  # every other page
        shown |= set(re.findall(r'src="([^"]+)"', text))
        for target in links | shown:
            assert (out / target).is_file(), f"{name} links to {target}, which is not there"
    assert shown == {p.name for p in out.glob("*.png")}  # no chart drawn for nobody
    summary = (out / "summary.md").read_text()
    for game in ("kintsugi", "mystery_game"):
        assert f"[{game}.html]({game}.html)" in summary


def test_findings_lead_with_their_label(report):
    page = (report.parent / "kintsugi.html").read_text()
    assert '<div class="finding"><p><strong>Seat advantage.</strong> The start player wins' in page
    for experiment, (heading, players) in KINTSUGI.items():
        anchor = re.escape(html_lib.escape(heading, quote=True))
        assert re.search(rf'<h2 id="[^"]+">{anchor}</h2>\n<div class="finding"><p><strong>What was played.</strong> '
                         rf"Experiment {experiment}: [\d,]+ games at {players} players", page)
    summary = (report.parent / "summary.md").read_text()
    assert "- **Strategy strength.** " in summary
    assert summary.count("- **What was played.** ") == 6  # one per experiment


def test_summary_names_the_planted_first_player_advantage_in_every_experiment(report, numbers):
    summary = (report.parent / "summary.md").read_text().replace("**", "")  # content, not emphasis
    for experiment, (heading, players) in KINTSUGI.items():
        seats = finding(section(summary, heading), "Seat advantage.")
        assert seats.startswith(f"The start player wins clearly more than a fair share at {players} players")
        assert_start_advantage_above_zero(seats, players)
        [start] = [r for r in numbers if r["experiment"] == experiment and r["metric"] == "start_advantage"]
        assert 0 < start["low"] < start["estimate"] < start["high"]


def test_summary_names_the_always_right_guesser_at_100_percent_in_every_experiment(report):
    summary = (report.parent / "summary.md").read_text().replace("**", "")
    for heading, _ in KINTSUGI.values():
        guessing = finding(section(summary, heading), "Guessing accuracy.")
        assert re.search(r"oracle is right 100\.0% of the time \(95% CI [\d.]+–100(\.0+)?%, above chance\)", guessing)
        assert re.search(r"uniform is right 3\d\.\d% of the time", guessing)


def test_report_has_the_match_table_and_caveats(report):
    page = (report.parent / "kintsugi.html").read_text()
    assert '<h3 id="matches">Matches</h3>' in page and "Match win share" in page
    assert "chance level" in page
    summary = (report.parent / "summary.md").read_text()
    assert "- **Matches.** " in section(summary, MATCH_QUESTION)
    found = finding(section(summary.replace("**", ""), MATCH_QUESTION), "Matches.")
    assert re.search(r"every match seats .*\), at 3 players greedy\+oracle wins [\d.]+% of its matches, clearly more "
                     r"than \S+ \([\d.]+%\), and clearly above the fair share of 33\.3%\.", found)
    assert re.search(r"At 3 players the player who starts a match's first game wins [\d.]+% of the matches "
                     r"\([\d.]+–[\d.]+%\), Player 2 of that game [\d.]+% \([\d.]+–[\d.]+%\) and Player 3 "
                     r"[\d.]+% \([\d.]+–[\d.]+%\), against a fair share of 33\.3%: starting the first game of a match ",
                     found)
    assert "Match win share by the seat held in the match&#x27;s first game" in page
    assert "- **Matches.** " not in section(summary, "synthetic3")  # not a match: no matches
    overview = report.read_text()
    assert "Bots are not people" in overview and "Bots are not people" in summary
    assert "are pooled" not in overview + summary  # numbers never pool experiments


def test_the_overview_has_a_row_per_game_and_player_count_from_its_headline_experiment(report, numbers):
    rows = page_table(report.read_text(), "Seat balance at a glance")
    sources = page_table(report.read_text(), "Where each row comes from")
    assert [(r["Game"], r["Players"], r["Experiment"]) for r in sources] == [
        ("Kintsugi", "2", "synthetic2"),
        ("Kintsugi", "3", "synthetic3m"),  # marked as the headline, though synthetic3 has more games
        ("Kintsugi", "4", "synthetic4"),
        ("Mystery Game", "2", "mystery_big"),  # none marked: the one with the most games
    ]
    assert [r["Players"] for r in rows] == [r["Players"] for r in sources]
    for row, source in zip(rows, sources):  # the row's numbers are its experiment's
        [start] = [r for r in numbers if r["experiment"] == source["Experiment"] and r["metric"] == "start_advantage"]
        edge = f"{pp(start['estimate'])} ({pp_ci(start['low'], start['high'])})".replace(" pp", "")
        assert row["Start player's edge, pp (95% CI)"] == edge


def test_findings_json_records_every_number_of_every_experiment(numbers):
    experiments = {"synthetic2", "synthetic3", "synthetic4", "synthetic3m", "mystery_big", "mystery_small"}
    for r in numbers:
        assert {"game", "experiment", "players", "metric", "estimate", "low", "high", "games", "method"} <= set(r)
        names = r["experiment"] if isinstance(r["experiment"], list) else [r["experiment"]]
        assert set(names) <= experiments and len(set(names)) == len(names)  # one experiment, never pooled ...
        assert isinstance(r["experiment"], str) or len(names) > 1  # ... or a list of those compared
        assert {r["game"]} == {"mystery_game" if name.startswith("mystery") else "kintsugi" for name in names}
        assert isinstance(r["players"], int) and isinstance(r["games"], int) and r["games"] > 0
        assert isinstance(r["estimate"], float) and isinstance(r["method"], str) and r["method"]
        assert all(v is None or isinstance(v, float) for v in (r["low"], r["high"]))
    metrics = {r["metric"] for r in numbers}
    kintsugi_own = {"guess_accuracy", "winner_changed_share", "match_win_share", "match_win_share_by_first_seat",
                    "colour_win_share"}  # the mystery game has none
    assert {"seat_win_share", "start_advantage", "strategy_win_share", "handicap", "compensated_win_share",
            "rating"} | kintsugi_own <= metrics
    players = {"synthetic2": 2, "synthetic3": 3, "synthetic4": 4, "synthetic3m": 3, "mystery_big": 2,
               "mystery_small": 2}
    for experiment, count in players.items():
        mine = [r for r in numbers if r["experiment"] == experiment]
        assert {r["metric"] for r in mine} >= metrics - kintsugi_own
        assert sorted(r["seat"] for r in mine if r["metric"] == "seat_win_share") == list(range(count))
        handicaps = [r for r in mine if r["metric"] == "handicap"]
        assert {r["seat"] for r in handicaps} == set(range(count))
        assert any(r["points"] % 1 == 0.5 for r in handicaps) and any(r["points"] % 1 == 0 for r in handicaps)
        assert all(sum(r["fair_point"] for r in handicaps if r["seat"] == seat) == 1 for seat in range(count))
        compensated = [r for r in mine if r["metric"] == "compensated_win_share"]
        recommended = [r for r in compensated if r.get("recommended")]
        assert sorted(r["seat"] for r in recommended) == list(range(count))  # one set, every seat
        assert len({(tuple(r["points"]), str(r["tie_order"])) for r in recommended}) == 1
        assert sum(r["estimate"] for r in recommended) == pytest.approx(1)
        [chosen] = [r for r in mine if r["metric"] == "compensation"]
        assert len(chosen["points"]) == count and chosen["points"] == recommended[0]["points"]
        assert chosen["evens"] == all(r["low"] <= 1 / count <= r["high"] for r in recommended)
        assert {r["strategy"] for r in mine if r["metric"] == "rating"} == set(STRATEGIES)


def test_p_values_below_a_float_and_signed_zeros_are_written_in_words(report, tmp_path):
    assert p_value(0.0) == p_value(1e-320) == "< 1e-300"
    assert p_value(0.012345) == "0.0123" and p_value(2e-300) == "2e-300"
    assert pp(-0.0001) == "+0.0 pp" and pp_ci(-0.0004, -0.0) == "+0.0 to +0.0 pp" and pp(-0.0006) == "-0.1 pp"
    # seat 0 wins every game: within each strategy the seat test's p-value is far below 1e-300
    rows = synthetic_games(2, 6000, seed=3).with_columns(win=(pl.col("seat") == 0).cast(pl.Float64),
                                                         rank=pl.col("seat") + 1)
    data = game_data(rows, "kintsugi", tmp_path)
    by_strategy = seat_tables(seat_analysis(data), data)[2]
    column = by_strategy.columns.index("p-value")
    assert {row[column] for row in by_strategy.rows} == {"< 1e-300"}
    for written in [*report.parent.glob("*.html"), report.parent / "summary.md"]:
        assert not re.search(r"-0\.0( pp| to)", written.read_text()), written.name


def test_loaded_win_shares_sum_to_one_per_game(results):
    rows, manifests = load_results(results)
    assert len(manifests) == 6 and rows.height == 1500 * (2 + 3 + 4) + 600 * 3 + (400 + 200) * 2
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
            "deal": [0, 0, 1, 1, 2, 2],
            "players": [2] * 6,
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
    intervals = head_to_head(rows).filter(pl.col("strategy") == "a").row(0, named=True)
    assert intervals["lo"] < 0.5 < intervals["hi"]  # three deals: a wide interval, clustered by deal


def test_winner_change_compares_winners_by_pieces_with_actual_winners():
    # game 0: seat 1 had fewer pieces but seat 0 guessed right and won; game 1: nothing changed.
    rows = resultsdir.two_player_games([0, 1], pieces=[3, 2, 2, 4], win=[1.0, 0.0, 1.0, 0.0],
                                       guess_correct=[True, False, False, False])
    data = GameData("kintsugi", rows, [{"experiment": "e"}], Path("."))
    changes = WINNER_CHANGES.compute(data).row(0, named=True)
    assert (changes["games"], changes["changed"], changes["with_correct"]) == (2, 1, 1)
    assert changes["rate"] == 0.5 and changes["rate_correct"] == 1.0


def test_guess_accuracy_resamples_deals_not_guesses():
    rows = synthetic_games(4, 3000, seed=5)
    right = np.random.default_rng(1).random(3000) < 0.5  # the four guesses of a game are right or wrong together
    rows = rows.with_columns(guess_correct=pl.Series(right[rows["deal"].to_numpy()]))
    accuracy = guess_accuracy(rows, ["players"]).row(0, named=True)
    assert accuracy["games"] == 3000 and accuracy["method"] == "cluster_t" and cluster_unit(rows) == "deal"
    lo, hi = wilson(accuracy["correct"], accuracy["guesses"])
    # about √4 = 2 times the width of guesses as trials
    assert accuracy["accuracy_hi"] - accuracy["accuracy_lo"] > 1.7 * (hi - lo)


def test_the_guessed_players_policy_is_the_next_seats_in_any_row_order():
    rows = with_policy_and_guesser(pl.concat([synthetic_games(3, 200, seed=8), synthetic_games(4, 200, seed=9)]))
    ordered = with_target_policy(rows)  # each game's seats one after another: read a few rows on
    shuffled = with_target_policy(rows.sample(fraction=1.0, shuffle=True, seed=3))  # joined
    next_seat = rows.select(*GAME_KEY, target_seat=pl.col("seat"), expected=pl.col("policy"))
    for found in (ordered, shuffled):
        checked = found.join(next_seat, on=[*GAME_KEY, "target_seat"])
        assert checked.height == rows.height and (checked["target_policy"] == checked["expected"]).all()
        assert (found["target_seat"] == (found["seat"] + 1) % found["players"]).all()
    assert ordered.select(rows.columns).equals(rows)


def test_kintsugi_intervals_resample_deals_or_matches(numbers):
    own = [r for r in numbers if r["metric"] in {"guess_accuracy", "winner_changed_share", "match_win_share",
                                                 "match_win_share_by_first_seat"}]
    for r in own:
        cluster = "match" if r["experiment"] == "synthetic3m" else "deal"
        assert r["method"].startswith("cluster_t") and r["cluster"] == cluster, r
        assert r["low"] <= r["estimate"] <= r["high"]


def first_seat_matches(matches: int, edge: int, seed: int) -> pl.DataFrame:
    """Match rows at 3 players (as synthetic_games lays them out: the player at seat s of a match's first game is
    player s) with random scores, every strategy as often at each seat of the first game, and a planted edge: the
    player who starts a match's first game scores `edge` points fewer (the lowest total wins) in each of its games."""
    rows = synthetic_games(3, 3 * matches, seed, match=True)
    score = np.random.default_rng(seed).integers(0, 10, rows.height)
    return rows.with_columns(score=pl.Series(score) - edge * (pl.col("player") == 0),
                             strategy=pl.lit(np.array(STRATEGIES))
                             .get((pl.col("player").cast(pl.Int64) + pl.col("match_id")) % len(STRATEGIES)))


@pytest.mark.parametrize(("edge", "verdict"), [
    (2, "still pays, and Player 2 and Player 3 of that game win clearly less than fair."),
    (0, "neither clearly pays nor clearly costs.")])
def test_the_match_win_share_by_first_seat_finds_a_planted_edge_of_the_first_start(edge, verdict, tmp_path):
    data = game_data(first_seat_matches(1500, edge, seed=11), "kintsugi", tmp_path)
    result = matches(data)
    assert data.lowest_wins and result["first_seat"]["seat"].to_list() == [0, 1, 2]
    found = match_finding(result, data)
    assert found.text.endswith(f"against a fair share of 33.3%: starting the first game of a match {verdict}")
    records = {r["seat"]: r for r in found.numbers if r["metric"] == "match_win_share_by_first_seat"}
    assert sorted(records) == [0, 1, 2] and sum(r["estimate"] for r in records.values()) == pytest.approx(1)
    assert {(r["matches"], r["games"], round(r["fair"], 9)) for r in records.values()} == {(1500, 4500, 0.333333333)}
    assert (records[0]["method"], records[0]["cluster"]) == ("cluster_t", "match")
    start = records[0]
    if edge:
        assert 1 / 3 < start["low"] < start["estimate"] < start["high"]
        assert all(records[seat]["high"] < 1 / 3 for seat in (1, 2))
    else:
        assert start["low"] < 1 / 3 < start["high"]


# ---------------------------------------------------------------- two experiments of one game, different Params

TWO_PARAMS = """\
name = "{name}"
question = "{question}"
headline = {headline}
""" + KINTSUGI_EXPERIMENT + """
[params]
connectivity = {connectivity}
"""
EDGES = "Does joining only edge neighbours change who wins?"
CORNERS = "Who wins when gold lacquer joins fragments corner to corner?"


@pytest.fixture(scope="module")
def two_params(tmp_path_factory) -> Path:
    """A results folder holding two Kintsugi experiments that differ in their Params only, run by `atelier run`;
    the second is the game's headline experiment."""
    root = tmp_path_factory.mktemp("two_params")
    files = []
    for name, question, headline, connectivity in (("edges", EDGES, "false", 4), ("corners", CORNERS, "true", 8)):
        files.append(root / f"{name}.toml")
        files[-1].write_text(TWO_PARAMS.format(name=name, question=question, headline=headline, games=120, chunk=60,
                                               connectivity=connectivity))
    result = invoke("run", *files, "--out", root / "results", "--quiet", "--jobs", "2")
    assert result.exit_code == 0, result.output
    return root / "results"


@pytest.fixture(scope="module")
def joint_report(two_params, tmp_path_factory) -> Path:
    """`atelier report` of both experiments; it prints where the overview, summary.md and findings.json are."""
    out = tmp_path_factory.mktemp("joint_report") / "report"
    result = invoke("report", two_params, "--out", out)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [str(out / name) for name in ("index.html", "summary.md", "findings.json")]
    return out / "index.html"


def report_json(results: Path, out: Path) -> list[dict]:
    """`atelier report RESULTS --json`, parsed."""
    result = invoke("report", results, "--json", "--out", out)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["records"]


def about(record: dict) -> str:
    """What a record measures, without its numbers: the key two experiments' records are matched on."""
    return json.dumps({k: record.get(k) for k in ("metric", "players", "seat", "strategy", "points",
                                                  "tie_order", "recommended")})


def test_two_experiments_with_different_params_are_answered_apart(two_params, joint_report, tmp_path):
    joint = json.loads((joint_report.parent / "findings.json").read_text())["records"]
    assert {r["experiment"] for r in joint} == {"edges", "corners"}
    alone = {}
    for name in ("edges", "corners"):
        alone[name] = report_json(two_params / name, tmp_path / name)
        assert alone[name] and {r["experiment"] for r in alone[name]} == {name}
        assert [r for r in joint if r["experiment"] == name] == alone[name]  # the same answers as its folder alone
        manifest = json.loads((two_params / name / "manifest.json").read_text())
        assert manifest["resolved"]["params"]["2"]["connectivity"] == (4 if name == "edges" else 8)
    edges, corners = ({about(r): r["estimate"] for r in alone[name]} for name in ("edges", "corners"))
    assert any(edges[key] != corners[key] for key in edges.keys() & corners.keys())  # the Params show
    page = (joint_report.parent / "kintsugi.html").read_text()
    assert page.index(f">{html_lib.escape(CORNERS, quote=True)}</h2>") < page.index(
        f">{html_lib.escape(EDGES, quote=True)}</h2>") < page.index(">Kintsugi: the experiments compared</h2>")
    summary = (joint_report.parent / "summary.md").read_text()
    assert "Experiment edges: " in section(summary, EDGES) and "Experiment corners: " in section(summary, CORNERS)


def test_the_manifest_records_the_question_and_the_headline(two_params):
    for name, question, headline in (("edges", EDGES, False), ("corners", CORNERS, True)):
        manifest = json.loads((two_params / name / "manifest.json").read_text())
        assert (manifest["question"], manifest["headline"]) == (question, headline)


def test_report_json_prints_findings_json_and_writes_nothing(two_params, joint_report, tmp_path):
    findings = json.loads((joint_report.parent / "findings.json").read_text())["records"]
    assert report_json(two_params, tmp_path / "never") == findings
    assert not (tmp_path / "never").exists()
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "index.html").write_text("an earlier report")
    assert report_json(two_params, earlier) == findings
    assert [p.name for p in earlier.iterdir()] == ["index.html"]
    assert (earlier / "index.html").read_text() == "an earlier report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["earlier"]


def test_the_overview_names_the_headline_experiment_when_it_gives_every_row(joint_report):
    rows = page_table(joint_report.read_text(), "Where each row comes from")
    assert [r["Players"] for r in rows] == ["2", "3"]
    assert [r.get("Experiment") for r in rows] == ["corners", "corners"]


def test_every_number_of_the_summary_is_in_findings_json(report):
    from resultsdir import unrecorded_numbers

    assert unrecorded_numbers(report.parent) == []


def test_a_report_analysed_in_worker_processes_is_the_report_analysed_in_one(two_params, joint_report, tmp_path,
                                                                             monkeypatch):
    import reports.build

    monkeypatch.setattr(reports.build, "PARALLEL_ROWS", 0)  # the demo's sizes: sections analysed side by side
    side_by_side = build_report(two_params, tmp_path / "report").parent
    for name in ("summary.md", "findings.json", "kintsugi.html", "index.html"):
        assert (side_by_side / name).read_text() == (joint_report.parent / name).read_text(), name


def test_the_report_bar_counts_each_analysis_as_it_ends(results, tmp_path, monkeypatch):
    """A report of one large experiment is one section: a bar of sections would stand still until its end."""
    import reports.build

    steps = []

    class Recorded(reports.build.Progress):
        def advance(self, task, advance=1):
            super().advance(task, advance)
            steps.append(self.tasks[0].completed)

    monkeypatch.setattr(reports.build, "Progress", Recorded)
    rows, manifests = load_results(results)
    games = reports.build.game_data(rows, manifests, tmp_path)
    units = [(name, data) for name, experiments in games.items() for data in experiments]
    for _, data in units:
        data.draw = False
    total = sum(len(reports.build.unit_analyses(name, data)[1]) for name, data in units)
    assert len(reports.build.run_units(units, progress=True)) == len(units)
    assert total > 2 * len(units) and steps == list(range(1, total + 1))


def test_parts_of_one_player_count_are_read_together_or_one_by_one_to_the_same_rows(tmp_path):
    """Parts of one schema are decoded together; parts whose schemas differ (hand-made, or written by another
    version) one by one, their columns matched by name as before."""
    rows = synthetic_games(3, 40, seed=1)
    write_split(tmp_path / "same", rows, parts=4)
    halves = [rows.slice(0, 60), rows.slice(60).with_columns(pl.col("score").cast(pl.Int64), extra=pl.lit(1))]
    write_experiment(tmp_path / "mixed", halves, "kintsugi")
    expected = load(tmp_path / "same")
    assert expected.equals(rows.select(expected.columns).cast(expected.schema))
    mixed = load(tmp_path / "mixed")
    assert mixed["extra"].to_list() == [None] * 60 + [1] * 60 and mixed.schema["score"] == pl.Int64
    assert mixed.drop("extra").equals(expected.cast({"score": pl.Int64}))


def test_head_to_head_counts_the_meetings_of_one_deal_together():
    """Ten deals of twenty games each, every game of a deal won by the same strategy: 200 meetings, but ten
    independent outcomes, so the interval is as wide as ten deals allow (rows as independent trials would give one
    about 0.13 wide)."""
    deal = np.repeat(np.arange(10), 20)
    a_wins = np.isin(deal, [0, 1, 2, 3, 4, 5])
    rows = pl.DataFrame({"experiment": "e", "game_id": np.repeat(np.arange(200), 2), "deal": np.repeat(deal, 2),
                         "players": 2, "strategy": ["a", "b"] * 200,
                         "rank": np.column_stack([np.where(a_wins, 1, 2), np.where(a_wins, 2, 1)]).ravel()})
    a = head_to_head(rows).filter(pl.col("strategy") == "a").row(0, named=True)
    assert (a["meetings"], a["share"]) == (200, pytest.approx(0.6))
    assert a["hi"] - a["lo"] > 0.5
