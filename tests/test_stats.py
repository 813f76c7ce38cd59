import itertools
import time

import numpy as np
import polars as pl
import pytest
from scipy.stats import t as student_t

from reports.generic.seats import seat_extremes, seat_win_shares
from reports.ratings import ELO, bradley_terry, cycles, pairwise, ratings
from reports.stats import (
    METHODS,
    cluster_ratio_interval,
    clusters,
    dense_codes,
    difference_interval,
    group_codes,
    holm,
    holm_min,
    mean_interval,
    newcombe,
    paired_difference,
    paired_mean_intervals,
    paired_ratio,
    ratio_p_values,
    sorted_columns,
    wilson,
)

T_1 = student_t.ppf(0.975, 1)  # the t quantile of two clusters


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


def test_mean_interval_is_the_t_interval_of_the_values_or_of_their_cluster_means():
    values = np.random.default_rng(2).integers(-3, 8, 1000).astype(float)
    half = student_t.ppf(0.975, 999) * values.std(ddof=1) / np.sqrt(values.size)
    assert mean_interval(values) == pytest.approx((values.mean() - half, values.mean() + half), rel=1e-9)
    deal = np.repeat(np.arange(100), 10)  # ten values a deal: the interval of the 100 deal means
    means = values.reshape(100, 10).mean(axis=1)
    half = student_t.ppf(0.975, 99) * means.std(ddof=1) / np.sqrt(100)
    assert mean_interval(values, deal) == pytest.approx((means.mean() - half, means.mean() + half), rel=1e-9)


def test_mean_interval_is_deterministic_and_handles_edge_cases():
    values = np.arange(20.0)
    assert mean_interval(values) == mean_interval(values[::-1])
    assert mean_interval([4.0, 4.0, 4.0]) == (4.0, 4.0)
    assert all(np.isnan(mean_interval([]))) and all(np.isnan(mean_interval([1.0, 2.0], [0, 0])))


def test_holm_adjusts_step_down_and_leaves_nan_out():
    # m = 4: 0.01 * 4, 0.02 * 3, max(0.03 * 2, 0.06), 0.5 * 1
    assert holm([0.03, 0.5, 0.01, 0.02]) == pytest.approx([0.06, 0.5, 0.04, 0.06])
    adjusted = holm([0.04, np.nan, 0.01])
    assert adjusted[[0, 2]] == pytest.approx([0.04, 0.02]) and np.isnan(adjusted[1])
    assert holm([0.6, 0.7]).tolist() == [1.0, 1.0]
    assert holm_min([0.03, 0.5, 0.01, 0.02]) == pytest.approx(0.04) and holm_min([np.nan]) == 1.0


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
    assert difference["clusters"] == 2 and difference["method"] == "paired_cluster_t"
    # deal 0 and deal 1 split the games 4 : 4; the matches split them 6 : 2, so the standard errors differ
    assert difference["se"] != paired_difference(TINY, pl.col("seat") == 0, pl.lit(True))["se"]


@pytest.mark.parametrize(("players", "deals"), [((2, 3, 5), 50), ((3,), 10**9), ((0,), 7)])
def test_dense_codes_are_the_ranks_of_the_distinct_values(players, deals) -> None:
    rng = np.random.default_rng(deals)
    values = rng.choice(players, 500).astype(np.int64) * 2**32 + rng.integers(0, deals, 500)
    distinct, ranks = np.unique(values, return_inverse=True)
    codes, count = dense_codes(values)
    assert count == len(distinct) and (codes == ranks.ravel()).all()
    codes, count = dense_codes(values - 2**40)  # below zero: sorted instead
    assert count == len(distinct) and (codes == ranks.ravel()).all()


