"""One child process at a time, with a timeout, its output in a log, and its wall time.

Timing runs must never overlap, so the cross-check runs exactly one child at a time and waits for it. A child
gets its own process group (a timeout kills what it started too, e.g. Inductor's compile workers) and asks the
kernel for SIGKILL when the cross-check ends (suites/common/parent_death.py), so that no child times on the
device after the command is gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from suites.common.parent_death import die_with_parent


@dataclass(frozen=True)
class ChildOutcome:
    """How a child ended: its exit code (negative: the signal that killed it), or None when it was killed at the
    timeout; and its wall time."""
    returncode: int | None
    wall_s: float
    log: Path

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    def describe(self, timeout_s: float) -> str:
        if self.returncode is None:
            return f"killed at the {timeout_s:.0f} s timeout"
        if self.returncode < 0:
            name = signal.Signals(-self.returncode).name
            oom = " (the kernel's OOM killer sends SIGKILL)" if -self.returncode == signal.SIGKILL else ""
            return f"killed by {name}{oom}"
        return f"exited with code {self.returncode}"


def run_child(argv: list[str], *, cwd: Path, env: dict[str, str], log: Path, timeout_s: float) -> ChildOutcome:
    """Runs argv to its end or to the timeout (then kills its whole process group); stdout and stderr go to log."""
    log.parent.mkdir(parents=True, exist_ok=True)
    parent = os.getpid()
    start = time.perf_counter()
    with open(log, "wb") as out:
        out.write(f"$ (cd {cwd} && {' '.join(argv)})\n".encode())
        out.flush()
        child = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                 start_new_session=True, preexec_fn=lambda: die_with_parent(parent))
        try:
            returncode: int | None = child.wait(timeout_s)
        except subprocess.TimeoutExpired:
            returncode = None
        finally:
            _kill_group(child.pid)  # a timeout's child, or what a finished child left behind
            child.wait()
    return ChildOutcome(returncode, time.perf_counter() - start, log)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:  # nothing left
        pass


def log_tail(log: Path, lines: int = 12) -> str:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])
