"""The compile-backend registry (data in backend_table.bzl) and how to apply a backend to a function."""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from compiler.starlark_data import load_bzl_literals

if TYPE_CHECKING:
    from compiler.devices.base import DeviceAdapter

TABLE_PATH = Path(__file__).with_name("backend_table.bzl")
_KEYS = {"devices", "modes", "hud_compiler", "torch_backend", "inductor_options", "device_graphs", "device_backend",
         "requires", "presubmit"}


@dataclass(frozen=True)
class Backend:
    name: str
    devices: tuple[str, ...]
    modes: tuple[str, ...]
    hud_compiler: str
    torch_backend: str | None
    inductor_options: dict[str, Any]
    presubmit: bool
    device_graphs: bool = False
    device_backend: str | None = None
    requires: tuple[str, ...] = ()

    @property
    def compiles(self) -> bool:
        return self.torch_backend is not None

    @property
    def is_inductor(self) -> bool:
        return self.torch_backend == "inductor"

    def unsupported_reason(self, device: str, mode: str) -> str | None:
        """Why this backend cannot run `mode` on `device` here, or None when it can."""
        if device not in self.devices:
            return f"backend {self.name} does not run on {device} (runs on: {', '.join(self.devices)})"
        if mode not in self.modes:
            return f"backend {self.name} does not support {mode}"
        missing = [package for package in self.requires if importlib.util.find_spec(package) is None]
        if missing:
            return (f"backend {self.name} needs {', '.join(missing)}, not installed here "
                    f"(the NPU dependency set is requirements-npu.lock, used with --config=npu)")
        return None

    def compile_options(self, device: DeviceAdapter | None) -> dict[str, Any] | None:
        """torch.compile(options=...) for this backend on `device` (None for non-Inductor backends)."""
        if not self.is_inductor:
            return None
        if device is None:
            if self.device_backend is not None:
                raise ValueError(f"backend {self.name} selects a device codegen backend: pass the device adapter")
            device_options = {"triton.cudagraphs": self.device_graphs}
        else:
            device_options = device.compile_options(self.device_graphs, self.device_backend)
        return {**self.inductor_options, **device_options}

    def compile(self, fn: Callable[..., Any], device: DeviceAdapter | None = None) -> Callable[..., Any]:
        """`fn` compiled with this backend for `device` (eager returns it unchanged)."""
        if self.torch_backend is None:
            return fn
        import torch

        return torch.compile(fn, backend=self.torch_backend, options=self.compile_options(device))


@functools.cache
def all_backends() -> dict[str, Backend]:
    table = load_bzl_literals(TABLE_PATH)["BACKENDS"]
    backends = {}
    for name, spec in table.items():
        if set(spec) != _KEYS:
            raise ValueError(f"{TABLE_PATH}: backend {name!r} must have exactly the keys {sorted(_KEYS)}; "
                             f"missing {sorted(_KEYS - set(spec))}, unknown {sorted(set(spec) - _KEYS)}")
        backends[name] = Backend(
            name=name,
            devices=tuple(spec["devices"]),
            modes=tuple(spec["modes"]),
            hud_compiler=spec["hud_compiler"],
            torch_backend=spec["torch_backend"],
            inductor_options=dict(spec["inductor_options"]),
            presubmit=spec["presubmit"],
            device_graphs=spec["device_graphs"],
            device_backend=spec["device_backend"],
            requires=tuple(spec["requires"]),
        )
    return backends


def get_backend(name: str) -> Backend:
    backends = all_backends()
    if name not in backends:
        raise ValueError(f"unknown backend {name!r}; known backends: {', '.join(sorted(backends))}")
    return backends[name]
