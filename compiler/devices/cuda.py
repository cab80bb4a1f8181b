"""NVIDIA GPUs through torch.cuda."""

from __future__ import annotations

import contextlib
from typing import Iterator

import torch

from compiler.devices.base import Availability, DeviceAdapter, DeviceInfo


class CudaAdapter(DeviceAdapter):
    type = "cuda"
    memory_method = "cuda.max_memory_allocated"

    def availability(self) -> Availability:
        if not torch.cuda.is_available():
            return Availability(False, "torch.cuda.is_available() is False: no NVIDIA GPU or driver on this machine")
        return Availability(True)

    def info(self) -> DeviceInfo:
        major, minor = torch.cuda.get_device_capability()
        return DeviceInfo(
            type="cuda", name=torch.cuda.get_device_name(), arch=f"sm{major}{minor}", count=torch.cuda.device_count()
        )

    def synchronize(self) -> None:
        torch.cuda.synchronize()

    def reset_peak_memory(self) -> None:
        torch.cuda.reset_peak_memory_stats()

    def peak_memory_gb(self) -> float:
        return torch.cuda.max_memory_allocated() / 1e9

    def empty_cache(self) -> None:
        torch.cuda.empty_cache()

    @contextlib.contextmanager
    def determinism(self) -> Iterator[None]:
        saved = (torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark, torch.backends.cudnn.allow_tf32)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        torch.backends.cudnn.allow_tf32 = False
        try:
            yield
        finally:
            (torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark, torch.backends.cudnn.allow_tf32) = saved
