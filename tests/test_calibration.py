"""A/A calibration of the paired interval (issue 17): does a 95% interval of a difference cover the truth 95% of
the time, in the design the experiments use?

A small simulated two-player game stands in for a real one. Each deal gives every seat a hand; each deal is played
under both seatings, (A, B) and (B, A) (common random numbers); a game's score is its seat's hand, a start-player
edge and the game's own noise, rounded down to a coarse step, so ties (half a win each) are common. A and B
play alike (an A/A experiment), or B scores a little less (a planted difference whose true size a long run of the
same game measures). Seeds are fixed: the test is deterministic.
"""

import numpy as np
import polars as pl
import pytest

from reports.stats import paired_difference

EXPERIMENTS = 600  # the issue asks for 400 or more; 600 make the coverage's standard error 0.9 pp
DEALS = 250  # per experiment: 500 games
SEAT_EDGE = 0.3  # added to the start player's hand
NOISE = 0.5  # the game's own spread, against a hand's spread of 1
STEP = 0.5  # scores are hands rounded down to this step
PLANTED = 0.15  # B's handicap in the planted experiments
NOMINAL, SLACK = 0.95, 0.03
IS_A, IS_B = pl.col("strategy") == "A", pl.col("strategy") == "B"


def play(rng: np.random.Generator, experiments: int, deals: int, handicap_b: float) -> tuple[np.ndarray, np.ndarray]:
    """Win shares (experiments, deals, seating, seat) and strategy names by (seating, seat); seating 0 is (A, B)."""
    seating = np.array([["A", "B"], ["B", "A"]])
    hands = rng.normal(size=(experiments, deals, 1, 2))
    score = hands + SEAT_EDGE * (np.arange(2) == 0) - handicap_b * (seating == "B")
    score = np.floor((score + NOISE * rng.normal(size=(experiments, deals, 2, 2))) / STEP)
    top = score == score.max(axis=-1, keepdims=True)
    return top / top.sum(axis=-1, keepdims=True), seating


def rows_of(win: np.ndarray, seating: np.ndarray) -> list[pl.DataFrame]:
    """The rows of each experiment, one per (game, seat), in the report's columns."""
    experiments, deals = win.shape[:2]
    per_experiment = deals * 4
    frame = pl.DataFrame({
        "experiment": np.repeat(np.arange(experiments), per_experiment),
        "game_id": np.tile(np.repeat(np.arange(deals * 2), 2), experiments),
        "deal": pl.Series(np.tile(np.repeat(np.arange(deals), 4), experiments), dtype=pl.Int32),
        "lineup": pl.Series(np.tile(np.repeat([0, 1], 2), experiments * deals), dtype=pl.Int32),
        "seat": pl.Series(np.tile([0, 1], experiments * deals * 2), dtype=pl.Int8),
        "strategy": np.tile(seating.ravel(), experiments * deals),
        "win": pl.Series(win.ravel(), dtype=pl.Float32),
    })
    return frame.partition_by("experiment", maintain_order=True)


def intervals(truth: float, handicap_b: float, seed: int) -> dict:
    """Coverage of the truth and mean widths of the paired and unpaired intervals over EXPERIMENTS experiments."""
    win, seating = play(np.random.default_rng(seed), EXPERIMENTS, DEALS, handicap_b)
    results = [paired_difference(rows, IS_A, IS_B, seed=i) for i, rows in enumerate(rows_of(win, seating))]
    return {"ties": float(np.mean(win.max(axis=-1) < 1)),
            "coverage": float(np.mean([r["lo"] <= truth <= r["hi"] for r in results])),
            "coverage_unpaired": float(np.mean([r["lo_unpaired"] <= truth <= r["hi_unpaired"] for r in results])),
            "width": float(np.mean([r["width"] for r in results])),
            "width_unpaired": float(np.mean([r["width_unpaired"] for r in results]))}


def true_difference(handicap_b: float, deals: int = 1_000_000) -> float:
    """share(A) - share(B) of the simulated game in a long run (its standard error is about 0.0006)."""
    win, seating = play(np.random.default_rng(99), 1, deals, handicap_b)
    return float(win[0][:, seating == "A"].mean() - win[0][:, seating == "B"].mean())


def test_the_paired_interval_covers_zero_in_95_percent_of_a_a_experiments_and_is_narrower():
    found = intervals(0.0, 0.0, seed=17)
    print(f"A/A: paired width {found['width']:.4f}, unpaired {found['width_unpaired']:.4f}; coverage {found}")
    assert found["ties"] > 0.1, found
    assert abs(found["coverage"] - NOMINAL) <= SLACK, found
    assert found["width"] < found["width_unpaired"], found


def test_the_paired_interval_covers_a_planted_difference_in_95_percent_of_experiments():
    truth = true_difference(PLANTED)
    assert truth == pytest.approx(0.07, abs=0.03)  # B worse by most of an interval's width
    found = intervals(truth, PLANTED, seed=18)
    assert abs(found["coverage"] - NOMINAL) <= SLACK, {"truth": truth, **found}
    assert found["width"] < found["width_unpaired"], found