def test_group_codes_are_the_sorted_groups_of_every_kind_of_column() -> None:
    rng = np.random.default_rng(7)
    n = 400
    rows = pl.DataFrame({
        "name": pl.Series(rng.choice(np.array(["b", "a", "ç", "ab", None], object), n).tolist(), dtype=pl.String),
        "count": pl.Series(rng.choice(np.array([3, -1, 7, None], object), n).tolist(), dtype=pl.Int16),
        "share": rng.choice([0.5, -2.0, 1.25], n),
        "flag": rng.random(n) < 0.5,
        "turn": pl.Series(rng.choice([9, -3, 2**40], n), dtype=pl.Int64),
        "kind": pl.Series(rng.choice(["z", "y"], n), dtype=pl.Enum(["z", "y"])),  # enum order, not the alphabet
    })
    for by in (["name"], ["count", "name"], ["kind", "share", "flag"], ["turn", "kind"], list(rows.columns)):
        expected = rows.select(by).unique().sort(by)
        groups, codes = group_codes(rows, by)
        assert groups.equals(expected), by
        assert groups[codes].equals(rows.select(by)), by


def test_sorted_columns_is_lexsorts_order() -> None:
    rng = np.random.default_rng(3)
    columns = [rng.integers(0, 4, 300), rng.integers(0, 3, 300), rng.integers(0, 5, 300) / 4, rng.random(300)]
    order = np.lexsort(columns[::-1])
    assert all((got == column[order]).all() for got, column in zip(sorted_columns(*columns), columns))


def test_paired_ratio_matches_a_hand_computation():
    by_seat = paired_ratio(TINY, pl.col("win"), pl.lit(1), ["seat"]).to_dicts()
    # seat 0 wins 1 + 0.5 of deal 0's two games and 0 + 1 of deal 1's: 2.5 of 4; the clusters' residuals
    # 1.5 - 0.625 * 2 and 1 - 0.625 * 2 are -+0.25, so se = sqrt(2 / 1 * 0.125) / 4 = 0.125; 0.625 -+ 12.7 * 0.125
    # leaves [0, 1], so Wilson on n_eff = 0.625 * 0.375 / 0.125^2 = 15, capped at the 4 trials, with t on 1 df
    assert by_seat[0] == pytest.approx({"seat": 0, "estimate": 0.625, "lo": wilson(2.5, 4, T_1)[0],
                                        "hi": wilson(2.5, 4, T_1)[1], "se": 0.125, "n_eff": 4.0, "clusters": 2,
                                        "level": 0.95, "lo_unpaired": wilson(2.5, 4)[0],
                                        "hi_unpaired": wilson(2.5, 4)[1], "games": 4, "rows": 4, "method": "cluster_t",
                                        "method_unpaired": "wilson"})
    assert (by_seat[1]["estimate"], by_seat[1]["lo"], by_seat[1]["hi"]) == pytest.approx(
        (0.375, *wilson(1.5, 4, T_1)))
    by_strategy = paired_ratio(TINY, pl.col("win"), pl.lit(1), ["strategy"])
    # A: 1.5 and 0 of 2 a deal, residuals -+0.75, se = sqrt(2 * 2 * 0.75^2) / 4
    assert by_strategy.select("strategy", "estimate", "se").rows() == [("A", 0.375, 0.375), ("B", 0.625, 0.375)]


def test_paired_ratio_away_from_the_edges_is_the_t_interval_of_the_cluster_ratios():
    rng = np.random.default_rng(10)
    rows = pool_games(rng, 30, [("A", "B"), ("B", "A")], {"A": 0.0, "B": 0.0}, deal_spread=1.0)
    found = paired_ratio(rows, pl.col("win"), pl.lit(1), ["seat"]).row(0, named=True)
    per_deal = rows.filter(pl.col("seat") == 0).group_by("deal").agg(pl.col("win").mean())["win"].to_numpy()
    half = student_t.ppf(0.975, 29) * per_deal.std(ddof=1) / np.sqrt(30)  # equal clusters: the ratio is a mean
    assert (found["lo"], found["hi"]) == pytest.approx((per_deal.mean() - half, per_deal.mean() + half))
    assert found["method"] == "cluster_t" and found["clusters"] == 30


