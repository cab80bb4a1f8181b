"""The timing intervals on synthetic samples whose answer is known (suites/common/uncertainty.py)."""

from __future__ import annotations

import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from suites.common.uncertainty import intervals

positive = st.floats(min_value=1e-6, max_value=10.0, allow_nan=False, allow_infinity=False)
pairs = st.integers(min_value=2, max_value=60).flatmap(
    lambda n: st.tuples(st.lists(positive, min_size=n, max_size=n), st.lists(positive, min_size=n, max_size=n)))


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(pairs)
def test_the_interval_holds_the_hud_statistic_over_every_sample(samples: tuple[list[float], list[float]]) -> None:
    eager, compiled = samples
    found = intervals(eager, compiled)
    assert found.speedup.point == pytest.approx(statistics.median(eager) / statistics.median(compiled))
    for interval in (found.speedup, found.eager_median_s, found.compiled_median_s):
        assert interval.low <= interval.point <= interval.high


@settings(max_examples=30, deadline=None, database=None, derandomize=True)
@given(pairs, st.floats(min_value=0.01, max_value=100.0))
def test_a_common_unit_changes_no_speedup(samples: tuple[list[float], list[float]], unit: float) -> None:
    eager, compiled = samples
    plain, scaled = intervals(eager, compiled), intervals([e * unit for e in eager], [c * unit for c in compiled])
    assert scaled.speedup.low == pytest.approx(plain.speedup.low)
    assert scaled.speedup.high == pytest.approx(plain.speedup.high)


def test_pairs_at_a_constant_ratio_have_no_uncertainty_in_the_ratio() -> None:
    eager = list(np.random.default_rng(1).lognormal(0.0, 0.5, 40))
    found = intervals(eager, [e / 1.7 for e in eager])  # each pair moves together: the ratio is exactly 1.7
    assert (found.speedup.low, found.speedup.high) == pytest.approx((1.7, 1.7))
    assert found.eager_median_s.relative_width > 0.1  # the latencies themselves are spread


def test_the_95_percent_interval_covers_the_true_speedup_about_95_times_in_100() -> None:
    rng = np.random.default_rng(7)
    true_speedup, covered = 2.0, 0
    for _ in range(100):  # lognormal noise: the medians' ratio is the true speedup
        eager = rng.lognormal(np.log(2e-3), 0.2, 30)
        compiled = rng.lognormal(np.log(1e-3), 0.2, 30)
        found = intervals(list(eager), list(compiled)).speedup
        covered += found.low <= true_speedup <= found.high
    assert 85 <= covered <= 100


def test_more_samples_give_a_narrower_interval() -> None:
    rng = np.random.default_rng(3)
    eager, compiled = rng.lognormal(0, 0.3, 600), rng.lognormal(-0.5, 0.3, 600)
    assert intervals(list(eager), list(compiled)).speedup.relative_width < \
        intervals(list(eager[:30]), list(compiled[:30])).speedup.relative_width / 2


@pytest.mark.parametrize("eager, compiled, why", [
    ([1.0, 2.0], [1.0], "in pairs"), ([], [], "in pairs"), ([1.0, 0.0], [1.0, 1.0], "positive"),
    ([1.0, float("nan")], [1.0, 1.0], "finite")])
def test_malformed_samples_are_refused(eager: list[float], compiled: list[float], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        intervals(eager, compiled)
