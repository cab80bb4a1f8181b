"""tools/triage on CPU, with a compiler fault planted in a known place.

The fault (planted_fault.py) is a test-only device-backend plugin that makes Inductor lower aten.tanh as sigmoid; on
PYTHONPATH it is active in every fresh interpreter, off it in none. The selftest model tanh_mlp is sound, so its
fail_accuracy comes from that one lowering: the bisector must name inductor / lowerings / the tanh node, and the
stored repro must fail in a fresh interpreter with the fault and pass without it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
from google.protobuf import text_format

from opinfo.tables import load_expectations
from parity.v1 import opinfo_pb2
from parity.v1 import results_pb2 as pb
from suites.common.launcher import LaunchOptions, run_model
from suites.common.manifest import load_manifest
from suites.common.request import ModelRequest
from suites.common.result_io import read_result, write_result
from tools.dashboard.signatures import signature
from tools.triage import planted_fault, probe, settled
from tools.triage.__main__ import main
from tools.triage.memo import BisectAnswer, Memo
from tools.triage.runs import NO_GRAPH_CACHES, environment, on_sys_path
from tools.triage.target import TriageInputError, other_failure_note, read_target
from tools.triage.triage import triage

Record = pb.TriageRecord


@dataclass(frozen=True)
class Planted:
    plugin: Path       # the fault's plugin folder: on PYTHONPATH, tanh compiles wrong
    cache: Path        # an Inductor cache the fixture's run and the triages share (kernels only: --inductor-cache)
    result_path: Path  # the stored fail_accuracy result
    result: pb.ModelResult


def _request(model: str) -> ModelRequest:
    return ModelRequest(suite="selftest", model=model, mode="inference", backend="inductor", device="cpu", smoke=True,
                        plan="accuracy", run_id="triage-test")


def _env(*extra_path: Path, **variables: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([*(p for p in sys.path if p), *map(str, extra_path)]),
            "PYTHONUNBUFFERED": "1", **variables}


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Planted:
    """tanh_mlp's accuracy check under Inductor with the fault planted: a stored fail_accuracy, as a run leaves it."""
    root = tmp_path_factory.mktemp("planted")
    plugin = planted_fault.plugin_folder(root / "plugin")
    # CI's shared compile cache where there is one (as the model targets use it): kernels only, since graphs compiled
    # with the fault must never reach another run's cache (runs.NO_GRAPH_CACHES).
    cache = Path(os.environ.get("PARITY_INDUCTOR_CACHE") or root / "inductor-cache")
    request = _request("tanh_mlp")
    with on_sys_path(plugin), environment(NO_GRAPH_CACHES):
        result = run_model(request, root / "results", LaunchOptions(timeout_s=600, inductor_cache=cache))
    assert result.community_status == "fail_accuracy", (result.failure.log_tail, result.accuracy.detail)
    return Planted(plugin, cache, root / "results" / f"{request.file_stem()}.pb", result)


def _record(result_path: Path) -> pb.TriageRecord:
    path = result_path.with_name(result_path.name.removesuffix(".pb") + ".triage.txtpb")
    return text_format.Parse(path.read_text(), Record())