def test_paired_ratio_pairs_the_groups_over_the_same_clusters():
    rng = np.random.default_rng(3)
    rows = pool_games(rng, 60, [("A", "B"), ("B", "A")], {"A": 0.0, "B": 0.0}, deal_spread=1.0)
    for by in ("seat", "strategy"):
        first, second = paired_ratio(rows, pl.col("win"), pl.lit(1), [by]).to_dicts()
        # two seats share one win in every game, so the clusters' residuals of the two shares cancel
        assert first["lo"] + second["hi"] == pytest.approx(1, abs=1e-12)
        assert first["hi"] + second["lo"] == pytest.approx(1, abs=1e-12)
        assert first["hi"] - first["lo"] > 0.05


def test_a_rate_of_0_or_1_gets_an_interval_of_positive_width_on_its_open_side():
    rows = pool_games(np.random.default_rng(11), 300, [("A", "B"), ("B", "A")], {"A": 0.0, "B": 0.0})
    rows = rows.with_columns(never=pl.lit(0.0), always=pl.lit(1.0))
    never, always = (paired_ratio(rows, pl.col(c), pl.lit(1), []).row(0, named=True) for c in ("never", "always"))
    # 0 of 1,200 rows: Wilson on the 1,200 trials, with t on 299 degrees of freedom
    assert (never["lo"], never["hi"]) == pytest.approx(wilson(0, 1200, student_t.ppf(0.975, 299)))
    assert never["lo"] == 0 and 0.002 < never["hi"] < 0.005 and never["method"] == "cluster_t"
    assert always["hi"] == 1 and 0.995 < always["lo"] < 0.998
    lo, hi = cluster_ratio_interval(np.zeros((10, 2)), np.full(10, 5.0))
    assert lo.tolist() == [0, 0] and (hi > 0.05).all()


def test_cluster_ratio_interval_matches_paired_ratio():
    rows = pool_games(np.random.default_rng(12), 25, [("A", "B"), ("B", "A")], {"A": 0.5, "B": 0.0},
                      deal_spread=1.0)
    found = paired_ratio(rows, pl.col("win"), pl.lit(1), ["strategy"])
    wins = rows.pivot("strategy", index="deal", values="win", aggregate_function="sum").sort("deal")
    lo, hi = cluster_ratio_interval(wins.select("A", "B").to_numpy(), np.full(25, 2.0))
    assert lo == pytest.approx(found["lo"].to_numpy()) and hi == pytest.approx(found["hi"].to_numpy())
    lo2, hi2 = cluster_ratio_interval(wins.select("A", "B").to_numpy(), np.full((25, 2), 2.0))
    assert np.array_equal(lo, lo2) and np.array_equal(hi, hi2)


def test_one_cluster_gives_no_interval_and_two_or_ten_give_one():
    one = paired_ratio(TINY.filter(pl.col("deal") == 0), pl.col("win"), pl.lit(1), ["seat"])
    assert one["lo"].is_nan().all() and one["hi"].is_nan().all()
    for deals in (2, 10):
        rows = pool_games(np.random.default_rng(deals), deals, [("A", "B"), ("B", "A")], {"A": 0.0, "B": 0.0})
        shares = paired_ratio(rows, pl.col("win"), pl.lit(1), ["seat"])
        assert (shares["hi"] > shares["lo"]).all() and shares["clusters"].to_list() == [deals, deals]
        gap = paired_difference(rows, pl.col("strategy") == "A", pl.col("strategy") == "B")
        assert gap["lo"] <= gap["estimate"] <= gap["hi"] and gap["lo"] < gap["hi"]


