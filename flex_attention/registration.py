"""`enable_privateuse1_flex_attention()`: the one call a device adapter makes at device init.

It installs the device check and the two autocast kernels. It is idempotent and leaves alone
anything a backend (for example torch_npu) registered first. It imports only the public
FlexAttention module and the HOP module, never Inductor or a kernel package.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable

import torch

from flex_attention.autocast_kernels import (
    AUTOCAST_KEY,
    HopCallable,
    make_backward_kernel,
    make_forward_kernel,
)
from flex_attention.device_check import is_privateuse1_validator, wrap_validator

VALIDATOR = "device validation"
FORWARD_KERNEL = "flex_attention AutocastPrivateUse1 kernel"
BACKWARD_KERNEL = "flex_attention_backward AutocastPrivateUse1 kernel"

# Device adapters may initialise from several threads; check-then-register must not interleave.
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Registration:
    """What one enable call did: `installed` now, `kept` already present (ours or a backend's)."""

    device_type: str
    installed: tuple[str, ...]
    kept: tuple[str, ...]


def enable_privateuse1_flex_attention() -> Registration:
    """Let FlexAttention run on the PrivateUse1 device, eager and under torch.compile with autocast.

    Call it after the backend is registered (renamed, device module set), when the device is
    initialised. Repeated calls are no-ops.
    """
    import torch.nn.attention.flex_attention as api
    from torch._higher_order_ops.flex_attention import flex_attention, flex_attention_backward

    installed: list[str] = []
    kept: list[str] = []
    with _LOCK:
        if is_privateuse1_validator(api._validate_device):
            kept.append(VALIDATOR)
        else:
            api._validate_device = wrap_validator(api._validate_device)
            installed.append(VALIDATOR)
        for label, hop, factory in (
            (FORWARD_KERNEL, flex_attention, make_forward_kernel),
            (BACKWARD_KERNEL, flex_attention_backward, make_backward_kernel),
        ):
            (installed if _register_once(hop, factory) else kept).append(label)
    return Registration(
        device_type=torch._C._get_privateuse1_backend_name(),
        installed=tuple(installed),
        kept=tuple(kept),
    )


def _register_once(hop: Any, factory: Callable[[HopCallable], HopCallable]) -> bool:
    """Register `factory(hop)` for AutocastPrivateUse1; False when a kernel is already there."""
    if hop.has_kernel_for_dispatch_key(AUTOCAST_KEY):
        return False  # ours from an earlier call, or the backend's own: not ours to replace
    hop.py_impl(AUTOCAST_KEY)(factory(hop))  # py_impl also clears the HOP's dispatch cache
    return True
