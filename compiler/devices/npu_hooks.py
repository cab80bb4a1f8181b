"""Initialisers that run when the npu device is prepared, registered by packages above compiler.

compiler must not import the packages that build on it (flex_attention, suites), so the npu adapter cannot
call their device set-up itself. Instead such a package registers a callable here, usually when its npu
module is imported, and `NpuAdapter.prepare()` (compiler/devices/npu.py) runs every registered one once the
`npu` backend exists in the process. An initialiser registered after the device was prepared runs at once,
so the order of the import and the preparation does not matter.

This module has no device code and imports nothing device-specific: anything may import it.
"""

from __future__ import annotations

import threading
from typing import Any, Callable


class Initializers:
    """Named, once-per-process initialisers for one device, with what each returned."""

    def __init__(self, device: str) -> None:
        self.device = device
        self._lock = threading.RLock()
        self._registered: dict[str, Callable[[], Any]] = {}
        self._results: dict[str, Any] = {}
        self._prepared = False

    def register(self, name: str, initializer: Callable[[], Any]) -> None:
        """Adds `initializer` under `name` (again with the same callable: no-op); runs it now if already prepared."""
        with self._lock:
            known = self._registered.get(name)
            if known is not None and known is not initializer:
                raise ValueError(f"a different {self.device} initialiser is already registered as {name!r}")
            self._registered[name] = initializer
            if self._prepared:
                self._run(name)

    def registered(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._registered)

    def run_all(self) -> dict[str, Any]:
        """Runs every initialiser that has not run yet, in registration order; returns {name: its result}.

        One that raises is not marked done (the next call tries it again); the error names it.
        """
        with self._lock:
            self._prepared = True
            for name in self._registered:
                self._run(name)
            return dict(self._results)

    def results(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._results)

    def _run(self, name: str) -> None:
        if name in self._results:
            return
        try:
            self._results[name] = self._registered[name]()
        except Exception as exc:
            raise RuntimeError(f"{self.device} initialiser {name!r} failed: {type(exc).__name__}: {exc}") from exc


# The npu device's initialisers (used by compiler.devices.npu.NpuAdapter).
NPU_INITIALIZERS = Initializers("npu")


def register_npu_initializer(name: str, initializer: Callable[[], Any]) -> None:
    """Runs `initializer` when the npu device is prepared (or now, if it already was)."""
    NPU_INITIALIZERS.register(name, initializer)
