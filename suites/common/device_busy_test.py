"""The busy-share sampler's parsing and a run's totals over its calls (the sampler itself needs nvidia-smi: on a GPU
machine, `suites.run` prints the share at the end of every call)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from suites.common.device_busy import BusySampler, MatrixCall, parse_utilization, record, totals


def test_utilization_lines_become_shares_and_anything_else_is_dropped() -> None:
    assert parse_utilization("87\n") == pytest.approx(0.87)
    assert parse_utilization(" 0") == 0.0
    for line in ("[N/A]", "", "utilization.gpu [%]", "101", "-3"):
        assert parse_utilization(line) is None


def test_a_resumed_run_adds_its_calls_up_weighting_the_share_by_samples(tmp_path: Path) -> None:
    assert totals(tmp_path, "r1") is None
    record(tmp_path, "r1", MatrixCall(4, 500.0, 1400.0, 0.5, 500, "nvidia-smi"))
    record(tmp_path, "r1", MatrixCall(2, 100.0, 150.0, 0.8, 100, "nvidia-smi"))
    run = totals(tmp_path, "r1")
    assert run == MatrixCall(6, 600.0, 1550.0, pytest.approx((0.5 * 500 + 0.8 * 100) / 600), 600, "nvidia-smi")
    assert run is not None and run.describe().startswith("matrix wall 600 s for 6 model runs whose walls add up to "
                                                         "1550 s (2.58x); device busy 55%")


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this machine has nvidia-smi: it is sampled")
def test_a_device_without_a_sampler_says_why() -> None:
    with BusySampler("cuda") as busy:
        pass
    assert busy.share() is None and busy.sampler == "nvidia-smi is not on PATH"
    with BusySampler("npu") as busy:
        pass
    assert busy.sampler == "no sampler for the npu device"
    assert MatrixCall(1, 10.0, 9.0, None, 0, busy.sampler).describe().endswith(
        "device busy not measured (no sampler for the npu device)")
