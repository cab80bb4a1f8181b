"""Test-only: run each test marked `own_process` in its own process (conftest.py wires it in).

Renaming PrivateUse1 is process-wide and one-way, so a test that renames it must not run in the
pytest process that collected it, or in a process another such test used. For each marked test the
collecting (parent) process starts a child that runs `pytest <file>::<test>` with CHILD_ENV set to
the test's node id. The child runs that one test the usual way (fixtures, markers, skips) and
writes a JSON record: its pid, the PrivateUse1 name when the test started, and its
setup/call/teardown reports. The parent turns the record into the test's outcome and never runs
the body itself.

Children are started through `multiprocessing`:
  forkserver  (default) a server interpreter, started once, imports torch and pytest and nothing
              else, then forks one child per test. Each test still gets a process of its own in
              which nothing was renamed or registered, without paying torch's import each time.
  spawn       a new interpreter per test: for tests marked `own_process(start="spawn")` (the
              CUDA regression: no fork near CUDA), for all tests with
              PARITY_FLEX_OWN_PROCESS_START=spawn, and where fork is unavailable. The same
              checks, several times slower.
Children start when collection ends, JOBS at a time and in test order, so the parent mostly finds
results ready. This works the same under plain pytest and under Bazel: children inherit the
parent's interpreter, sys.path, rootdir and ini file.
"""

from __future__ import annotations

import atexit
import json
import multiprocessing
import multiprocessing.util
import os
import sys
import tempfile
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

MARKER = "own_process"
CHILD_ENV = "PARITY_FLEX_OWN_PROCESS"  # the node id a child runs
RECORD_ENV = "PARITY_FLEX_OWN_PROCESS_RECORD"  # where that child writes its record
START_ENV = "PARITY_FLEX_OWN_PROCESS_START"  # "forkserver" or "spawn"
JOBS = max(1, min(2, os.cpu_count() or 1))  # at most two: CI machines have two cores
TIMEOUT_S = 600
UNRENAMED = "privateuseone"  # PrivateUse1's name until a backend renames it
STATUS_LOST = 255  # multiprocessing's exit code for a fork-server child whose status the server did not report

# What the fork server imports before forking: imports only, nothing renamed or registered, and
# no CUDA query (a process must not fork once the CUDA driver is initialised).
_PRELOAD = [
    "pytest",
    "torch",
    "torch._dynamo",
    "torch._subclasses.fake_tensor",
    "torch.nn.attention.flex_attention",
    "functorch.compile",
]


def start_method(item: pytest.Item) -> str:
    """The test's own choice (`own_process(start=...)`), else START_ENV, else the fork server."""
    requested = item.get_closest_marker(MARKER).kwargs.get("start") or os.environ.get(START_ENV)
    available = multiprocessing.get_all_start_methods()
    if requested:
        if requested not in ("forkserver", "spawn"):
            raise pytest.UsageError(f"{item.nodeid}: unknown start method {requested!r}")
        return requested if requested in available else "spawn"
    return "forkserver" if "forkserver" in available else "spawn"


def _context(method: str) -> Any:
    """A multiprocessing context for children; make it before any child or thread starts."""
    context = multiprocessing.get_context(method)
    if method == "forkserver":
        context.set_forkserver_preload(_PRELOAD)
        # The fork server listens on an AF_UNIX socket in multiprocessing's temp dir, and such a
        # path must fit in about 107 bytes; a test runner's TMPDIR (Bazel's, say) can be longer.
        # That dir is made once per process and reused, so make it under /tmp then.
        if len(tempfile.gettempdir()) > 64 and os.path.isdir("/tmp"):
            saved, tempfile.tempdir = tempfile.tempdir, "/tmp"
            try:
                multiprocessing.util.get_temp_dir()
            finally:
                tempfile.tempdir = saved
    return context


def is_child_for(nodeid: str) -> bool:
    """True in the child process started for `nodeid`: there the test runs as usual."""
    return os.environ.get(CHILD_ENV) == nodeid


def privateuse1_name() -> str:
    import torch

    return torch._C._get_privateuse1_backend_name()


@dataclass
class ChildRun:
    """What the parent learnt from one child: exit status, output, and the child's record."""

    nodeid: str
    returncode: int | None  # negative: killed by that signal; None: killed after TIMEOUT_S
    output: str
    record: dict[str, Any] = field(default_factory=dict)

    @property
    def pid(self) -> int | None:
        return self.record.get("pid")

    @property
    def privateuse1_at_start(self) -> str | None:
        return self.record.get("privateuse1_at_start")

    @property
    def reports(self) -> list[dict[str, Any]]:
        return self.record.get("reports", [])


def apply_outcome(run: ChildRun) -> None:
    """Fail or skip the parent's test as the child's reports say; return when the child passed."""
    where = f"in its own process (pid {run.pid}, exit code {run.returncode})"
    for report in run.reports:
        if report["outcome"] == "failed":
            pytest.fail(
                f"{run.nodeid} failed {where} during {report['when']}:\n{report['longrepr']}",
                pytrace=False,
            )
    for report in run.reports:
        if report["outcome"] == "skipped":
            pytest.skip(report["reason"])
    passed = any(r["when"] == "call" and r["outcome"] == "passed" for r in run.reports)
    if not passed or run.returncode != 0 or run.record.get("nodeid") != run.nodeid:
        pytest.fail(
            f"{run.nodeid} did not pass {where}; the child recorded {run.record}. "
            f"Child output (end):\n{run.output[-6000:]}",
            pytrace=False,
        )


