"""Timing cores apart from the rest (suites/common/cpu_sets.py), on this machine's real scheduler."""

from __future__ import annotations

import os
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from suites.common import cpu_sets
from suites.common.cpu_sets import CpuSplit


@settings(database=None, derandomize=True)  # the same cases on every run: CI never flakes on a new one
@given(st.frozensets(st.integers(0, 255), min_size=2, max_size=64))
def test_a_split_keeps_the_highest_cores_for_timing_and_round_trips_through_the_environment(cores: frozenset[int]) -> None:
    found = cpu_sets.split(cores)
    assert found.isolated and found.timing | found.other == cores
    assert min(found.timing) > max(found.other)
    assert len(found.timing) == (2 if len(cores) >= 8 else 1)
    assert CpuSplit.from_env(found.to_env()) == found


def test_one_core_cannot_be_split_and_every_core_cannot_time() -> None:
    assert not cpu_sets.split(frozenset({3})).isolated
    with pytest.raises(ValueError, match="at least one must stay"):
        cpu_sets.split(frozenset({0, 1}), timing_cores=2)


def test_ranges_parse_and_mistakes_say_what_to_write() -> None:
    assert CpuSplit.from_env("14,15/0-13") == CpuSplit(frozenset({14, 15}), frozenset(range(14)))
    with pytest.raises(ValueError, match="timing cores"):
        CpuSplit.from_env("0-13")
    with pytest.raises(ValueError, match="not a core number"):
        CpuSplit.from_env("x/0")


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores to keep one apart")
def test_every_thread_moves_and_moves_back() -> None:
    everything = frozenset(os.sched_getaffinity(0))
    cpus = cpu_sets.split(everything)
    ready, done = threading.Event(), threading.Event()
    worker = threading.Thread(target=lambda: (ready.set(), done.wait(10)))
    worker.start()
    ready.wait(10)
    try:
        cpu_sets.move_process(cpus.other)
        with cpu_sets.on_timing_cores(cpus):
            assert os.sched_getaffinity(worker.native_id) == cpus.timing  # the thread that launches kernels too
        assert os.sched_getaffinity(0) == cpus.other
        assert os.sched_getaffinity(worker.native_id) == cpus.other
    finally:
        done.set()
        worker.join()
        cpu_sets.move_process(everything)
