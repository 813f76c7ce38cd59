import itertools
import math
import time

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reports.ratings import ELO, bradley_terry, cycles, pairwise, ratings
from reports.stats import (
    bootstrap_mean_ci,
    cluster_resampled_sums,
    clusters,
    distinct_rows,
    newcombe,
    paired_difference,
    paired_ratio,
    wilson,
)


def wilson_by_hand(k: float, n: float, z: float = 1.959963984540054) -> tuple[float, float]:
    """The textbook formula, written out once more for a cross-check."""
    p = k / n
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z / (1 + z**2 / n) * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return centre - half, centre + half


@pytest.mark.parametrize(
    ("k", "n", "expected"),
    [
        (0, 10, (0.0, 0.27753)),
        (5, 10, (0.23659, 0.76341)),
        (50, 100, (0.40383, 0.59617)),
        (10, 10, (0.72247, 1.0)),
    ],
)
def test_wilson_matches_reference_values(k, n, expected):
    assert wilson(k, n) == pytest.approx(expected, abs=1e-5)


def test_wilson_matches_formula_for_fractional_successes():
    assert wilson(12.5, 40) == pytest.approx(wilson_by_hand(12.5, 40), abs=1e-12)


def test_wilson_is_vectorized():
    lo, hi = wilson(np.array([0, 5, 50]), np.array([10, 10, 100]))
    assert lo == pytest.approx([0.0, 0.23659, 0.40383], abs=1e-5)
    assert hi == pytest.approx([0.27753, 0.76341, 0.59617], abs=1e-5)


def test_wilson_with_no_trials_admits_every_proportion():
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(np.array([0, 3]), np.array([0, 6]))
    assert (lo[0], hi[0]) == (0.0, 1.0)
    assert 0 < lo[1] < 0.5 < hi[1] < 1


def test_wilson_narrows_with_more_trials():
    widths = [np.subtract(*wilson(n / 2, n)[::-1]) for n in (10, 100, 1000)]
    assert widths[0] > widths[1] > widths[2] > 0


def test_bootstrap_covers_the_true_mean():
    rng = np.random.default_rng(1)
    covered = 0
    for _ in range(40):
        lo, hi = bootstrap_mean_ci(rng.normal(3.0, 2.0, 400), n_boot=500, seed=int(rng.integers(1 << 30)))
        covered += lo < 3.0 < hi
    assert covered >= 34  # 95% nominal; 34 of 40 fails with probability < 2%


def test_bootstrap_interval_brackets_the_sample_mean_and_has_the_right_width():
    values = np.random.default_rng(2).integers(-3, 8, 10_000)
    lo, hi = bootstrap_mean_ci(values)
    standard_error = values.std() / np.sqrt(values.size)
    assert lo < values.mean() < hi
    assert hi - lo == pytest.approx(2 * 1.96 * standard_error, rel=0.1)


def test_bootstrap_is_deterministic_and_handles_edge_cases():
    values = np.arange(20.0)
    assert bootstrap_mean_ci(values, seed=7) == bootstrap_mean_ci(values, seed=7)
    assert bootstrap_mean_ci([4.0, 4.0, 4.0]) == (4.0, 4.0)
    assert all(np.isnan(bootstrap_mean_ci([])))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_distinct_rows_are_numpys_unique_rows(rows: int, columns: int, seed: int):
    units = np.random.default_rng(seed).integers(-3, 4, (rows, columns)) / 2
    distinct, counts = distinct_rows(units)
    expected, expected_counts = np.unique(units, axis=0, return_counts=True)
    assert np.array_equal(distinct, expected) and np.array_equal(counts, expected_counts)


# ---------------------------------------------------------------- paired intervals and ratings (issue 17)


def frame_of(rank: np.ndarray, strategy: np.ndarray, deal: np.ndarray, **extra) -> pl.DataFrame:
    """The rows of games with these ranks and strategies (games, seats), win shared by the seats ranked first."""
    games, seats = rank.shape
    first = rank == rank.min(axis=1, keepdims=True)
    return pl.DataFrame({
        "game_id": np.repeat(np.arange(games), seats),
        "deal": pl.Series(np.repeat(deal, seats), dtype=pl.Int32),
        "seat": pl.Series(np.tile(np.arange(seats), games), dtype=pl.Int8),
        "strategy": np.asarray(strategy).ravel(),
        "rank": pl.Series(rank.ravel(), dtype=pl.Int8),
        "win": pl.Series((first / first.sum(axis=1, keepdims=True)).ravel(), dtype=pl.Float32),
        **{name: np.repeat(values, seats) for name, values in extra.items()},
    })


