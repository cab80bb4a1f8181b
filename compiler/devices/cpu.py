"""The host CPU."""

from __future__ import annotations

import contextlib
import platform
from typing import Iterator

import psutil
import torch

from compiler.devices.base import Availability, DeviceAdapter, DeviceInfo


class CpuAdapter(DeviceAdapter):
    type = "cpu"
    # As upstream: the process's current RSS, which is not a true peak.
    memory_method = "cpu.process_rss"

    def availability(self) -> Availability:
        return Availability(True)

    def info(self) -> DeviceInfo:
        return DeviceInfo(type="cpu", name=platform.processor() or platform.machine(), arch=platform.machine(), count=1)

    def peak_memory_gb(self) -> float:
        return psutil.Process().memory_info().rss / 1e9

    @property
    def has_optimizer(self) -> bool:
        return False

    @contextlib.contextmanager
    def determinism(self) -> Iterator[None]:
        saved = torch.backends.mkldnn.deterministic
        torch.backends.mkldnn.deterministic = True
        try:
            yield
        finally:
            torch.backends.mkldnn.deterministic = saved
