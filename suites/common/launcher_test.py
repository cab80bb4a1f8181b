"""Fault injection: killed, crashing, hanging and failing models still yield classified results, whether the
child is a fresh interpreter or forked from a pre-imported zygote."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from compiler.devices.registry import get_device
from parity.v1 import results_pb2 as pb
from suites.common import cpu_sets
from suites.common.device_turns import turn_is_free
from suites.common.launcher import LaunchOptions, _tail, run_model, start_zygote
from suites.common.provenance import device_from_log, device_line, phase_from_log, phase_line
from suites.common.request import ModelRequest
from suites.common.result_io import FAILURE_TEXT_CHARS, read_result
from suites.common.zygote import Zygote, ZygoteError

HANG_TIMEOUT_S = 15.0
CASES = {
    "healthy": "pass",
    "killed": "crash",
    "segfault": "crash",
    "hang": "timeout",
    "exits": "crash",
    "not_implemented": "model_fail_to_load",
    "raises_in_forward": "eager_fail_to_run",
    "device_oom": "eager_fail_to_run",
    "raises_when_checked": "eager_1st_run_fail",
    "killed_when_checked": "crash",
    "not_deterministic": "eager_two_runs_differ",
    "differs_when_compiled": "fail_accuracy",
    "updates_its_state": "pass",
    "listed_non_deterministic": "pass",
    "listed_large_model": "pass_due_to_skip",
    "listed_large_model_fails_timing": "pass_due_to_skip",
    "listed_eager_not_deterministic": "eager_two_runs_differ",
}


def _request(model: str, backend: str = "aot_eager") -> ModelRequest:
    # Two warm-up calls: the second compiles the graph that updates_its_state needs once its buffer is filled in.
    return ModelRequest(suite="selftest", model=model, mode="inference", backend=backend, device="cpu", smoke=True,
                        repeats=2, warmup=2, run_id="selftest")


@pytest.fixture(scope="module", params=["fresh", "forked"])
def results(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[dict[str, tuple[pb.ModelResult, Path]]]:
    out = tmp_path_factory.mktemp(f"selftest-{request.param}")
    zygote = start_zygote("selftest", parallel_jobs=2) if request.param == "forked" else None

    def launch(model: str) -> tuple[str, tuple[pb.ModelResult, Path]]:
        options = LaunchOptions(timeout_s=HANG_TIMEOUT_S if model == "hang" else 600.0, zygote=zygote)
        return model, (run_model(_request(model), out, options), out / f"{_request(model).file_stem()}.pb")

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            yield dict(pool.map(launch, CASES))
    finally:
        if zygote is not None:
            zygote.close()


@pytest.mark.parametrize("model", ["device_oom", "raises_in_forward", "killed"])
def test_a_failure_records_whether_the_device_ran_out_of_memory(results: dict[str, tuple[pb.ModelResult, Path]],
                                                                model: str) -> None:
    """device_oom's first eager iteration is upstream's eager_fail_to_run, but the fact that its memory ran out is
    kept (suites.run reruns such a model alone when it ran beside others); other failures do not have it."""
    assert results[model][0].failure.out_of_memory == (model == "device_oom")


@pytest.mark.parametrize("model", sorted(CASES))
def test_every_fault_is_classified(results: dict[str, tuple[pb.ModelResult, Path]], model: str) -> None:
    result, path = results[model]
    assert result.community_status == CASES[model], result.failure.message
    assert result.status == result.expected_status  # the manifest's expectation agrees
    stored = read_result(path)  # the result reached disk, whole
    assert stored.community_status == CASES[model]
    assert stored.config.model == model and stored.result_id


def test_upstreams_eager_not_deterministic_list_skips_the_training_comparison(tmp_path: Path) -> None:
    """Training of a model on that list: the eager runs differ, yet a compiled run that completes is
    pass_due_to_skip, as upstream reports it (in inference the list does not apply: see CASES)."""
    request = replace(_request("listed_eager_not_deterministic"), mode="training")
    result = run_model(request, tmp_path, LaunchOptions())
    assert result.community_status == "pass_due_to_skip", result.failure.message
    assert result.status == result.expected_status
    assert "not compared" in result.accuracy.detail
    assert result.config.optimizer == "none"  # the run's record survives the child's config (CPU: upstream steps none)


def test_every_child_writes_its_log(results: dict[str, tuple[pb.ModelResult, Path]]) -> None:
    """A forked child's stdout and stderr are its log file (a model that prints must not fail for it)."""
    _, path = results["healthy"]
    assert "[child] healthy inference aot_eager: pass" in path.with_suffix(".log").read_text()


