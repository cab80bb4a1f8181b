"""The triage's one time limit: every subprocess gets what is left of it, and each step's wall time is kept."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Iterator

# Below this many seconds a model run cannot even import torch: starting one would only waste the rest.
MIN_RUN_S = 1.0


class GaveUp(Exception):
    """The time limit was reached; the message says where."""


@dataclass
class Budget:
    limit_s: float
    start: float = field(default_factory=time.monotonic)
    step_wall_s: dict[str, float] = field(default_factory=dict)

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def remaining(self) -> float:
        return max(0.0, self.limit_s - self.elapsed())

    def exhausted(self) -> bool:
        return self.remaining() < MIN_RUN_S

    def left_for(self, what: str) -> float:
        """The seconds left for `what` (a subprocess about to start); GaveUp when too little is left to start it."""
        left = self.remaining()
        if left < MIN_RUN_S:
            raise GaveUp(f"the {self.limit_s:g} s limit was reached before {what}")
        return left

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Adds the block's wall time to step_wall_s[name], also when it ends by GaveUp."""
        start = time.monotonic()
        try:
            yield
        finally:
            self.step_wall_s[name] = self.step_wall_s.get(name, 0.0) + time.monotonic() - start

    @contextlib.contextmanager
    def stopped_by_sigterm(self) -> Iterator[None]:
        """Within the block, SIGTERM (a caller's own limit: `timeout`, a CI job's) ends the triage as its limit does,
        by GaveUp, so that the record is still written and its runs' processes killed. Python runs signal handlers
        in the main thread only; elsewhere the block runs as it is."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def stop(signum: int, frame: object) -> None:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # one stop: a second SIGTERM must not break the cleanup
            raise GaveUp(f"SIGTERM at {self.elapsed():.0f} s of the {self.limit_s:g} s limit (a caller's own limit)")

        previous = signal.signal(signal.SIGTERM, stop)
        try:
            yield
        finally:
            signal.signal(signal.SIGTERM, previous)
