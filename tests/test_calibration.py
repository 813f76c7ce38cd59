"""Calibration of every interval method the report uses (issue 30): does a 95% interval cover a known truth in
95% ± 3% of simulated experiments of 10, 30 and 300 deals, in the design the experiments use?

Each simulated experiment is a set of deals; the games of one deal share its luck (a deal-level random effect: a
seat's hand, a deal's difficulty), so they are correlated, as in the real experiments, and every interval is
clustered by deal. The truth is what a long run of the same game gives (or, for rates and means, what the model
gives exactly). Replicates are batched: one array holds all the experiments of a cell, and the interval code runs
on all of them at once (reports.stats.ratio_interval, difference_interval, cluster_ratio_interval and the
Bradley–Terry fit and sandwich of reports.ratings are vectorised over groups); a check on one replicate ties each
batched call to the function the report calls (paired_ratio, paired_difference, mean_interval, ratings). Seeds
are fixed: the test is deterministic.
"""

import itertools

import numpy as np
import polars as pl
import pytest
from scipy.special import expit, logit

from reports.ratings import bradley_terry, clusters_met, pairwise, ratings, sandwich_se
from reports.stats import (
    cluster_ratio_interval,
    difference_interval,
    mean_interval,
    paired_difference,
    paired_ratio,
    ratio_interval,
    t_quantile,
    wilson,
)

REPLICATES = 1000  # per cell: the coverage's standard error is 0.7 pp
SIZES = (10, 30, 300)  # deals per experiment
NOMINAL, SLACK = 0.95, 0.03
LONG_RUN = 400_000  # deals of the long run that measures a truth
SEAT_LUCK = 0.6  # spread of a seat's hand in a deal, against a game's own noise of 1
STEP = 0.5  # scores are rounded down to this step, so ties (a share of a win) are common


def coverage(lo: np.ndarray, hi: np.ndarray, truth) -> float:
    return float(np.mean((lo <= truth) & (truth <= hi)))


def assert_calibrated(name: str, deals: int, lo: np.ndarray, hi: np.ndarray, truth) -> None:
    found = coverage(lo, hi, truth)
    print(f"{name} at {deals} deals: coverage {found:.3f}")
    assert abs(found - NOMINAL) <= SLACK, (name, deals, found)


def seat_wins(rng: np.random.Generator, replicates: int, deals: int, games: int, edge: np.ndarray,
              points: np.ndarray | None = None) -> np.ndarray:
    """Win shares (replicates, deals, games, seats): a seat's score is its edge, its hand in the deal (the same in
    every game of the deal) and the game's noise, rounded down; the best score wins, a k-way tie gives 1/k each.
    points: a compensation added to each seat's score before the winner is found (re-scored, as handicap.py does)."""
    hand = SEAT_LUCK * rng.normal(size=(replicates, deals, 1, len(edge)))
    score = np.floor((edge + hand + rng.normal(size=(replicates, deals, games, len(edge)))) / STEP) * STEP
    score = score if points is None else score + points
    top = score == score.max(axis=-1, keepdims=True)
    return top / top.sum(axis=-1, keepdims=True)


def long_run(simulate, *args) -> np.ndarray:
    """The mean win share of every seat over LONG_RUN deals of simulate(rng, 1, deals, *args)."""
    return simulate(np.random.default_rng(99), 1, LONG_RUN, *args).mean(axis=(0, 1, 2))


