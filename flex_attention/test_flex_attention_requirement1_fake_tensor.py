"""Requirement 1: FlexAttention on a (simulated) `npu` device, captured whole by AOTAutograd.

In FakeTensorMode, fp32 Q/K/V on `npu` go through torch.compile(fullgraph=True) under BF16
autocast with a backend that only records the FX graphs, then a fake backward runs. Checks: no
graph break, both HOPs reach the backend, BF16 output, FP32 leaf gradients.

Runs under pytest (in its own process: it renames PrivateUse1, see conftest.py), and as a script
(`python flex_attention/test_...py`) printing the PASS line.
"""

from __future__ import annotations

import os
import sys

if __package__ in (None, ""):
    # Run as a script: make the repository root importable (Bazel and pytest already do this).
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pytest
import torch
from torch._dynamo.utils import counters
from torch._higher_order_ops.flex_attention import flex_attention as flex_attention_hop
from torch._higher_order_ops.flex_attention import flex_attention_backward as backward_hop
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.nn.attention.flex_attention import flex_attention

from flex_attention.autocast_kernels import AUTOCAST_KEY
from flex_attention.recording_backend import GraphRecorder, calls_to, meta_tensor
from flex_attention.simulated_npu import init_npu_device

PASS_LINE = "PASS: NPU FlexAttention FakeTensor AOT graph capture and AMP/HOP metadata."

pytestmark = pytest.mark.own_process


def _attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    with torch.autocast(device_type="npu", dtype=torch.bfloat16):
        return flex_attention(q, k, v)


def test_npu_flex_attention_fake_tensor_aot_capture() -> None:
    init_npu_device()
    assert flex_attention_hop.has_kernel_for_dispatch_key(AUTOCAST_KEY)
    assert backward_hop.has_kernel_for_dispatch_key(AUTOCAST_KEY)

    torch._dynamo.reset()
    counters.clear()
    graphs = GraphRecorder()
    compiled = torch.compile(_attend, backend=graphs.backend(), fullgraph=True)
    with FakeTensorMode():
        q, k, v = (
            torch.randn(2, 4, 128, 64, device="npu", dtype=torch.float32, requires_grad=True)
            for _ in range(3)
        )
        out = compiled(q, k, v)
        out.float().sum().backward()

    assert not counters["graph_break"], f"graph breaks: {dict(counters['graph_break'])}"
    assert len(graphs.forward) == 1, f"expected one forward graph, got {len(graphs.forward)}"
    assert len(graphs.backward) == 1, f"expected one backward graph, got {len(graphs.backward)}"

    (fwd,) = calls_to(graphs.forward[0], torch.ops.higher_order.flex_attention)
    fwd_out = fwd.meta["val"][0]
    assert (fwd_out.dtype, fwd_out.device.type) == (torch.bfloat16, "npu"), fwd_out
    for qkv in fwd.args[:3]:
        assert meta_tensor(qkv).dtype == torch.bfloat16, f"{qkv} reaches the HOP uncast"

    (bwd,) = calls_to(graphs.backward[0], torch.ops.higher_order.flex_attention_backward)
    for grad in bwd.meta["val"][:3]:
        assert (grad.dtype, grad.device.type) == (torch.bfloat16, "npu"), grad

    assert (out.dtype, out.device.type) == (torch.bfloat16, "npu"), out
    for name, leaf in (("q", q), ("k", k), ("v", v)):
        assert leaf.grad is not None, f"{name}.grad missing"
        assert (leaf.grad.dtype, leaf.grad.device.type) == (torch.float32, "npu"), leaf.grad
    assert not [m for m in sys.modules if m.startswith("torch_npu._inductor")]


if __name__ == "__main__":
    test_npu_flex_attention_fake_tensor_aot_capture()
    print(PASS_LINE)
