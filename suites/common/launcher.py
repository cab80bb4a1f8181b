"""Runs a model request in a child process with a timeout; always returns a classified result.

A child that hangs is killed (its whole process group) and classified `timeout`; one that dies from a
signal or exits without writing its result is classified `crash`, with its log tail kept; either keeps the timings
the child measured before it died in its accuracy work (they are in a checkpoint it saves). When the launcher
itself is stopped (an outer `timeout`), stop_running_children() kills every child still running, so none outlives
it on the device, and writes each a `timeout` result that says the run was cut, not the model's own limit.
A child is a fresh interpreter, or a fork of a pre-imported zygote (start_zygote) when the caller passes one.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from parity.v1 import results_pb2 as pb
from suites.common import loaders
from suites.common import status as statuses
from suites.common.cpu_sets import ENV_VAR as CPU_SETS_ENV
from suites.common.cpu_sets import CpuSplit
from suites.common.device_turns import ENV_VAR as DEVICE_TURNS_ENV
from suites.common.device_turns import WAITS_ENV_VAR as DEVICE_TURN_WAITS_ENV
from suites.common.device_turns import reported_wait_s
from suites.common.parent_death import ENV_VAR as PARENT_ENV
from suites.common.process_group import REAP_TIMEOUT_S, kill_group
from suites.common.provenance import base_provenance, device_from_log, phase_from_log
from suites.common.request import ModelRequest
from suites.common.result_io import FAILURE_TEXT_CHARS, ResultFileError, read_result, write_result
from suites.common.zygote import Zygote, ZygoteError

# faulthandler's report of a native crash (suites/common/child.py enables it): how it starts, and how its closing
# line (Python 3.12+) starts; read this much more than the tail, to find the whole report.
FATAL_ERROR = "Fatal Python error: "
FAULTHANDLER_MODULES = "Extension modules: "
CRASH_REPORT_MAX_CHARS = 65536
LOG_HEAD_CHARS = 65536  # where a child logs its device line (suites/common/provenance.py), after its imports
# How many model runs the launcher runs at once, told to each child (1: alone on the device). The selftest model
# oom_beside_others reads it to run out of memory only when others share the device.
PARALLEL_JOBS_ENV = "PARITY_PARALLEL_JOBS"


@dataclass(frozen=True)
class LaunchOptions:
    timeout_s: float = 2000.0          # upstream's per-model timeout
    inductor_cache: Path | None = None  # None: a fresh, empty cache per child (cold start)
    split_processes: bool = False       # upstream's layout: accuracy and performance in separate children
    parallel_jobs: int = 1              # children running at once
    device_turns: Path | None = None    # the lock file children running at once take turns on the device with
    zygote: Zygote | None = None        # forks pre-imported children (start_zygote); None: a fresh interpreter each
    cpus: CpuSplit | None = None        # timing cores apart from the rest (suites/common/cpu_sets.py); None: no split


@dataclass(frozen=True)
class _Running:
    """What the parent knows of a running child, enough to write its result if the run is stopped."""
    request: ModelRequest
    out_dir: Path
    stem: str
    start: float
    turn_waits: Path
    timed_checkpoint: Path
    options: LaunchOptions


_running: dict[int, _Running] = {}  # the children running (by pid), across the launcher's threads
_running_lock = threading.Lock()  # also orders the results' writes against a stop
_stopped = False  # set by stop_running_children(): from then on only it writes results, so none is overwritten


def run_model(request: ModelRequest, out_dir: Path, options: LaunchOptions) -> pb.ModelResult:
    """Runs `request` (in one child, or two when split) and writes `<stem>.pb/.txtpb/.log` into out_dir."""
    stem = request.file_stem()
    if not options.split_processes:
        result = _launch(request, out_dir, stem, options)
    else:
        accuracy = _launch(replace(request, plan="accuracy"), out_dir, stem + ".accuracy", options)
        performance = _launch(replace(request, plan="performance"), out_dir, stem + ".performance", options)
        result = _merge(accuracy, performance)
        result.result_id = result_id_of(request, options)
    with _running_lock:
        if not _stopped:  # else stop_running_children() wrote (or kept) this model's result
            write_result(result, out_dir, stem)
    return result


def result_id_of(request: ModelRequest, options: LaunchOptions) -> str:
    """The id of the result run_model writes for `request`: a split run's merged result has one of its own."""
    return replace(request, plan="split").result_id() if options.split_processes else request.result_id()