@pytest.mark.slow
def test_the_planted_lowering_is_named_and_its_repro_fails_only_with_the_fault(planted: Planted,
                                                                                 tmp_path: Path) -> None:
    work = tmp_path / "work"

    def cli(*limits: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([sys.executable, "-m", "tools.triage", str(planted.result_path), *limits,
                               "--inductor-cache", str(planted.cache), "--keep-work", str(work)],
                              env=_env(planted.plugin), capture_output=True, text=True, timeout=1200)
        print(done.stdout, done.stderr, sep="\n")  # the CLI's summary, and one progress line per run
        assert done.returncode == 0, done.stderr
        return done

    # Stopped after the reproduce run and three bisector tests (as a GPU machine's command limit stops a triage)...
    cli("--limit-s", "900", "--max-runs", "4")
    stopped = _record(planted.result_path)
    assert stopped.outcome == Record.OUTCOME_GAVE_UP, stopped.error
    assert stopped.error.startswith("gave up: the limit of 4 model runs") and stopped.bisect_runs == 4
    # ... and run again with the same work folder: it goes on from there, running none of those again.
    done = cli("--limit-s", "900")
    record = _record(planted.result_path)
    assert record.outcome == Record.OUTCOME_DONE, record.error
    assert "the reproduce run and 3 bisector test(s) were answered from an earlier triage" in record.error
    assert record.signature == signature(planted.result).label
    assert (record.suite, record.model, record.backend, record.community_status) == (
        "selftest", "tanh_mlp", "inductor", "fail_accuracy")
    # The bisector: every backend before Inductor passes; disabling lowerings fixes it; the count lands on tanh.
    assert (record.culprit_backend, record.culprit_subsystem) == ("inductor", "lowerings")
    assert record.bisect_number >= 0 and record.debug_info == "tanh"
    assert record.bisect_runs >= 6
    # The probe recorded the same application in the model processes (what torch 2.11 and older leave to us).
    assert probe.recorded(work / "bisect-debug-info.txt", record.bisect_number) == "tanh"
    # The minified repro: beside the result, a graph with the tanh and little else.
    repro = planted.result_path.parent / record.repro_path
    assert repro.name == planted.result_path.name.removesuffix(".pb") + ".repro.py"
    text = repro.read_text()
    assert "torch.ops.aten.tanh.default" in text and str(work) not in text
    assert "_TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR" not in text  # a pointer into the minifier's process
    assert record.repro_lines == len(text.splitlines()) and 2 <= record.repro_nodes <= 5
    assert record.reproduces == Record.REPRODUCES_YES and "AccuracyError" in record.repro_output_tail
    assert set(record.step_wall_s) == {"reproduce", "bisect", "minify", "verify"}
    assert record.wall_s < record.limit_s and record.provenance.torch_version
    assert "inductor / lowerings / bisect number" in done.stdout and "reproduces standalone" in done.stdout
    assert "python -m tools.triage.settled --suite selftest --model tanh_mlp --device cpu" in text  # how to rerun it
    # Without the plugin the same stored script passes in a fresh interpreter (with an empty cache of its own).
    clean = subprocess.run([sys.executable, str(repro)], cwd=tmp_path,
                           env=_env(TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "clean-cache")),
                           capture_output=True, text=True, timeout=600)
    assert clean.returncode == 0, clean.stdout + clean.stderr


def _triage_a_planted_decomposition(fault: str, status: str, planted: Planted, tmp_path: Path) -> tuple[Record, str]:
    """tanh_mlp run and triaged with a fault in tanh's decomposition planted: the record, which must name that
    decomposition and cut after Dynamo, and the stored repro's text."""
    plugin = planted_fault.plugin_folder(tmp_path / "plugin", fault)
    request = _request("tanh_mlp")
    with on_sys_path(plugin), environment(NO_GRAPH_CACHES):
        result = run_model(request, tmp_path / "results", LaunchOptions(timeout_s=600, inductor_cache=planted.cache))
    assert result.community_status == status, (result.failure.log_tail, result.accuracy.detail)
    result_path = tmp_path / "results" / f"{request.file_stem()}.pb"
    done = subprocess.run([sys.executable, "-m", "tools.triage", str(result_path), "--limit-s", "900",
                           "--inductor-cache", str(planted.cache)],
                          env=_env(plugin), capture_output=True, text=True, timeout=1200)
    print(done.stdout, done.stderr, sep="\n")
    assert done.returncode == 0, done.stderr
    record = _record(result_path)
    assert record.outcome == Record.OUTCOME_DONE, record.error
    assert (record.culprit_backend, record.culprit_subsystem) == ("aot_eager_decomp_partition", "decomposition")
    assert record.bisect_number >= 0 and "tanh" in record.debug_info
    text = (result_path.parent / record.repro_path).read_text()
    assert "run_repro" in text and "after_dynamo" in text and "torch.tanh" in text, text
    assert record.reproduces == Record.REPRODUCES_YES
    return record, text


def _passes_without_the_fault(runner: list[str], record: Record, tmp_path: Path) -> None:
    repro = tmp_path / "results" / record.repro_path
    clean = subprocess.run([*runner, str(repro)], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                           env=_env(TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "clean-cache"), **NO_GRAPH_CACHES))
    assert clean.returncode == 0, clean.stdout + clean.stderr