def test_p_values_agree_with_the_intervals():
    rows = pool_games(np.random.default_rng(13), 40, [("A", "B", "C"), ("C", "A", "B"), ("B", "C", "A")],
                      {"A": 0.3, "B": 0.0, "C": -0.3}, deal_spread=0.5)
    found = paired_ratio(rows, pl.col("win"), pl.lit(1), ["strategy"])
    for null in (0.2, 1 / 3, 0.4, 0.5):
        p = ratio_p_values(*found.select("estimate", "se", "n_eff", "clusters"), null)
        excluded = ((found["lo"] > null) | (found["hi"] < null)).to_numpy()
        t_rows = (found["method"] == "cluster_t").to_numpy()
        assert np.array_equal((p < 0.05)[t_rows], excluded[t_rows]), (null, p)


def test_every_method_returned_is_a_documented_id():
    returned = {*paired_ratio(TINY, pl.col("win"), pl.lit(1), ["seat"])["method"],
                *paired_ratio(TINY, pl.col("win"), pl.lit(1), ["seat"])["method_unpaired"],
                paired_difference(TINY, pl.col("seat") == 0, pl.lit(True))["method"],
                paired_difference(TINY, pl.col("seat") == 0, pl.lit(True))["method_unpaired"],
                *ratings(TINY)["method"]}
    assert returned <= set(METHODS) and all(isinstance(text, str) and text for text in METHODS.values())


def test_the_same_rows_in_any_order_give_the_same_floats():
    rows = pool_games(np.random.default_rng(14), 30, [("A", "B", "C"), ("C", "A", "B"), ("B", "C", "A")],
                      {"A": 0.3, "B": 0.0, "C": -0.3}, deal_spread=0.5)
    shuffled = rows.sample(fraction=1.0, shuffle=True, seed=1)
    is_a, is_b = pl.col("strategy") == "A", pl.col("strategy") == "B"
    for call in (lambda r: paired_ratio(r, pl.col("win"), pl.lit(1), ["strategy"]),
                 lambda r: paired_ratio(r, pl.col("win"), pl.lit(1), ["seat"]),
                 lambda r: ratings(r)):
        assert call(rows).equals(call(rows)) and call(rows).equals(call(shuffled))
    for call in (lambda r: paired_difference(r, is_a, is_b), lambda r: cycles(r),
                 lambda r: paired_mean_intervals(r, pl.col("rank").cast(pl.Float64), is_a, is_b)):
        assert str(call(rows)) == str(call(shuffled))


def test_clusters_at_one_rate_have_no_spread_in_any_row_order():
    """A value every row shares (2/3, which floats do not sum exactly) is one rate in every cluster: se 0 and
    Wilson's interval on the trials, never an interval of rounding noise, whatever order the rows come in."""
    rng = np.random.default_rng(5)
    rows = pl.DataFrame({"players": 3, "deal": rng.integers(0, 300, 5000), "game_id": np.arange(5000),
                         "value": np.full(5000, 2 / 3)})
    q = student_t.ppf(0.975, rows["deal"].n_unique() - 1)
    for order in range(3):
        shuffled = rows.sample(fraction=1.0, shuffle=True, seed=order)
        found = paired_ratio(shuffled, pl.col("value"), pl.lit(1.0), []).row(0, named=True)
        assert found["se"] == 0 and found["estimate"] == pytest.approx(2 / 3)
        assert (found["lo"], found["hi"]) == pytest.approx(wilson(2 / 3 * 5000, 5000, q))


def test_paired_ratio_gives_the_same_floats_every_call():
    """Scores whose sums round: polars' streaming engine adds a group's rows in an order that varies from call to
    call, so its cluster sums (and every interval) varied in their last bits; the in-memory engine's do not."""
    rng = np.random.default_rng(21)
    n = 600_000
    rows = pl.DataFrame({"players": 3, "deal": rng.integers(0, 20_000, n), "game_id": np.arange(n) // 3,
                         "strategy": rng.choice(["a", "b", "c"], n), "score": rng.normal(50, 10, n) * 0.37})
    first = paired_ratio(rows, pl.col("score"), pl.lit(1.0), ["strategy"])
    assert all(paired_ratio(rows.lazy(), pl.col("score"), pl.lit(1.0), ["strategy"]).equals(first) for _ in range(4))


