"""Turn-taking on one device for model processes run side by side (`suites.run --jobs N` with timing).

A process holds the device's turn, an exclusive flock on a file its run shares, for all of its device work,
and gives it up only while PyTorch compiles: a Dynamo frame or a lazily compiled backward, as torch._dynamo's
compile callbacks report them. So no timing overlaps another model's device work, while compilation (host
work, and most of a cold run's wall time) does overlap. The wait for the turn after a compile is counted, so
that compile latency can leave it out, and reported (WAITS_ENV_VAR), so that the launcher's timeout counts a
process's own time only: a sibling that hangs holding the turn must not time out the models waiting behind it.
Device work inside a compile (a pad_mm shape benchmark) is not covered.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path
from typing import Any, Iterator

ENV_VAR = "PARITY_DEVICE_TURNS"  # the shared lock file; unset: the process has the device to itself
WAITS_ENV_VAR = "PARITY_DEVICE_TURN_WAITS"  # where the process reports its waits, so its timeout can leave them out
_COMPILING = frozenset({"DYNAMO", "LAZY_BACKWARD"})  # not CUDAGRAPH_RECORDING: that one runs on the device


class DeviceTurns:
    def __init__(self, lock_path: str | None, waits_path: str | None = None) -> None:
        self.lock_path = lock_path
        self.waits_path = waits_path
        self.waited_s = 0.0  # total time spent waiting for the turn
        self._fd: int | None = None
        self._held = False

    @classmethod
    def from_env(cls) -> DeviceTurns:
        return cls(os.environ.get(ENV_VAR) or None, os.environ.get(WAITS_ENV_VAR) or None)

    @contextlib.contextmanager
    def taken(self) -> Iterator[None]:
        """Holds the turn for the block, except while PyTorch compiles inside it; without a lock file, nothing."""
        if self.lock_path is None:
            yield
            return
        # Opened here, never inherited: a descriptor shared with a forked sibling would share its lock as well.
        self._fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        self._register_callbacks()
        try:
            self._acquire()
            yield
        finally:
            self._remove_callbacks()
            os.close(self._fd)  # closing the descriptor gives the turn back
            self._fd, self._held = None, False

    def reset_dynamo(self) -> None:
        """torch._dynamo.reset(), which drops every compile callback: inside `taken()`, ours are registered again."""
        import torch._dynamo

        torch._dynamo.reset()
        if self._fd is not None:
            self._register_callbacks()

    def _register_callbacks(self) -> None:
        import torch._dynamo

        torch._dynamo.callback_handler.register_start_callback(self._on_compile_start)
        torch._dynamo.callback_handler.register_end_callback(self._on_compile_end)

    def _remove_callbacks(self) -> None:
        import torch._dynamo

        torch._dynamo.callback_handler.remove_start_callback(self._on_compile_start)
        torch._dynamo.callback_handler.remove_end_callback(self._on_compile_end)

    def _acquire(self) -> None:
        if self._fd is None or self._held:
            return
        start = time.perf_counter()
        self._report(waiting_since=time.time())
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        self.waited_s += time.perf_counter() - start
        self._report(waiting_since=0.0)
        self._held = True

    def _report(self, waiting_since: float) -> None:
        """Writes "<seconds waited before> <epoch the current wait began, 0 if none>" for reported_wait_s."""
        if self.waits_path is None:
            return
        partial = f"{self.waits_path}.partial"
        with open(partial, "w", encoding="utf-8") as out:
            out.write(f"{self.waited_s} {waiting_since}")
        os.replace(partial, self.waits_path)  # the launcher never reads half a report

    def _release(self) -> None:
        if self._fd is not None and self._held:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            self._held = False

    def _on_compile_start(self, args: Any) -> None:
        if args.callback_trigger.name in _COMPILING:
            self._release()

    def _on_compile_end(self, args: Any) -> None:
        if args.callback_trigger.name in _COMPILING:
            self._acquire()


def reported_wait_s(waits_path: Path) -> float:
    """Seconds a process has waited for the turn so far, the current wait included, from its report; 0 without one.
    A sibling holding the turn takes this time, so the launcher's timeout leaves it out."""
    try:
        waited, since = (float(field) for field in waits_path.read_text(encoding="utf-8").split())
    except (OSError, ValueError):
        return 0.0
    return waited + (time.time() - since if since else 0.0)


def turn_is_free(lock_path: Path) -> bool:
    """Whether no process holds the turn now (a probe: it takes the turn and gives it straight back)."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # also gives back what the probe took