def _launch(request: ModelRequest, out_dir: Path, stem: str, options: LaunchOptions) -> pb.ModelResult:
    out_dir.mkdir(parents=True, exist_ok=True)
    result_path = out_dir / f"{stem}.pb"
    result_path.unlink(missing_ok=True)
    log_path = out_dir / f"{stem}.log"
    start = time.time()
    returncode: int | None = None
    turn_wait_s = 0.0
    lost: ZygoteError | None = None
    with tempfile.TemporaryDirectory(prefix="parity-cache-") as fresh_cache:
        env = _with_cache(child_env(options.parallel_jobs, options.cpus), str(options.inductor_cache or fresh_cache))
        turn_waits = Path(fresh_cache) / "device-turn-waits"
        timed_checkpoint = Path(fresh_cache) / "timed.pb"
        argv = [*request.to_args(), f"--out={out_dir}", f"--stem={stem}", f"--timed-checkpoint={timed_checkpoint}"]
        if options.device_turns is not None:
            env[DEVICE_TURNS_ENV] = str(options.device_turns)
            env[DEVICE_TURN_WAITS_ENV] = str(turn_waits)
        child = _start(argv, log_path, env, options.zygote)
        with _running_lock:
            _running[child.pid] = _Running(request, out_dir, stem, start, turn_waits, timed_checkpoint, options)
        try:
            returncode = _wait_own_time(child, options.timeout_s, turn_waits)
            turn_wait_s = reported_wait_s(turn_waits)
            if returncode is None:  # still running at the timeout
                _kill(child.pid)
                child.wait(REAP_TIMEOUT_S)
        except ZygoteError as exc:
            lost = exc
        finally:
            with _running_lock:
                _running.pop(child.pid, None)
            kill_group(child.pid)  # what is left: compile workers, as the child ends without teardown (exit_now)
        wall = time.time() - start
        if returncode is None and lost is None:
            waited = f" (and {turn_wait_s:.0f} s waiting for the device's turn)" if turn_wait_s >= 0.5 else ""
            result = _synthesized(request, "timeout", wall, log_path, pb.Failure(
                phase=pb.PHASE_CHILD_PROCESS,
                message=f"no result within the {options.timeout_s:.0f} s timeout{waited}; killed"), timed_checkpoint)
        else:
            try:
                result = read_result(result_path)
                result.phase_wall_s["process"] = max(0.0, wall - result.wall_time_s)  # the child timed the rest
            except ResultFileError as exc:
                failure = pb.Failure(phase=pb.PHASE_CHILD_PROCESS, message=f"no result, and {lost}") \
                    if returncode is None else _crash_failure(returncode, exc)
                result = _synthesized(request, "crash", wall, log_path, failure, timed_checkpoint)
    return _with_launch(result, wall, options)


def _with_launch(result: pb.ModelResult, wall: float, options: LaunchOptions) -> pb.ModelResult:
    """Adds what the parent decided and measured: the whole wall time and the launch's settings."""
    result.wall_time_s = wall
    result.config.timeout_s = options.timeout_s
    result.config.cold_start = options.inductor_cache is None
    result.config.parallel_jobs = options.parallel_jobs
    result.config.device_turns = options.device_turns is not None
    result.compile_time.cold_start = options.inductor_cache is None
    return result


def _wait_own_time(child: _Child, timeout_s: float, turn_waits: Path) -> int | None:
    """The child's exit code, or None when it is still running after timeout_s of its own time: what it waited
    for the device's turn (its report in turn_waits) is a sibling's time, so the deadline moves by that."""
    deadline, credited = time.time() + timeout_s, 0.0
    while (returncode := child.wait(max(0.0, deadline - time.time()))) is None:
        waited = reported_wait_s(turn_waits)
        if waited <= credited:
            return None
        deadline, credited = deadline + waited - credited, waited
    return returncode


class _Child(Protocol):
    pid: int

    def wait(self, timeout: float) -> int | None: ...


@dataclass(frozen=True)
class _ForkedChild:
    pid: int
    zygote: Zygote

    def wait(self, timeout: float) -> int | None:
        return self.zygote.wait(self.pid, timeout)


@dataclass(frozen=True)
class _FreshChild:
    proc: subprocess.Popen[bytes]

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None