def test_a_missing_value_makes_its_group_nan():
    rows = TINY.with_columns(score=pl.when(pl.col("seat") == 1).then(None).otherwise(pl.col("win")))
    found = paired_ratio(rows, pl.col("score"), pl.lit(1.0), ["seat"])
    assert not np.isnan(found["estimate"][0]) and np.isnan(found["estimate"][1])


def test_the_unpaired_interval_of_a_constant_has_no_width():
    """sqrt(sum v² - 2 r sum v w + r² sum w²) would leave rounding noise of about 1e-5 around 1234.56; the squares
    of the residuals leave none."""
    rows = TINY.with_columns(score=pl.lit(1234.56))
    found = paired_ratio(rows, pl.col("score"), pl.lit(1.0), []).row(0, named=True)
    assert found["method_unpaired"] == "normal"
    assert found["lo_unpaired"] == found["hi_unpaired"] == pytest.approx(1234.56)


def test_paired_ratio_reads_lazy_rows_as_it_reads_collected_ones():
    rows = pool_games(np.random.default_rng(15), 20, [("A", "B", "C"), ("C", "A", "B"), ("B", "C", "A")],
                      {"A": 0.3, "B": 0.0, "C": -0.3}, deal_spread=0.5)
    for by in (["strategy"], ["seat"], []):
        assert paired_ratio(rows.lazy(), pl.col("win"), pl.lit(1), by).equals(
            paired_ratio(rows, pl.col("win"), pl.lit(1), by))


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
    found = paired_difference(TINY, pl.col("strategy") == "A", pl.col("strategy") == "B")
    # A: 1.5 of deal 0's 2 seats and 0 of deal 1's; B: 0.5 and 2. Residuals per deal: (1.5 - 0.75) / 4 -
    # (0.5 - 1.25) / 4 = 0.375 and -0.375, so se = sqrt(2 * 2 * 0.375^2) = 0.75, and the interval -0.25 -+ t * se
    assert (found["estimate"], found["se"]) == pytest.approx((-0.25, 0.75))
    # that is (-9.8, 9.3), clipped to [-1, 1], where a difference of two shares lies
    assert (found["lo"], found["hi"]) == (-1.0, 1.0)
    units = np.array([[1.5, 2, 0.5, 2], [0, 2, 2, 2]])
    raw = difference_interval(units)
    assert (raw["lo"], raw["hi"]) == pytest.approx((-0.25 - T_1 * 0.75, -0.25 + T_1 * 0.75))
    assert (found["lo_unpaired"], found["hi_unpaired"]) == pytest.approx(newcombe(1.5, 4, 2.5, 4))
    assert (found["games_a"], found["games_b"], found["games"], found["clusters"]) == (4, 4, 4, 2)
    assert found["width_ratio"] == pytest.approx(2 / (found["hi_unpaired"] - found["lo_unpaired"]))
    against_fair = paired_difference(TINY, pl.col("seat") == 0, pl.lit(True))
    # the share of all rows is 1/2 in every deal: only seat 0's residuals (-+0.25 / 4) count
    assert (against_fair["estimate"], against_fair["se"]) == pytest.approx((0.125, 0.125))
    with pytest.raises(ValueError, match="mask b"):
        paired_difference(TINY, pl.col("seat") == 0, pl.col("seat") == 5)


def test_a_paired_difference_with_no_variation_between_clusters_gets_newcombes_interval():
    rows = pool_games(np.random.default_rng(15), 20, [("A", "B"), ("B", "A")], {"A": 0.0, "B": 0.0})
    rows = rows.with_columns(win=(pl.col("strategy") == "A").cast(pl.Float32))  # A wins every game
    found = paired_difference(rows, pl.col("strategy") == "B", pl.col("strategy") == "A")
    assert found["estimate"] == -1 and found["method"] == "newcombe"
    assert (found["lo"], found["hi"]) == pytest.approx(newcombe(0, 40, 40, 40)) and found["hi"] > -1


