"""AutocastPrivateUse1 kernels for the `flex_attention` and `flex_attention_backward` HOPs.

Upstream gives these higher-order ops autocast kernels for CPU and CUDA only, and
AutocastPrivateUse1 is not among the keys a HOP falls through by default, so under
`torch.autocast("<privateuse1 name>")` dispatch stops with "could not find kernel for
HigherOrderOperator ... AutocastPrivateUse1". Each kernel excludes its own key before calling the
HOP again, so the redispatch lands on the next key (Autograd, modes, ...) instead of recursing.
"""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch._C import DispatchKey, DispatchKeySet

AUTOCAST_KEY = DispatchKey.AutocastPrivateUse1
_OWN_KEY = DispatchKeySet(AUTOCAST_KEY)

HopCallable = Callable[..., Any]


def cast_for_autocast(value: Any, device_type: str, dtype: torch.dtype) -> Any:
    """Autocast's input rule: only floating tensors of `device_type`, and never float64."""
    if (
        isinstance(value, torch.Tensor)
        and value.is_floating_point()
        and value.dtype != torch.float64
        and value.device.type == device_type
    ):
        return value.to(dtype)
    return value


def make_forward_kernel(hop: HopCallable) -> HopCallable:
    """Kernel that casts only query, key and value to the autocast dtype, then redispatches.

    Score-mod and mask-mod buffers, the block mask and the scale pass through as they are: they
    feed user functions whose dtype rules autocast must not rewrite.
    """

    def flex_attention_autocast_privateuse1(
        query: Any, key: Any, value: Any, *rest: Any, **kwargs: Any
    ) -> Any:
        device_type = torch._C._get_privateuse1_backend_name()
        dtype = torch.get_autocast_dtype(device_type)
        query, key, value = (cast_for_autocast(t, device_type, dtype) for t in (query, key, value))
        with torch._C._ExcludeDispatchKeyGuard(_OWN_KEY):
            return hop(query, key, value, *rest, **kwargs)

    return flex_attention_autocast_privateuse1


def make_backward_kernel(hop: HopCallable) -> HopCallable:
    """Kernel that redispatches unchanged: the forward graph already holds the casts, so saved
    tensors and incoming gradients must keep the dtypes they were saved with."""

    def flex_attention_backward_autocast_privateuse1(*args: Any, **kwargs: Any) -> Any:
        with torch._C._ExcludeDispatchKeyGuard(_OWN_KEY):
            return hop(*args, **kwargs)

    return flex_attention_backward_autocast_privateuse1
