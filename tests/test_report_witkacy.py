"""The Witkacy report section, on synthetic results with planted effects.

Planted: each strategy completes on average COPIES copies (the start player half a copy more), spread over the
paintings with WEIGHTS (popular: mostly A); each strategy uses each action token with the chances in USE (a
BASE-no-ACTION never uses ACTION), and each token used adds the copies in EXTRA (rush most; solvent nothing; gift
takes copies away); the Advanced Variant cuts the mean copies by 40% on the same deals and leaves game length alone.
"""

from itertools import permutations
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from resultsdir import finding, game_data, report_fixtures, rules_facts, seat_columns, section, write_experiment

from reports import build
from reports.analysis import GameData, run_section
from reports.load import load_results
from reports.stats import wilson
from reports.witkacy import (
    ANALYSES,
    action_use,
    advanced_variant,
    completion,
    painting_shares,
    restricted_variants,
    rules_pair,
    seat_copies,
    token_values,
    with_margin,
)
from reports.witkacy import COMPARED as ACROSS  # the analyses across experiments

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
                     [synthetic_witkacy(p, 480, p, TOURNAMENT, "witkacy_tournament") for p in (2, 3, 4)], "witkacy")
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
    charts = [*(f"{experiment}_{chart}.png" for experiment in BASIC for chart in CHARTS[:3]),
              "witkacy_advanced_action_use.png", "witkacy_restricted_action_worth.png"]
    assert summary.startswith("# Balance report: Witkacy")
    assert "\n## Witkacy\n" in summary
    for experiment in BASIC:
        for label in LABELS[:4]:
            assert f"- {label} " in section(summary, experiment), (experiment, label)
    assert f"- {LABELS[3]} " in section(summary, "witkacy_advanced")
    assert f"- {LABELS[4]} " in section(summary, "witkacy_restricted")
    # the Advanced Variant compares two experiments, so it belongs with the experiments compared
    for chart in [*charts, "witkacy_compared_advanced.png"]:
        assert (report.parent / chart).stat().st_size > 10_000, chart
        assert f'src="{chart}"' in page, chart
    assert f"- {LABELS[5]} " in section(summary, COMPARED)


def test_the_start_player_completes_more(experiments):
    for experiment in BASIC:
        gap = seat_copies(experiments[experiment])["gap"].sort("players")
        assert gap["players"].to_list() == ([2, 3, 4] if experiment == "witkacy_tournament" else [3])
        assert (gap["gap_lo"] > 0).all() and gap["gap"].to_numpy() == pytest.approx([0.5] * gap.height, abs=0.35)
    assert seat_copies(experiments["witkacy_advanced"]) is None  # the basic game only


def test_completion_by_strategy_recovers_the_planted_rates(experiments):
    result = completion(experiments["witkacy_tournament"])
    by = {r["strategy"]: r for r in result.filter(pl.col("players") == 4).iter_rows(named=True)}
    assert by["completer"]["copies_lo"] > by["popular"]["copies_hi"] > by["random"]["copies_hi"]
    assert by["random"]["completed"] < by["completer"]["completed"]
    assert by["all"]["completed_lo"] < by["all"]["completed"] < by["all"]["completed_hi"]
    for experiment in BASIC:  # every player at 3 players counts once
        data = experiments[experiment]
        three = completion(data).filter((pl.col("players") == 3) & (pl.col("strategy") == "all"))["n"][0]
        assert three == data.rows.filter(pl.col("players") == 3).height
    assert completion(experiments["witkacy_advanced"]) is None  # the Advanced Variant left out


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # four rows: some resamples complete nothing
def test_completion_counts_cards_per_copy_and_leaves_the_advanced_variant_out(tmp_path):
    rows = pl.DataFrame({"experiment": ["e"] * 4, "game_id": [0, 0, 1, 1], "deal": [0, 0, 1, 1], "seat": [0, 1] * 2,
                         "players": [2] * 4, "strategy": ["a", "b"] * 2, "paintings": [2, 0, 1, 1],
                         "cards_played": [12, 11, 12, 13]})
    result = completion(game_data(rows, "witkacy", tmp_path))
    everyone = result.filter(pl.col("strategy") == "all").row(0, named=True)
    assert everyone["completed"] == pytest.approx(0.75) and everyone["copies"] == pytest.approx(1.0)
    assert everyone["cards_per_copy"] == pytest.approx(48 / 4)
    assert (everyone["completed_lo"], everyone["completed_hi"]) == pytest.approx(wilson(3, 4))
    b = result.filter(pl.col("strategy") == "b").row(0, named=True)
    assert b["cards_per_copy"] == pytest.approx(24 / 1)
    advanced = game_data(rows, "witkacy", tmp_path / "advanced", facts=advanced_facts)
    assert completion(advanced) is None


def test_painting_shares_follow_the_weights(experiments):
    for experiment in BASIC:
        data = experiments[experiment]
        result = painting_shares(data)
        pooled = result["pooled"].row(0, named=True)
        shares = [pooled[p] for p in "ABCDE"]
        assert shares == sorted(shares, reverse=True) and sum(shares) == pytest.approx(1.0), experiment
        assert pooled["copies"] == data.rows["paintings"].sum()
        assert result["by_strategy"]["strategy"].to_list() == data.order  # strongest first
        if "popular" in data.order:
            popular = result["by_strategy"].filter(pl.col("strategy") == "popular").row(0, named=True)
            assert popular["A"] == pytest.approx(0.6, abs=0.03) and popular["A_lo"] < popular["A"] < popular["A_hi"]
    assert painting_shares(experiments["witkacy_advanced"]) is None  # the Advanced Variant left out


