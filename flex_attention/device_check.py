"""Exact device validation for FlexAttention inputs on the PrivateUse1 device.

Upstream's `_validate_device` allows a fixed list of device types, so any PrivateUse1 device is
rejected. We wrap it: inputs touching the PrivateUse1 device get our exact check, every other
device goes to the previous validator untouched. `flex_attention` reads the validator as a module
global on every call (Dynamo inlines it too), so replacing the global covers eager and compile.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch import Tensor

Validator = Callable[[Tensor, Tensor, Tensor], None]

# Marks our wrapper so a second enable call can see it is already installed.
_MARK = "_parity_privateuse1_device_check"


def privateuse1_device_error(query: Tensor, key: Tensor, value: Tensor) -> ValueError | None:
    """The error for q/k/v that are not all on one device of the PrivateUse1 backend, else None."""
    backend = torch._C._get_privateuse1_backend_name()
    if query.device.type == key.device.type == value.device.type == backend:
        if query.device == key.device == value.device:
            return None
    return ValueError(
        f"FlexAttention on {backend} needs query, key and value on one {backend} device "
        f"(same type and index), but got query on {query.device}, key on {key.device} and "
        f"value on {value.device}. Move all three to the same {backend} device."
    )


def wrap_validator(previous: Validator) -> Validator:
    """A validator that checks PrivateUse1 inputs exactly and leaves the rest to `previous`."""

    def validate_device(query: Tensor, key: Tensor, value: Tensor) -> None:
        backend = torch._C._get_privateuse1_backend_name()
        if backend not in (query.device.type, key.device.type, value.device.type):
            previous(query, key, value)  # CPU/CUDA/HPU/MPS/...: upstream rules, unchanged
            return
        error = privateuse1_device_error(query, key, value)
        if error is not None:
            raise error

    setattr(validate_device, _MARK, True)
    validate_device.previous_validator = previous  # type: ignore[attr-defined]
    return validate_device


def is_privateuse1_validator(fn: object) -> bool:
    """True when `fn` is a validator made by `wrap_validator`."""
    return bool(getattr(fn, _MARK, False))
