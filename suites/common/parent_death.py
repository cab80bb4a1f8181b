"""Model processes die with the process that started them, whatever kills it (SIGKILL, the OOM killer, a CI limit).

Each asks the kernel for SIGKILL when its parent ends (Linux prctl PR_SET_PDEATHSIG): the zygote when the launcher
ends, a model child when its launcher or zygote ends. A child in its own session is out of reach of a killed
process group, and without this it would run on and later write into a folder a newer run uses.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

ENV_VAR = "PARITY_PARENT_PID"  # the process whose end must end this one
_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """SIGKILL for this process when `parent_pid` (its parent) ends; exits at once if it has ended already."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent_pid:  # the parent ended before the request took effect
        os._exit(1)


def from_environment() -> None:
    """die_with_parent() for the parent the environment names; nothing when it names none (a child run by hand)."""
    parent = os.environ.get(ENV_VAR, "")
    if parent.isdigit():
        die_with_parent(int(parent))
