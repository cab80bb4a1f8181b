"""Finds the adapter for a device type. Adapters are imported lazily, by name, only when asked for."""

from __future__ import annotations

import functools
import importlib

import torch

from compiler.devices.base import DeviceAdapter

# device type -> "module:class"; the one place that names device-specific code.
_ADAPTERS = {
    "cpu": "compiler.devices.cpu:CpuAdapter",
    "cuda": "compiler.devices.cuda:CudaAdapter",
    "npu": "compiler.devices.npu:NpuAdapter",
}
# Any other backend that renamed PrivateUse1 (e.g. openreg) gets the generic adapter under its name.
_PRIVATEUSE1 = "compiler.devices.privateuse1:PrivateUse1Adapter"


def known_devices() -> tuple[str, ...]:
    return tuple(_ADAPTERS)


def _load(spec: str) -> type[DeviceAdapter]:
    module_name, class_name = spec.split(":")
    return getattr(importlib.import_module(module_name), class_name)


@functools.cache
def get_device(device_type: str) -> DeviceAdapter:
    """The adapter for `device_type`; raises ValueError naming the known types for an unknown one."""
    if device_type in _ADAPTERS:
        return _load(_ADAPTERS[device_type])()
    privateuse1 = torch._C._get_privateuse1_backend_name()
    if device_type == privateuse1 and privateuse1 != "privateuseone":
        return _load(_PRIVATEUSE1)(device_type)
    raise ValueError(f"unknown device {device_type!r}; known devices: {', '.join(_ADAPTERS)} "
                     f"(and the PrivateUse1 backend, once a package has renamed it; now {privateuse1!r})")
