"""Fault injection: killed, crashing, hanging and failing models still yield classified results."""

from __future__ import annotations

import signal
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from parity.v1 import results_pb2 as pb
from suites.common.launcher import LaunchOptions, run_model
from suites.common.request import ModelRequest
from suites.common.result_io import read_result

HANG_TIMEOUT_S = 15.0
CASES = {
    "healthy": "pass",
    "killed": "crash",
    "segfault": "crash",
    "hang": "timeout",
    "exits": "crash",
    "not_implemented": "model_fail_to_load",
    "raises_in_forward": "eager_1st_run_fail",
    "device_oom": "eager_1st_run_OOM",
    "not_deterministic": "eager_two_runs_differ",
    "differs_when_compiled": "fail_accuracy",
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[pb.ModelResult, Path]]:
    out = tmp_path_factory.mktemp("selftest")
    def launch(model: str) -> tuple[str, tuple[pb.ModelResult, Path]]:
        request = ModelRequest(suite="selftest", model=model, mode="inference", backend="aot_eager", device="cpu",
                               smoke=True, repeats=2, warmup=1, run_id="selftest")
        options = LaunchOptions(timeout_s=HANG_TIMEOUT_S if model == "hang" else 600.0)
        return model, (run_model(request, out, options), out / f"{request.file_stem()}.pb")

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(launch, CASES))


@pytest.mark.parametrize("model", sorted(CASES))
def test_every_fault_is_classified(results: dict[str, tuple[pb.ModelResult, Path]], model: str) -> None:
    result, path = results[model]
    assert result.community_status == CASES[model], result.failure.message
    assert result.status == result.expected_status  # the manifest's expectation agrees
    stored = read_result(path)  # the result reached disk, whole
    assert stored.community_status == CASES[model]
    assert stored.config.model == model and stored.result_id


def test_killed_child_reports_its_signal(results: dict[str, tuple[pb.ModelResult, Path]]) -> None:
    assert results["killed"][0].failure.signal == signal.SIGKILL
    assert results["segfault"][0].failure.signal == signal.SIGSEGV
    assert results["exits"][0].failure.exit_code == 3
    assert results["segfault"][0].failure.phase == pb.PHASE_CHILD_PROCESS


def test_hang_is_killed_at_the_timeout(results: dict[str, tuple[pb.ModelResult, Path]]) -> None:
    result = results["hang"][0]
    assert HANG_TIMEOUT_S <= result.wall_time_s < HANG_TIMEOUT_S + 10
    assert "timeout" in result.failure.message


def test_accuracy_failure_keeps_the_comparison_log(results: dict[str, tuple[pb.ModelResult, Path]]) -> None:
    result = results["differs_when_compiled"][0]
    assert result.accuracy.checked and not result.HasField("failure")
    assert "RMSE" in result.accuracy.detail or "Accuracy failed" in result.accuracy.detail


def test_healthy_model_has_full_figures(results: dict[str, tuple[pb.ModelResult, Path]]) -> None:
    result = results["healthy"][0]
    assert result.accuracy.fp64_reference and result.accuracy.eager_runs_identical
    assert result.performance.measured and result.performance.speedup > 0
    assert result.performance.compiled.samples == 2
    assert result.dynamo.unique_graphs >= 1
    assert result.provenance.torch_version and result.provenance.manifest_sha256
    phases = result.phase_wall_s  # where the wall time went, measured, and never more than the whole
    assert {"process", "load", "fp64_reference", "eager_runs", "performance", "compiled_check"} <= set(phases)
    assert all(seconds > 0 for seconds in phases.values())
    assert sum(phases.values()) <= result.wall_time_s