def ranks_of(utility: np.ndarray) -> np.ndarray:
    """Rank 1 for the highest utility of a game; equal utilities share the better rank."""
    return 1 + (utility[:, None, :] > utility[:, :, None]).sum(axis=2)


def pool_games(rng: np.random.Generator, deals: int, lineups: list[tuple[str, ...]], strength: dict[str, float],
               deal_spread: float = 0.0) -> pl.DataFrame:
    """Every deal under every lineup; a seat's utility is its strategy's log-strength plus Gumbel noise, so the
    chance that A ranks above B is exactly strength_A / (strength_A + strength_B) (Bradley–Terry, no ties), plus
    a deal's own seat luck (deal_spread), the same under every lineup."""
    lineup = np.array(lineups)
    strategy = np.tile(lineup, (deals, 1))
    deal = np.repeat(np.arange(deals), len(lineup))
    luck = deal_spread * rng.normal(size=(deals, lineup.shape[1]))[deal]
    utility = np.vectorize(strength.get)(strategy) + luck + rng.gumbel(size=strategy.shape)
    return frame_of(ranks_of(utility), strategy, deal)


# Two deals of a two-player game, each under both seatings: A wins, a tie; then B wins twice.
TINY = frame_of(np.array([[1, 2], [1, 1], [2, 1], [1, 2]]), np.array([["A", "B"], ["B", "A"], ["A", "B"], ["B", "A"]]),
                np.array([0, 0, 1, 1]))


def test_clusters_are_deals_or_in_match_mode_matches():
    assert clusters(TINY).tolist() == [0] * 4 + [1] * 4
    matches = TINY.with_columns(match_id=pl.Series([7] * 6 + [3] * 2, dtype=pl.Int32))
    assert clusters(matches).tolist() == [7] * 6 + [3] * 2
    difference = paired_difference(matches, pl.col("seat") == 0, pl.lit(True))
    assert difference["clusters"] == 2 and "over matches" in difference["method"]


def test_paired_ratio_matches_a_hand_computation():
    by_seat = paired_ratio(TINY, pl.col("win"), pl.lit(1), ["seat"], min_clusters=1).to_dicts()
    # seat 0 wins 1 + 0.5 of deal 0's two games and 0 + 1 of deal 1's: 2.5 of 4; with two clusters the
    # resamples are deal 0 twice (a quarter of them), deal 1 twice (a quarter) or both, so 2.5% and 97.5%
    # are the shares of deal 1 alone and of deal 0 alone
    assert by_seat[0] == pytest.approx({"seat": 0, "estimate": 0.625, "lo": 0.5, "hi": 0.75,
                                        "lo_unpaired": wilson(2.5, 4)[0], "hi_unpaired": wilson(2.5, 4)[1],
                                        "games": 4, "method": by_seat[0]["method"],
                                        "method_unpaired": by_seat[0]["method_unpaired"]})
    assert (by_seat[1]["estimate"], by_seat[1]["lo"], by_seat[1]["hi"]) == pytest.approx((0.375, 0.25, 0.5))
    assert "cluster bootstrap over deals (2000 resamples" in by_seat[0]["method"]
    assert by_seat[0]["method_unpaired"].startswith("Wilson")
    by_strategy = paired_ratio(TINY, pl.col("win"), pl.lit(1), ["strategy"], min_clusters=1)
    assert by_strategy.select("strategy", "estimate", "lo", "hi").rows() == [("A", 0.375, 0.0, 0.75),
                                                                            ("B", 0.625, 0.25, 1.0)]


def test_paired_ratio_resamples_the_same_clusters_for_every_group():
    rng = np.random.default_rng(3)
    rows = pool_games(rng, 60, [("A", "B"), ("B", "A")], {"A": 0.0, "B": 0.0}, deal_spread=1.0)
    for by in ("seat", "strategy"):
        first, second = paired_ratio(rows, pl.col("win"), pl.lit(1), [by], seed=5).to_dicts()
        # two seats share one win in every game, so in every resample the two shares add up to 1
        assert first["lo"] + second["hi"] == pytest.approx(1, abs=1e-12)
        assert first["hi"] + second["lo"] == pytest.approx(1, abs=1e-12)
        assert first["hi"] - first["lo"] > 0.05


