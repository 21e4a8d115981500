"""tw_rl.stats: the intervals and the sharing of games against known values."""

from __future__ import annotations

import math

import pytest

from tw_rl.stats import Z95, runs_interval, shares, t_quantile, wilson_interval, z_score


def test_wilson_interval_known_values():
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson_interval(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(5.5, 10)  # a draw counts half
    assert 0.2366 < low < high and high > 0.7634
    with pytest.raises(ValueError, match=r"successes must lie in \[0, 10\], got 11"):
        wilson_interval(11, 10)


def test_z_score_counts_standard_errors_from_an_even_match():
    assert Z95 == pytest.approx(1.959964, abs=1e-6)
    assert z_score(50, 100) == 0.0
    assert z_score(60, 100) == pytest.approx(2.0)  # 0.1 / sqrt(0.25 / 100)
    assert z_score(34, 200) == pytest.approx((0.17 - 0.5) / math.sqrt(0.25 / 200))
    assert z_score(0, 0) == 0.0
    with pytest.raises(ValueError):
        z_score(-1, 10)


@pytest.mark.parametrize(
    ("df", "confidence", "expected"),  # the tables' values (two-sided)
    [
        (1, 0.95, 12.7062),
        (2, 0.95, 4.3027),
        (3, 0.95, 3.1824),
        (4, 0.95, 2.7764),
        (5, 0.95, 2.5706),
        (10, 0.95, 2.2281),
        (30, 0.95, 2.0423),
        (100, 0.95, 1.9840),
        (10, 0.90, 1.8125),
        (7, 0.99, 3.4995),
        (1, 0.50, 1.0),
    ],
)
def test_t_quantile_known_values(df, confidence, expected):
    assert t_quantile(df, confidence) == pytest.approx(expected, abs=1e-4)


def test_t_quantile_approaches_the_normal_one():
    assert Z95 < t_quantile(2000) < Z95 + 2e-3  # 1.9612
    with pytest.raises(ValueError, match="at least one degree of freedom"):
        t_quantile(0)


def test_the_interval_over_runs_is_students_and_widens_with_their_spread():
    close = runs_interval([0.50, 0.52, 0.48])
    apart = runs_interval([0.17, 0.83, 0.50])
    assert close.mean == pytest.approx(0.5) and apart.mean == pytest.approx(0.5) and close.count == 3
    assert close.high == pytest.approx(0.5 + 4.3027 * 0.02 / math.sqrt(3), abs=1e-4)
    assert close.low == pytest.approx(0.5 - 4.3027 * 0.02 / math.sqrt(3), abs=1e-4)
    assert 0 < close.high - close.low < 0.1 < apart.high - apart.low
    # two runs: 12.706 standard errors each side, clipped to [0, 1]
    two = runs_interval([0.4, 0.6])
    assert (two.low, two.high) == (0.0, 1.0)
    # runs that score alike: no narrower than the floor (the pooled games' interval)
    alike = runs_interval([1.0, 1.0, 1.0], floor=(0.9, 1.0))
    assert (alike.low, alike.high) == (0.9, 1.0)
    with pytest.raises(ValueError, match="two or more runs"):
        runs_interval([0.5])


def test_shares_differ_by_at_most_one_and_none_is_empty():
    assert shares(5, 2) == [3, 2]
    assert shares(6, 4) == [2, 2, 1, 1]
    assert shares(1, 4) == [1]
    assert shares(0, 3) == [0]
    assert sum(shares(64, 3)) == 64 and max(shares(64, 3)) - min(shares(64, 3)) == 1
    with pytest.raises(ValueError):
        shares(4, 0)
