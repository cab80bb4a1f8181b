"""One child process at a time, with a timeout, its output in a log, and its wall time.

Timing runs must never overlap, so the cross-check runs exactly one child at a time and waits for it. A child
gets its own process group (a timeout kills what it started too, e.g. Inductor's compile workers) and asks the
kernel for SIGKILL when the cross-check ends (suites/common/parent_death.py), so that no child times on the
device after the command is gone.
"""

from __future__ import annotations

from pathlib import Path

from suites.common.process_group import Finished, run_in_own_group


def run_child(argv: list[str], *, cwd: Path, env: dict[str, str], log: Path, timeout_s: float) -> Finished:
    """Runs argv to its end or to the timeout (then kills its whole process group); stdout and stderr go to log."""
    log.parent.mkdir(parents=True, exist_ok=True)
    return run_in_own_group(argv, cwd=cwd, env=env, log=log, timeout_s=timeout_s,
                            header=f"$ (cd {cwd} && {' '.join(argv)})\n")


def log_tail(log: Path, lines: int = 12) -> str:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])