def test_paired_ratio_counts_a_strategy_at_several_seats_of_one_game_once_per_game():
    rank = np.array([[1, 2, 2], [3, 1, 2]])
    rows = frame_of(rank, np.array([["A", "A", "B"], ["A", "B", "A"]]), np.array([0, 1]))
    shares = paired_ratio(rows, pl.col("win"), pl.lit(1), ["strategy"]).to_dicts()
    assert [(s["strategy"], s["estimate"], s["games"]) for s in shares] == [("A", 0.25, 2), ("B", 0.5, 2)]


def test_paired_ratio_of_unbounded_values_gives_the_normal_interval_for_independent_rows():
    values = np.array([3.0, -1.0, 4.0, 1.0, -5.0, 9.0, 2.0, 6.0])
    rows = TINY.with_columns(score=pl.Series(values))
    found = paired_ratio(rows, pl.col("score"), pl.lit(1), []).to_dicts()[0]
    spread = 1.959963984540054 * values.std() / np.sqrt(values.size)
    assert (found["lo_unpaired"], found["hi_unpaired"]) == pytest.approx((values.mean() - spread,
                                                                          values.mean() + spread))
    assert found["method_unpaired"].startswith("normal")


def test_newcombe_matches_the_published_example():
    assert newcombe(56, 70, 48, 80) == pytest.approx((0.0524, 0.3339), abs=1e-4)  # Newcombe (1998), method 10


def test_paired_difference_matches_a_hand_computation():
    found = paired_difference(TINY, pl.col("strategy") == "A", pl.col("strategy") == "B", min_clusters=1)
    # A: 1.5 of deal 0's 2 seats and 0 of deal 1's; B: 0.5 and 2; the extremes are the deals alone
    assert (found["estimate"], found["lo"], found["hi"]) == pytest.approx((-0.25, -1.0, 0.5))
    assert (found["lo_unpaired"], found["hi_unpaired"]) == pytest.approx(newcombe(1.5, 4, 2.5, 4))
    assert (found["games_a"], found["games_b"], found["games"], found["clusters"]) == (4, 4, 4, 2)
    assert found["width_ratio"] == pytest.approx(1.5 / (found["hi_unpaired"] - found["lo_unpaired"]))
    against_fair = paired_difference(TINY, pl.col("seat") == 0, pl.lit(True), min_clusters=1)
    assert (against_fair["estimate"], against_fair["lo"], against_fair["hi"]) == pytest.approx((0.125, 0.0, 0.25))
    with pytest.raises(ValueError, match="mask b"):
        paired_difference(TINY, pl.col("seat") == 0, pl.col("seat") == 5)


def test_paired_difference_is_narrower_than_unpaired_where_deals_decide_much():
    rng = np.random.default_rng(4)
    rows = pool_games(rng, 400, [("A", "B"), ("B", "A")], {"A": 0.0, "B": 0.0}, deal_spread=10.0)
    found = paired_difference(rows, pl.col("strategy") == "A", pl.col("strategy") == "B")
    assert found["width"] < 0.7 * found["width_unpaired"] and found["games_factor"] > 2
    assert found["lo"] < 0 < found["hi"]
    assert paired_difference(rows, pl.col("strategy") == "A", pl.col("strategy") == "B") == found  # deterministic


@pytest.mark.parametrize("distinct", [True, False])
def test_both_ways_of_resampling_clusters_give_the_bootstrap_distribution(distinct: bool):
    rng = np.random.default_rng(6)
    units = rng.normal(size=(3000, 2)) if distinct else rng.integers(0, 3, (3000, 2)).astype(float)
    sums = cluster_resampled_sums(units, 4000, seed=1)
    assert sums.shape == (4000, 2)
    assert sums.mean(axis=0) == pytest.approx(units.sum(axis=0), abs=4 * np.sqrt(3000) * units.std() / 60)
    assert sums.std(axis=0) == pytest.approx(np.sqrt(3000) * units.std(axis=0), rel=0.06)
    assert np.array_equal(sums, cluster_resampled_sums(units, 4000, seed=1))


def test_pairwise_counts_every_pair_of_seats_of_different_strategies_and_halves_ties():
    rank = np.array([[1, 2, 2], [2, 1, 3]])
    rows = frame_of(rank, np.array([["A", "B", "C"], ["A", "A", "B"]]), np.array([0, 0]))
    pairs = pairwise(rows, n_boot=10)
    assert pairs.strategies == ["A", "B", "C"]
    # game 0: A beats B and C, B and C tie; game 1: both A seats beat B (the two A seats are not compared)
    assert pairs.wins.tolist() == [[0, 3, 1], [0, 0, 0.5], [0, 0.5, 0]]
    assert pairs.games.tolist() == [[2, 2, 1], [2, 2, 1], [1, 1, 1]]


