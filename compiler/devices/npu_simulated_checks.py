"""The npu adapter and the backend registry on the simulated `npu` device. Not collected by pytest on its
own (the name does not end in _test.py): npu_test.py runs this file in a process of its own, because
renaming PrivateUse1 is one-way and process-wide."""

from __future__ import annotations

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from compiler.backends import get_backend
from compiler.devices.registry import get_device
from compiler.devices.simulated_privateuse1 import SIMULATED_DEVICE_NAME, activate_npu

BACKEND = activate_npu()
needs_hardware = pytest.mark.skipif(BACKEND == "simulated", reason="needs torch_npu and an Ascend NPU: the "
                                    "simulated device has no kernels and Inductor has no codegen for it")
simulated_only = pytest.mark.skipif(BACKEND != "simulated", reason="checks the simulation itself")


@pytest.fixture
def npu():  # noqa: ANN201
    return get_device("npu")


@simulated_only
def test_the_simulation_is_reported_unavailable_with_a_reason(npu) -> None:  # noqa: ANN001
    availability = npu.availability()
    assert not availability.ok and "CPU simulation" in availability.reason and "no kernels" in availability.reason


@simulated_only
def test_device_calls_reach_the_device_module(npu) -> None:  # noqa: ANN001
    info = npu.info()
    assert (info.type, info.name, info.count) == ("npu", SIMULATED_DEVICE_NAME, 2)
    before = torch.npu.synchronize_calls
    npu.synchronize()
    assert torch.npu.synchronize_calls == before + 1
    npu.reset_peak_memory()
    assert npu.peak_memory_gb() == 0.0
    npu.empty_cache()
    assert npu.memory_method == "npu.max_memory_allocated"
    assert npu.default_amp_dtype == torch.get_autocast_dtype("npu")


def test_hf32_switches_are_scoped(npu) -> None:  # noqa: ANN001
    before = npu.hf32_state()
    with npu.hf32(matmul=False, conv=False):
        assert npu.hf32_state() == {"npu.matmul.allow_hf32": False, "npu.conv.allow_hf32": False}
    assert npu.hf32_state() == before
    with pytest.raises(KeyError), npu.hf32(matmul=True, conv=True):
        raise KeyError("restored on errors too")
    assert npu.hf32_state() == before


def test_npu_out_of_memory_is_recognised(npu) -> None:  # noqa: ANN001
    assert npu.is_oom(RuntimeError("NPU out of memory. Tried to allocate 2.00 GiB"))
    assert not npu.is_oom(RuntimeError("shape mismatch"))


def test_backend_selection_and_acl_graphs(npu) -> None:  # noqa: ANN001
    assert get_backend("npu_dvm").compile_options(npu) == {"triton.cudagraphs": False, "npu_backend": "dvm"}
    assert get_backend("npu_triton_experimental").compile_options(npu)["npu_backend"] == "triton_experimental"
    assert get_backend("inductor_aclgraphs").compile_options(npu) == {"triton.cudagraphs": True,
                                                                      "npu_backend": "default"}
    assert get_backend("inductor_max_autotune").compile_options(npu) == {
        "max_autotune": True, "triton.cudagraphs": True, "npu_backend": "default"}
    assert get_backend("npugraph_ex").compile_options(npu) is None  # not Inductor: its own backend string
    with pytest.raises(ValueError, match="unknown torch_npu Inductor backend 'tvm'"):
        npu.compile_options(False, "tvm")


@simulated_only
def test_npu_only_backends_are_skipped_with_a_reason_without_torch_npu() -> None:
    reason = get_backend("npu_dvm").unsupported_reason("npu", "training")
    assert reason is not None and "needs torch_npu" in reason and "requirements-npu.lock" in reason
    assert "does not support training" in get_backend("npugraph_ex").unsupported_reason("npu", "training")
    assert get_backend("aot_eager").unsupported_reason("npu", "training") is None


def test_generic_privateuse1_adapter_and_registry() -> None:
    from compiler.devices.privateuse1 import PrivateUse1Adapter

    assert type(get_device("npu")).__name__ == "NpuAdapter"
    generic = PrivateUse1Adapter("npu")
    assert generic.info().count == torch.npu.device_count()
    assert "no backend named 'openreg' owns PrivateUse1" in PrivateUse1Adapter("openreg").availability().reason
    with pytest.raises(ValueError, match="unknown device 'openreg'.*now 'npu'"):
        get_device("openreg")


def test_fake_npu_training_step_through_a_registry_backend(npu) -> None:  # noqa: ANN001
    """Dynamo + AOTAutograd (aot_eager) capture a training step with autocast on fake npu tensors."""
    torch._dynamo.reset()
    with FakeTensorMode():
        model = torch.nn.Sequential(torch.nn.Linear(8, 8, device="npu"), torch.nn.GELU(),
                                    torch.nn.LayerNorm(8, device="npu"))
        x = torch.randn(4, 8, device="npu")

        def step(x: torch.Tensor) -> torch.Tensor:
            with torch.autocast("npu", dtype=npu.default_amp_dtype):
                loss = model(x).float().sum()
            loss.backward()
            return loss

        loss = get_backend("aot_eager").compile(step, npu)(x)
        assert loss.device.type == "npu"
        assert model[0].weight.grad is not None and model[0].weight.grad.device.type == "npu"


@needs_hardware
def test_inductor_on_the_real_npu(npu) -> None:  # noqa: ANN001
    assert npu.availability().ok, npu.availability().reason
    fn = get_backend("inductor").compile(lambda x: (x.relu() * 2).sum(), npu)
    x = torch.randn(64, 64, device="npu")
    torch.testing.assert_close(fn(x).cpu(), (x.relu() * 2).sum().cpu())
