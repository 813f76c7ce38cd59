"""Kintsugi's guessers' beliefs: every guesser's belief is a probability over the colours that rules out its own,
the players write it (and its entropy after each of the neighbour's placements) into the results, a search writes
its policy's guesser's, and the report's Brier score and entropy are those of the beliefs written."""

import tomllib
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from resultsdir import game_data, unrecorded_numbers

from reports.build import build_report
from reports.kintsugi.belief import CHANCE_BRIER, START_BITS, belief_finding, belief_scores, with_brier
from sim.experiment import load_experiment
from sim.registry import get_game
from sim.runner import run
from strategies.kintsugi import GUESSERS, entropy_bits

SPEC = get_game("kintsugi")
ROOT = Path(__file__).resolve().parents[1]


def simulated(players: int, lineup: list[str], games: int = 24, seed: int = 3) -> pl.DataFrame:
    params = SPEC.make_params(players, {})
    columns = SPEC.simulate(params, np.array([lineup] * games), np.arange(games), np.random.SeedSequence(seed),
                            np.random.SeedSequence(seed + 1))
    return pl.DataFrame(columns)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_guessers_belief_is_a_distribution_that_rules_out_its_own_colour(players: int) -> None:
    guessers = [f"greedy+{g}" for g in GUESSERS] + ["search@2"]
    rows = simulated(players, (guessers * 2)[:players])
    belief = rows["belief"].list.to_array(4).to_numpy()
    assert np.allclose(belief.sum(axis=1), 1, atol=1e-6) and (belief >= 0).all()
    assert (belief[np.arange(len(belief)), rows["color"].to_numpy()] == 0).all()
    entropy = np.array(rows["belief_entropy"].to_list())
    turns = entropy.shape[1]
    assert turns >= 1 and (entropy <= START_BITS + 1e-6).all() and (entropy >= -1e-6).all()
    final = entropy_bits(belief)
    assert np.allclose(entropy[:, -1], final, atol=1e-5), "the last entropy is that of the belief at the guess"


def test_the_uniform_guessers_belief_is_chance_and_the_trackers_its_guess() -> None:
    rows = simulated(3, ["greedy+uniform", "greedy+tracker", "camouflage+bayes"], games=40)
    uniform, tracker = rows.filter(pl.col("seat") == 0), rows.filter(pl.col("seat") == 1)
    assert np.allclose(np.array(uniform["belief_entropy"].to_list()), START_BITS)
    assert with_brier(uniform)["brier"].to_numpy() == pytest.approx(CHANCE_BRIER)
    belief = tracker["belief"].list.to_array(4).to_numpy()
    guessed = belief[np.arange(len(belief)), tracker["guess"].to_numpy()]
    assert (guessed == belief.max(axis=1)).all(), "a tracker names a colour it puts the most on"


def test_the_brier_score_is_zero_for_certainty_on_the_truth_and_two_for_certainty_on_a_wrong_colour() -> None:
    rows = pl.DataFrame({"belief": [[0.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]],
                         "target_color": [1, 2, 0]}, schema_overrides={"belief": pl.List(pl.Float32)})
    assert with_brier(rows)["brier"].to_list() == pytest.approx([0.0, 2.0, 0.5])


def test_a_bayes_guesser_beats_chance_against_a_readable_policy_and_its_colour_leaks(tmp_path) -> None:
    rows = simulated(2, ["greedy+bayes", "greedy+uniform"], games=200).with_columns(
        experiment=pl.lit("belief"), game=pl.lit("kintsugi"), game_id=pl.col("game"), deal=pl.col("game"),
        players=pl.lit(2, pl.Int8), lineup=pl.lit(0))
    data = game_data(rows, "kintsugi", tmp_path)
    found = belief_scores(data)
    bayes = found["guessers"].filter(pl.col("guesser") == "bayes").row(0, named=True)
    assert bayes["brier_hi"] < CHANCE_BRIER
    entropy = found["entropy"].filter(pl.col("guesser") == "bayes").sort("turn")["entropy"].to_numpy()
    assert entropy[-1] < entropy[0] < START_BITS, "each placement of a greedy neighbour gives its colour away"
    finding = belief_finding(found, data)
    assert "bayes 0." in finding.text and {n["metric"] for n in finding.numbers} == {"belief_brier", "belief_entropy"}


def test_results_without_beliefs_get_no_belief_analysis(tmp_path) -> None:
    rows = simulated(2, ["greedy+bayes", "greedy+uniform"], games=4).drop("belief", "belief_entropy").with_columns(
        experiment=pl.lit("old"), game_id=pl.col("game"), deal=pl.col("game"), game=pl.lit("kintsugi"),
        players=pl.lit(2, pl.Int8))
    assert belief_scores(game_data(rows, "kintsugi", tmp_path)) is None


def test_a_seat_whose_neighbour_placed_less_often_is_padded_and_the_report_leaves_the_padding_out(tmp_path) -> None:
    """8 cards, 7 placements at 3 players: the first seat's neighbour places 2 times, the last seat's 3."""
    deck = tomllib.loads((ROOT / "sim" / "kintsugi" / "cards.toml").read_text())
    key = next(k for k, v in deck.items() if isinstance(v, list))
    cards = ["\n".join([f"[[{key}]]", *(f"{k} = {v!r}" for k, v in card.items())]) for card in deck[key][:8]]
    (tmp_path / "deck8.toml").write_text("\n\n".join(cards) + "\n")
    params = SPEC.make_params(3, {"deck": str(tmp_path / "deck8.toml")})
    columns = SPEC.simulate(params, np.array([["greedy+bayes"] * 3] * 6), np.arange(6), np.random.SeedSequence(1),
                            np.random.SeedSequence(2))
    rows = pl.DataFrame(columns).cast(SPEC.rules.columns)
    lengths = np.array([[np.isfinite(x).sum() for x in rows["belief_entropy"].to_list()]]).reshape(6, 3)
    assert (lengths == [2, 2, 3]).all()
    rows = rows.with_columns(experiment=pl.lit("deck8"), game_id=pl.col("game"), deal=pl.col("game"),
                             game=pl.lit("kintsugi"), players=pl.lit(3, pl.Int8))
    entropy = belief_scores(game_data(rows, "kintsugi", tmp_path))["entropy"]
    assert entropy["entropy"].is_not_nan().all() and entropy.filter(pl.col("turn") == 3)["n"].sum() == 6


def test_every_number_of_a_kintsugi_report_with_beliefs_and_a_ladder_is_a_record(tmp_path) -> None:
    for name, lineups in (("tournament", 'pool = ["greedy+bayes", "camouflage+tracker", "random+uniform"]'),
                          ("ladder", 'ladder = ["camouflage+bayes", "search@2"]')):
        (tmp_path / f"{name}.toml").write_text(f'name = "{name}"\ngame = "kintsugi"\nplayers = 2\ngames = 48\n'
                                               f'seed = 5\n{lineups}\n')
        run(load_experiment(tmp_path / f"{name}.toml"), tmp_path / "results", progress=False)
    index = build_report(tmp_path / "results", tmp_path / "report")
    summary = (index.parent / "summary.md").read_text()
    assert summary.count("Beliefs, and how fast a colour leaks.") == 2 and "Edge under search" in summary
    assert unrecorded_numbers(index.parent) == []
