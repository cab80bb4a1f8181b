"""Test-only: checks that need a fresh interpreter, run by fresh_process_test.py in a subprocess.

In one process the PrivateUse1 rename and the HOP registrations are permanent, so "before
enabling" can only be observed here. Prints one JSON report on the last stdout line.

  imports    which modules enable_privateuse1_flex_attention() pulls in
  lifecycle  CPU output before/after enabling; a kernel a backend registered first; the failures
             on `npu` with nothing enabled and with only the device check (the negative
             controls), and the success after enabling
"""

from __future__ import annotations

import json
import sys
from typing import Any

import torch

def _imports() -> dict[str, Any]:
    from flex_attention.registration import enable_privateuse1_flex_attention

    before = set(sys.modules)
    enable_privateuse1_flex_attention()
    return {
        "new_modules": sorted(set(sys.modules) - before),
        "all_modules": sorted(sys.modules),
    }


def _cpu_attention() -> torch.Tensor:
    from torch.nn.attention.flex_attention import flex_attention

    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, 32, 16, generator=gen) for _ in range(3))
    return flex_attention(q, k, v, score_mod=lambda s, b, h, qi, ki: s + (qi - ki) * 0.01)


def _compile_on_npu() -> str:
    """Forward-only compile on fake `npu` under BF16 autocast: the output dtype, or the error."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.nn.attention.flex_attention import flex_attention

    def attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        with torch.autocast(device_type="npu", dtype=torch.bfloat16):
            return flex_attention(q, k, v)

    torch._dynamo.reset()
    try:
        with FakeTensorMode():
            q, k, v = (torch.randn(1, 2, 128, 16, device="npu") for _ in range(3))
            out = torch.compile(attend, backend="aot_eager", fullgraph=True)(q, k, v)
        return str(out.dtype)
    except Exception as error:  # noqa: BLE001 (the message is the result)
        return f"{type(error).__name__}: {error}"


def _lifecycle() -> dict[str, Any]:
    from torch._higher_order_ops.flex_attention import flex_attention_backward

    from flex_attention.autocast_kernels import AUTOCAST_KEY
    from flex_attention.registration import enable_privateuse1_flex_attention
    import torch.nn.attention.flex_attention as api

    from flex_attention.device_check import wrap_validator
    from flex_attention.simulated_npu import SIMULATED, ensure_npu_backend

    cpu_before = _cpu_attention()

    def backend_kernel(*args: Any, **kwargs: Any) -> Any:  # stands in for torch_npu's own kernel
        raise AssertionError("not called in this probe")

    flex_attention_backward.py_impl(AUTOCAST_KEY)(backend_kernel)

    backend = ensure_npu_backend()
    without_enable = _compile_on_npu()
    api._validate_device = wrap_validator(api._validate_device)
    validator_only = _compile_on_npu()
    first = enable_privateuse1_flex_attention()
    second = enable_privateuse1_flex_attention()
    with_enable = _compile_on_npu()
    cpu_after = _cpu_attention()
    return {
        "cpu_equal": bool(torch.equal(cpu_before, cpu_after)),
        "simulated": backend == SIMULATED,
        "without_enable": without_enable,
        "validator_only": validator_only,
        "with_enable": with_enable,
        "first": {"installed": first.installed, "kept": first.kept},
        "second": {"installed": second.installed, "kept": second.kept},
        "backend_kernel_kept": flex_attention_backward.py_kernels[AUTOCAST_KEY] is backend_kernel,
    }


if __name__ == "__main__":
    probes = {"imports": _imports, "lifecycle": _lifecycle}
    print(json.dumps(probes[sys.argv[1]]()))
