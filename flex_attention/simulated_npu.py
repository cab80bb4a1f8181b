"""Test-only: an `npu` device for FakeTensor tests on machines without an NPU.

The device itself is compiler/devices/simulated_privateuse1.py (shared with the npu adapter's tests):
PrivateUse1 renamed to `npu` with a Python device module, device guard and hooks, plus the
AutocastPrivateUse1 fallthrough fallback that a real backend registers in C++. After that, fake
tensors, autograd, Dynamo and AOTAutograd work on `npu`. Real `npu` tensors do not: there are no kernels.

The rename is one-way and process-wide, so every helper here is idempotent and all tests go
through `init_npu_device()`. When the real torch_npu is importable it is used instead.
"""

from __future__ import annotations

import torch

from compiler.devices.simulated_privateuse1 import activate_npu
from flex_attention.npu import NPU_BACKEND, enable_npu_flex_attention
from flex_attention.registration import Registration, enable_privateuse1_flex_attention

REAL = "torch_npu"
SIMULATED = "simulated"


def ensure_npu_backend() -> str:
    """Make `npu` usable in this process, once; return REAL (torch_npu) or SIMULATED."""
    current = torch._C._get_privateuse1_backend_name()
    if current not in ("privateuseone", NPU_BACKEND):
        raise RuntimeError(
            f"PrivateUse1 is already named {current!r} in this process, and it can be renamed "
            "only once; run the npu FlexAttention tests in their own process."
        )
    return REAL if activate_npu() == "torch_npu" else SIMULATED


def init_npu_device() -> Registration:
    """Device initialisation as an adapter does it: the device first, then FlexAttention."""
    if ensure_npu_backend() == REAL:
        return enable_npu_flex_attention()
    return enable_privateuse1_flex_attention()
