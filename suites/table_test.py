"""The results table: one row per result file, the figures a reference README quotes, bad folders named."""

from __future__ import annotations

from pathlib import Path

import pytest

from parity.v1 import results_pb2 as pb
from suites.common.result_io import ResultFileError, write_result
from suites.table import load, main


def _result(model: str, wall_s: float, process_s: float) -> pb.ModelResult:
    result = pb.ModelResult(result_id=f"id-{model}", community_status="pass", wall_time_s=wall_s)
    result.config.model, result.config.mode, result.config.backend = model, pb.MODE_INFERENCE, "inductor"
    result.performance.measured, result.performance.speedup = True, 1.5
    result.performance.eager.median_s, result.performance.compiled.median_s = 0.006, 0.004
    result.compile_time.compilation_latency_s = 10.25
    result.phase_wall_s["process"] = process_s
    return result


def test_rows_and_wall_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_result(_result("deit", 30.0, 2.0), tmp_path / "single", "deit")
    timed_only = _result("vit", 50.0, 4.0)
    timed_only.config.performance_only = True
    write_result(timed_only, tmp_path / "single", "vit")
    # A triage record beside its result (tools/triage) is not a result.
    (tmp_path / "single" / "vit.triage.txtpb").write_text('signature: "fail_accuracy"\n')
    assert main([str(tmp_path / "single"), "--label"]) == 0
    out = capsys.readouterr().out
    assert "| deit (single) | inference bf16 | inductor | pass | 1.50x | 10.2 | 0.00 | 30.0 | 6.00 | 4.00 |" in out
    assert "| vit (single) | inference bf16 | inductor | pass (not checked) | 1.50x |" in out
    assert "mean 40.0 s, from 30.0 s to 50.0 s (2 results)" in out
    assert "process 3.0" in out


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(ResultFileError, match="not a folder"):
        load([tmp_path / "absent"], label=False)
    assert main([str(tmp_path / "absent")]) == 2


def test_spread_adds_each_speedups_interval_and_pair_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    timed = _result("deit", 30.0, 2.0)
    timed.performance.timing.eager_s.extend([0.006] * 60)
    timed.performance.timing.compiled_s.extend([0.004] * 60)
    timed.performance.timing.speedup.low, timed.performance.timing.speedup.high = 1.46, 1.52
    write_result(timed, tmp_path / "run", "deit")
    write_result(_result("vit", 50.0, 4.0), tmp_path / "run", "vit")  # from before results kept their samples
    assert main([str(tmp_path / "run"), "--spread"]) == 0
    out = capsys.readouterr().out
    assert "| speedup | 95% interval (every pair) | pairs | compile latency (s) |" in out
    assert "| deit | inference bf16 | inductor | pass | 1.50x | 1.46-1.52x | 60 | 10.2 |" in out
    assert "| vit | inference bf16 | inductor | pass | 1.50x | - | - | 10.2 |" in out
