"""The Witkacy report section, on synthetic results with planted effects.

Planted: each strategy completes on average COPIES copies (the start player half a copy more), spread over the
paintings with WEIGHTS (popular: mostly A); each strategy uses each action token with the chances in USE (a
BASE-no-ACTION never uses ACTION), and each token used adds the copies in EXTRA (rush most; solvent nothing; gift
takes copies away); the Advanced Variant cuts the mean copies by 40% on the same deals and leaves game length alone.
"""

import json
from itertools import permutations
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import resultsdir
from resultsdir import (
    finding,
    game_data,
    report_fixtures,
    rules_facts,
    seat_columns,
    section,
    unrecorded_numbers,
    write_experiment,
)
from scipy.stats import t as student_t

from reports import build
from reports.analysis import GameData
from reports.load import load_results
from reports.restricted import variants
from reports.spec import measured
from reports.stats import newcombe, wilson
from reports.witkacy import REPORT
from reports.witkacy.actions import token_measures
from reports.witkacy.advanced import ADVANCED, advanced_variant, rules_pair
from reports.witkacy.completion import COMPLETION
from reports.witkacy.paintings import PAINTINGS
from reports.witkacy.seats import SEATS
from reports.witkacy.worth import token_values, with_margin

ACTIONS = ["stash", "solvent", "correction", "gift", "rush"]
TOURNAMENT = ["random", "completer", "popular", "saboteur"]
RESTRICTED = ["saboteur", *(f"saboteur-no-{a}" for a in ACTIONS)]
RULES = ["completer", "popular", "saboteur"]
COPIES = {"random": 0.8, "completer": 3.0, "popular": 2.0, "saboteur": 2.0}  # mean copies before tokens
WEIGHTS = {"popular": [0.6, 0.1, 0.1, 0.1, 0.1]}  # everyone else: EVEN_WEIGHTS
EVEN_WEIGHTS = [0.3, 0.25, 0.2, 0.15, 0.1]
USE = {"random": [0.5] * 5, "completer": [0.9, 0.0, 0.9, 0.0, 0.9], "popular": [0.8, 0.3, 0.5, 0.3, 0.8],
       "saboteur": [0.95] * 5}
EXTRA = np.array([0.6, 0.0, 0.5, -0.6, 1.0])  # copies a used token adds (negative: takes away), as a chance
CHARTS = ["completion", "paintings", "action_use", "action_worth", "advanced"]  # as <experiment>_<chart>.png
BASIC = ("witkacy_tournament", "witkacy_restricted", "witkacy_basic")  # the experiments under the basic rules
COMPARED = "Witkacy: the experiments compared"  # the section that holds the Advanced Variant, across experiments
LABELS = ("Seats and completed paintings.", "Completing paintings.", "Which paintings get copied.",
          "Action tokens used.", "Action tokens (what each is worth).", "The Advanced Variant.")