@pytest.mark.slow
def test_a_planted_decomposition_is_named_and_cut_after_dynamo(planted: Planted, tmp_path: Path) -> None:
    """A fault before Inductor: the AOT graph the per-graph check runs both ways already holds the decomposition, so
    the cut is made after Dynamo (minify.repro_after), whose check torch 2.14 only runs with dynamo_check.py."""
    record, text = _triage_a_planted_decomposition(planted_fault.DECOMPOSITION, "fail_accuracy", planted, tmp_path)
    assert 2 <= record.repro_nodes <= 5, text
    assert "AccuracyError" in record.repro_output_tail
    # Without the plugin the stored script passes, under the check's settings as with torch's defaults.
    for runner in (settled.command(_request("tanh_mlp")), [sys.executable]):
        _passes_without_the_fault(runner, record, tmp_path)


@pytest.mark.slow
def test_a_decomposition_that_raises_is_named_and_cut_after_dynamo(planted: Planted, tmp_path: Path) -> None:
    """An error that AOT Autograd raises while it traces (a decomposition's) happens before any graph is cut after
    AOT, so the cut is made after Dynamo: `take` on an H100 (a71c666) got no launcher there."""
    record, _ = _triage_a_planted_decomposition(planted_fault.RAISING_DECOMPOSITION, "fail_to_run", planted,
                                                tmp_path)
    assert "planted fault" in record.repro_output_tail
    _passes_without_the_fault(settled.command(_request("tanh_mlp")), record, tmp_path)


@pytest.mark.slow
def test_an_opinfo_case_is_triaged_as_a_model_is(planted: Planted, tmp_path: Path) -> None:
    """The OpInfo suite's tanh float32 case fails with the planted lowering; its triage reruns the case alone
    (python -m opinfo.run) and names the same lowering, and its repro runs under the suite's high-precision mode."""
    cases = tmp_path / "cases"
    suite = subprocess.run([sys.executable, "-m", "opinfo.run", "--device", "cpu", "--ops", "tanh", "--dtypes",
                            "float32", "--max-samples", "1", "--out", str(cases)], capture_output=True, text=True,
                           env=_env(planted.plugin, TORCHINDUCTOR_CACHE_DIR=str(planted.cache)), timeout=600)
    assert suite.returncode == 1 and "tanh float32: FAIL" in suite.stdout, suite.stdout + suite.stderr
    case = cases / "opinfo-cpu-tanh-float32.opinfo.pb"
    done = subprocess.run([sys.executable, "-m", "tools.triage", str(case), "--limit-s", "900", "--inductor-cache",
                           str(planted.cache)], env=_env(planted.plugin), capture_output=True, text=True, timeout=1200)
    print(done.stdout, done.stderr, sep="\n")
    assert done.returncode == 0, done.stderr
    record = text_format.Parse((cases / "opinfo-cpu-tanh-float32.triage.txtpb").read_text(), Record())
    assert record.outcome == Record.OUTCOME_DONE, record.error
    assert (record.suite, record.model, record.backend, record.community_status) == (
        "opinfo", "tanh float32", "inductor", "fail_accuracy")
    assert "opinfo/tanh float32 inductor cpu" in record.signature  # one triage per case, not one for every mismatch
    assert (record.culprit_backend, record.culprit_subsystem, record.debug_info) == ("inductor", "lowerings", "tanh")
    assert record.provenance.manifest_version == load_expectations("cpu").version
    repro = cases / record.repro_path
    assert repro.name == "opinfo-cpu-tanh-float32.repro.py" and 2 <= record.repro_nodes <= 5
    assert record.reproduces == Record.REPRODUCES_YES and "AccuracyError" in record.repro_output_tail
    runner = settled.command(read_target(case).request)
    assert shlex.join(runner[1:]) in repro.read_text()  # the header's command, quoted: the case's name has a space
    clean = subprocess.run([*runner, str(repro)], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                           env=_env(TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "clean-cache"), **NO_GRAPH_CACHES))
    assert clean.returncode == 0, clean.stdout + clean.stderr