def test_painting_finding_names_the_favourites(summary):
    for experiment in BASIC:
        text = finding(section(summary, experiment), "Which paintings get copied.")
        assert text.startswith("A is copied most (") and "and E least (" in text, experiment
        assert "players clearly favour some paintings over others" in text, experiment
        if experiment != "witkacy_restricted":  # where popular plays
            assert "The strategy whose copies concentrate most on one painting is popular:" in text
            assert "of them are of A." in text


def test_action_use_recovers_the_planted_chances(experiments):
    for experiment in ("witkacy_tournament", "witkacy_basic"):
        pooled = {r["strategy"]: r for r in action_use(experiments[experiment])["pooled"].iter_rows(named=True)}
        assert pooled["completer"]["solvent"] == 0 and pooled["completer"]["gift"] == 0
        assert pooled["completer"]["stash"] == pytest.approx(0.9, abs=0.02)
        assert next(iter(pooled)) == "all"
    pooled = {r["strategy"]: r for r in action_use(experiments["witkacy_restricted"])["pooled"].iter_rows(named=True)}
    for action in ACTIONS:
        assert pooled[f"saboteur-no-{action}"][action] == 0
        assert pooled["saboteur"][action] == pytest.approx(0.95, abs=0.02)
    assert pooled["saboteur"]["tokens"] == pytest.approx(4.75, abs=0.05)
    assert next(iter(pooled)) == "all"


def test_the_use_finding_ranks_the_actions(summary):
    for experiment in (*BASIC, "witkacy_advanced"):
        text = finding(section(summary, experiment), "Action tokens used.")
        assert text.startswith("All strategies together, players use "), experiment
        assert "Of the strategies, saboteur uses the most tokens" in text, experiment
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
    assert token_values(experiments["witkacy_tournament"]) is None  # no restricted strategies there


def test_the_worth_finding_reads_in_plain_words(summary):
    text = finding(section(summary, "witkacy_restricted"), "Action tokens (what each is worth).")
    assert text.startswith("What each token is worth to saboteur (witkacy_restricted at 3 players), in points over "
                           "its table a game: rush +")
    assert "Clearly worth points: rush, stash and correction." in text
    assert "Without gift saboteur does clearly better: it spends that token badly." in text
    assert "No clear value: solvent." in text
    assert "In wins, rush is worth the most:" in text


def test_points_over_the_table_subtract_the_other_players_mean():
    rows = pl.DataFrame({"experiment": ["e"] * 6, "game_id": [0, 0, 0, 1, 1, 1], "players": [3] * 6,
                         "score": [6, 3, 0, 2, 2, 2]})
    assert with_margin(rows)["margin"].to_list() == [4.5, 0.0, -4.5, 0.0, 0.0, 0.0]


def test_token_worth_on_hand_made_deals(tmp_path):
    """Two deals at 2 players: base wins both games of deal 0 by 2 points and loses deal 1's by 4 against
    the variant. At 2 players the points over the table are the lead over the one opponent."""
    rows = pl.DataFrame({"experiment": ["e"] * 8, "game_id": [0, 0, 1, 1, 2, 2, 3, 3], "deal": [0] * 4 + [1] * 4,
                         "players": [2] * 8, "seat": [0, 1] * 4, "strategy": ["b", "b-no-gift", "b-no-gift", "b"] * 2,
                         "score": [5, 3, 3, 5, 1, 5, 5, 1], "win": [1.0, 0, 0, 1.0, 0, 1.0, 1.0, 0]})
    assert restricted_variants(rows) == [("b-no-gift", "b", "gift")]
    worth = token_values(game_data(rows, "witkacy", tmp_path)).row(0, named=True)
    assert worth["seats"] == 4 and worth["share"] == pytest.approx(0.5) and worth["base_share"] == pytest.approx(0.5)
    assert (worth["points"], worth["base_points"], worth["point_worth"]) == pytest.approx((1.0, -1.0, -2.0))
    assert (worth["point_worth_lo"], worth["point_worth_hi"]) == pytest.approx((-8.0, 4.0))  # one deal twice
    assert (worth["win_worth_lo"], worth["win_worth_hi"]) == pytest.approx((-1.0, 1.0))


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
    text = ACROSS[0].finding(advanced_variant(everything), everything).text  # it needs both experiments at once
    assert text.startswith("The Advanced Variant makes completing paintings harder, as the rulebook intends "
                           "(witkacy_advanced against witkacy_basic, on the same deals): at 3 players, players "
                           "complete")
    assert "Game length does not change clearly (" in text and " turns a game)." in text


def test_a_tournament_alone_skips_restricted_play_and_the_variant(tmp_path):
    rows = synthetic_witkacy(3, 240, 7, TOURNAMENT, "witkacy_tournament")
    own = run_section("own", [*ANALYSES, *ACROSS],  # an experiment alone: its comparisons too
                       game_data(rows, "witkacy", tmp_path))
    text = " ".join(b for b in own.blocks if isinstance(b, str))
    assert "Run experiments/witkacy_restricted.toml" in text and "Run witkacy_basic and witkacy_advanced" in text
    for chart in CHARTS:
        skipped = chart in ("action_worth", "advanced")
        assert (tmp_path / f"witkacy_tournament_{chart}.png").exists() != skipped, chart
    assert [f.label for f in own.findings] == [label for label in LABELS
                                                   if label not in LABELS[4:]]