def synthetic_witkacy(players: int, games: int, seed: int, strategies: list[str], experiment: str,
                      advanced: bool = False) -> pl.DataFrame:
    """Witkacy-shaped rows with the planted effects above; the highest score wins, then the most copies, then
    ties share. As in the runner, each deal is played under every seating of the strategies (games should be a
    multiple of their number). The same seed gives the same draws with and without the Advanced Variant, as the
    same deals would."""
    rng = np.random.default_rng(seed)
    lineups = np.array(list(permutations(range(len(strategies)), players)))
    seat = np.broadcast_to(np.arange(players), (games, players))
    index = lineups[np.arange(games) % len(lineups)]
    bases, _, banned = zip(*(s.partition("-no-") for s in strategies))
    chance = np.array([[USE[b][i] * (a != ban) for i, a in enumerate(ACTIONS)] for b, ban in zip(bases, banned)])
    strategy, base = np.array(strategies)[index], np.array(bases)[index]
    used = rng.random((games, players, 5)) < chance[index]
    turns = np.repeat(players * rng.integers(11, 15, games)[:, None], players, axis=1)
    deck_left = np.repeat(rng.integers(0, players, games), players)
    mean = np.vectorize(COPIES.get)(base) * (0.6 if advanced else 1.0) + 0.5 * (seat == 0)
    extra = (used & (rng.random((games, players, 5)) < np.abs(EXTRA))) * np.sign(EXTRA)
    total = np.maximum(rng.poisson(mean) + extra.sum(axis=2).astype(int), 0)
    weights = np.array([WEIGHTS.get(b, EVEN_WEIGHTS) for b in base.ravel()])
    copies = rng.multinomial(total.ravel(), weights).reshape(games, players, 5)
    score = (copies * copies.sum(axis=1, keepdims=True)).sum(axis=2)
    key = score * 100 + total
    best = key.max(axis=1, keepdims=True)
    win = (key == best) / (key == best).sum(axis=1, keepdims=True)
    rank = 1 + (key[:, None, :] > key[:, :, None]).sum(axis=2)
    n = games * players
    return pl.DataFrame({
        **seat_columns(experiment, "witkacy", players, len(lineups), strategy, score, rank, win),
        "paintings": total.ravel().astype(np.int8),
        "cards_played": (turns // players + used[..., 4]).ravel().astype(np.int8),
        "turns": turns.ravel().astype(np.int16),
        "deck_left": deck_left.astype(np.int8),
    }).with_columns(copies_by_painting=pl.Series(copies.reshape(n, 5).tolist(), dtype=pl.List(pl.Int8)),
                    actions_used=pl.Series(used.reshape(n, 5).tolist(), dtype=pl.List(pl.Boolean)))


def advanced_facts(p: int) -> dict:
    return {**rules_facts("witkacy", p), "advanced": True}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """The demo's experiments: a tournament at 2 to 4 players, restricted play and the rules pair at 3 players."""
    root = tmp_path_factory.mktemp("witkacy_results")
    write_experiment(root / "witkacy_tournament",
                     [synthetic_witkacy(p, 480, p, TOURNAMENT, "witkacy_tournament") for p in (2, 3, 4)], "witkacy",
                     headline=True)
    write_experiment(root / "witkacy_restricted", [synthetic_witkacy(3, 3600, 5, RESTRICTED, "witkacy_restricted")],
                     "witkacy")
    write_experiment(root / "witkacy_basic", [synthetic_witkacy(3, 1200, 9, RULES, "witkacy_basic")], "witkacy")
    write_experiment(root / "witkacy_advanced",
                     [synthetic_witkacy(3, 1200, 9, RULES, "witkacy_advanced", advanced=True)], "witkacy",
                     facts=advanced_facts, params={"advanced": True})
    return root


@pytest.fixture(scope="module")
def experiments(results, tmp_path_factory) -> dict[str, GameData]:
    """Every experiment on its own, as the report analyses them."""
    rows, manifests = load_results(results)
    found = build.game_data(rows, manifests, tmp_path_factory.mktemp("witkacy_charts"))["witkacy"]
    return {data.experiment: data for data in found}


everything, report, summary = report_fixtures("witkacy")


def test_the_section_builds_end_to_end_with_its_charts(report, summary):
    page = (report.parent / "witkacy.html").read_text()
    charts = [*(f"witkacy_tournament_{chart}.png" for chart in CHARTS[:3]), "witkacy_restricted_action_worth.png"]
    assert summary.startswith("# Balance report: Witkacy")
    assert "\n## Witkacy\n" in summary
    for experiment in BASIC:
        for label in LABELS[:4]:
            assert f"- {label} " in section(summary, experiment), (experiment, label)
    assert f"- {LABELS[3]} " in section(summary, "witkacy_advanced")
    assert f"- {LABELS[4]} " in section(summary, "witkacy_restricted")
    for experiment in BASIC[1:]:  # the headline experiment's descriptive charts are not drawn again
        assert not any((report.parent / f"{experiment}_{chart}.png").exists() for chart in CHARTS[:3]), experiment
    # the Advanced Variant compares two experiments, so it belongs with the experiments compared
    for chart in [*charts, "witkacy_compared_advanced.png"]:
        assert (report.parent / chart).stat().st_size > 10_000, chart
        assert f'src="{chart}"' in page, chart
    assert f"- {LABELS[5]} " in section(summary, COMPARED)


def test_the_start_player_completes_more(experiments):
    for experiment in BASIC:
        gap = SEATS.compute(experiments[experiment]).filter(pl.col("seat") == 0).sort("players")
        assert gap["players"].to_list() == ([2, 3, 4] if experiment == "witkacy_tournament" else [3])
        assert (gap["gap_lo"] > 0).all() and gap["gap"].to_numpy() == pytest.approx([0.5] * gap.height, abs=0.35)
    assert SEATS.compute(experiments["witkacy_advanced"]) is None  # the basic game only


def test_completion_by_strategy_recovers_the_planted_rates(experiments):
    result = COMPLETION.compute(experiments["witkacy_tournament"])
    by = {r["strategy"]: r for r in result.filter(pl.col("players") == 4).iter_rows(named=True)}
    assert by["completer"]["copies_lo"] > by["popular"]["copies_hi"] > by["random"]["copies_hi"]
    assert by["random"]["completed"] < by["completer"]["completed"]
    assert by["all"]["completed_lo"] < by["all"]["completed"] < by["all"]["completed_hi"]
    for experiment in BASIC:  # every player at 3 players counts once
        data = experiments[experiment]
        three = COMPLETION.compute(data).filter((pl.col("players") == 3) & (pl.col("strategy") == "all"))["n"][0]
        assert three == data.rows.filter(pl.col("players") == 3).height
    assert COMPLETION.compute(experiments["witkacy_advanced"]) is None  # the Advanced Variant left out


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # four rows: some resamples complete nothing
def test_completion_counts_cards_per_copy_and_leaves_the_advanced_variant_out(tmp_path):
    rows = pl.DataFrame({"experiment": ["e"] * 4, "game_id": [0, 0, 1, 1], "deal": [0, 0, 1, 1], "seat": [0, 1] * 2,
                         "players": [2] * 4, "strategy": ["a", "b"] * 2, "paintings": [2, 0, 1, 1],
                         "cards_played": [12, 11, 12, 13]})
    result = COMPLETION.compute(game_data(rows, "witkacy", tmp_path))
    everyone = result.filter(pl.col("strategy") == "all").row(0, named=True)
    assert everyone["completed"] == pytest.approx(0.75) and everyone["copies"] == pytest.approx(1.0)
    assert everyone["cards_per_copy"] == pytest.approx(48 / 4)
    # deal 0 completes 1 of 2, deal 1 2 of 2: residuals -+0.5, se = sqrt(2 * 0.5) / 4 = 0.25, so 0.75 -+ t se on 1
    # degree of freedom leaves [0, 1]: Wilson on n_eff = 0.75 * 0.25 / 0.25^2 = 3 with that t quantile
    expected = wilson(0.75 * 3, 3, student_t.ppf(0.975, 1))
    assert (everyone["completed_lo"], everyone["completed_hi"]) == pytest.approx(expected)
    b = result.filter(pl.col("strategy") == "b").row(0, named=True)
    assert b["cards_per_copy"] == pytest.approx(24 / 1)
    advanced = game_data(rows, "witkacy", tmp_path / "advanced", facts=advanced_facts)
    assert COMPLETION.compute(advanced) is None


def test_completion_says_how_the_player_counts_differ_in_make_up(summary, tmp_path):
    text = finding(section(summary, "witkacy_tournament"), "Completing paintings.")
    assert ("Every player count seats the same strategies (completer, popular, random and saboteur) in equal "
            "numbers: the counts differ in the size of the table, not in who plays.") in text
    assert "Of the strategies, completer completes the most copies per player, " in text
    assert " at 2, 3 and 4 players, and random the fewest, " in text
    assert "make-up" not in finding(section(summary, "witkacy_basic"), "Completing paintings.")  # one count
    rows = pl.concat([synthetic_witkacy(2, 120, 1, TOURNAMENT, "mixed"), synthetic_witkacy(3, 60, 2, RULES, "mixed")])
    data = game_data(rows, "witkacy", tmp_path)
    found = COMPLETION.finding(COMPLETION.compute(data), data)
    assert ("The player counts differ in make-up (shares of the seats): at 2 players completer 25.0%, popular "
            "25.0%, random 25.0% and saboteur 25.0%; at 3 players completer 33.3%, popular 33.3% and saboteur "
            "33.3%.") in found.text
    shares = [n for n in found.numbers if n["metric"] == "strategy_seat_share"]
    assert len(shares) == 7 and all(n["estimate"] == pytest.approx(1 / 3) for n in shares if n["players"] == 3)


def test_painting_shares_follow_the_weights(experiments):
    for experiment in BASIC:
        data = experiments[experiment]
        result = PAINTINGS.compute(data)
        for row in result.filter(pl.col("strategy") == "all").iter_rows(named=True):
            shares = [row[p] for p in "ABCDE"]
            assert shares == sorted(shares, reverse=True) and sum(shares) == pytest.approx(1.0), experiment
        assert data.rows["copies_by_painting"].list.sum().sum() == data.rows["paintings"].sum()
        for (players,), group in result.partition_by("players", as_dict=True).items():
            assert group["strategy"].to_list() == ["all", *sorted(data.order)], players  # every player first
        if "popular" in data.order:
            popular = result.filter(pl.col("strategy") == "popular").row(0, named=True)
            assert popular["A"] == pytest.approx(0.6, abs=0.04) and popular["A_lo"] < popular["A"] < popular["A_hi"]
    assert PAINTINGS.compute(experiments["witkacy_advanced"]) is None  # the Advanced Variant left out


def test_painting_finding_names_the_most_and_least_copied(summary):
    for experiment in BASIC:
        text = finding(section(summary, experiment), "Which paintings get copied.")
        assert text.startswith("An even spread gives each painting 20.0% of the completed copies; at "), experiment
        assert text.count(" A is copied most (") == text.count("and E least (") == (
            3 if experiment == "witkacy_tournament" else 1), experiment
        assert text.count("both intervals exclude the even share") == text.count(" is copied most ("), experiment
        if experiment != "witkacy_restricted":  # where popular plays
            assert ("The highest share of one painting in one strategy's copies (by its interval's lower end): "
                    "popular's A at ") in text and ", above the even share." in text


def test_an_even_spread_is_called_even(tmp_path):
    """Every player completes one copy of each painting: every share is exactly even, and no interval leaves it."""
    rows = synthetic_witkacy(3, 240, 11, RULES, "even").with_columns(
        copies_by_painting=pl.lit([1] * 5, dtype=pl.List(pl.Int8)))
    data = game_data(rows, "witkacy", tmp_path)
    text = PAINTINGS.finding(PAINTINGS.compute(data), data).text
    # every deal gives 20.0%: no variation between deals, so Wilson's interval on the copies, which still holds 20%
    assert "(20.0% of the completed copies, 95% CI 18.7–21.4%)" in text
    assert "neither interval excludes the even share" in text and text.endswith(", not above the even share.")


def pooled_use(data: GameData) -> pl.DataFrame:
    """Each strategy's token use, every player count together."""
    return measured(data.rows, token_measures(data), ("strategy",))


def test_action_use_recovers_the_planted_chances(experiments):
    for experiment in ("witkacy_tournament", "witkacy_basic"):
        pooled = {r["strategy"]: r for r in pooled_use(experiments[experiment]).iter_rows(named=True)}
        assert pooled["completer"]["solvent"] == 0 and pooled["completer"]["gift"] == 0
        assert pooled["completer"]["stash"] == pytest.approx(0.9, abs=0.02)
        assert next(iter(pooled)) == "all"
    pooled = {r["strategy"]: r for r in pooled_use(experiments["witkacy_restricted"]).iter_rows(named=True)}
    for action in ACTIONS:
        assert pooled[f"saboteur-no-{action}"][action] == 0
        assert pooled["saboteur"][action] == pytest.approx(0.95, abs=0.02)
    assert pooled["saboteur"]["tokens"] == pytest.approx(4.75, abs=0.05)
    assert next(iter(pooled)) == "all"


def test_the_use_finding_ranks_the_actions_at_each_player_count(summary):
    for experiment in (*BASIC, "witkacy_advanced"):
        text = finding(section(summary, experiment), "Action tokens used.")
        first = 2 if experiment == "witkacy_tournament" else 3
        assert text.startswith(f"At {first} players, all strategies together use "), experiment
        assert text.count("Saboteur uses the most tokens") == (3 if first == 2 else 1), experiment
    assert text.count("At 3 players") == 1
    assert "random the fewest" in finding(section(summary, "witkacy_tournament"), "Action tokens used.")


def test_token_worth_recovers_the_planted_values(experiments):
    worth = {r["action"]: r for r in token_values(experiments["witkacy_restricted"]).iter_rows(named=True)}
    assert set(worth) == set(ACTIONS)
    assert worth["rush"]["point_worth_lo"] > worth["stash"]["point_worth_hi"]
    assert worth["stash"]["point_worth_lo"] > 0 and worth["correction"]["point_worth_lo"] > 0
    assert worth["gift"]["point_worth_hi"] < 0
    assert worth["solvent"]["point_worth_lo"] < 0 < worth["solvent"]["point_worth_hi"]
    assert worth["rush"]["win_worth_lo"] > 0
    assert {(r["experiment"], r["players"]) for r in worth.values()} == {("witkacy_restricted", 3)}
    rows = experiments["witkacy_restricted"].rows

    def wins(strategy: str) -> tuple[float, int]:
        mine = rows.filter(pl.col("strategy") == strategy)
        return mine["win"].sum(), mine.height

    rush = worth["rush"]  # worth = base − variant, and beside the paired interval the unpaired Newcombe one
    assert rush["win_worth"] == pytest.approx(wins("saboteur")[0] / wins("saboteur")[1]
                                              - wins("saboteur-no-rush")[0] / wins("saboteur-no-rush")[1])
    assert (rush["win_worth_lo_unpaired"], rush["win_worth_hi_unpaired"]) == pytest.approx(
        newcombe(*wins("saboteur"), *wins("saboteur-no-rush")))
    # 30 deals of 120 seatings; a seating of 3 of the 6 leaves out both saboteur and saboteur-no-rush in 4 of 20
    assert rush["deals"] == 30 and rush["games"] == 3600 * 16 // 20 and rush["win_worth_games_factor"] > 0
    assert token_values(experiments["witkacy_tournament"]) is None  # no restricted strategies there


def test_the_worth_finding_reads_in_plain_words(summary):
    text = finding(section(summary, "witkacy_restricted"), "Action tokens (what each is worth).")
    assert text.startswith("What each token is worth to saboteur (witkacy_restricted at 3 players), in points over "
                           "its table a game: rush +")
    assert "Clearly worth points: rush, stash and correction." in text
    assert "Gift clearly costs saboteur points, as this bot plays it." in text
    assert "No clear worth in points: solvent." in text
    assert "In win share, rush is worth the most: +" in text and " pp paired over deals; unpaired " in text
    # a pool of six at three seats: the base meets only variants; a variant meets the base in 1 of 5 opponent seats
    assert text.split("\n")[0].endswith("The two sides met different opponents: 100.0% of saboteur's opponent "
                                        "seats held its variants, while each variant's held saboteur in 20.0% and "
                                        "other variants in 80.0%.")


def test_points_over_the_table_subtract_the_other_players_mean():
    rows = pl.DataFrame({"experiment": ["e"] * 6, "game_id": [0, 0, 0, 1, 1, 1], "players": [3] * 6,
                         "score": [6, 3, 0, 2, 2, 2]})
    assert with_margin(rows)["margin"].to_list() == [4.5, 0.0, -4.5, 0.0, 0.0, 0.0]


HAND_MADE = pl.DataFrame({  # two deals at 2 players: base wins deal 0's games by 2 and loses deal 1's by 4
    "experiment": ["e"] * 8, "game_id": [0, 0, 1, 1, 2, 2, 3, 3], "deal": [0] * 4 + [1] * 4, "players": [2] * 8,
    "seat": [0, 1] * 4, "strategy": ["b", "b-no-gift", "b-no-gift", "b"] * 2, "score": [5, 3, 3, 5, 1, 5, 5, 1],
    "win": [1.0, 0, 0, 1.0, 0, 1.0, 1.0, 0]})


def test_token_worth_on_hand_made_deals(tmp_path):
    """At 2 players the points over the table are the lead over the one opponent; two deals give an interval on t
    with one degree of freedom, wide: the win share's fills [-1, 1]."""
    assert variants(HAND_MADE) == [("b-no-gift", "b", "gift")]
    worth = token_values(game_data(HAND_MADE, "witkacy", tmp_path)).row(0, named=True)
    assert worth["seats"] == 4 and worth["share"] == pytest.approx(0.5) and worth["base_share"] == pytest.approx(0.5)
    assert (worth["points"], worth["base_points"], worth["point_worth"]) == pytest.approx((1.0, -1.0, -2.0))
    assert worth["base_met"] == worth["variants_met"] == 1.0 and worth["others_met"] == 0.0
    assert (worth["win_worth_lo"], worth["win_worth_hi"]) == (-1.0, 1.0)
    assert worth["point_worth_lo"] < -10 and worth["point_worth_hi"] > 6


def many_deals(deals: int, repeats: int) -> pl.DataFrame:
    """HAND_MADE's two kinds of deal, alternating over `deals` deals, with scores that vary by deal; each game of a
    deal played `repeats` times (the same deal, new games)."""
    frames = []
    for deal in range(deals):
        frame = HAND_MADE.filter(pl.col("deal") == deal % 2).with_columns(
            deal=pl.lit(deal), score=pl.col("score") + (deal % 3) * (pl.col("seat") == 0))
        for again in range(repeats):
            frames.append(frame.with_columns(game_id=pl.col("game_id") + 10 * (deal * repeats + again)))
    return pl.concat(frames)


def test_token_worth_resamples_whole_deals(tmp_path):
    """Playing every game of a deal four times over adds no deal: the paired intervals (clusters: deals) stay as
    they are, while the unpaired one, counting every game as independent, narrows by about half."""
    once, four = (token_values(game_data(many_deals(12, r), "witkacy", tmp_path / str(r))).row(0, named=True)
                  for r in (1, 4))
    for key in ("point_worth", "win_worth"):
        assert np.isfinite(once[f"{key}_lo"]) and once[f"{key}_lo"] < once[key] < once[f"{key}_hi"], key
        assert (four[key], four[f"{key}_lo"], four[f"{key}_hi"]) == pytest.approx(
            (once[key], once[f"{key}_lo"], once[f"{key}_hi"])), key
    width = {n: r["win_worth_hi_unpaired"] - r["win_worth_lo_unpaired"] for n, r in (("once", once), ("four", four))}
    assert width["four"] == pytest.approx(width["once"] / 2, rel=0.15)
    assert four["win_worth_games_factor"] < once["win_worth_games_factor"]


def test_the_rules_pair_is_found_by_pool_and_compared_on_the_same_deals(everything, experiments):
    assert rules_pair(everything) == ("witkacy_basic", "witkacy_advanced")
    assert all(rules_pair(data) is None for data in experiments.values())  # one experiment alone is no pair
    effects = {r["measure"]: r for r in advanced_variant(everything)["effects"].iter_rows(named=True)}
    copies, turns = effects["copies"], effects["turns"]
    assert copies["deals"] == 200 and copies["games"] == 1200
    assert copies["diff"] == pytest.approx(-0.4 * np.mean([COPIES[s] for s in RULES]), abs=0.15)
    assert copies["diff_hi"] < 0
    assert effects["completed"]["diff_hi"] < 0 and effects["score"]["diff_hi"] < 0
    assert turns["diff"] == turns["diff_lo"] == turns["diff_hi"] == 0  # the same deals, the same length


def test_the_advanced_finding_gives_a_plain_verdict(everything):
    text = ADVANCED.finding(advanced_variant(everything), everything).text  # it needs both experiments at once
    assert text.startswith("The Advanced Variant makes completing paintings harder, as the rulebook intends "
                           "(witkacy_advanced against witkacy_basic: the same strategies on the same deals): at 3 "
                           "players, players complete")
    assert "Game length does not change clearly (" in text and " turns a game)." in text


def test_a_tournament_alone_skips_restricted_play_and_the_variant(tmp_path):
    rows = synthetic_witkacy(3, 240, 7, TOURNAMENT, "witkacy_tournament")
    own, text = resultsdir.run_alone(rows, "witkacy", tmp_path,
                                     [*REPORT.analyses, *REPORT.compared])  # its comparisons too
    assert "Run experiments/witkacy_restricted.toml" in text and "Run witkacy_basic and witkacy_advanced" in text
    for chart in CHARTS:
        skipped = chart in ("action_worth", "advanced")
        assert (tmp_path / f"witkacy_tournament_{chart}.png").exists() != skipped, chart
    assert [f.label for f in own.findings] == [label for label in LABELS
                                                   if label not in LABELS[4:]]


def test_every_number_of_the_summary_is_in_findings_json(report):
    assert unrecorded_numbers(report.parent) == []


def test_findings_json_holds_the_token_worths_with_both_intervals(report):
    numbers = json.loads((report.parent / "findings.json").read_text())["records"]
    worth = {(n["metric"], n["action"]): n for n in numbers if n["metric"].startswith("token_worth_")}
    assert {action for _, action in worth} == set(ACTIONS) and len(worth) == 2 * len(ACTIONS)
    rush = worth["token_worth_win_share", "rush"]
    assert (rush["experiment"], rush["players"], rush["strategy"], rush["base"]) == (
        "witkacy_restricted", 3, "saboteur-no-rush", "saboteur")
    assert rush["estimate"] == pytest.approx(rush["share_base"] - rush["share_variant"])
    assert rush["low"] < rush["estimate"] < rush["high"] and rush["low_unpaired"] < rush["high_unpaired"]
    assert rush["games_factor"] == pytest.approx(1 / rush["width_ratio"] ** 2)
    assert rush["method"] == "paired_cluster_t" and rush["method_unpaired"] == "newcombe"
    points = worth["token_worth_points", "rush"]
    assert points["estimate"] == pytest.approx(points["points_base"] - points["points_variant"])
    assert points["low"] < points["estimate"] < points["high"] and points["method"] == "paired_cluster_t"
    met = {(n["strategy"], n["opponent"]): n["estimate"] for n in numbers if n["metric"] == "opponent_share"}
    assert met["saboteur-no-rush", "saboteur"] == pytest.approx(0.2)
    assert met["saboteur", "saboteur-no-TOKEN"] == pytest.approx(1.0)


def test_every_player_together_is_recorded_without_a_strategy(report):
    numbers = json.loads((report.parent / "findings.json").read_text())["records"]
    use = [n for n in numbers if n["metric"] in ("token_use_share", "tokens_per_game", "completion_share")]
    assert not any(n.get("strategy") == "all" for n in use)
    everyone = [n for n in use if "strategy" not in n and n["experiment"] == "witkacy_tournament"]
    # at 2, 3 and 4 players: tokens per game, each of the five tokens' use, and the completion share
    assert len(everyone) == 3 * (1 + len(ACTIONS) + 1)
