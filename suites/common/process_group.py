"""A helper process in a process group of its own, run to its end or to a timeout, its output in a log file.

The whole group is killed when the child ends or times out, so what it started goes too (Inductor's compile workers,
the minifier's isolated queries). The child also asks the kernel for SIGKILL when this process ends
(parent_death.py), so nothing it runs goes on after the command that started it. The harness's model children use
the launcher, which adds the zygote and the device's turns; the tools' children (the cross-check's runs, the triage's
scripts, the nightly's triages) use this.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from suites.common.parent_death import die_with_parent

REAP_TIMEOUT_S = 30.0  # a killed child's exit is reported within this


@dataclass(frozen=True)
class Finished:
    """How a child ended: its exit code (negative: the signal that ended it; None: killed at the timeout), its wall
    time, and the log its output went to."""
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


def run_in_own_group(argv: Sequence[str], *, env: Mapping[str, str], log: Path, timeout_s: float,
                     cwd: Path | None = None, header: str = "") -> Finished:
    """Runs `argv` with stdout and stderr to `log` (after `header`). OSError when it cannot start."""
    parent = os.getpid()
    start = time.monotonic()
    with open(log, "wb") as out:
        out.write(header.encode())
        out.flush()
        child = subprocess.Popen(list(argv), cwd=cwd, env=dict(env), stdout=out, stderr=subprocess.STDOUT,
                                 start_new_session=True, preexec_fn=lambda: die_with_parent(parent))
        try:
            returncode: int | None = child.wait(timeout_s)
        except subprocess.TimeoutExpired:
            returncode = None
        finally:
            kill_group(child.pid)  # a timed-out child, or what a finished one left behind
            if child.poll() is None:
                child.wait(REAP_TIMEOUT_S)
    return Finished(returncode, time.monotonic() - start, log)


def kill_group(pid: int) -> None:
    """SIGKILL for the process group `pid` leads; nothing when it has ended."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # nothing left (a group of exited zombies may refuse)
        pass