def per_deal(wins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cluster sums for ratio_interval: wins (deals, replicates * seats) and games (deals,)."""
    _, deals, games, _ = wins.shape
    return wins.sum(axis=2).transpose(1, 0, 2).reshape(deals, -1), np.full(deals, float(games))


def rows_of(wins: np.ndarray, strategies: np.ndarray | None = None) -> pl.DataFrame:
    """The rows of one replicate (deals, games, seats) in the report's columns."""
    deals, games, seats = wins.shape
    return pl.DataFrame({
        "game_id": np.repeat(np.arange(deals * games), seats), "deal": np.repeat(np.arange(deals), games * seats),
        "seat": np.tile(np.arange(seats), deals * games), "win": wins.ravel(),
        "strategy": np.tile(strategies.ravel(), deals) if strategies is not None else "A"})


# ---------------------------------------------------------------- seat shares, the start player's edge, handicaps

SEAT_EDGE = np.array([0.3, 0.0, -0.1])  # three players, the start player ahead
GAMES = 3  # games a deal


@pytest.mark.parametrize("deals", SIZES)
def test_seat_shares_and_the_start_players_edge_are_calibrated(deals: int):
    truth = long_run(seat_wins, GAMES, SEAT_EDGE)
    wins = seat_wins(np.random.default_rng(deals), REPLICATES, deals, GAMES, SEAT_EDGE)
    lo, hi = (bound.reshape(REPLICATES, 3) for bound in cluster_ratio_interval(*per_deal(wins)))
    for seat in range(3):
        assert_calibrated(f"seat {seat} share", deals, lo[:, seat], hi[:, seat], truth[seat])
    # the start player's edge: its share minus 1/P, as paired_difference computes it against every row
    sums = wins.sum(axis=2)  # (replicates, deals, seats)
    units = np.stack([sums[..., 0], np.full(sums.shape[:2], GAMES), sums.sum(axis=-1),
                      np.full(sums.shape[:2], 3.0 * GAMES)]).transpose(2, 0, 1)
    edge = difference_interval(units)
    assert_calibrated("start player's edge", deals, edge["lo"], edge["hi"], truth[0] - 1 / 3)
    # the batched calls are the report's functions: one replicate through paired_ratio and paired_difference
    rows = rows_of(wins[0])
    found = paired_ratio(rows, pl.col("win"), pl.lit(1), ["seat"])
    assert np.allclose(found["lo"], lo[0], rtol=1e-12) and np.allclose(found["hi"], hi[0], rtol=1e-12)
    difference = paired_difference(rows, pl.col("seat") == 0, pl.lit(True))
    assert (difference["lo"], difference["hi"]) == pytest.approx((edge["lo"][0], edge["hi"][0]), rel=1e-9)


COMPENSATION = np.array([-0.5, 0.0, 0.5])  # points added to each seat's score, re-scored: seats near fair, ties moved


@pytest.mark.parametrize("deals", SIZES)
def test_compensated_shares_are_calibrated(deals: int):
    truth = long_run(seat_wins, GAMES, SEAT_EDGE, COMPENSATION)
    wins = seat_wins(np.random.default_rng(100 + deals), REPLICATES, deals, GAMES, SEAT_EDGE, COMPENSATION)
    lo, hi = (bound.reshape(REPLICATES, 3) for bound in cluster_ratio_interval(*per_deal(wins)))
    for seat in range(3):
        assert_calibrated(f"compensated seat {seat} share", deals, lo[:, seat], hi[:, seat], truth[seat])


# ---------------------------------------------------------------- strategy shares and the strategy gap

SEATINGS = np.array([["A", "B"], ["B", "A"]])  # every deal under both seatings, twice
STRENGTH = {"A": 0.25, "B": 0.0}


def strategy_wins(rng: np.random.Generator, replicates: int, deals: int) -> np.ndarray:
    """Win shares (replicates, deals, games, seats) of a two-player game, games in the seatings' order."""
    lineup = np.tile(SEATINGS, (2, 1))
    edge = np.vectorize(STRENGTH.get)(lineup) + np.array([0.2, 0.0])
    hand = SEAT_LUCK * rng.normal(size=(replicates, deals, 1, 2))
    score = np.floor((edge + hand + rng.normal(size=(replicates, deals, len(lineup), 2))) / STEP)
    top = score == score.max(axis=-1, keepdims=True)
    return top / top.sum(axis=-1, keepdims=True)


def newcombe_intervals(won_a: np.ndarray, won_b: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's interval of won_a / n - won_b / n (stats.newcombe), for arrays."""
    (lo_a, hi_a), (lo_b, hi_b) = wilson(won_a, n), wilson(won_b, n)
    p_a, p_b = won_a / n, won_b / n
    return p_a - p_b - np.hypot(p_a - lo_a, hi_b - p_b), p_a - p_b + np.hypot(hi_a - p_a, p_b - lo_b)


@pytest.mark.parametrize("deals", SIZES)
def test_strategy_shares_and_the_strategy_gap_are_calibrated(deals: int):
    is_a = np.tile(SEATINGS, (2, 1)) == "A"
    truth_wins = strategy_wins(np.random.default_rng(99), 1, LONG_RUN)
    truth_a = truth_wins[..., is_a].mean()
    truth_gap = truth_a - truth_wins[..., ~is_a].mean()
    wins = strategy_wins(np.random.default_rng(200 + deals), REPLICATES, deals)
    a_sums, b_sums = wins[..., is_a].sum(axis=-1).T, wins[..., ~is_a].sum(axis=-1).T  # (deals, replicates)
    games = np.full(a_sums.shape, float(is_a.sum()))
    lo, hi = cluster_ratio_interval(a_sums, games)
    assert_calibrated("strategy share", deals, lo, hi, truth_a)
    gap = difference_interval(np.stack([a_sums, games, b_sums, games], axis=1))
    assert_calibrated("strategy gap", deals, gap["lo"], gap["hi"], truth_gap)
    # the unpaired interval takes the games as independent: in a two-player game B loses what A wins, which it
    # does not see, so it misses the gap far more often than 5% of the time
    lo_u, hi_u = newcombe_intervals(a_sums.sum(axis=0), b_sums.sum(axis=0), games.sum(axis=0))
    print(f"unpaired (Newcombe) strategy gap at {deals} deals: coverage {coverage(lo_u, hi_u, truth_gap):.3f}")
    assert coverage(lo_u, hi_u, truth_gap) < NOMINAL - SLACK
    rows = rows_of(wins[0], np.tile(SEATINGS, (2, 1)))
    found = paired_ratio(rows, pl.col("win"), pl.lit(1), ["strategy"]).row(0, named=True)
    assert (found["lo"], found["hi"]) == pytest.approx((lo[0], hi[0]), rel=1e-9)
    difference = paired_difference(rows, pl.col("strategy") == "A", pl.col("strategy") == "B")
    assert (difference["lo"], difference["hi"]) == pytest.approx((gap["lo"][0], gap["hi"][0]), rel=1e-9)
    assert (difference["lo_unpaired"], difference["hi_unpaired"]) == pytest.approx((lo_u[0], hi_u[0]))


# ---------------------------------------------------------------- rates: guessing accuracy, stalls, at 0% and 100%

DEAL_SPREAD = 0.8  # a deal's effect on the log-odds of a rate
GUESSES = 4  # mean guesses (trials) a deal, plus one; the count varies from deal to deal


def rate_sums(rng: np.random.Generator, deals: int, rate: float) -> tuple[np.ndarray, np.ndarray]:
    """Successes and trials (deals, replicates): a deal's rate is the rate moved on the log-odds scale by the
    deal's effect; its trials are 1 + Poisson(GUESSES)."""
    trials = 1 + rng.poisson(GUESSES, (deals, REPLICATES))
    if rate in (0.0, 1.0):
        return rate * trials, trials.astype(float)
    chance = expit(logit(rate) + DEAL_SPREAD * rng.normal(size=(deals, REPLICATES)))
    return rng.binomial(trials, chance).astype(float), trials.astype(float)


def true_rate(rate: float) -> float:
    """E[expit(logit(rate) + DEAL_SPREAD z)], z standard normal, by Gauss–Hermite quadrature (the trials do not
    depend on the deal's effect, so this is the ratio of expected sums)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    return float((expit(logit(rate) + DEAL_SPREAD * nodes) * weights).sum() / weights.sum())


@pytest.mark.parametrize("deals", SIZES)
@pytest.mark.parametrize("rate", [0.5, 0.8, 0.15])
def test_rates_are_calibrated(deals: int, rate: float):
    successes, trials = rate_sums(np.random.default_rng(deals + int(100 * rate)), deals, rate)
    found = ratio_interval(successes, trials, np.ones(REPLICATES, bool))
    assert_calibrated(f"rate {rate}", deals, found["lo"], found["hi"], true_rate(rate))
    assert ((found["lo"] >= 0) & (found["hi"] <= 1)).all()


@pytest.mark.parametrize("deals", SIZES)
@pytest.mark.parametrize("rate", [0.0, 1.0])
def test_a_rate_of_0_or_1_is_held_by_an_interval_open_on_its_inner_side(deals: int, rate: float):
    successes, trials = rate_sums(np.random.default_rng(deals), deals, rate)
    lo, hi = cluster_ratio_interval(successes, trials)
    assert coverage(lo, hi, rate) == 1.0
    width = hi - lo
    assert (width > 0).all() and ((lo < 1) if rate else (hi > 0)).all()
    assert (width < 20 / trials.sum(axis=0)).all()  # and not wider than a few trials' worth


# ---------------------------------------------------------------- a mean of per-game values (score gaps)


@pytest.mark.parametrize("deals", SIZES)
def test_the_mean_of_per_game_values_is_calibrated(deals: int):
    rng = np.random.default_rng(300 + deals)
    games = 4
    # a game's score gap: the deal's effect plus the game's own skewed spread (exponential, mean 1); truth 1
    values = rng.normal(size=(deals, 1, REPLICATES)) + rng.exponential(size=(deals, games, REPLICATES))
    found = ratio_interval(values.sum(axis=1), np.full((deals, REPLICATES), float(games)), np.zeros(REPLICATES, bool))
    assert_calibrated("mean score gap", deals, found["lo"], found["hi"], 1.0)
    assert mean_interval(values[..., 0].ravel(), np.repeat(np.arange(deals), games)) == pytest.approx(
        (found["lo"][0], found["hi"][0]), rel=1e-9)


# ---------------------------------------------------------------- Bradley–Terry ratings

LINEUPS = np.array(list(itertools.permutations(range(3))))  # every deal under all six seatings of three strategies
LOG_STRENGTH = np.array([0.4, 0.0, -0.4])


def comparisons(rng: np.random.Generator, replicates: int, deals: int) -> np.ndarray:
    """Pairwise wins per deal (replicates, deals, 3, 3): a seat's utility is its strategy's log-strength, its hand
    in the deal and Gumbel noise; the better utility wins each pair of seats."""
    hand = SEAT_LUCK * rng.normal(size=(replicates, deals, 1, 3))
    utility = LOG_STRENGTH[LINEUPS] + hand + rng.gumbel(size=(replicates, deals, len(LINEUPS), 3))
    one_hot = np.eye(3)[LINEUPS]  # (lineups, seats, strategies)
    wins = np.zeros((replicates, deals, 3, 3))
    for i, j in itertools.combinations(range(3), 2):
        i_wins = (utility[..., i] > utility[..., j]).astype(float)
        wins += np.einsum("rdl,la,lb->rdab", i_wins, one_hot[:, i], one_hot[:, j])
        wins += np.einsum("rdl,la,lb->rdab", 1 - i_wins, one_hot[:, j], one_hot[:, i])
    return wins


@pytest.mark.parametrize("deals", SIZES)
def test_ratings_are_calibrated(deals: int):
    truth = bradley_terry(comparisons(np.random.default_rng(99), 1, LONG_RUN // 4).sum(axis=(0, 1)))
    per_cluster = comparisons(np.random.default_rng(400 + deals), REPLICATES, deals)
    log_strength = bradley_terry(per_cluster.sum(axis=1))
    half = t_quantile(clusters_met(per_cluster), NOMINAL)[:, None] * sandwich_se(per_cluster, log_strength)
    for strategy in range(3):
        assert_calibrated(f"rating of strategy {strategy}", deals, log_strength[:, strategy] - half[:, strategy],
                          log_strength[:, strategy] + half[:, strategy], truth[strategy])
    # the batched fit is ratings(): one replicate as rows
    rows = ratings_rows(per_cluster[0])
    assert np.array_equal(pairwise(rows).per_cluster, per_cluster[0])
    found = ratings(rows).sort("strategy")
    elo = 400 / np.log(10)
    assert found["lo"].to_numpy() == pytest.approx(elo * (log_strength[0] - half[0]), rel=1e-6)


def ratings_rows(per_cluster: np.ndarray) -> pl.DataFrame:
    """Two-player games that give these pairwise wins per deal (wins[d, a, b] games where a beat b)."""
    deal, a, b = np.nonzero(per_cluster)
    count = per_cluster[deal, a, b].astype(int)
    deal, a, b = (np.repeat(x, count) for x in (deal, a, b))
    games = len(deal)
    return pl.DataFrame({"game_id": np.repeat(np.arange(games), 2), "deal": np.repeat(deal, 2),
                         "seat": np.tile([0, 1], games), "strategy": np.array(list("ABC"))[np.column_stack([a, b])
                                                                                          .ravel()],
                         "rank": np.tile([1, 2], games)})
