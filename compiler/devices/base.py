"""What the harness needs from a device: one adapter per device type, found through the registry."""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Iterator

import torch


@dataclass(frozen=True)
class Availability:
    ok: bool
    reason: str = ""


@dataclass(frozen=True)
class DeviceInfo:
    """Provenance: what the device is, keyed by capability rather than marketing name alone."""

    type: str
    name: str
    arch: str
    count: int


class DeviceAdapter(ABC):
    """Device-specific behaviour behind one interface; common code never imports an adapter directly."""

    type: str
    # Peak memory as the community reads it on this device ("" where it cannot be read: compression 0).
    memory_method: str = ""

    @abstractmethod
    def availability(self) -> Availability: ...

    @abstractmethod
    def info(self) -> DeviceInfo: ...

    def synchronize(self) -> None:
        """Waits for queued device work (a no-op on the host)."""

    def reset_peak_memory(self) -> None:
        """Starts a new peak-memory window."""

    def peak_memory_gb(self) -> float:
        """Peak memory since the last reset, in GB (1e9 bytes); 0 where unmeasurable."""
        return 0.0

    def empty_cache(self) -> None:
        """Returns cached allocator blocks to the device."""

    def is_oom(self, exc: BaseException) -> bool:
        return isinstance(exc, torch.OutOfMemoryError)

    @property
    def default_amp_dtype(self) -> torch.dtype:
        """The dtype torch.autocast picks on this device when none is given (the community's "amp")."""
        return torch.get_autocast_dtype(self.type)

    @property
    def has_optimizer(self) -> bool:
        """The community creates an optimizer for training only on accelerators, never on CPU."""
        return True

    def prepare_deterministic_runs(self) -> None:
        """Process-wide set-up that deterministic algorithms need on this device; called in a model process that
        checks accuracy, after its timing and before its accuracy work (it may slow what runs after it)."""

    @contextlib.contextmanager
    def determinism(self) -> Iterator[None]:
        """Device knobs that make repeated eager runs bit-identical (and are not Dynamo guards)."""
        yield

    def compile_options(self, device_graphs: bool, device_backend: str | None) -> dict[str, Any]:
        """torch.compile(options=...) entries this device needs for an Inductor backend.

        device_graphs: capture the compiled graph into device graphs (CUDA graphs; ACL graphs on NPU).
        device_backend: the device's own Inductor codegen backend, for devices that offer a choice.
        """
        if device_backend is not None:
            raise ValueError(f"device {self.type} has no Inductor codegen backends to choose from, "
                             f"but {device_backend!r} was asked for: use a backend without device_backend")
        # Inductor's graph capture switch; devices without graphs ignore it.
        return {"triton.cudagraphs": device_graphs}
