"""Whether a server process the CI started is still running (psutil: a zombie has exited, only not been reaped)."""

from __future__ import annotations

from pathlib import Path

import psutil


def running_pid(pid_file: Path) -> int | None:
    """The pid in `pid_file` if that process runs; None when the file is missing or the process has ended."""
    try:
        pid = int(pid_file.read_text().strip())
        return pid if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE else None
    except (OSError, ValueError, psutil.NoSuchProcess):
        return None
