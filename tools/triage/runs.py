"""The triage's subprocesses: the model's accuracy check (through the harness's own launcher and child process) and
scripts (the minifier's launcher, the stored repro). Each gets the time left, runs in a process group of its own that
is killed whole when it ends or runs out of time, and dies with the triage (suites/common/parent_death.py)."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Mapping

from opinfo.results import read_result as read_case_result
from parity.v1 import results_pb2 as pb
from proto.result_files import OPINFO_SUFFIX
from suites.common.launcher import LaunchOptions, child_env, run_model
from suites.common.process_group import run_in_own_group
from suites.common.result_io import FAILURE_TEXT_CHARS
from tools.store.failures import OPINFO_SUITE, opinfo_as_model_result
from tools.triage.budget import Budget, GaveUp
from tools.triage.dynamo_check import TOLERANCE_VARIABLE
from tools.triage.op_case import OpCaseRequest
from tools.triage.target import Target

# Caches that key a compiled graph without what the triage varies between runs (the bisector's switches, a lowering a
# plugin installed) would hand one run another run's code; they are off in every triage subprocess. Inductor's kernel
# cache stays: it is keyed by the kernel's own source.
NO_GRAPH_CACHES = {"TORCHINDUCTOR_FX_GRAPH_CACHE": "0", "TORCHINDUCTOR_AUTOGRAD_CACHE": "0"}
# Variables the triage sets for some runs only; inherited, they would steer every run (and the bisector itself).
OWNED_VARIABLES = ("TORCH_BISECT_BACKEND", "TORCH_BISECT_SUBSYSTEM", "TORCH_BISECT_MAX", "TORCH_COMPILE_BACKEND",
                   "TORCHDYNAMO_REPRO_AFTER", "TORCHDYNAMO_REPRO_LEVEL", "TORCH_COMPILE_DEBUG_DIR", TOLERANCE_VARIABLE)
# Outcomes of the harness, not of the model: a run that ends in one says nothing about the failure.
NOT_THE_MODELS = ("infra_error", "skipped", "stopped")


class HarnessError(RuntimeError):
    """A model run ended in an outcome of the harness's own (NOT_THE_MODELS): the triage cannot go on."""


def log(line: str) -> None:
    """Progress, one line per subprocess: a triage on a GPU takes many minutes."""
    print(f"[triage] {line}", file=sys.stderr, flush=True)


@dataclass
class ModelRuns:
    """Runs the target's accuracy check again, each time in a fresh model process, and counts the runs."""

    target: Target
    work: Path
    budget: Budget
    cache: Path  # the triage's own Inductor cache: fresh per triage, shared by its runs (their kernels)
    count: int = 0
    max_runs: int = 0  # 0: as many as the time limit allows
    earlier: int = field(init=False)  # run folders left by an earlier triage of the same work folder (a resumed one)

    def __post_init__(self) -> None:
        runs = self.work / "runs"
        self.earlier = sum(1 for _ in runs.iterdir()) if runs.is_dir() else 0

    def run(self, name: str, env: Mapping[str, str] | None = None, cache: Path | None = None) -> pb.ModelResult:
        """One run with `env` over the triage's environment; GaveUp when the limit ends it (or comes first)."""
        if self.max_runs and self.count >= self.max_runs:
            raise GaveUp(f"the limit of {self.max_runs} model runs was reached before model run {self.count + 1} "
                         f"({name})")
        left = self.budget.left_for(f"model run {self.count + 1} ({name})")
        timeout_s = min(self.target.model_timeout_s, left)
        self.count += 1
        out = self.work / "runs" / f"{self.earlier + self.count:02d}-{re.sub(r'[^A-Za-z0-9._-]+', '_', name).strip('_')}"
        out.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        # The model's process starts in `out`: the minifier writes a convenience copy of its repro into the cwd.
        request, variables = self.target.request, {**NO_GRAPH_CACHES, **(env or {})}
        if isinstance(request, OpCaseRequest):
            result = _run_case(request, out, script_env(cache or self.cache, variables), timeout_s)
        else:
            with environment(variables), contextlib.chdir(out):
                result = run_model(request, out, LaunchOptions(timeout_s=timeout_s, inductor_cache=cache or self.cache))
        wall = time.monotonic() - start
        log(f"run {self.count} ({name}): {result.community_status} in {wall:.0f} s")
        if result.community_status == "timeout" and timeout_s < self.target.model_timeout_s:
            raise GaveUp(f"the {self.budget.limit_s:g} s limit ended model run {self.count} ({name})")
        if result.community_status in NOT_THE_MODELS:
            raise HarnessError(f"model run {self.count} ({name}) ended in {result.community_status}: "
                               f"{result.failure.message or result.failure.log_tail[-500:]} (its log: {out})")
        return result


def _run_case(request: OpCaseRequest, out: Path, env: Mapping[str, str], timeout_s: float) -> pb.ModelResult:
    """An OpInfo case's run in a fresh process (python -m opinfo.run), read as a model result. A process that wrote no
    result is a timeout, a crash (killed by a signal), or else the runner's own failure (infra_error), with its log's
    end."""
    done = run_in_own_group(request.argv(out), cwd=out, env=env, log=out / "opinfo.log", timeout_s=timeout_s)
    written = sorted(out.glob(f"*{OPINFO_SUFFIX}"))
    if written and not done.timed_out:
        return opinfo_as_model_result(read_case_result(written[0]))
    code = done.returncode or 0
    status = "timeout" if done.timed_out else "crash" if code < 0 else "infra_error"
    return pb.ModelResult(community_status=status,
                          failure=pb.Failure(phase=pb.PHASE_CHILD_PROCESS, signal=max(0, -code),
                                             exit_code=max(0, code), log_tail=tail(done.log),
                                             message=f"python -m opinfo.run wrote no result for {request.model}"),
                          config=pb.RunConfig(suite=OPINFO_SUITE, model=request.model, backend=request.backend,
                                              device=request.device))


def script_env(cache: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a model run (the launcher's, with the triage's cache and caching rules) for a script."""
    env = {k: v for k, v in child_env(1).items() if k not in OWNED_VARIABLES}
    return {**env, **NO_GRAPH_CACHES, "TORCHINDUCTOR_CACHE_DIR": str(cache),
            "TRITON_CACHE_DIR": str(cache / "triton"), **(extra or {})}


def tail(path: Path, chars: int = FAILURE_TEXT_CHARS) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - chars))
            return f.read().decode(errors="replace")
    except OSError:
        return ""


@contextlib.contextmanager
def on_sys_path(folder: Path) -> Iterator[None]:
    """`folder` on sys.path for the block: the launcher passes sys.path on as the model process's PYTHONPATH."""
    sys.path.append(str(folder))
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(folder))


@contextlib.contextmanager
def environment(values: Mapping[str, str]) -> Iterator[None]:
    """`values` set in os.environ for the block, and what was there before restored: the launcher builds each
    child's environment from os.environ (the triage is single-threaded, so nothing else sees it meanwhile)."""
    saved = {key: os.environ.get(key) for key in (*values, *OWNED_VARIABLES)}
    for key in OWNED_VARIABLES:
        os.environ.pop(key, None)
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
