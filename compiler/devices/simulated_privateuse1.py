"""Test support: a PrivateUse1 device simulated on CPU in pure Python, named `npu` by default.

The simulation renames PrivateUse1 and gives it a Python device module, device guard and hooks
(torch's experimental `_setup_privateuseone_for_python_backend`; a rename alone aborts the process
once autograd sees a fake tensor of the device). It adds the AutocastPrivateUse1 fallthrough fallback
that a real backend registers in C++. After that, fake tensors, autograd, autocast regions, Dynamo and
AOTAutograd work on the device. Real tensors do not: there are no kernels, so anything that must
execute on the device (Inductor codegen, a model run) needs real hardware.

The device module also carries the torch_npu attributes the npu adapter reads (HF32 switches, memory
statistics, the device name), so the adapter's code paths run here without hardware.

The rename is one-way and process-wide: every helper is idempotent, and a process can host only one
PrivateUse1 name. When the real torch_npu is installed, `activate_npu()` uses it instead.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from typing import Literal

import torch

NPU = "npu"
REAL_NPU_PACKAGE = "torch_npu"
SIMULATED_DEVICE_NAME = "simulated PrivateUse1 device (CPU, no kernels)"

_LOCK = threading.Lock()
# The autocast fallback lives as long as this Library object: keep it for the whole process.
_autocast_fallback: torch.library.Library | None = None


class Hf32Switch:
    """torch_npu's `torch.npu.matmul` / `torch.npu.conv`: one `allow_hf32` flag each."""

    def __init__(self, allow_hf32: bool) -> None:
        self.allow_hf32 = allow_hf32


class SimulatedDeviceModule:
    """`torch.<name>` for the simulation: what FakeTensor, autocast, Dynamo and the adapters ask for."""

    def __init__(self) -> None:
        # torch_npu's defaults: matmul HF32 off, conv HF32 on (shared/reference/npu-flex-opinfo.md 4.5).
        self.matmul = Hf32Switch(False)
        self.conv = Hf32Switch(True)
        self.synchronize_calls = 0

    def is_available(self) -> bool:
        return True

    def is_initialized(self) -> bool:
        return True

    def current_device(self) -> int:
        return 0

    def device_count(self) -> int:
        return 2  # two indices, so tests can put tensors on <name>:0 and <name>:1

    def _is_in_bad_fork(self) -> bool:
        return False

    def manual_seed_all(self, seed: int) -> None:
        del seed  # no generator to seed

    def get_amp_supported_dtype(self) -> list[torch.dtype]:
        return [torch.float16, torch.bfloat16, torch.float32]

    def is_bf16_supported(self) -> bool:
        return True

    def get_device_name(self, device: int | None = None) -> str:
        del device
        return SIMULATED_DEVICE_NAME

    def synchronize(self, device: int | None = None) -> None:
        del device
        self.synchronize_calls += 1  # nothing is queued; counted so tests see the adapter call it

    def reset_peak_memory_stats(self, device: int | None = None) -> None:
        del device

    def max_memory_allocated(self, device: int | None = None) -> int:
        del device
        return 0  # no device memory is ever allocated

    def empty_cache(self) -> None:
        pass


def simulate_privateuse1(name: str = NPU) -> SimulatedDeviceModule:
    """Makes `name` a simulated PrivateUse1 device in this process (once) and returns its module.

    Raises RuntimeError when PrivateUse1 already has another name, or when `name` is backed by
    something other than this simulation (e.g. the real torch_npu).
    """
    global _autocast_fallback
    from torch.utils.backend_registration import _setup_privateuseone_for_python_backend

    with _LOCK:
        current = torch._C._get_privateuse1_backend_name()
        if current == "privateuseone":
            _setup_privateuseone_for_python_backend(rename=name, backend_module=SimulatedDeviceModule())
        elif current != name:
            raise RuntimeError(f"PrivateUse1 is already named {current!r} in this process and can be renamed "
                               f"only once; simulate {name!r} in a process of its own")
        module = getattr(torch, name, None)
        if not isinstance(module, SimulatedDeviceModule):
            raise RuntimeError(f"torch.{name} is {type(module).__name__}, not the simulation: the real backend "
                               f"(or another half registration) owns {name!r} in this process")
        if not torch._C._dispatch_has_backend_fallback(torch._C.DispatchKey.AutocastPrivateUse1):
            _autocast_fallback = torch.library.Library("_", "IMPL")
            _autocast_fallback.fallback(torch.library.fallthrough_kernel, "AutocastPrivateUse1")
        return module


def activate_npu() -> Literal["torch_npu", "simulated"]:
    """`npu` in this process: the real torch_npu when installed, else the simulation."""
    if REAL_NPU_PACKAGE in sys.modules:
        return "torch_npu"
    if torch._C._get_privateuse1_backend_name() == "privateuseone" and \
            importlib.util.find_spec(REAL_NPU_PACKAGE) is not None:
        importlib.import_module(REAL_NPU_PACKAGE)
        return "torch_npu"
    simulate_privateuse1(NPU)
    return "simulated"


def is_simulated(name: str) -> bool:
    """Whether `torch.<name>` is this module's simulation (so device code must not execute kernels)."""
    return isinstance(getattr(torch, name, None), SimulatedDeviceModule)
