"""Device validation: exact on the PrivateUse1 device, unchanged everywhere else.

Each test runs in its own process, after the `npu` fixture initialised the device (conftest.py).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable

import pytest
import torch
import torch.nn.attention.flex_attention as api
from torch._subclasses.fake_tensor import FakeTensorMode

from flex_attention.device_check import is_privateuse1_validator

_OURS = "FlexAttention on npu needs query, key and value on one npu device"
_MIXED = [
    ("npu:0", "npu:1", "npu:0"),
    ("npu:0", "npu:0", "npu:1"),
    ("npu:1", "npu:0", "npu:0"),
    ("npu:0", "cpu", "npu:0"),
    ("cpu", "npu:0", "cpu"),
    ("cpu", "cpu", "npu:0"),
]
_OTHER_DEVICE_TYPES = ["cpu", "cuda", "xpu", "hpu", "mps", "meta"]

pytestmark = [pytest.mark.own_process, pytest.mark.usefixtures("npu")]


def _fake_qkv(devices: tuple[str, str, str]) -> list[torch.Tensor]:
    return [torch.randn(1, 2, 128, 16, device=d) for d in devices]


def _outcome(fn: Callable[..., None], *args: Any) -> tuple[str, str]:
    try:
        fn(*args)
    except Exception as error:  # noqa: BLE001 (the outcome is what we compare)
        return type(error).__name__, str(error)
    return "ok", ""


def test_validator_is_installed_over_the_previous_one() -> None:
    assert is_privateuse1_validator(api._validate_device)
    assert not is_privateuse1_validator(api._validate_device.previous_validator)


def test_validator_rejects_mixed_devices_clearly() -> None:
    for devices in _MIXED:
        with FakeTensorMode():
            q, k, v = _fake_qkv(devices)
            with pytest.raises(ValueError) as info:
                api._validate_device(q, k, v)
        message = str(info.value)
        assert _OURS in message, devices
        for device in devices:
            assert device in message, (devices, message)


def test_public_api_rejects_mixed_devices_clearly() -> None:
    for devices in _MIXED:
        with FakeTensorMode():
            q, k, v = _fake_qkv(devices)
            with pytest.raises(ValueError, match="same device"):
                api.flex_attention(q, k, v)


def test_compiled_call_keeps_the_mixed_device_error() -> None:
    torch._dynamo.reset()
    compiled = torch.compile(api.flex_attention, backend="aot_eager", fullgraph=True)
    with FakeTensorMode():
        q, k, v = _fake_qkv(("npu:0", "npu:1", "npu:0"))
        with pytest.raises(Exception, match="same device"):
            compiled(q, k, v)


def test_validator_accepts_one_npu_device() -> None:
    for index in (0, 1):
        with FakeTensorMode():
            q, k, v = _fake_qkv((f"npu:{index}",) * 3)
            for t in (q, k, v):
                t.requires_grad_(True)  # backward is allowed on npu, unlike upstream's CPU rule
            assert api._validate_device(q, k, v) is None, index


def test_other_devices_get_exactly_the_previous_outcome() -> None:
    for device_type in _OTHER_DEVICE_TYPES:
        for requires_grad in (False, True):
            # The validators only read .device and .requires_grad: stand-ins cover absent devices.
            qkv = [
                SimpleNamespace(device=torch.device(device_type), requires_grad=requires_grad)
                for _ in range(3)
            ]
            assert _outcome(api._validate_device, *qkv) == _outcome(
                api._validate_device.previous_validator, *qkv
            ), (device_type, requires_grad)


def test_upstream_rules_still_run_for_other_devices() -> None:
    """The wrapper must not skip upstream checks: an unknown device and CPU backward still fail."""
    if api._validate_device.previous_validator.__module__ != api.__name__:
        pytest.skip("a backend replaced upstream's validator before us")
    meta = [torch.empty(1, 2, 128, 16, device="meta") for _ in range(3)]
    with pytest.raises(ValueError, match="Found input tensors on meta device"):
        api._validate_device(*meta)
    cpu = [torch.empty(1, 2, 128, 16, requires_grad=True) for _ in range(3)]
    with pytest.raises(NotImplementedError, match="backward on CPU"):
        api._validate_device(*cpu)
