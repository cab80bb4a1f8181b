"""The timing loop: rounds until the interval is narrow enough or the cap (suites/common/sampling.py)."""

from __future__ import annotations

import dataclasses
import itertools
import os

import numpy as np
import pytest

from parity.v1 import results_pb2 as pb
from suites.common import cpu_sets
from suites.common.sampling import MAX_PAIRS, SamplingPolicy, sample


def test_steady_timings_stop_after_the_community_round() -> None:
    found = sample(lambda: 2e-3, lambda: 1e-3, SamplingPolicy(30, 0.04, 60.0), None)
    assert len(found.eager_s) == len(found.compiled_s) == 30
    assert found.target_met and found.intervals.speedup.point == pytest.approx(2.0)


def test_noisy_timings_take_more_rounds_until_the_cap() -> None:
    rng = np.random.default_rng(0)
    found = sample(lambda: float(rng.lognormal(0, 1.0)), lambda: float(rng.lognormal(0, 1.0)),
                   SamplingPolicy(10, 0.001, 0.05), None)
    assert len(found.eager_s) > 10 and len(found.eager_s) % 10 == 0
    assert not found.target_met and found.timing_s >= 0.05
    assert found.first_round() == (found.eager_s[:10], found.compiled_s[:10])


def test_the_sample_count_is_bounded_whatever_the_cap() -> None:
    noise = itertools.cycle([1.0, 3.0, 0.2, 5.0])
    found = sample(lambda: next(noise), lambda: 1.0, SamplingPolicy(500, 0.0, 3600.0), None)
    assert len(found.eager_s) == MAX_PAIRS


def test_the_result_records_samples_intervals_and_policy() -> None:
    found = sample(lambda: 3e-3, lambda: 1e-3, SamplingPolicy(5, 0.04, 0.0), None)
    timing = pb.Timing()
    dataclasses.replace(found, cpus=cpu_sets.CpuSplit(frozenset({1}), frozenset({0}))).fill(timing)
    assert list(timing.eager_s) == [3e-3] * 5 and list(timing.compiled_s) == [1e-3] * 5
    assert timing.speedup.point == pytest.approx(3.0) and timing.confidence == 0.95 and "bootstrap" in timing.method
    assert (timing.target_rel_width, timing.time_cap_s, timing.target_met) == (0.04, 0.0, True)
    assert (list(timing.timing_cpus), list(timing.other_cpus), timing.cpus_isolated) == ([1], [0], True)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores to keep one apart")
def test_the_loop_runs_on_the_timing_cores_and_returns() -> None:
    cpus = cpu_sets.split()
    cpu_sets.move_process(cpus.other)
    seen: list[set[int]] = []
    try:
        sample(lambda: seen.append(os.sched_getaffinity(0)) or 1.0, lambda: 1.0, SamplingPolicy(3, 1.0, 0.0), cpus)
        assert seen == [set(cpus.timing)] * 3
        assert os.sched_getaffinity(0) == cpus.other
    finally:
        cpu_sets.move_process(cpus.timing | cpus.other)


@pytest.mark.parametrize("policy, why", [((0, 0.04, 1.0), "at least one pair"), ((30, -1.0, 1.0), ">= 0"),
                                         ((30, 0.04, float("nan")), ">= 0")])
def test_bad_policies_are_refused(policy: tuple[int, float, float], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        SamplingPolicy(*policy)
