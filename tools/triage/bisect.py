"""Finds the culprit with torch's compiler bisector, each of its tests one model run in a fresh process.

`CompilerBisector.do_bisect(fn)` walks the backends (eager, aot_eager, aot_eager_decomp_partition, ..., inductor),
then the failing backend's subsystems (passes, config changes, lowerings), then bisects the count of applications of
the subsystem whose disabling fixed the failure. `fn` is one run of the model: True when it did not fail as the
result did. The bisector's state goes to the model process as its own `run` command passes it (torch 2.14):
TORCH_BISECT_BACKEND and TORCH_BISECT_SUBSYSTEM name what is tested (torch.compile then compiles with that backend
whatever it was asked for), TORCH_BISECT_MAX=-1 disables the subsystem outright, and in the counting stages the
process reads and writes the bisector's state folder: `get_dir()` is `<in_process_cache>/bisect` in this process and
`<cache_dir()>/bisect` in the model's, so its TORCHINDUCTOR_CACHE_DIR is this process's in_process_cache.

Versions (read from torch 2.11.0 on the GPU machine and 2.14.1 here): both keep an in_process_cache set before
do_bisect (earlier snapshots replaced it with a temporary folder of their own, so it is read at each test, not
assumed). 2.14 writes each application's debug info (the FX node of a lowering) into the state folder; 2.11 keeps it
in the model process's memory, where a bisection over subprocesses loses it ("Debug info: not found"), so the triage's
probe (probe.py) records it in the model process, on every version.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tools.triage import probe
from tools.triage.memo import BisectAnswer, Memo
from tools.triage.runs import on_sys_path

# fn(env, cache): one model run with `env` over the triage's environment and `cache` as its TORCHINDUCTOR_CACHE_DIR;
# its answer is good when it did not fail as the result did.
ModelTest = Callable[[dict[str, str], Path], BisectAnswer]


class _NoSubsystemFixedIt(Exception):
    """Disabling each of the failing backend's subsystems left the failure. torch's do_bisect (2.11.0 and 2.14.1) then
    never returns: its own loop goes back to the subsystem it started from, so the bisector tests the second subsystem
    again, and then every other, until the limit (H100, 5f95839: the OpInfo case's runs 11-16). A subsystem asked to be
    disabled a second time is that loop; the culprit is then the backend, as the bisector means to report it."""

    def __init__(self, backend: str, subsystems: int) -> None:
        super().__init__(f"disabling each of {backend}'s {subsystems} subsystems left the failure")
        self.backend = backend


@dataclass
class BisectProgress:
    """How far the bisection got, kept as it goes, so that a bisection cut short still says where it was."""

    runs: int = 0
    backend: str = ""    # what the last test ran with
    subsystem: str = ""
    stage: str = ""      # the bisector's run state for that subsystem: test_disable, find_max_bounds, bisect
    failing_backend: str = ""  # known once the bisector moved on to a backend's subsystems
    # Known once disabling a subsystem fixed the failure (its count is then bounded and bisected): that subsystem,
    # the range of applications the bisection had narrowed it to, and where the probe records their debug info.
    fixing_subsystem: str = ""
    narrowed: tuple[int, int] | None = None
    debug_info_path: Path | None = None
    notes: list[str] = field(default_factory=list)  # one per test that failed another way (BisectAnswer.note)

    def describe(self) -> str:
        if not self.runs:
            return "no test ran"
        where = f"{self.backend}" + (f" / {self.subsystem} ({self.stage})" if self.subsystem else "")
        return f"{self.runs} test run(s), the last one testing {where}"

    def partial_culprit(self) -> Culprit | None:
        """What a bisection cut short had established: the backend, and the subsystem whose disabling fixed the
        failure, with the applications it was narrowed to (and their debug info, where the probe recorded it)."""
        if not self.failing_backend:
            return None
        info = ""
        if self.narrowed is not None:
            low, high = self.narrowed
            recorded = [f"{n}={found}" for n in range(low, high + 1)
                        if self.debug_info_path and (found := probe.recorded(self.debug_info_path, n))]
            info = f"narrowed to applications {low}-{high}" + (f": {'; '.join(recorded)}" if recorded else "")
        return Culprit(self.failing_backend, self.fixing_subsystem, -1, info)


@dataclass(frozen=True)
class Culprit:
    backend: str
    subsystem: str
    bisect_number: int  # -1 where the bisector named no application
    debug_info: str


def bisect(test: ModelTest, state: Path, progress: BisectProgress, log_path: Path, memo: Memo) -> Culprit | None:
    """Runs the bisector over `test`; None when every backend passed (the failure did not recur under it). Tests that
    `memo` holds from an earlier, stopped triage of the same result are answered from there (memo.py).

    `state` is a fresh folder for the bisector's state, which do_bisect deletes when it starts and ends; the kernels
    of the triage's own cache may be copied into it so that the runs do not compile them again. GaveUp from `test`
    ends the bisection; a RuntimeError is the bisector's own complaint (a flaky failure, a run that never reached
    the subsystem it counts)."""
    from torch._inductor.compiler_bisector import CompilerBisector

    info_path = state.parent / f"{state.name}-debug-info.txt"
    if not memo.tests:  # else it holds what the replayed tests' model processes recorded
        info_path.unlink(missing_ok=True)
    probe_dir = probe.plugin_folder(state.parent / f"{state.name}-probe")
    progress.debug_info_path = info_path
    disabled: set[tuple[str, str]] = set()  # (backend, subsystem) whose test_disable was asked

    def fn() -> bool:
        backend = CompilerBisector.get_backend() or ""
        subsystem = CompilerBisector.get_subsystem() or ""
        env = {"TORCH_BISECT_BACKEND": backend, "TORCH_COMPILE_BACKEND": backend, probe.ENV_VAR: str(info_path)}
        stage = ""
        if subsystem:
            env["TORCH_BISECT_SUBSYSTEM"] = subsystem
            stage = CompilerBisector.get_run_state(backend, subsystem) or ""
            if stage == "test_disable":
                env["TORCH_BISECT_MAX"] = "-1"  # disabled outright: any application's number is above -1
            else:  # find_max_bounds or bisect: disabling this subsystem fixed the failure
                progress.fixing_subsystem = subsystem
            progress.failing_backend = backend
        if stage == "test_disable":
            if (backend, subsystem) in disabled:
                raise _NoSubsystemFixedIt(backend, sum(b == backend for b, _ in disabled))
            disabled.add((backend, subsystem))
        progress.backend, progress.subsystem, progress.stage = backend, subsystem, stage
        shared = Path(CompilerBisector.in_process_cache or state)  # read here: an older torch chose its own folder
        bisector_state = Path(CompilerBisector.get_dir())
        key = {"backend": backend, "subsystem": subsystem, "stage": stage,
               "range": _read(bisector_state / backend / f"{subsystem}_bisect_range.txt") if subsystem else ""}
        if stage == "bisect":
            progress.narrowed = _bounds(key["range"])
        index, progress.runs = progress.runs, progress.runs + 1
        answer = memo.answer(index, key, bisector_state)
        if answer is None:
            with on_sys_path(probe_dir):
                answer = test(env, shared)
            memo.keep(index, key, answer, bisector_state)
        if answer.note:
            progress.notes.append(answer.note)
        print(f"[parity triage] {backend}/{subsystem or '-'} {stage or ''}: {'good' if answer.good else 'bad'}",
              flush=True)
        return answer.good

    CompilerBisector.in_process_cache = str(state)
    stopped: Exception | None = None
    exhausted: _NoSubsystemFixedIt | None = None
    try:
        with open(log_path, "a") as log, contextlib.redirect_stdout(log):  # the bisector narrates on stdout
            try:
                result = CompilerBisector.do_bisect(fn)
            except _NoSubsystemFixedIt as exc:
                exhausted, result = exc.with_traceback(None), None
                print(f"[parity triage] {exc}: the culprit is {exc.backend}, no subsystem of it", flush=True)
            except Exception as exc:  # noqa: BLE001 (GaveUp, or the bisector's own RuntimeError: re-raised below)
                # Without its traceback do_bisect's frame goes now, and with it the object whose deletion runs the
                # bisector's clean-up: here, while its output is redirected and its folder is still ours.
                stopped = exc.with_traceback(None)
                result = None
    finally:
        CompilerBisector.in_process_cache = None
        shutil.rmtree(state, ignore_errors=True)
    if stopped is not None:
        raise stopped
    if exhausted is not None:
        return Culprit(exhausted.backend, "", -1, str(exhausted))
    if result is None:
        return None
    change = _config_change(result.backend, result.subsystem)
    if change is not None:  # a setting, not a counted application: its "bisect number" means nothing
        return Culprit(result.backend, result.subsystem or "", -1, change)
    number = -1 if result.bisect_number is None else int(result.bisect_number)
    info = result.debug_info or ""
    if not info and number >= 0 and result.subsystem:
        info = probe.recorded(info_path, number)
    return Culprit(result.backend, result.subsystem or "", number, info)


# What seed_cache leaves out: the bisector's own state, lock files, and compiled graphs (never read: NO_GRAPH_CACHES).
_NOT_KERNELS = {"bisect", "locks", "fxgraph", "aotautograd"}


def seed_cache(source: Path, shared: Path) -> None:
    """Links (or, across file systems, copies) the triage's compiled kernels into the bisector's folder: kernels are
    keyed by their own source, so any run may use any run's, and Inductor and Triton replace a cache file by renaming
    a new one over it, never by writing into it. The bisector's own state there is left as it is."""
    if source.is_dir():
        shutil.copytree(source, shared, dirs_exist_ok=True, copy_function=_link_or_copy, symlinks=True,
                        ignore=lambda folder, names: [n for n in names if n in _NOT_KERNELS])


def _link_or_copy(source: str, dest: str) -> None:
    try:
        os.link(source, dest)
    except OSError:
        shutil.copy2(source, dest)


def _config_change(backend: str, subsystem: str | None) -> str | None:
    """For a culprit that is one of the bisector's config changes: the setting under which the model passed."""
    from torch._inductor.compiler_bisector import BACKENDS, ConfigChange

    change = next((s for s in BACKENDS.get(backend, []) if s.name == subsystem), None)
    if not isinstance(change, ConfigChange):
        return None
    return f"passes with {change.config_name} config {change.config_field}={change.config_value}"


def _bounds(bisect_range: str) -> tuple[int, int] | None:
    """The bisector's range file ("low=L\nhigh=H\n") as (L, H)."""
    fields = dict(line.split("=", 1) for line in bisect_range.splitlines() if "=" in line)
    try:
        return int(fields["low"]), int(fields["high"])
    except (KeyError, ValueError):
        return None


def _read(path: Path) -> str:
    return path.read_text() if path.is_file() else ""

