"""One child process at a time, with a timeout, its output in a log, and its wall time.

Timing runs must never overlap, so the cross-check runs exactly one child at a time and waits for it. A child
gets its own process group (a timeout kills what it started too, e.g. Inductor's compile workers) and asks the
kernel for SIGKILL when the cross-check ends (suites/common/parent_death.py), so that no child times on the
device after the command is gone.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from pathlib import Path

from suites.common.process_group import run_in_own_group


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
    finished = run_in_own_group(argv, cwd=cwd, env=env, log=log, timeout_s=timeout_s,
                                header=f"$ (cd {cwd} && {' '.join(argv)})\n")
    return ChildOutcome(finished.returncode, finished.wall_s, log)


def log_tail(log: Path, lines: int = 12) -> str:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])