def test_the_limit_gives_up_quickly_and_leaves_no_process(planted: Planted, tmp_path: Path) -> None:
    # Processes that other tests of this pytest session left running (a fixture's server) are not the triage's.
    before = set(psutil.Process().children(recursive=True))
    older = pb.ModelResult()
    older.CopyFrom(planted.result)
    older.provenance.manifest_version = "0.0.1"  # a result of an older manifest than the triage's runs use
    stored = write_result(older, tmp_path / "older", planted.result_path.name.removesuffix(".pb"))
    with on_sys_path(planted.plugin):
        record = triage(stored, limit_s=5.0, out_dir=tmp_path, inductor_cache=planted.cache)
    assert record.outcome == Record.OUTCOME_GAVE_UP, record.error
    assert record.error.startswith("gave up: the 5 s limit")
    assert record.provenance.manifest_version == load_manifest("selftest").version != "0.0.1"
    assert record.bisect_number == -1 and not record.repro_path and record.reproduces == Record.REPRODUCES_UNSPECIFIED
    assert record.wall_s < 30
    assert _record(tmp_path / planted.result_path.name).outcome == Record.OUTCOME_GAVE_UP
    assert set(psutil.Process().children(recursive=True)) - before == set()


def test_sigterm_from_a_callers_limit_still_leaves_the_record_and_no_process(planted: Planted, tmp_path: Path) -> None:
    # On the GPU a call's `timeout` killed a triage before its own limit, and its record was lost
    # (tools/triage/README.md, "Seventh GPU triage").
    work = tmp_path / "work"
    child = subprocess.Popen([sys.executable, "-m", "tools.triage", str(planted.result_path), "--limit-s", "600",
                              "--out", str(tmp_path), "--keep-work", str(work), "--inductor-cache", str(planted.cache)],
                             env=_env(planted.plugin), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        started = work / "runs" / "01-reproduce"
        for _ in range(600):  # the reproduce run has begun: SIGTERM must reach the triage while a model runs
            if started.exists() or child.poll() is not None:
                break
            time.sleep(0.2)
        assert started.exists(), child.communicate()[0]
        time.sleep(1.0)
        child.terminate()
        output = child.communicate(timeout=60)[0]
    finally:
        child.kill()
    assert child.returncode == 0, output
    record = _record(tmp_path / planted.result_path.name)
    assert record.outcome == Record.OUTCOME_GAVE_UP, record.error
    assert record.error.startswith("gave up: SIGTERM at "), record.error
    assert record.wall_s < 120
    left = [p for p in psutil.process_iter(["cmdline"]) if str(tmp_path) in " ".join(p.info["cmdline"] or [])]
    assert left == [], left


def test_failures_on_the_eager_side_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "results"
    for model, status in (("raises_in_forward", "eager_fail_to_run"), ("killed", "crash")):
        request = _request(model)
        assert run_model(request, out, LaunchOptions(timeout_s=300)).community_status == status
        path = out / f"{request.file_stem()}.pb"
        assert main([str(path)]) == 2
        assert not list(out.glob("*.triage.txtpb"))
    refusals = capsys.readouterr().err.splitlines()
    assert "eager_fail_to_run is not a compiled-side failure" in refusals[0]
    assert "a crash before compilation began (the last phase the model began: load)" in refusals[1]


def test_bad_input_is_refused_with_what_to_give(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txtpb").write_text("this is not a result\n")
    (tmp_path / "empty.pb").write_bytes(b"")
    (tmp_path / "run.log").write_text("")
    (tmp_path / "r1.plan.pb").write_bytes(b"")
    for name in ("missing.pb", "notes.txtpb", "empty.pb", "run.log", "r1.plan.pb"):
        assert main([str(tmp_path / name)]) == 2
    refusals = capsys.readouterr().err.splitlines()
    assert refusals[0].endswith("missing.pb: no such file")
    assert "notes.txtpb is not a parity.v1.ModelResult" in refusals[1]
    assert "empty.pb is not a complete parity.v1.ModelResult" in refusals[2]
    assert "run.log: give a model result file" in refusals[3]
    assert "r1.plan.pb is a run's plan, not a model result" in refusals[4]
    assert not list(tmp_path.glob("*.triage.txtpb"))


def test_an_opinfo_case_that_passed_or_broke_the_runner_is_refused(tmp_path: Path) -> None:
    def case(outcome: int, phase: int = pb.PHASE_UNSPECIFIED) -> Path:
        result = opinfo_pb2.OpInfoResult(result_id=f"c{outcome}", op="tanh", dtype="float32", device="cpu",
                                          outcome=outcome, failure=pb.Failure(phase=phase))
        path = tmp_path / f"opinfo-cpu-tanh-{outcome}.opinfo.txtpb"
        path.write_text(text_format.MessageToString(result))
        return path

    with pytest.raises(TriageInputError, match="not a failure"):
        read_target(case(opinfo_pb2.OPINFO_OUTCOME_PASS))
    with pytest.raises(TriageInputError, match="infra_error is not a compiled-side failure"):
        read_target(case(opinfo_pb2.OPINFO_OUTCOME_FAIL))  # the runner's own error: no phase
    raised = read_target(case(opinfo_pb2.OPINFO_OUTCOME_FAIL, pb.PHASE_COMPILED_RUN))
    assert (raised.status, raised.stem, raised.request.dtype) == ("fail_to_run", "opinfo-cpu-tanh-2", "float32")
    (tmp_path / "cut.opinfo.pb").write_bytes(b"\x0a")
    with pytest.raises(TriageInputError, match="cut.opinfo.pb: not a readable OpInfo result"):
        read_target(tmp_path / "cut.opinfo.pb")


def _stored(tmp_path: Path, status: str, phase: int, message: str = "", batch_size: int = 4,
            log_tail: str = "") -> Path:
    failure = pb.Failure(phase=phase, message=message, log_tail=log_tail)
    result = pb.ModelResult(result_id="r1", community_status=status, failure=failure,
                            config=pb.RunConfig(suite="selftest", model="tanh_mlp", mode=pb.MODE_INFERENCE,
                                                backend="inductor", device="cpu", smoke=True, batch_size=batch_size,
                                                accuracy_batch_size=4, timeout_s=300))
    return write_result(result, tmp_path, f"{status}-{phase}-{batch_size}-{bool(message)}")


def test_a_crash_or_timeout_is_triaged_once_compiled_code_ran(tmp_path: Path) -> None:
    died = "child killed by SIGSEGV before writing its result; the last phase it began: {}"
    compiled = _stored(tmp_path, "crash", pb.PHASE_CHILD_PROCESS, died.format("compiled_check"))
    target = read_target(compiled)
    assert (target.request.plan, target.request.batch_size, target.model_timeout_s) == ("accuracy", 4, 300)
    # A failure while timing runs again with timing, at the size it timed at; one whose phase is unknown, as it ran.
    timed = read_target(_stored(tmp_path, "crash", pb.PHASE_CHILD_PROCESS, died.format("performance"), batch_size=8))
    assert (timed.request.plan, timed.request.batch_size, timed.request.timing_cap_s) == ("performance", 8, 0.0)
    unknown = _stored(tmp_path, "timeout", pb.PHASE_CHILD_PROCESS, "child killed", log_tail="torch/_inductor/x.py")
    assert read_target(unknown).request.plan == "both"
    stack = 'File "/w/suites/common/model_run.py", line 313 in _performance\n  File "/w/torch/_inductor/output_code.py"'
    timing = _stored(tmp_path, "crash", pb.PHASE_CHILD_PROCESS, "child killed by SIGSEGV", log_tail=stack)
    assert read_target(timing).request.plan == "performance"
    assert read_target(_stored(tmp_path, "fail_to_run", pb.PHASE_TIMING)).request.plan == "performance"
    assert read_target(_stored(tmp_path, "timeout", pb.PHASE_COMPILE)).status == "timeout"
    with pytest.raises(TriageInputError, match="before compilation began .* eager_runs"):
        read_target(_stored(tmp_path, "crash", pb.PHASE_CHILD_PROCESS, died.format("eager_runs")))
    with pytest.raises(TriageInputError, match="not a failure"):
        read_target(_stored(tmp_path, "pass", pb.PHASE_UNSPECIFIED))
    assert read_result(compiled).result_id == "r1"


def test_a_rerun_steps_the_optimizer_its_result_stepped(tmp_path: Path) -> None:
    # resnet50's AMP training failed the timed run's check with Adam; rerun alone, its check would step SGD (upstream's
    # CI optimizer for it) unless told otherwise.
    def target(optimizer: str, mode: int = pb.MODE_TRAINING) -> str:
        result = pb.ModelResult(result_id="r", community_status="fail_accuracy", config=pb.RunConfig(
            suite="torchbench", model="resnet50", mode=mode, backend="inductor_cudagraphs", device="cuda",
            batch_size=32, accuracy_batch_size=32, optimizer=optimizer))
        return read_target(write_result(result, tmp_path, f"{optimizer}-{mode}")).request.optimizer

    assert target("") == "adam"  # recorded before RunConfig.optimizer: the manifest's `optimizer`
    assert target("sgd") == "sgd"
    assert target("", pb.MODE_INFERENCE) == ""


def test_a_bisector_test_that_failed_another_way_is_noted() -> None:
    # speech_transformer on an H100: with post-grad passes off, the SIGSEGV became CUDA graph trees' pool check.
    crash = pb.ModelResult(community_status="crash", failure=pb.Failure(message="child killed by SIGSEGV"))
    pool = pb.ModelResult(community_status="fail_to_run", failure=pb.Failure(
        exception_type="RuntimeError", message="These storage data ptrs are not allocated in pool (0, 1) but should be"))
    assert other_failure_note("inductor post_grad_passes", crash, pool) == (
        "bisect: inductor post_grad_passes ended in fail_to_run (RuntimeError): These storage data ptrs are not "
        "allocated in pool (0, 1) but should be; the bisector counts that as fixed, since it is not crash")
    # Dynamo's wrapper heading is skipped for the error it wraps; the same status with another exception is named so.
    stride = pb.ModelResult(community_status="fail_to_run", failure=pb.Failure(exception_type="AssertionError"))
    meta = pb.ModelResult(community_status="fail_to_run", failure=pb.Failure(
        exception_type="BackendCompilerFailed", message="backend='aot_eager' raised:\nTypeError: meta__efficient_"
        "attention_backward() got multiple values for argument 'scale'\n\nSet TORCHDYNAMO_VERBOSE=1 for ..."))
    assert other_failure_note("aot_eager", stride, meta) == (
        "bisect: aot_eager ended in fail_to_run (BackendCompilerFailed): TypeError: meta__efficient_attention_backward() "
        "got multiple values for argument 'scale'; the bisector counts that as fixed, since it is not fail_to_run "
        "(AssertionError)")
    assert other_failure_note("inductor", crash, crash) == ""
    assert other_failure_note("eager", crash, pb.ModelResult(community_status="pass")) == ""


def test_a_work_folder_of_another_triage_is_refused(tmp_path: Path) -> None:
    """Resuming answers the bisector from the work folder's memo: another result's (or torch's) answers must not."""
    memo = Memo.open(tmp_path, "result-a", "2.14.1")
    state = tmp_path / "state"
    state.mkdir()
    (state / "run_state.txt").write_text("test_disable")
    memo.keep(0, {"backend": "eager"}, BisectAnswer(True, "bisect: eager ended in fail_to_run ..."), state)
    # A test that failed another way is said again when resumed: the record lists it as a fresh triage would.
    assert Memo.open(tmp_path, "result-a", "2.14.1").answer(0, {"backend": "eager"}, state) == BisectAnswer(
        True, "bisect: eager ended in fail_to_run ...")
    for result_id, torch_version in (("result-b", "2.14.1"), ("result-a", "2.11.0")):
        with pytest.raises(TriageInputError, match="holds the work of another triage"):
            Memo.open(tmp_path, result_id, torch_version)
    (tmp_path / "memo.json").write_text("{not json")
    with pytest.raises(TriageInputError, match="is not a triage's memo"):
        Memo.open(tmp_path, "result-a", "2.14.1")


def test_settled_runs_a_script_under_the_accuracy_checks_settings(tmp_path: Path) -> None:
    """The minifier and the repro's check run as the model's check ran: deterministic algorithms on, TF32 off."""
    script = tmp_path / "show.py"
    script.write_text("import sys, torch\n"
                      "print(__name__, torch.are_deterministic_algorithms_enabled(),\n"
                      "      torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.deterministic, sys.argv[1:])\n")
    tf32_on = {"TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": "1"}  # torch's own switch: TF32 matmul on by default
    torch_defaults = subprocess.run([sys.executable, str(script), "minify"], env=_env(**tf32_on),
                                    capture_output=True, text=True, timeout=120)
    assert torch_defaults.stdout.strip() == "__main__ False True False ['minify']", torch_defaults.stderr
    settled_run = subprocess.run([*settled.command(_request("tanh_mlp")), str(script), "minify", "--no-isolate"],
                                 env=_env(**tf32_on), capture_output=True, text=True, timeout=120)
    assert settled_run.stdout.strip() == "__main__ True False False ['minify', '--no-isolate']", settled_run.stderr