def test_bradley_terry_fits_two_strategies_by_their_odds_on_the_elo_scale():
    wins = np.array([[0.0, 30.0], [10.0, 0.0]])
    odds = (30 + 0.5) / (10 + 0.5)  # with the virtual drawn comparison
    assert ELO * bradley_terry(wins) == pytest.approx([200 * np.log10(odds), -200 * np.log10(odds)])


def test_ratings_recover_a_planted_order_within_their_intervals():
    elo = {"A": 120.0, "B": 0.0, "C": -120.0}  # mean 0, as the ratings are pinned
    strength = {name: rating / ELO for name, rating in elo.items()}
    lineups = list(itertools.permutations("ABC"))
    rows = pool_games(np.random.default_rng(7), 300, lineups, strength)  # no deal luck: it would blur the odds
    found = ratings(rows)
    assert found["strategy"].to_list() == ["A", "B", "C"]
    for row in found.iter_rows(named=True):
        assert row["lo"] < elo[row["strategy"]] < row["hi"], row
        assert row["hi"] - row["lo"] < 60 and row["games"] == 1800
    assert "Bradley–Terry" in found["method"][0] and "over deals (200 resamples" in found["method"][0]
    assert found["rating"].sum() == pytest.approx(0, abs=1e-6)
    assert cycles(rows) == []


def test_a_rock_paper_scissors_plant_gives_one_clear_cycle():
    beats = {("R", "S"): 0.7, ("S", "P"): 0.7, ("P", "R"): 0.7}
    rng = np.random.default_rng(8)
    lineup = np.array(list(itertools.permutations("RPS", 2)) * 400)
    first_wins = np.array([beats.get((a, b), 1 - beats.get((b, a), 0.5)) for a, b in lineup]) > rng.random(len(lineup))
    rank = np.where(first_wins[:, None], [1, 2], [2, 1])
    rows = frame_of(rank, lineup, np.arange(len(lineup)) // 6)
    found = cycles(rows)
    assert len(found) == 1 and found[0]["verdict"] == "clear" and found[0]["support"] == 1.0
    assert found[0]["cycle"] == ["P", "R", "S"]
    for leg in found[0]["legs"]:
        assert (leg["winner"], leg["loser"]) in beats and 0.5 < leg["lo"] < 0.7 < leg["hi"], leg
        assert leg["games"] == 800
    assert (ratings(rows)["rating"].abs() < 30).all()


def test_paired_intervals_and_ratings_are_fast_on_a_36000_game_experiment_at_5_players():
    """180,000 rows, every game its own deal: 36,000 clusters, where a Python loop over clusters takes seconds."""
    names = list("ABCDE")
    rng = np.random.default_rng(9)
    lineups = [tuple(np.roll(names, k)) for k in range(5)]
    rows = pool_games(rng, 7200, lineups, dict.fromkeys(names, 0.0))
    rows = rows.with_columns(deal=pl.col("game_id").cast(pl.Int32))
    assert rows.height == 180_000 and rows["deal"].n_unique() == 36_000
    calls = {"seat shares": lambda: paired_ratio(rows, pl.col("win"), pl.lit(1), ["seat"]),
             "strategy shares": lambda: paired_ratio(rows, pl.col("win"), pl.lit(1), ["strategy"]),
             "difference": lambda: paired_difference(rows, pl.col("strategy") == "A", pl.col("strategy") == "B"),
             "ratings": lambda: ratings(rows)}
    for name, call in calls.items():
        start = time.perf_counter()
        call()
        assert time.perf_counter() - start < 1.5, name


def test_too_few_deals_give_no_interval_rather_than_a_false_one():
    """Two deals resample to at most three distinct shares: the interval is left out (NaN), not made up."""
    shares = paired_ratio(TINY, pl.col("win"), pl.lit(1), ["seat"])
    assert shares["lo"].is_nan().all() and shares["hi"].is_nan().all()
    assert "no interval from fewer than" in shares["method"][0]
    gap = paired_difference(TINY, pl.col("strategy") == "A", pl.col("strategy") == "B")
    assert math.isnan(gap["lo"]) and math.isnan(gap["hi"])
