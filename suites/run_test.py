"""The suite CLI: bad input gets a clear message and exit code 2 before any child starts; a stopped run leaves
no model process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from suites.common.provenance import phase_from_log
from suites.common.result_io import read_result
from parity.v1 import results_pb2 as pb
from suites.common.manifest import load_manifest
from suites.run import checked_elsewhere, main, parse_args


@pytest.mark.parametrize("args, message", [
    (["--suite", "timm", "--model", "resnet999", "--backend", "inductor"], "unknown model 'resnet999' in suite timm"),
    (["--suite", "timm", "--backend", "tvm"], "unknown backend 'tvm'; known backends:"),
    (["--suite", "nope", "--backend", "inductor"], "no manifest for suite 'nope'"),
    (["--suite", "timm", "--backend", "inductor", "--jobs", "0", "--plan", "accuracy"], "--jobs must be at least 1"),
    (["--suite", "timm", "--backend", "inductor", "--shard", "4/4"], "I must be at least 0 and below N"),
    (["--suite", "timm", "--backend", "inductor", "--shard", "half"], "--shard must be I/N"),
    (["--suite", "timm", "--backend", "inductor", "--start-within", "-1"], "--start-within must be 0 or more"),
])
def test_bad_input_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main([*args, "--device", "cpu", "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing was run or written


@pytest.mark.parametrize("community, parity", [
    ("--performance --training --amp --backend inductor --disable-cudagraphs --devices cuda --only resnet50",
     "--plan performance --mode training --backend inductor --device cuda --model resnet50"),
    ("--accuracy --inference --bfloat16 --backend inductor --device cuda --only a --only b",
     "--plan accuracy --mode inference --backend inductor --device cuda --model a --model b"),
    ("--accuracy --performance --training --inference --amp --bfloat16 --backend eager --device cpu",
     "--plan both --mode both --backend eager --device cpu"),
    ("--inference --mode inference --performance --plan performance --backend eager --device cpu",
     "--mode inference --plan performance --backend eager --device cpu"),
    ("--backend eager --device cpu", "--mode inference --plan both --backend eager --device cpu"),  # the defaults
])
def test_the_community_flags_are_aliases(community: str, parity: str) -> None:
    """A command from a community issue gives the same namespace as its Parity spelling (apart from the program
    name, which becomes `python -m suites.run --suite S --out DIR`)."""
    common = ["--suite", "timm", "--out", "out/x"]
    assert vars(parse_args([*common, *community.split()])) == vars(parse_args([*common, *parity.split()]))


@pytest.mark.parametrize("args, message", [
    ("--mode inference --training", "--mode inference contradicts --training"),
    ("--mode training --training --inference", "--mode training contradicts --training --inference"),
    ("--plan accuracy --performance", "--plan accuracy contradicts --performance"),
    ("--inference --amp", "--amp does not fit --mode inference: Parity's dtype is fixed per mode, training runs AMP"),
    ("--training --bfloat16", "--bfloat16 does not fit --mode training"),
    ("--training --inference --amp", "--amp does not fit --mode both"),
    ("--backend inductor_cudagraphs --disable-cudagraphs", "--disable-cudagraphs contradicts --backend "
                                                           "inductor_cudagraphs"),
])
def test_contradicting_community_flags_are_refused_before_anything_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], args: str, message: str) -> None:
    backend = [] if "--backend" in args else ["--backend", "inductor"]
    with pytest.raises(SystemExit) as exited:
        main(["--suite", "timm", *backend, *args.split(), "--device", "cpu", "--out", str(tmp_path)])
    assert exited.value.code == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_a_run_that_misses_its_expectation_says_why_on_the_console(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("PARITY_TORCHBENCH_DIR", raising=False)
    assert main(["--suite", "torchbench", "--model", "BERT_pytorch", "--backend", "eager", "--device", "cpu",
                 "--smoke", "--mode", "inference", "--fresh-processes", "--out", str(tmp_path)]) == 1
    assert ("BERT_pytorch inference: model_fail_to_load, expected pass: no TorchBench checkout is configured"
            in capsys.readouterr().out)


def test_accuracy_runs_side_by_side(tmp_path: Path) -> None:
    """--jobs runs accuracy-only children at once; each result is classified and says how it was run."""
    args = ["--suite", "selftest", "--model", "healthy", "--model", "killed", "--backend", "aot_eager",
            "--device", "cpu", "--smoke", "--plan", "accuracy", "--jobs", "2", "--out", str(tmp_path)]
    assert main(args) == 0  # both matched the manifest's expectations
    healthy = read_result(tmp_path / "selftest.healthy.inference.aot_eager.cpu.smoke.pb")
    assert healthy.community_status == "pass" and healthy.accuracy.checked and not healthy.performance.measured
    assert healthy.config.parallel_jobs == 2 and not healthy.config.device_turns  # no timing, no turns
    killed = read_result(tmp_path / "selftest.killed.inference.aot_eager.cpu.smoke.pb")
    assert killed.community_status == "crash" and killed.config.parallel_jobs == 2
    # The call's matrix line: its wall beside its model runs' walls (side by side, they overlap), no busy share on CPU.
    (matrix,) = tmp_path.glob("*.matrix.jsonl")
    call = json.loads(matrix.read_text())
    assert call["runs"] == 2 and call["model_walls_s"] == pytest.approx(healthy.wall_time_s + killed.wall_time_s)
    assert 0 < call["wall_s"] < call["model_walls_s"] + 60
    assert call["busy_share"] is None and call["sampler"] == "no sampler for the cpu device"


def test_a_named_optimizer_steps_on_the_cpu_too(tmp_path: Path) -> None:
    """--optimizer steps that optimizer where upstream's rule gives none (the CPU), and the result records it."""
    args = ["--suite", "selftest", "--model", "healthy", "--mode", "training", "--backend", "aot_eager", "--device",
            "cpu", "--smoke", "--plan", "accuracy", "--optimizer", "adam", "--out", str(tmp_path)]
    assert main(args) == 0
    result = read_result(tmp_path / "selftest.healthy.training.aot_eager.cpu.smoke.pb")
    assert (result.community_status, result.config.optimizer) == ("pass", "adam")
    assert "--optimizer=adam" in result.provenance.command_line


