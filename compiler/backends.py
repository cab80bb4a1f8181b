"""The compile-backend registry (data in backend_table.bzl) and how to apply a backend to a function."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from compiler.starlark_data import load_bzl_literals

TABLE_PATH = Path(__file__).with_name("backend_table.bzl")


@dataclass(frozen=True)
class Backend:
    name: str
    devices: tuple[str, ...]
    modes: tuple[str, ...]
    hud_compiler: str
    torch_backend: str | None
    inductor_options: dict[str, Any]
    presubmit: bool

    @property
    def compiles(self) -> bool:
        return self.torch_backend is not None

    def unsupported_reason(self, device: str, mode: str) -> str | None:
        """Why this backend cannot run `mode` on `device`, or None when it can."""
        if device not in self.devices:
            return f"backend {self.name} does not run on {device} (runs on: {', '.join(self.devices)})"
        if mode not in self.modes:
            return f"backend {self.name} does not support {mode}"
        return None

    def compile(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """`fn` compiled with this backend (eager returns it unchanged)."""
        if self.torch_backend is None:
            return fn
        import torch

        options = dict(self.inductor_options) if self.torch_backend == "inductor" else None
        return torch.compile(fn, backend=self.torch_backend, options=options)


@functools.cache
def all_backends() -> dict[str, Backend]:
    table = load_bzl_literals(TABLE_PATH)["BACKENDS"]
    return {
        name: Backend(
            name=name,
            devices=tuple(spec["devices"]),
            modes=tuple(spec["modes"]),
            hud_compiler=spec["hud_compiler"],
            torch_backend=spec["torch_backend"],
            inductor_options=dict(spec["inductor_options"]),
            presubmit=spec["presubmit"],
        )
        for name, spec in table.items()
    }


def get_backend(name: str) -> Backend:
    backends = all_backends()
    if name not in backends:
        raise ValueError(f"unknown backend {name!r}; known backends: {', '.join(sorted(backends))}")
    return backends[name]