def test_paired_mean_intervals_are_the_means_and_their_paired_difference():
    rows = pool_games(np.random.default_rng(16), 50, [("A", "B"), ("B", "A")], {"A": 0.5, "B": 0.0},
                      deal_spread=1.0)
    is_a, is_b = pl.col("strategy") == "A", pl.col("strategy") == "B"
    means, lo, hi = paired_mean_intervals(rows, pl.col("win").cast(pl.Float64), is_a, is_b)
    gap = paired_difference(rows, is_a, is_b)
    shares = paired_ratio(rows, pl.col("win"), pl.lit(1), ["strategy"])
    assert means == pytest.approx([*shares["estimate"], gap["estimate"]])
    assert lo == pytest.approx([*shares["lo"], gap["lo"]]) and hi == pytest.approx([*shares["hi"], gap["hi"]])


def test_paired_difference_is_narrower_than_unpaired_where_deals_decide_much():
    rng = np.random.default_rng(4)
    rows = pool_games(rng, 400, [("A", "B"), ("B", "A")], {"A": 0.0, "B": 0.0}, deal_spread=10.0)
    found = paired_difference(rows, pl.col("strategy") == "A", pl.col("strategy") == "B")
    assert found["width"] < 0.7 * found["width_unpaired"] and found["games_factor"] > 2
    assert found["lo"] < 0 < found["hi"]
    assert paired_difference(rows, pl.col("strategy") == "A", pl.col("strategy") == "B") == found  # deterministic


def test_pairwise_counts_every_pair_of_seats_of_different_strategies_and_halves_ties():
    rank = np.array([[1, 2, 2], [2, 1, 3]])
    rows = frame_of(rank, np.array([["A", "B", "C"], ["A", "A", "B"]]), np.array([0, 0]))
    pairs = pairwise(rows)
    assert pairs.strategies == ["A", "B", "C"]
    # game 0: A beats B and C, B and C tie; game 1: both A seats beat B (the two A seats are not compared)
    assert pairs.wins.tolist() == [[0, 3, 1], [0, 0, 0.5], [0, 0.5, 0]]
    assert pairs.games.tolist() == [[2, 2, 1], [2, 2, 1], [1, 1, 1]]


def test_bradley_terry_fits_two_strategies_by_their_odds_on_the_elo_scale():
    wins = np.array([[0.0, 30.0], [10.0, 0.0]])
    odds = 30 / 10  # the plain fit: no virtual comparison
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
    assert found["method"].to_list() == ["bradley_terry_sandwich"] * 3 and found["clusters"].to_list() == [300] * 3
    assert not found["never_wins"].any() and not found["never_loses"].any()
    assert found["rating"].sum() == pytest.approx(0, abs=1e-6)
    assert cycles(rows) == []


