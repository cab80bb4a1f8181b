"""The compiler layer: data tables, registries, and fallback detection through real Inductor compiles."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from compiler.backends import all_backends, get_backend
from compiler.devices.registry import get_device, known_devices
from compiler.inductor_fallbacks import record_fallback_kernels
from compiler.starlark_data import StarlarkDataError, load_bzl_literals


def test_bzl_literals_read_like_starlark(tmp_path: Path) -> None:
    path = tmp_path / "t.bzl"
    path.write_text('"""doc"""\n# comment\nA = {"x": [1, 2.5, True, None], "y": "z"}\nB = 3\n')
    assert load_bzl_literals(path) == {"A": {"x": [1, 2.5, True, None], "y": "z"}, "B": 3}
    path.write_text("A = len([1])\n")
    with pytest.raises(StarlarkDataError, match="value of A is not a literal"):
        load_bzl_literals(path)


def test_backend_table() -> None:
    backends = all_backends()
    assert {"eager", "aot_eager", "inductor", "inductor_cudagraphs"} <= set(backends)
    assert backends["inductor_cudagraphs"].hud_compiler == "cudagraphs"
    assert backends["inductor"].hud_compiler == "default"
    assert "does not run on cpu" in backends["inductor_cudagraphs"].unsupported_reason("cpu", "inference")
    assert backends["inductor"].unsupported_reason("cpu", "training") is None
    with pytest.raises(ValueError, match="unknown backend 'tvm'; known backends: aot_eager"):
        get_backend("tvm")
    # Device graphs and codegen backends become options through the device adapter.
    cpu, cuda = get_device("cpu"), get_device("cuda")
    assert backends["inductor"].compile_options(cpu) == {"triton.cudagraphs": False}
    assert backends["inductor_cudagraphs"].compile_options(cuda) == {"triton.cudagraphs": True}
    assert backends["inductor_max_autotune"].compile_options(cpu) == {"max_autotune": True, "triton.cudagraphs": True}
    assert backends["aot_eager"].compile_options(cpu) is None
    with pytest.raises(ValueError, match="device cpu has no Inductor codegen backends"):
        backends["npu_dvm"].compile_options(cpu)
    npu_only = {name for name, b in backends.items() if b.devices == ("npu",)}
    assert npu_only == {"inductor_aclgraphs", "npu_dvm", "npu_triton_experimental", "npugraph_ex"}
    assert all("torch_npu" in backends[name].requires for name in npu_only)


def test_device_registry() -> None:
    assert {"cpu", "cuda", "npu"} <= set(known_devices())
    cpu = get_device("cpu")
    assert cpu.availability().ok and cpu.info().arch
    assert cpu.peak_memory_gb() > 0 and not cpu.has_optimizer
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        get_device("tpu")
    cuda = get_device("cuda")
    if not torch.cuda.is_available():
        assert "is_available() is False" in cuda.availability().reason



@pytest.mark.parametrize("autotuned", [True, False])
def test_cuda_determinism_leaves_the_autotuner_as_the_model_set_it(autotuned: bool) -> None:
    """Upstream's accuracy check runs TorchBench's vision models with cuDNN's autotuner on (their build sets it);
    the flags are plain settings, so this needs no GPU."""
    cudnn = torch.backends.cudnn
    saved = cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32
    cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32 = autotuned, False, True
    try:
        with get_device("cuda").determinism():
            assert (cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (autotuned, True, False)
        assert (cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32) == (autotuned, False, True)
    finally:
        cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32 = saved

@pytest.mark.slow
def test_fallback_kernels_are_recorded() -> None:
    torch._dynamo.reset()

    def sort_then_sigmoid(x: torch.Tensor) -> torch.Tensor:
        return torch.sort(x, stable=True).values.sigmoid()

    with torch._inductor.config.patch(force_disable_caches=True), record_fallback_kernels() as seen:
        torch.compile(sort_then_sigmoid, backend="inductor")(torch.randn(8, 8))
    assert "aten.sort.stable" in seen
    assert not any("sigmoid" in op for op in seen)  # lowered natively
    from torch._inductor import ir

    assert isinstance(ir.FallbackKernel.__dict__["create"], classmethod)  # restored
