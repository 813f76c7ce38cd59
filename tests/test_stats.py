import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reports.stats import bootstrap_mean_ci, distinct_rows, wilson


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
