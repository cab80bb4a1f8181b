"""Finds the adapter for a device type. Adapters are imported lazily, by name, only when asked for."""

from __future__ import annotations

import functools
import importlib

from compiler.devices.base import DeviceAdapter

# device type -> "module:class"; the one place that names device-specific code.
_ADAPTERS = {
    "cpu": "compiler.devices.cpu:CpuAdapter",
    "cuda": "compiler.devices.cuda:CudaAdapter",
}


def known_devices() -> tuple[str, ...]:
    return tuple(_ADAPTERS)


@functools.cache
def get_device(device_type: str) -> DeviceAdapter:
    """The adapter for `device_type`; raises ValueError naming the known types for an unknown one."""
    if device_type not in _ADAPTERS:
        raise ValueError(f"unknown device {device_type!r}; known devices: {', '.join(_ADAPTERS)}")
    module_name, class_name = _ADAPTERS[device_type].split(":")
    return getattr(importlib.import_module(module_name), class_name)()