def _start(argv: list[str], log_path: Path, env: dict[str, str], zygote: Zygote | None) -> _Child:
    if zygote is not None:
        try:
            return _ForkedChild(zygote.spawn(argv, log_path, env), zygote)
        except ZygoteError as exc:
            print(f"[launcher] {exc}: starting a fresh interpreter instead", file=sys.stderr, flush=True)
    with open(log_path, "wb") as log:
        cmd = [sys.executable, "-m", "suites.common.child", *argv]
        return _FreshChild(subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True))


def start_zygote(suite: str, parallel_jobs: int, cpus: CpuSplit | None = None) -> Zygote:
    """A pre-imported parent for the children of one run of `suite` (suites/common/zygote.py); the caller closes it."""
    return Zygote(preload=["suites.common.child", loaders.module_name(suite)], env=child_env(parallel_jobs, cpus))


def stop_running_children(why: str) -> int:
    """The launcher is being stopped (`why`, e.g. SIGTERM): kills the process group of every child still running
    and writes each a `timeout` result, unless the child wrote its own just before; returns how many it killed.
    The threads that wait on those children write nothing after this, so no result is overwritten."""
    global _stopped
    with _running_lock:
        _stopped = True
        running = dict(_running)
    for pid in running:
        _kill(pid)
    for run in running.values():
        if not (run.out_dir / f"{run.stem}.pb").exists():
            write_result(_cut_short(run, why), run.out_dir, run.stem)
    return len(running)


def _cut_short(run: _Running, why: str) -> pb.ModelResult:
    """The result of a model whose run was stopped from outside before the model's own timeout: "stopped", not
    the model's "timeout" (it says nothing of the model; --resume runs it again)."""
    wall = time.time() - run.start
    waited = reported_wait_s(run.turn_waits)
    turns = f", {waited:.0f} s of it waiting for the device's turn" if waited >= 0.5 else ""
    failure = pb.Failure(phase=pb.PHASE_CHILD_PROCESS, message=(
        f"the run was stopped ({why}) after this model had run {wall:.0f} s{turns}, within its own "
        f"{run.options.timeout_s:.0f} s timeout; killed before it wrote a result"))
    return _with_launch(_synthesized(run.request, "stopped", wall, run.out_dir / f"{run.stem}.log", failure,
                                     run.timed_checkpoint), wall, run.options)


def _kill(pid: int) -> None:
    """Kills a running child and its process group (the pid too: a forked child may not have made its group yet)."""
    kill_group(pid)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def child_env(parallel_jobs: int, cpus: CpuSplit | None = None) -> dict[str, str]:
    """The environment of every model child of a run (each adds its own compile caches). With `cpus`, children
    time on the timing cores and do everything else, compiles included, on the others (suites/common/cpu_sets.py)."""
    env = dict(os.environ)
    compile_cores = len(cpus.other) if cpus is not None else (os.cpu_count() or 1)
    if cpus is not None:
        env[CPU_SETS_ENV] = cpus.to_env()
    if parallel_jobs > 1:  # children side by side share the host's cores instead of each taking all of them
        env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", str(max(1, compile_cores // parallel_jobs)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # the child imports what we import
    env[PARALLEL_JOBS_ENV] = str(parallel_jobs)
    env[PARENT_ENV] = str(os.getpid())  # children (and the zygote) die with us (suites/common/parent_death.py)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _with_cache(env: dict[str, str], cache: str) -> dict[str, str]:
    return {**env, "TORCHINDUCTOR_CACHE_DIR": cache, "TRITON_CACHE_DIR": os.path.join(cache, "triton")}


def _crash_failure(returncode: int, why: Exception) -> pb.Failure:
    if returncode < 0:
        name = signal.Signals(-returncode).name
        hint = " (the kernel's OOM killer sends SIGKILL)" if -returncode == signal.SIGKILL else ""
        return pb.Failure(phase=pb.PHASE_CHILD_PROCESS, signal=-returncode,
                          message=f"child killed by {name}{hint} before writing its result")
    return pb.Failure(phase=pb.PHASE_CHILD_PROCESS, exit_code=returncode,
                      message=f"child exited with code {returncode} without a result ({why})")


