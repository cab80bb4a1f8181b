"""The npu device adapter's preparation enables FlexAttention (the wiring in flex_attention/npu.py).

Importing flex_attention.npu registers `enable_npu_flex_attention` as an npu initialiser
(compiler/devices/npu_hooks.py); `NpuAdapter.availability()` runs the registered initialisers through
`prepare()` once the `npu` backend exists. Each test renames PrivateUse1 (or must start unrenamed), so
each runs in its own process; none uses the `npu` fixture, which would enable FlexAttention itself.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest
import torch
import torch.nn.attention.flex_attention as api
from torch._higher_order_ops.flex_attention import flex_attention, flex_attention_backward
from torch._subclasses.fake_tensor import FakeTensorMode

from compiler.devices.npu_hooks import NPU_INITIALIZERS, Initializers
from compiler.devices.registry import get_device
from compiler.devices.simulated_privateuse1 import activate_npu
from flex_attention.autocast_kernels import AUTOCAST_KEY
from flex_attention.device_check import is_privateuse1_validator
from flex_attention.npu import INITIALIZER, enable_npu_flex_attention
from flex_attention.registration import BACKWARD_KERNEL, FORWARD_KERNEL, VALIDATOR, Registration

_HAS_TORCH_NPU = importlib.util.find_spec("torch_npu") is not None

pytestmark = [
    pytest.mark.own_process,
    pytest.mark.skipif(_HAS_TORCH_NPU, reason="torch_npu is installed: the simulated device is not used"),
]


def _enabled() -> bool:
    return (is_privateuse1_validator(api._validate_device)
            and flex_attention.has_kernel_for_dispatch_key(AUTOCAST_KEY)
            and flex_attention_backward.has_kernel_for_dispatch_key(AUTOCAST_KEY))


def _assert_flex_attention_runs_on_npu_under_autocast() -> None:
    with FakeTensorMode():
        q, k, v = (torch.randn(1, 2, 128, 16, device="npu") for _ in range(3))
        with torch.autocast("npu", dtype=torch.bfloat16):
            out = api.flex_attention(q, k, v)
    assert (out.device.type, out.dtype) == ("npu", torch.bfloat16)


def test_adapter_preparation_enables_flex_attention_on_the_simulated_npu() -> None:
    assert activate_npu() == "simulated"
    assert not _enabled(), "the device alone must not enable FlexAttention"
    adapter = get_device("npu")
    assert adapter.initializers is NPU_INITIALIZERS
    assert INITIALIZER in NPU_INITIALIZERS.registered()  # importing flex_attention.npu registered it

    availability = adapter.availability()  # what the harness asks first: it prepares the device
    assert not availability.ok and "CPU simulation" in availability.reason

    registration = NPU_INITIALIZERS.results()[INITIALIZER]
    assert isinstance(registration, Registration)
    assert registration.device_type == "npu"
    assert set(registration.installed) == {VALIDATOR, FORWARD_KERNEL, BACKWARD_KERNEL}
    assert registration.kept == ()
    assert _enabled()
    assert flex_attention.py_kernels[AUTOCAST_KEY].__module__ == "flex_attention.autocast_kernels"
    _assert_flex_attention_runs_on_npu_under_autocast()

    assert adapter.prepare()[INITIALIZER] is registration  # once per process: a second preparation reruns nothing
    assert "torch_npu" not in sys.modules


def test_an_initialiser_registered_after_preparation_runs_at_once() -> None:
    NpuAdapter = type(get_device("npu"))  # noqa: N806 (through the registry: ci/layering_test.py)
    activate_npu()
    initializers = Initializers("npu")
    adapter = NpuAdapter(initializers)
    assert adapter.prepare() == {}
    assert not _enabled()
    initializers.register(INITIALIZER, enable_npu_flex_attention)
    assert _enabled()
    assert set(initializers.results()[INITIALIZER].installed) == {VALIDATOR, FORWARD_KERNEL, BACKWARD_KERNEL}
    _assert_flex_attention_runs_on_npu_under_autocast()


def test_a_failing_initialiser_makes_the_device_unavailable_with_its_name() -> None:
    NpuAdapter = type(get_device("npu"))  # noqa: N806 (through the registry: ci/layering_test.py)
    activate_npu()
    initializers = Initializers("npu")

    def broken() -> None:
        raise ValueError("no CANN")

    initializers.register("broken", broken)
    availability = NpuAdapter(initializers).availability()
    assert not availability.ok
    assert availability.reason == "npu initialiser 'broken' failed: ValueError: no CANN"


def test_npu_entry_point_needs_real_torch_npu_and_fakes_nothing() -> None:
    """Without a registered `npu` backend, the entry point (and so the adapter) creates no device."""
    with pytest.raises(RuntimeError, match="needs the real torch_npu"):
        enable_npu_flex_attention()
    assert "torch_npu" not in sys.modules
    assert torch._C._get_privateuse1_backend_name() == "privateuseone"
    assert not _enabled()
    assert not get_device("npu").availability().ok
    assert NPU_INITIALIZERS.results() == {}  # no backend: nothing was prepared
    with pytest.raises(RuntimeError, match="cannot prepare npu"):
        get_device("npu").prepare()
