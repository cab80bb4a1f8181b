"""`enable_privateuse1_flex_attention()` and the npu entry point, once the device is initialised.

Each test runs in its own process, after the `npu` fixture initialised the device (conftest.py).
The first-call behaviour, and a kernel a backend registered first, are in fresh_process_test.py.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest
import torch
import torch.nn.attention.flex_attention as api
from torch._higher_order_ops.flex_attention import flex_attention, flex_attention_backward

from flex_attention.autocast_kernels import AUTOCAST_KEY
from flex_attention.npu import enable_npu_flex_attention
from flex_attention.registration import (
    BACKWARD_KERNEL,
    FORWARD_KERNEL,
    VALIDATOR,
    enable_privateuse1_flex_attention,
)
from flex_attention.simulated_npu import SIMULATED, ensure_npu_backend, init_npu_device

_HAS_TORCH_NPU = importlib.util.find_spec("torch_npu") is not None

pytestmark = [pytest.mark.own_process, pytest.mark.usefixtures("npu")]


def test_repeated_enable_is_a_no_op() -> None:
    validator = api._validate_device
    kernels = (
        flex_attention.py_kernels[AUTOCAST_KEY],
        flex_attention_backward.py_kernels[AUTOCAST_KEY],
    )
    for _ in range(2):
        registration = enable_privateuse1_flex_attention()
        assert registration.installed == ()
        assert set(registration.kept) == {VALIDATOR, FORWARD_KERNEL, BACKWARD_KERNEL}
        assert registration.device_type == "npu"
    assert api._validate_device is validator
    assert (
        flex_attention.py_kernels[AUTOCAST_KEY],
        flex_attention_backward.py_kernels[AUTOCAST_KEY],
    ) == kernels


def test_device_helper_is_idempotent() -> None:
    first = ensure_npu_backend()
    assert ensure_npu_backend() == first
    assert init_npu_device().installed == ()


@pytest.mark.skipif(_HAS_TORCH_NPU, reason="torch_npu is installed: the simulation is not used")
def test_simulation_installs_our_kernels_on_both_hops() -> None:
    assert ensure_npu_backend() == SIMULATED
    assert flex_attention.py_kernels[AUTOCAST_KEY].__module__ == "flex_attention.autocast_kernels"
    assert (
        flex_attention_backward.py_kernels[AUTOCAST_KEY].__module__
        == "flex_attention.autocast_kernels"
    )


@pytest.mark.skipif(_HAS_TORCH_NPU, reason="torch_npu is installed")
def test_npu_entry_point_uses_the_registered_npu_backend() -> None:
    """With `npu` already registered (here: simulated) the entry point imports nothing and enables on it.

    Without a registered backend it needs the real torch_npu: npu_adapter_test.py.
    """
    registration = enable_npu_flex_attention()
    assert registration.device_type == "npu"
    assert registration.installed == ()  # the fixture enabled it already
    assert "torch_npu" not in sys.modules
