"""Cores of their own for timing: nothing else of the run competes for the CPU that launches the timed kernels.

The launcher splits the cores it may use in two: a few timing cores and the rest. Every model process starts on
the rest, so its compiles (and its compile workers, which inherit the mask) and every other model's stay there.
Only the timing loop moves to the timing cores, every thread of the process with it, and moves back after. With
models side by side, one times at a time (suites/common/device_turns.py), so the timing cores are its alone.
On the CPU device the timed work is the host's own, so nothing moves there: the run keeps all its cores.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

ENV_VAR = "PARITY_TIMING_CPUS"  # "<timing cores>/<other cores>", e.g. "14,15/0-13"; unset: no isolation


@dataclass(frozen=True)
class CpuSplit:
    timing: frozenset[int]
    other: frozenset[int]

    @property
    def isolated(self) -> bool:
        return bool(self.timing) and bool(self.other) and not (self.timing & self.other)

    def to_env(self) -> str:
        return f"{_format(self.timing)}/{_format(self.other)}"

    @classmethod
    def from_env(cls, text: str) -> CpuSplit:
        timing, sep, other = text.partition("/")
        if not sep:
            raise ValueError(f"{ENV_VAR} must be '<timing cores>/<other cores>', e.g. '14,15/0-13', not {text!r}")
        return cls(_parse(timing), _parse(other))


def timing_cores_for(available: int) -> int:
    """How many cores timing takes: two on a large host (the launching thread and the driver's), else one; none on
    a single core, where nothing can be kept apart."""
    return 2 if available >= 8 else (1 if available >= 2 else 0)


def split(available: frozenset[int] | None = None, timing_cores: int | None = None) -> CpuSplit:
    """The highest-numbered cores for timing, the rest for everything else."""
    cores = sorted(available if available is not None else os.sched_getaffinity(0))
    count = timing_cores_for(len(cores)) if timing_cores is None else timing_cores
    if not 0 <= count < len(cores):
        raise ValueError(f"cannot keep {count} of {len(cores)} cores for timing: at least one must stay for the rest")
    if count == 0:
        return CpuSplit(frozenset(), frozenset(cores))
    return CpuSplit(frozenset(cores[-count:]), frozenset(cores[:-count]))


def from_environment() -> CpuSplit | None:
    text = os.environ.get(ENV_VAR, "")
    return CpuSplit.from_env(text) if text else None


def move_process(cores: frozenset[int]) -> None:
    """Puts every thread of this process on `cores` (sched_setaffinity acts on one thread; new ones inherit)."""
    for task in Path("/proc/self/task").iterdir():
        with contextlib.suppress(ProcessLookupError):  # a thread that ended meanwhile
            os.sched_setaffinity(int(task.name), cores)


@contextlib.contextmanager
def on_timing_cores(cpus: CpuSplit | None) -> Iterator[None]:
    """Runs the block on the timing cores, then back on the others; without a split, where it is."""
    if cpus is None or not cpus.isolated:
        yield
        return
    move_process(cpus.timing)
    try:
        yield
    finally:
        move_process(cpus.other)


def _format(cores: frozenset[int]) -> str:
    return ",".join(str(core) for core in sorted(cores))


def _parse(text: str) -> frozenset[int]:
    cores: set[int] = set()
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        try:
            cores.update(range(int(first), int(last or first) + 1))
        except ValueError:
            raise ValueError(f"{ENV_VAR}: {part!r} is not a core number or range (e.g. 3 or 0-13)") from None
    return frozenset(cores)
