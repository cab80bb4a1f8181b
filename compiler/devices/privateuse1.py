"""A generic PrivateUse1 device (an out-of-tree backend that renamed PrivateUse1, e.g. openreg).

Uses only what every PrivateUse1 backend registers: its `torch.<name>` module. Optional functions
(synchronize, memory statistics) are used when the backend's module has them; where it does not,
the adapter says so instead of inventing a value (peak memory then reads 0: no compression ratio).
"""

from __future__ import annotations

from typing import Any

import torch

from compiler.devices.base import Availability, DeviceAdapter, DeviceInfo
from compiler.devices.simulated_privateuse1 import is_simulated


def privateuse1_name() -> str:
    """The current PrivateUse1 backend name ("privateuseone" until a backend renames it)."""
    return torch._C._get_privateuse1_backend_name()


class PrivateUse1Adapter(DeviceAdapter):
    """The adapter for whatever backend owns PrivateUse1 in this process, under its own name."""

    memory_method = ""

    def __init__(self, name: str) -> None:
        self.type = name

    def _module(self) -> Any:
        return getattr(torch, self.type, None)

    def availability(self) -> Availability:
        current = privateuse1_name()
        if current != self.type:
            return Availability(False, f"no backend named {self.type!r} owns PrivateUse1 in this process (it is "
                                       f"named {current!r}): import the backend's package before asking for it")
        module = self._module()
        if module is None:
            return Availability(False, f"PrivateUse1 is named {self.type!r} but torch.{self.type} is not registered: "
                                       "the backend must call torch._register_device_module")
        if is_simulated(self.type):
            return Availability(False, f"{self.type!r} is the CPU simulation of a PrivateUse1 device "
                                       "(compiler/devices/simulated_privateuse1.py): it has no kernels, so nothing "
                                       "can run on it; use a machine with the real device")
        if not module.is_available():
            return Availability(False, f"torch.{self.type}.is_available() is False: no device or driver")
        return Availability(True)

    def info(self) -> DeviceInfo:
        module = self._module()
        name_fn = getattr(module, "get_device_name", None)
        name = name_fn() if name_fn is not None else self.type
        return DeviceInfo(type=self.type, name=name, arch=name, count=module.device_count())

    def _call_optional(self, function: str, *args: Any) -> Any:
        fn = getattr(self._module(), function, None)
        return fn(*args) if fn is not None else None

    def synchronize(self) -> None:
        self._call_optional("synchronize")

    def reset_peak_memory(self) -> None:
        self._call_optional("reset_peak_memory_stats")

    def peak_memory_gb(self) -> float:
        allocated = self._call_optional("max_memory_allocated")
        return allocated / 1e9 if allocated is not None else 0.0

    def empty_cache(self) -> None:
        self._call_optional("empty_cache")