def test_a_model_error_keeps_the_frame_that_raised(results: dict[str, tuple[pb.ModelResult, Path]]) -> None:
    """The message alone ("mat2 is on cpu") rarely says which line of the model to look at; the traceback does."""
    failure = results["raises_in_forward"][0].failure
    assert failure.message == "selftest: this model always fails in forward"
    assert "suites/selftest/loader.py" in failure.log_tail and "in forward" in failure.log_tail


def test_killed_child_reports_its_signal(results: dict[str, tuple[pb.ModelResult, Path]]) -> None:
    assert results["killed"][0].failure.signal == signal.SIGKILL
    assert results["segfault"][0].failure.signal == signal.SIGSEGV
    assert results["exits"][0].failure.exit_code == 3
    assert results["segfault"][0].failure.phase == pb.PHASE_CHILD_PROCESS
    assert "Fatal Python error: Segmentation fault" in results["segfault"][0].failure.log_tail  # and where
    assert "_misbehave_at_load" in results["segfault"][0].failure.log_tail
    # The parent never touches the device, yet names the one the child died on (the store groups results by it).
    assert results["segfault"][0].provenance.device_name == get_device("cpu").info().name


def _faulthandler_report(frames: int) -> str:
    """Shaped as on the GPU machine: an idle thread's stack, the crashed one's, then a 5 KB module list."""
    idle = 'Thread 0x00007f6f4bfc76c0 (most recent call first):\n  File "/usr/lib/threading.py", line 89 in _worker\n\n'
    current = "Current thread 0x00007f7ccfbe8140 (most recent call first):\n" + "".join(
        f'  File "/site/torch/_inductor/frame_{i}.py", line {i} in run\n' for i in range(frames))
    modules = "Extension modules: " + ", ".join(f"package.module_{i}" for i in range(300)) + " (total: 300)\n"
    return "Fatal Python error: Segmentation fault\n\n" + idle + current + "\n" + modules


@pytest.mark.parametrize("frames", [40, 120], ids=["report fits", "report longer than the tail"])
def test_a_crash_tail_keeps_the_crashed_threads_stack(tmp_path: Path, frames: int) -> None:
    log = tmp_path / "crash.log"
    log.write_text("[child] earlier output\n" * 500 + _faulthandler_report(frames))
    tail = _tail(log)
    assert len(tail) == FAILURE_TEXT_CHARS and "Extension modules" not in tail and "_worker" not in tail
    assert "Fatal Python error: Segmentation fault" in tail and "frame_0.py" in tail  # the innermost frame
    assert (f"frame_{frames - 1}.py" in tail) == (frames == 40)


def test_device_line_round_trips_a_name_with_spaces() -> None:
    log = "a warning\n" + device_line("NVIDIA H200", "sm90") + "\n[child] later output\n"
    assert device_from_log(log) == ("NVIDIA H200", "sm90")
    assert device_from_log("died during its imports\n") is None


def test_phase_line_round_trips_and_the_last_one_counts(tmp_path: Path) -> None:
    log = tmp_path / "child.log"
    log.write_text(f"{phase_line('load')}\nW warning\n{phase_line('performance')}\nW a compile warning\n")
    assert phase_from_log(log) == "performance"
    log.write_text("died during its imports\n")
    assert phase_from_log(log) is None
    assert phase_from_log(tmp_path / "absent.log") is None


def test_a_child_killed_in_its_check_keeps_its_timings(results: dict[str, tuple[pb.ModelResult, Path]]) -> None:
    """Timed, then killed in the accuracy check: the crash result keeps what the timing measured."""
    result = results["killed_when_checked"][0]
    assert "SIGKILL" in result.failure.message and "those figures are kept" in result.failure.message
    assert result.performance.measured and result.performance.speedup > 0
    assert result.performance.compiled.samples == 2 and result.dynamo.unique_graphs >= 1
    assert {"load", "performance"} <= set(result.phase_wall_s)
    assert "the last phase it began: fp64_reference" in result.failure.message
    assert not results["killed"][0].performance.measured  # killed at load: nothing was timed