def test_a_model_out_of_memory_beside_others_runs_again_alone(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """oom_beside_others's compiled graph runs out of device memory whenever others share the device: side by side it
    is run again alone, and that result is the one kept; the first attempt's log and wall stay in the record."""
    args = ["--suite", "selftest", "--model", "oom_beside_others", "--model", "healthy", "--backend", "aot_eager",
            "--device", "cpu", "--smoke", "--plan", "accuracy", "--jobs", "2", "--out", str(tmp_path)]
    assert main(args) == 0  # both pass, as the manifest expects
    stem = "selftest.oom_beside_others.inference.aot_eager.cpu.smoke"
    again = read_result(tmp_path / f"{stem}.pb")
    assert again.community_status == "pass" and again.config.parallel_jobs == 1
    assert "oom_beside_others inference aot_eager: OOM" in (tmp_path / f"{stem}.oom-beside-others.log").read_text()
    healthy = read_result(tmp_path / "selftest.healthy.inference.aot_eager.cpu.smoke.pb")
    assert healthy.config.parallel_jobs == 2
    assert "oom_beside_others inference: out of device memory beside other model runs; running it again alone" in (
        capsys.readouterr().out)
    call = json.loads(next(tmp_path.glob("*.matrix.jsonl")).read_text())
    assert call["runs"] == 3  # the first attempt took its wall too
    assert call["model_walls_s"] > again.wall_time_s + healthy.wall_time_s


def test_start_within_leaves_the_late_models_to_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A model that would start past --start-within is not started (a machine's limit would cut it part way): it
    gets no result, the call exits 1 and says so, and --resume runs it."""
    args = ["--suite", "selftest", "--model", "hang", "--model", "healthy", "--backend", "eager", "--device", "cpu",
            "--smoke", "--plan", "accuracy", "--timeout", "5", "--run-id", "late", "--out", str(tmp_path)]
    assert main([*args, "--start-within", "2"]) == 1  # the hang takes 5 s: healthy would start after 2
    assert read_result(tmp_path / "selftest.hang.inference.eager.cpu.smoke.pb").community_status == "timeout"
    assert not (tmp_path / "selftest.healthy.inference.eager.cpu.smoke.pb").exists()
    out = capsys.readouterr().out
    assert "1 of 2 runs not started, past --start-within 2 s: selftest.healthy.inference.eager.cpu.smoke" in out
    assert json.loads((tmp_path / "late.matrix.jsonl").read_text())["runs"] == 1
    assert main([*args, "--resume"]) == 0
    assert read_result(tmp_path / "selftest.healthy.inference.eager.cpu.smoke.pb").community_status == "pass"
    assert "resuming run late: 1 of 2 planned runs have no final result" in capsys.readouterr().out


def test_timed_runs_side_by_side_take_turns_on_the_device(tmp_path: Path) -> None:
    """--jobs with timing: the children take turns on the device, and their compile latency leaves out the wait
    for the turn (suites/common/device_turns_test.py shows the turns themselves)."""
    args = ["--suite", "selftest", "--model", "healthy", "--model", "updates_its_state", "--backend", "aot_eager",
            "--device", "cpu", "--smoke", "--jobs", "2", "--repeats", "2", "--warmup", "2", "--out", str(tmp_path)]
    assert main(args) == 0
    for model in ("healthy", "updates_its_state"):
        result = read_result(tmp_path / f"selftest.{model}.inference.aot_eager.cpu.smoke.pb")
        assert result.community_status == "pass" and result.performance.measured, result.failure.message
        assert result.config.parallel_jobs == 2 and result.config.device_turns
        ct = result.compile_time
        assert ct.compilation_latency_s == pytest.approx(ct.compiled_warmup_s - ct.device_turn_wait_s - ct.eager_warmup_s)


def test_a_shared_device_lock_makes_even_one_job_take_turns(tmp_path: Path) -> None:
    """--device-lock: runs started side by side (LLM entries beside training models) share one lock file, so a
    run of one job takes turns as well."""
    lock = tmp_path / "shared.lock"
    args = ["--suite", "selftest", "--model", "healthy", "--backend", "aot_eager", "--device", "cpu", "--smoke",
            "--repeats", "2", "--warmup", "2", "--device-lock", str(lock), "--out", str(tmp_path)]
    assert main(args) == 0
    result = read_result(tmp_path / "selftest.healthy.inference.aot_eager.cpu.smoke.pb")
    assert result.community_status == "pass" and result.config.parallel_jobs == 1 and result.config.device_turns
    assert lock.exists()  # the child opened the shared lock, not a private one


@pytest.mark.parametrize("layout", [[], ["--fresh-processes"]], ids=["forked", "fresh"])
def test_a_stopped_run_leaves_no_model_process(tmp_path: Path, layout: list[str]) -> None:
    """An outer `timeout` sends SIGTERM to the run: the hanging model's process group goes with it, and so does the
    zygote that forked it; the model still gets a classified result, which says the run was cut, not the model."""
    marker = f"PARITY_TEST_RUN={tmp_path}"  # every process of the run inherits it, forked or exec'd
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),  # as under Bazel's runfiles
           "PARITY_TEST_RUN": str(tmp_path)}
    run = subprocess.Popen([sys.executable, "-m", "suites.run", "--suite", "selftest", "--model", "hang", "--device",
                            "cpu", "--smoke", "--backend", "aot_eager", "--mode", "inference", "--timeout", "600",
                            "--out", str(tmp_path), *layout], stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while not _model_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    if not _model_processes(marker):
        run.kill()
        pytest.fail(f"the hanging model never started; suites.run said: {run.communicate()[1][-2000:]}")
    run.send_signal(signal.SIGTERM)
    try:
        assert run.wait(timeout=30) == 128 + signal.SIGTERM
        deadline = time.monotonic() + 10
        while _processes(marker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _processes(marker)
        assert "stopped by SIGTERM: killed 1 running model process" in run.communicate(timeout=10)[1]
        result = read_result(tmp_path / "selftest.hang.inference.aot_eager.cpu.smoke.pb")
        assert result.community_status == "stopped" and result.config.timeout_s == 600  # not the model's timeout
        assert "the run was stopped (SIGTERM)" in result.failure.message
        assert "within its own 600 s timeout" in result.failure.message
        (matrix,) = tmp_path.glob("*.matrix.jsonl")  # the stopped call still says how long it ran
        call = json.loads(matrix.read_text())
        assert call["runs"] == 0 and call["wall_s"] > 0
    finally:  # whatever outlived the run must not outlive the test
        for pid in _processes(marker):
            os.kill(pid, signal.SIGKILL)


def _processes(marker: str) -> dict[int, int]:
    """Live (not zombie) processes started with `marker` in their environment: pid -> session id."""
    found = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            environ = (proc / "environ").read_bytes().split(b"\0")
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if marker.encode() in environ and fields[0] != "Z":
            found[int(proc.name)] = int(fields[3])
    return found


def _model_processes(marker: str) -> list[int]:
    """The run's model children: each leads its own session (the run and its zygote do not)."""
    return [pid for pid, session in _processes(marker).items() if pid == session]


def test_a_check_at_another_batch_size_than_upstreams_says_so() -> None:
    """HuggingFace's expectations are upstream's statuses at batch 1; a training check in the timed process ran at
    the timed batch size, and a mismatch there is noted as such."""
    manifest = load_manifest("huggingface")
    result = pb.ModelResult()
    result.config.suite, result.config.model, result.config.mode = "huggingface", "RobertaForCausalLM", pb.MODE_TRAINING
    result.config.accuracy_batch_size = 16
    assert checked_elsewhere(result, manifest) == (" (checked at batch 16; upstream's statuses are at batch 1, "
                                                   "which --plan accuracy uses)")
    result.config.accuracy_batch_size = 1
    assert checked_elsewhere(result, manifest) == ""
    result.config.accuracy_batch_size = 0  # no check ran
    assert checked_elsewhere(result, manifest) == ""
    result.config.model = "NoSuchModel"
    assert checked_elsewhere(result, manifest) == ""


def _suites_run(*args: str, out: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return subprocess.Popen([sys.executable, "-m", "suites.run", "--suite", "selftest", "--device", "cpu", "--smoke",
                             "--backend", "eager", "--mode", "inference", "--run-id", "ledger", "--out", str(out),
                             *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


def test_a_sigkilled_run_is_incomplete_in_the_store_and_resume_finishes_it_once(tmp_path: Path) -> None:
    from tools.store.db import connect, ingest, load_results, plan_progress

    out = tmp_path / "out"
    models = ("--model", "healthy", "--model", "not_implemented", "--model", "hang")
    run = _suites_run(*models, "--timeout", "600", out=out)
    hang_log = out / "selftest.hang.inference.eager.cpu.smoke.log"
    deadline = time.monotonic() + 120
    while not hang_log.exists() and time.monotonic() < deadline:  # the first two are done, the third hangs
        time.sleep(0.2)
    second = _suites_run("--model", "healthy", out=out)  # a second run into the folder in use fails at once
    assert second.wait(60) == 2 and "is in use by run ledger" in second.communicate()[0]
    run.kill()  # SIGKILL: the run's own handlers never run
    run.wait(10)
    db = connect(tmp_path / "parity.db")
    ingest(db, load_results([out]))
    progress = plan_progress(db, "ledger")
    assert (progress.planned, progress.missing) == (3, ("hang (inference)",))
    assert "INCOMPLETE: 1 of 3 planned runs have no result" in progress.describe()

    resumed = _suites_run("--resume", "--timeout", "5", out=out)
    output = resumed.communicate(timeout=300)[0]
    assert resumed.returncode == 0, output  # the hang is a timeout now, as the selftest manifest expects
    assert "resuming run ledger: 1 of 3 planned runs have no final result" in output
    assert read_result(out / "selftest.hang.inference.eager.cpu.smoke.pb").community_status == "timeout"
    ingest(db, load_results([out]))
    assert plan_progress(db, "ledger").complete

    again = _suites_run("--resume", out=out)
    output = again.communicate(timeout=300)[0]
    assert "0 of 3 planned runs have no final result" in output
    # The SIGKILLed call wrote no matrix line; the two resumed calls did, and the run's totals add them up.
    assert "[parity] the whole run so far: matrix wall" in output and "for 1 model runs" in output
    assert [json.loads(line)["runs"] for line in (out / "ledger.matrix.jsonl").read_text().splitlines()] == [1, 0]


@pytest.mark.parametrize("fresh", [True, False], ids=["fresh", "forked"])
def test_a_sigkilled_run_leaves_no_model_process_behind(tmp_path: Path, fresh: bool) -> None:
    """The OOM killer or a CI limit SIGKILLs the run: its model child (in a session of its own, out of reach of a
    process-group kill) and the zygote must end with it, or the child later writes into a folder a newer run uses."""
    import psutil

    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}  # as under Bazel's runfiles
    run = subprocess.Popen([sys.executable, "-m", "suites.run", "--suite", "selftest", "--model", "hang", "--device",
                            "cpu", "--backend", "eager", "--smoke", "--out", str(out), "--timeout", "300",
                            *(["--fresh-processes"] if fresh else [])], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env=env)
    log = out / "selftest.hang.inference.eager.cpu.smoke.log"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and phase_from_log(log) != "load":
        time.sleep(0.2)  # the child hangs while it loads the model
    descendants = psutil.Process(run.pid).children(recursive=True)
    assert descendants, "the run started no model process"
    run.kill()
    run.wait(10)
    _, alive = psutil.wait_procs(descendants, timeout=20)
    assert not alive, f"still running after the run was SIGKILLed: {[p.cmdline()[:4] for p in alive]}"
    assert not (out / "selftest.hang.inference.eager.cpu.smoke.pb").exists()
