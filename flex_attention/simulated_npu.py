"""Test-only: an `npu` device for FakeTensor tests on machines without an NPU.

The simulation renames PrivateUse1 to `npu` and gives it a Python device module, device guard and
hooks (through torch's experimental `_setup_privateuseone_for_python_backend`; a rename alone
aborts the process once autograd sees a fake `npu` tensor). It also adds the AutocastPrivateUse1
fallthrough fallback that a real backend registers in C++. After that, fake tensors, autograd,
Dynamo and AOTAutograd work on `npu`. Real `npu` tensors do not: there are no kernels.

The rename is one-way and process-wide, so every helper here is idempotent and all tests go
through `init_npu_device()`. When the real torch_npu is importable it is used instead.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading

import torch
from torch.utils.backend_registration import _setup_privateuseone_for_python_backend

from flex_attention.npu import NPU_BACKEND, enable_npu_flex_attention
from flex_attention.registration import Registration, enable_privateuse1_flex_attention

REAL = "torch_npu"
SIMULATED = "simulated"

_LOCK = threading.Lock()
# The fallback lives as long as this Library object; keep it for the whole process.
_autocast_fallback: torch.library.Library | None = None


class SimulatedNpuModule:
    """`torch.npu` for the simulation: just what FakeTensor, autocast and Dynamo ask for."""

    def is_available(self) -> bool:
        return True

    def is_initialized(self) -> bool:
        return True

    def current_device(self) -> int:
        return 0

    def device_count(self) -> int:
        return 2  # two indices, so tests can put tensors on npu:0 and npu:1

    def _is_in_bad_fork(self) -> bool:
        return False

    def manual_seed_all(self, seed: int) -> None:
        del seed  # no generator to seed

    def get_amp_supported_dtype(self) -> list[torch.dtype]:
        return [torch.float16, torch.bfloat16, torch.float32]

    def is_bf16_supported(self) -> bool:
        return True


def ensure_npu_backend() -> str:
    """Make `npu` usable in this process, once; return REAL (torch_npu) or SIMULATED."""
    global _autocast_fallback
    with _LOCK:
        if torch._C._get_privateuse1_backend_name() == "privateuseone":
            if importlib.util.find_spec(REAL) is not None:
                importlib.import_module(REAL)
            else:
                _setup_privateuseone_for_python_backend(
                    rename=NPU_BACKEND, backend_module=SimulatedNpuModule()
                )
        backend = torch._C._get_privateuse1_backend_name()
        if backend != NPU_BACKEND:
            raise RuntimeError(
                f"PrivateUse1 is already named {backend!r} in this process, and it can be renamed "
                "only once; run the npu FlexAttention tests in their own process."
            )
        if REAL in sys.modules:
            return REAL
        if not hasattr(getattr(torch, NPU_BACKEND, None), "get_amp_supported_dtype"):
            raise RuntimeError(
                "PrivateUse1 is named 'npu' but torch.npu has no get_amp_supported_dtype: "
                "something else half-registered the device; use init_npu_device() only."
            )
        if not torch._C._dispatch_has_backend_fallback(torch._C.DispatchKey.AutocastPrivateUse1):
            _autocast_fallback = torch.library.Library("_", "IMPL")
            _autocast_fallback.fallback(torch.library.fallthrough_kernel, "AutocastPrivateUse1")
        return SIMULATED


def init_npu_device() -> Registration:
    """Device initialisation as an adapter does it: the device first, then FlexAttention."""
    if ensure_npu_backend() == REAL:
        return enable_npu_flex_attention()
    return enable_privateuse1_flex_attention()
