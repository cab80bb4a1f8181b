"""Records, inside a bisected model process, which application of a subsystem each bisect number is.

torch's compiler bisector asks `CompilerBisector.disable_subsystem(backend, subsystem, debug_info)` at every
application of a subsystem (a lowering of one FX node, one pass). Near the end of a bisection it keeps the
`debug_info()` of the applications in the last range (e.g. `repr(node)` of a lowering); torch 2.14 writes them to
its state folder, which the triage's parent reads back, but torch 2.11's bisector keeps them in the process's memory
(`call_counter_debug_info`), which a bisection over subprocesses loses. This probe keeps them across the process boundary on
every version: it is a `torch.backends` entry point (the device-backend autoload: torch_plugin.py) that the
triage puts on the bisected runs' sys.path, and it appends `<bisect number>=<debug info>` lines to the file that
PARITY_TRIAGE_BISECT_INFO names. Without that variable it does nothing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from tools.triage import torch_plugin

ENV_VAR = "PARITY_TRIAGE_BISECT_INFO"
RANGE_WIDTH = 2  # torch keeps debug info once the bisect range is this narrow, so do we


def install() -> None:
    path = os.environ.get(ENV_VAR, "")
    if not path:
        return
    from torch._inductor import compiler_bisector

    bisector = compiler_bisector.CompilerBisector
    original = bisector.disable_subsystem.__func__  # type: ignore[attr-defined]

    def disable_subsystem(cls: type, backend: str, subsystem: str,
                          debug_info: Callable[[], str] | None = None) -> bool:
        counter = compiler_bisector.subsystem_call_counter[subsystem]  # this application's number, before it counts
        disabled = original(cls, backend, subsystem, debug_info)
        if debug_info is not None and _in_last_range(cls, backend, subsystem, counter):
            with open(path, "a") as out:
                out.write(f"{counter}={debug_info()}\n")
        return disabled

    bisector.disable_subsystem = classmethod(disable_subsystem)  # type: ignore[method-assign,assignment]


def _in_last_range(cls: type, backend: str, subsystem: str, counter: int) -> bool:
    if not (cls.bisection_enabled and cls.get_backend() == backend and cls.get_subsystem() == subsystem):  # type: ignore[attr-defined]
        return False
    if os.environ.get("TORCH_BISECT_MAX") or cls.get_run_state(backend, subsystem) != "bisect":  # type: ignore[attr-defined]
        return False
    low, high = cls.get_bisect_range(backend, subsystem)  # type: ignore[attr-defined]
    return low <= counter <= high and high - low <= RANGE_WIDTH


def recorded(path: Path, bisect_number: int) -> str:
    """The debug info the probe recorded for `bisect_number` ("" when none)."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return ""
    for line in reversed(lines):
        number, _, info = line.partition("=")
        if number == str(bisect_number):
            return info
    return ""


def plugin_folder(dest: Path) -> Path:
    """Writes the probe's distribution metadata into `dest` (a folder for sys.path) and returns `dest`."""
    return torch_plugin.plugin_folder(dest, "parity_triage_probe", f"{__name__}:install")