def test_hang_is_killed_at_the_timeout(results: dict[str, tuple[pb.ModelResult, Path]]) -> None:
    result = results["hang"][0]
    assert HANG_TIMEOUT_S <= result.wall_time_s < HANG_TIMEOUT_S + 10
    assert "timeout" in result.failure.message
    assert result.failure.message.endswith("; the last phase it began: load")  # the selftest hangs in its load


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


def test_forked_children_compile_into_their_own_cache(tmp_path: Path) -> None:
    """Cold start holds for forked children: the cache a child is given is the one Inductor writes to, not one the
    zygote's imports settled on."""
    zygote = start_zygote("selftest", parallel_jobs=1)
    try:
        for run in ("first", "second"):
            cache = tmp_path / f"cache-{run}"
            result = run_model(_request("healthy", backend="inductor"), tmp_path / run,
                               LaunchOptions(inductor_cache=cache, zygote=zygote))
            assert result.community_status == "pass", result.failure.message
            assert any(cache.rglob("*.py")), f"Inductor wrote no generated code into {cache}"
    finally:
        zygote.close()


def test_a_dead_zygote_still_gives_classified_results(tmp_path: Path) -> None:
    zygote = start_zygote("selftest", parallel_jobs=1)
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            hanging = pool.submit(run_model, _request("hang"), tmp_path, LaunchOptions(timeout_s=120.0, zygote=zygote))
            time.sleep(3)  # the hanging child has been forked
            os.kill(zygote.pid, signal.SIGKILL)
            result = hanging.result(timeout=60)
        after = run_model(_request("healthy"), tmp_path, LaunchOptions(zygote=zygote))  # a fresh interpreter instead
    finally:
        zygote.close()
    assert result.community_status == "crash"
    assert "zygote died" in result.failure.message
    assert after.community_status == "pass", after.failure.message


def test_a_zygote_that_started_threads_refuses_to_fork(tmp_path: Path) -> None:
    """Forking keeps no thread but every lock one held: such a zygote says so, and the run starts fresh children."""
    (tmp_path / "starts_a_thread.py").write_text(
        "import threading, time\nthreading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *filter(None, sys.path)])}
    with pytest.raises(ZygoteError, match="threads were started"):
        Zygote(["starts_a_thread"], env)


def test_waiting_for_the_device_turn_does_not_count_towards_the_timeout(tmp_path: Path) -> None:
    """A sibling that hangs holding the device's turn (here during its load) times out itself; the model waiting
    behind it runs once the turn is free, instead of timing out in the queue."""
    lock = tmp_path / "device.lock"
    turns = LaunchOptions(device_turns=lock, parallel_jobs=2)
    with ThreadPoolExecutor(max_workers=2) as pool:
        hanging = pool.submit(run_model, _request("hang"), tmp_path / "hang", replace(turns, timeout_s=60.0))
        deadline = time.time() + 60
        while turn_is_free(lock):  # the hanging child holds the turn before the healthy one asks for it
            assert time.time() < deadline, "the hanging child never took the device's turn"
            time.sleep(0.2)
        healthy = run_model(_request("healthy"), tmp_path / "healthy", replace(turns, timeout_s=40.0))
        hung = hanging.result(timeout=120)
    assert hung.community_status == "timeout"
    assert healthy.community_status == "pass", healthy.failure.message
    assert healthy.wall_time_s > 40.0  # more than its timeout: the rest was the hanging sibling's turn


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores to keep one apart")
def test_a_child_times_on_the_timing_cores_and_records_them(tmp_path: Path) -> None:
    cpus = cpu_sets.split()
    result = run_model(_request("healthy"), tmp_path, LaunchOptions(timeout_s=120, cpus=cpus))
    timing = result.performance.timing
    assert result.community_status == "pass"
    assert (set(timing.timing_cpus), set(timing.other_cpus), timing.cpus_isolated) == (cpus.timing, cpus.other, True)
    assert len(timing.eager_s) == len(timing.compiled_s) == 2 and timing.speedup.low <= timing.speedup.high

