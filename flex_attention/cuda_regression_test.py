"""CUDA regression: enabling PrivateUse1 support changes no bit of CUDA FlexAttention.

Real CUDA Q/K/V (with a score_mod and a causal block mask) go through flex_attention forward and
backward, eager or compiled (Inductor, fullgraph), with or without
`torch.autocast("cuda", dtype=torch.bfloat16)`. Each case first computes the output and the
Q/K/V gradients in a process where nothing is enabled, then runs `enable_privateuse1_flex_attention()`
(the device check and both autocast kernels, as a device adapter does), computes again, and requires
bitwise-equal results. A dense float64 reference checks that the numbers are attention at all.

PrivateUse1 is not renamed here. Renaming it makes PrivateUse1 the process's accelerator
(`torch.accelerator.current_accelerator()` turns to `npu`, on torch 2.11 and 2.14), and the autograd
engine then asks it for the streams of CUDA tensors and aborts (`opt_ready_stream && opt_parent_stream`,
seen on an H200). That is torch's one-accelerator-per-process rule, not the enablement; no real machine
has both, and the enablement is keyed on the PrivateUse1 dispatch key, whatever its name.

Needs a CUDA GPU, and is skipped elsewhere. Each case changes process-wide registrations, so each runs in a
new interpreter of its own (conftest.py). On a GPU machine, from the repository root, without Bazel:
    python3 -m pytest flex_attention/cuda_regression_test.py
"""

from __future__ import annotations

from typing import Any

import pytest
import torch
import torch.nn.attention.flex_attention as api
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

from flex_attention.device_check import is_privateuse1_validator
from flex_attention.registration import enable_privateuse1_flex_attention

pytestmark = [
    # A new interpreter per case, not a fork: "before" is measured where nothing ran yet.
    pytest.mark.own_process(start="spawn"),
    pytest.mark.skipif(
        not torch.cuda.is_available(),
        reason="needs a CUDA GPU; run it on a GPU machine (see flex_attention/README.md)",
    ),
    # The eager cases are unfused on purpose: they are the eager path being compared.
    pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile"),
]

_SHAPE = (2, 4, 256, 64)  # batch, heads, sequence, head dim
_BIAS = 0.01


def _causal(b: Any, h: Any, q_idx: Any, kv_idx: Any) -> Any:
    return q_idx >= kv_idx


def _relative_bias(score: Any, b: Any, h: Any, q_idx: Any, kv_idx: Any) -> Any:
    return score + (q_idx - kv_idx) * _BIAS


def _inputs() -> list[torch.Tensor]:
    """Q, K, V (fp32, requiring grad) and the output gradient, the same on every call."""
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v, grad_out = (torch.randn(_SHAPE, device="cuda", generator=gen) for _ in range(4))
    return [q.requires_grad_(), k.requires_grad_(), v.requires_grad_(), grad_out]


def _attention(compiled: bool, amp: bool) -> dict[str, torch.Tensor]:
    """Output and Q/K/V gradients of one forward and backward, traced afresh when compiled."""
    torch._dynamo.reset()
    block_mask = create_block_mask(_causal, None, None, _SHAPE[2], _SHAPE[2], device="cuda")

    def attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=amp):
            return flex_attention(q, k, v, score_mod=_relative_bias, block_mask=block_mask)

    fn = torch.compile(attend, fullgraph=True) if compiled else attend
    q, k, v, grad_out = _inputs()
    out = fn(q, k, v)
    out.backward(grad_out.to(out.dtype))
    torch.cuda.synchronize()
    return {"out": out.detach(), "dq": q.grad, "dk": k.grad, "dv": v.grad}


def _reference() -> torch.Tensor:
    """Dense float64 attention with the same bias and causal mask."""
    q, k, v, _ = (t.detach().double() for t in _inputs())
    idx = torch.arange(_SHAPE[2], device="cuda")
    scores = q @ k.transpose(-2, -1) / _SHAPE[3] ** 0.5 + (idx[:, None] - idx[None, :]) * _BIAS
    scores = scores.masked_fill(idx[:, None] < idx[None, :], float("-inf"))
    return scores.softmax(-1) @ v


@pytest.mark.parametrize("amp", [False, True], ids=["fp32", "autocast_bf16"])
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
def test_cuda_results_are_bitwise_unchanged_by_enabling(compiled: bool, amp: bool) -> None:
    # Before: a fresh process, nothing renamed or installed.
    assert torch._C._get_privateuse1_backend_name() == "privateuseone"
    assert not is_privateuse1_validator(api._validate_device)
    before = _attention(compiled, amp)

    registration = enable_privateuse1_flex_attention()
    assert len(registration.installed) == 3, registration
    assert torch.accelerator.current_accelerator().type == "cuda"
    assert is_privateuse1_validator(api._validate_device)
    after = _attention(compiled, amp)

    out_dtype = torch.bfloat16 if amp else torch.float32
    assert [t.dtype for t in after.values()] == [out_dtype] + [torch.float32] * 3
    for name, expected in before.items():
        got = after[name]
        assert got.dtype == expected.dtype, name
        diff = (got.double() - expected.double()).abs().max().item()
        assert torch.equal(got, expected), f"{name} changed after enabling: max |diff| {diff}"

    tolerance = 5e-2 if amp else 1e-4
    torch.testing.assert_close(
        after["out"].double(), _reference(), atol=tolerance, rtol=tolerance
    )