class OwnProcessRunner:
    """The parent's side: starts children in the background and hands back their results."""

    def __init__(self, config: pytest.Config) -> None:
        self._config = config
        self._contexts = {
            method: _context(method)
            for method in ("forkserver", "spawn")
            if method in multiprocessing.get_all_start_methods()
        }
        self._dir = tempfile.TemporaryDirectory(prefix="flex_attention_own_process_")
        self._pool = ThreadPoolExecutor(max_workers=JOBS, thread_name_prefix="own_process")
        self._futures: dict[str, Future[ChildRun]] = {}
        self._running: set[Any] = set()
        self._lock = threading.Lock()
        self._closing = False
        self.runs: dict[str, ChildRun] = {}  # finished children, by node id

    def start(self, item: pytest.Item) -> None:
        """Queue `item`'s child (once); it starts as soon as one of the JOBS slots is free."""
        if item.nodeid not in self._futures:
            target = f"{item.path}::{item.nodeid.split('::', 1)[1]}"
            workdir = Path(self._dir.name) / str(len(self._futures))
            context = self._contexts[start_method(item)]
            self._futures[item.nodeid] = self._pool.submit(
                self._run_child, context, item.nodeid, target, workdir
            )

    def result(self, item: pytest.Item) -> ChildRun:
        """Wait for `item`'s child, starting it first if it was not queued."""
        self.start(item)
        run = self._futures[item.nodeid].result()
        self.runs[item.nodeid] = run
        return run

    def close(self) -> None:
        """Drop queued children, stop running ones (an interrupted session), remove the files."""
        with self._lock:
            self._closing = True
            for process in self._running:
                process.kill()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._dir.cleanup()

    def _run_child(self, context: Any, nodeid: str, target: str, workdir: Path) -> ChildRun:
        run = self._run_once(context, nodeid, target, workdir)
        if run.returncode == STATUS_LOST and context.get_start_method() == "forkserver" and "spawn" in self._contexts:
            # The fork server could not report the child's exit status; the test runs again, spawned, and that
            # run's outcome is the test's.
            run = self._run_once(self._contexts["spawn"], nodeid, target, workdir / "spawned")
        return run

    def _run_once(self, context: Any, nodeid: str, target: str, workdir: Path) -> ChildRun:
        workdir.mkdir()
        record_path, log_path = workdir / "record.json", workdir / "output.log"
        args = [target, "-q", "-p", "no:cacheprovider", "--basetemp", str(workdir / "tmp")]
        args += ["--rootdir", str(self._config.rootpath)]
        if self._config.inipath is not None:
            args += ["-c", str(self._config.inipath)]
        env = {CHILD_ENV: nodeid, RECORD_ENV: str(record_path)}
        with self._lock:  # one start at a time; the fork server takes one request per start
            if self._closing:
                return ChildRun(nodeid, None, "not started: the session is closing")
            process = context.Process(
                target=child_main,
                args=(args, str(self._config.rootpath), env, str(log_path)),
                name=f"own_process {nodeid}",
            )
            process.start()
            self._running.add(process)
        process.join(TIMEOUT_S)
        timed_out = process.exitcode is None
        if timed_out:
            process.kill()
            process.join()
        with self._lock:
            self._running.discard(process)
        returncode = None if timed_out else process.exitcode
        output = log_path.read_text(errors="replace") if log_path.exists() else ""
        record = json.loads(record_path.read_text()) if record_path.exists() else {}
        return ChildRun(nodeid, returncode, output, record)


def child_main(args: list[str], cwd: str, env: dict[str, str], log_path: str) -> None:
    """The child: run pytest on one test, output to `log_path`, exit with pytest's exit code."""
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.environ.update(env)
    os.chdir(cwd)
    code = int(pytest.main(args))
    sys.stdout.flush()
    sys.stderr.flush()
    atexit._run_exitfuncs()  # multiprocessing children skip atexit; torch's handlers should run
    sys.exit(code)


class ChildRecorder:
    """The child's side: writes the record file after every report, so a crash leaves a trace."""

    def __init__(self, nodeid: str, path: str) -> None:
        self.record: dict[str, Any] = {"nodeid": nodeid, "pid": os.getpid(), "reports": []}
        self._path = Path(path)

    def test_starting(self) -> None:
        self.record["privateuse1_at_start"] = privateuse1_name()
        self._write()

    def add(self, report: pytest.TestReport) -> None:
        entry = {"when": report.when, "outcome": report.outcome, "longrepr": report.longreprtext}
        if report.skipped and isinstance(report.longrepr, tuple):
            entry["reason"] = str(report.longrepr[2]).removeprefix("Skipped: ")
        elif report.skipped:
            entry["reason"] = report.longreprtext
        self.record["reports"].append(entry)
        self._write()

    def _write(self) -> None:
        self._path.write_text(json.dumps(self.record))


def skipped_before_running(item: pytest.Item) -> bool:
    """A `skip` mark, or a `skipif` with a true boolean condition: no child is worth starting."""
    if item.get_closest_marker("skip") is not None:
        return True
    for mark in item.iter_markers("skipif"):
        condition = mark.args[0] if mark.args else mark.kwargs.get("condition")
        if isinstance(condition, bool) and condition:
            return True
    return False