def _synthesized(request: ModelRequest, status: str, wall: float, log_path: Path, failure: pb.Failure,
                 timed_checkpoint: Path) -> pb.ModelResult:
    """A result written on the child's behalf, from what the parent knows without the child, and the timings the
    child saved in `timed_checkpoint` before its accuracy work, if it got that far."""
    from suites.common.manifest import ManifestError, load_manifest

    result = pb.ModelResult(community_status=status, status=statuses.to_enum(status))
    try:
        manifest = load_manifest(request.suite)
        expected, _ = request.expected_status(manifest)
        result.expected_status = statuses.to_enum(expected)
        request.fill_config(result, manifest)
        result.provenance.CopyFrom(base_provenance(request.device, manifest.version, manifest.sha256))
    except (ManifestError, ValueError):
        result.result_id = request.result_id()
    if device := device_from_log(_head(log_path)):
        result.provenance.device_name, result.provenance.device_arch = device
    if phase := phase_from_log(log_path):
        failure.message += f"; the last phase it began: {phase}"
    if (timed := _read_checkpoint(timed_checkpoint)) is not None:
        _copy_timings(result, timed)
        result.phase_wall_s.update(timed.phase_wall_s)
        failure.message += f"; its timing had finished ({timed.performance.speedup:.2f}x): those figures are kept"
    failure.log_tail = _tail(log_path)
    result.failure.CopyFrom(failure)
    result.provenance.start_time.FromSeconds(int(time.time() - wall))
    result.provenance.duration.FromMilliseconds(int(wall * 1000))
    return result


def _read_checkpoint(path: Path) -> pb.ModelResult | None:
    try:
        return pb.ModelResult.FromString(path.read_bytes())
    except FileNotFoundError:  # the child died or hung before its timing was done (or measured none)
        return None


def _copy_timings(into: pb.ModelResult, timed: pb.ModelResult) -> None:
    """What a timing phase measured, from the result that measured it."""
    for field in ("performance", "compile_time", "memory", "dynamo"):
        getattr(into, field).CopyFrom(getattr(timed, field))
    del into.fallback_ops[:]
    into.fallback_ops.extend(timed.fallback_ops)
    if timed.HasField("bottleneck"):  # analysed where the speedup was measured
        into.bottleneck.CopyFrom(timed.bottleneck)


def _head(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(LOG_HEAD_CHARS).decode(errors="replace")
    except OSError:
        return ""


def _tail(path: Path) -> str:
    """The log's end; after a native crash, faulthandler's report of it whole where it fits (else its start: the
    innermost frames come first), without the idle threads' stacks and the list of loaded extension modules
    (over 5 KB under torch and transformers, it would push the crash's stack out)."""
    try:
        with open(path, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - FAILURE_TEXT_CHARS - CRASH_REPORT_MAX_CHARS))
            text = f.read().decode(errors="replace")
    except OSError:
        return ""
    start = text.rfind(FATAL_ERROR)
    if start < 0:
        return text[-FAILURE_TEXT_CHARS:]
    report, idle_thread = [], False
    for line in text[start:].splitlines(keepends=True):
        idle_thread = line.startswith("Thread 0x") or (idle_thread and not line.startswith("Current thread"))
        if not idle_thread and not line.startswith(FAULTHANDLER_MODULES):
            report.append(line)
    crash = "".join(report)
    if len(crash) > FAILURE_TEXT_CHARS:
        return crash[:FAILURE_TEXT_CHARS]
    return (text[:start] + crash)[-FAILURE_TEXT_CHARS:]


def _merge(accuracy: pb.ModelResult, performance: pb.ModelResult) -> pb.ModelResult:
    """Upstream's two-process figures as one result: status from accuracy, timings from performance."""
    merged = pb.ModelResult()
    merged.CopyFrom(accuracy)
    if not accuracy.HasField("failure") and performance.HasField("failure") and accuracy.community_status == "pass":
        merged.failure.CopyFrom(performance.failure)  # a perf-only failure is still worth reading
    _copy_timings(merged, performance)
    merged.config.split_processes = True
    merged.config.batch_size = performance.config.batch_size
    merged.config.repeats, merged.config.warmup_iterations = performance.config.repeats, performance.config.warmup_iterations
    merged.wall_time_s = accuracy.wall_time_s + performance.wall_time_s
    for phase, seconds in performance.phase_wall_s.items():
        merged.phase_wall_s[phase] += seconds
    return merged