def rock_paper_scissors(beats: dict[tuple[str, str], float], repeats: int, seed: int) -> pl.DataFrame:
    """Two-player games of R, P and S, every ordered pair `repeats` times, a deal per six games; the first named
    wins with the chance `beats` gives the pair."""
    rng = np.random.default_rng(seed)
    lineup = np.array(list(itertools.permutations("RPS", 2)) * repeats)
    first_wins = np.array([beats.get((a, b), 1 - beats.get((b, a), 0.5)) for a, b in lineup]) > rng.random(len(lineup))
    rank = np.where(first_wins[:, None], [1, 2], [2, 1])
    return frame_of(rank, lineup, np.arange(len(lineup)) // 6)


def test_a_rock_paper_scissors_plant_gives_one_clear_cycle():
    beats = {("R", "S"): 0.7, ("S", "P"): 0.7, ("P", "R"): 0.7}
    rows = rock_paper_scissors(beats, 400, 8)
    found = cycles(rows)
    assert len(found) == 1 and found[0]["verdict"] == "clear" and found[0]["support"] > 0.9999
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


def test_a_strategy_that_never_wins_is_rated_minus_infinity_with_an_upper_bound():
    lineups = list(itertools.permutations("ABC"))
    rows = pool_games(np.random.default_rng(17), 40, lineups, {"A": 0.5, "B": 0.0, "C": -50.0})  # C never wins
    found = {r["strategy"]: r for r in ratings(rows).iter_rows(named=True)}
    assert found["C"]["never_wins"] and found["C"]["rating"] == -np.inf and found["C"]["lo"] == -np.inf
    assert found["C"]["method"] == "bradley_terry_bound" and -np.inf < found["C"]["hi"] < found["B"]["lo"]
    # A and B are rated among themselves, mean 0, by their odds alone: the plain fit, no prior
    pairs = pairwise(rows)
    odds = pairs.wins[0, 1] / pairs.wins[1, 0]
    assert (found["A"]["rating"], found["B"]["rating"]) == pytest.approx((200 * np.log10(odds), -200 * np.log10(odds)))
    assert found["A"]["lo"] < found["A"]["rating"] < found["A"]["hi"]
    flipped = ratings(rows.with_columns(rank=pl.col("rank").max().over("game_id") + 1 - pl.col("rank")))
    c = flipped.filter(pl.col("strategy") == "C").row(0, named=True)
    assert c["never_loses"] and c["rating"] == np.inf and c["hi"] == np.inf and np.isfinite(c["lo"])


def test_a_cycle_is_found_in_either_orientation_and_is_clear_only_if_every_leg_is():
    rows = rock_paper_scissors({("R", "S"): 0.7, ("S", "P"): 0.7, ("P", "R"): 0.53}, 100, 18)  # one weak leg
    found = cycles(rows)
    weak = next(leg for leg in found[0]["legs"] if leg["winner"] == "P")
    assert weak["lo"] < 0.5 < weak["estimate"], weak
    assert len(found) == 1 and found[0]["verdict"] == "likely" and 0.5 < found[0]["support"] < 0.99
    # the same cycle with the strategies renamed so that it runs the other way round the sorted names
    renamed = rows.with_columns(strategy=pl.col("strategy").replace({"R": "A", "P": "C", "S": "B"}))
    mirrored = cycles(renamed)
    assert len(mirrored) == 1 and mirrored[0]["cycle"] == ["A", "B", "C"] and mirrored[0]["verdict"] == "likely"


def test_the_seat_verdict_is_holms_correction_of_every_seats_test_against_a_fair_share():
    lineups = [("A", "B", "C")]
    rows = pool_games(np.random.default_rng(19), 40, lineups, {"A": 0.0, "B": 0.0, "C": 0.0}, deal_spread=0.5)
    rows = rows.with_columns(players=pl.lit(3, pl.Int8), experiment=pl.lit("e"))
    shares = seat_win_shares(rows)
    found = seat_extremes(shares, []).row(0, named=True)
    each = ratio_p_values(*shares.select("share", "se", "n_eff", "clusters"), 1 / 3)
    assert found["p"] == pytest.approx(min(1.0, 3 * each.min()))  # Holm's smallest adjusted p-value
    assert found["clear"] == (found["p"] < 0.05)
    tilted = pool_games(np.random.default_rng(20), 40, lineups, {"A": 0.0, "B": 0.0, "C": 0.0}, deal_spread=0.5)
    tilted = tilted.with_columns(win=(pl.col("seat") == 0).cast(pl.Float32),  # the start player always wins
                                 players=pl.lit(3, pl.Int8), experiment=pl.lit("e"))
    assert seat_extremes(seat_win_shares(tilted), []).row(0, named=True)["clear"]
