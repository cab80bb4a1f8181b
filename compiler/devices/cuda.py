"""NVIDIA GPUs through torch.cuda."""

from __future__ import annotations

import contextlib
import os
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

    def prepare_deterministic_runs(self) -> None:
        # PyTorch's deterministic mode refuses cuBLAS unless CUBLAS_WORKSPACE_CONFIG is set when its first cuBLAS
        # op runs (it reads the variable once). cuBLAS needs it only for several streams: on one stream it is
        # bit-reproducible by design (NVIDIA's reproducibility note). Set before CUDA started, the variable made
        # eager deit_base 2.3-2.5x slower on the H200 (14.8-15.7 vs 6.3 ms, suites/timm/reference/README.md), which
        # skewed the single process's speedups; so this thread's cuBLAS handle is made first, without it.
        torch.cuda.current_blas_handle()
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

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
