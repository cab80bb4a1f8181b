"""Nested and disabled `torch.autocast("npu")`: each flex_attention call sees the innermost state.

Fake `npu` Q/K/V (fp32 unless a test says otherwise, requires_grad) go through the same function
eagerly and through torch.compile(fullgraph=True) with the graph-recording backend, forward and
fake backward. Checks: output and gradient dtypes, the dtypes each HOP receives in the captured
forward and backward graphs, and which inputs are cast in the graph. Each test runs in its own
process, after the `npu` fixture initialised the device (conftest.py).
"""

from __future__ import annotations

from typing import Callable

import pytest
import torch
from torch._dynamo.utils import counters
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx import Node
from torch.nn.attention.flex_attention import flex_attention

from flex_attention.recording_backend import GraphRecorder, calls_to, casts_to, meta_tensor

pytestmark = [
    pytest.mark.own_process,
    pytest.mark.usefixtures("npu"),
    # The eager runs are unfused on purpose: they check dtypes, not speed.
    pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile"),
]

Attend = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], tuple[torch.Tensor, ...]]
BF16, FP16, FP32 = torch.bfloat16, torch.float16, torch.float32


def _run(attend: Attend, dtype: torch.dtype, compiled: bool) -> tuple[list, list, GraphRecorder]:
    """Output dtypes, Q/K/V gradient dtypes, and the recorded graphs (empty when eager)."""
    torch._dynamo.reset()
    counters.clear()
    graphs = GraphRecorder()
    fn = torch.compile(attend, backend=graphs.backend(), fullgraph=True) if compiled else attend
    with FakeTensorMode():
        qkv = [
            torch.randn(1, 2, 128, 16, device="npu", dtype=dtype, requires_grad=True)
            for _ in range(3)
        ]
        outs = fn(*qkv)
        sum(out.float().sum() for out in outs).backward()
    assert all(out.device.type == "npu" for out in outs)
    if compiled:
        assert not counters["graph_break"], f"graph breaks: {dict(counters['graph_break'])}"
        assert (len(graphs.forward), len(graphs.backward)) == (1, 1), graphs
    return [out.dtype for out in outs], [t.grad.dtype for t in qkv], graphs


def _forward_hops(graphs: GraphRecorder) -> list[Node]:
    """The flex_attention calls of the forward graph, in program order."""
    return calls_to(graphs.forward[0], torch.ops.higher_order.flex_attention)


def _hop_dtypes(node: Node) -> tuple[list[torch.dtype], torch.dtype]:
    """The dtypes of the Q/K/V a forward HOP receives, and of its output."""
    return [meta_tensor(a).dtype for a in node.args[:3]], node.meta["val"][0].dtype


def _backward_dtypes(graphs: GraphRecorder) -> list[torch.dtype]:
    """For each backward HOP, the one dtype of its Q/K/V and of the gradients it returns."""
    dtypes = []
    for node in calls_to(graphs.backward[0], torch.ops.higher_order.flex_attention_backward):
        seen = {meta_tensor(a).dtype for a in node.args[:3]}
        seen |= {grad.dtype for grad in node.meta["val"][:3]}
        assert len(seen) == 1, f"{node} mixes dtypes {seen}"
        dtypes.append(seen.pop())
    return dtypes


def _takes_graph_inputs(node: Node) -> bool:
    """The HOP receives the graph's Q/K/V themselves: nothing was cast on the way."""
    return all(a.op == "placeholder" for a in node.args[:3])


def _outer_bf16_inner_disabled(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor
) -> tuple[torch.Tensor, ...]:
    with torch.autocast(device_type="npu", dtype=BF16):
        before = flex_attention(q, k, v)
        with torch.autocast(device_type="npu", enabled=False):
            inner = flex_attention(q, k, v)
        after = flex_attention(q, k, v)
    return before, inner, after


def _outer_bf16_inner_fp16(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor
) -> tuple[torch.Tensor, ...]:
    with torch.autocast(device_type="npu", dtype=BF16):
        before = flex_attention(q, k, v)
        with torch.autocast(device_type="npu", dtype=FP16):
            inner = flex_attention(q, k, v)
        after = flex_attention(q, k, v)
    return before, inner, after


def _disabled(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, ...]:
    with torch.autocast(device_type="npu", dtype=BF16, enabled=False):
        return (flex_attention(q, k, v),)


def test_inner_disabled_region_keeps_fp32_and_outer_bf16_resumes() -> None:
    for compiled in (False, True):
        outs, grads, graphs = _run(_outer_bf16_inner_disabled, FP32, compiled)
        assert outs == [BF16, FP32, BF16], (compiled, outs)
        assert grads == [FP32] * 3, (compiled, grads)

    before, inner, after = _forward_hops(graphs)
    assert _hop_dtypes(before) == _hop_dtypes(after) == ([BF16] * 3, BF16)
    assert _hop_dtypes(inner) == ([FP32] * 3, FP32)
    assert _takes_graph_inputs(inner), "the disabled region cast its inputs"
    fwd = graphs.forward[0]
    assert casts_to(fwd, BF16) == [*before.args[:3], *after.args[:3]]
    assert not casts_to(fwd, FP16)
    assert sorted(_backward_dtypes(graphs), key=str) == [BF16, BF16, FP32]


def test_inner_fp16_region_overrides_outer_bf16() -> None:
    for compiled in (False, True):
        outs, grads, graphs = _run(_outer_bf16_inner_fp16, FP32, compiled)
        assert outs == [BF16, FP16, BF16], (compiled, outs)
        assert grads == [FP32] * 3, (compiled, grads)

    before, inner, after = _forward_hops(graphs)
    assert _hop_dtypes(before) == _hop_dtypes(after) == ([BF16] * 3, BF16)
    assert _hop_dtypes(inner) == ([FP16] * 3, FP16)
    fwd = graphs.forward[0]
    assert casts_to(fwd, FP16) == list(inner.args[:3])
    assert casts_to(fwd, BF16) == [*before.args[:3], *after.args[:3]]
    assert sorted(_backward_dtypes(graphs), key=str) == [BF16, BF16, FP16]


def test_disabled_autocast_keeps_input_dtypes() -> None:
    """`autocast(enabled=False)` with a dtype: fp32 stays fp32, fp16 stays fp16, nothing cast."""
    for dtype in (FP32, FP16):
        for compiled in (False, True):
            outs, grads, graphs = _run(_disabled, dtype, compiled)
            assert outs == [dtype], (dtype, compiled, outs)
            assert grads == [dtype] * 3, (dtype, compiled, grads)

        (node,) = _forward_hops(graphs)
        assert _hop_dtypes(node) == ([dtype] * 3, dtype)
        assert _takes_graph_inputs(node), f"{dtype}: Q/K/V were cast with autocast disabled"
        for target in (BF16, FP16, FP32):
            if target != dtype:
                assert not casts_to(graphs.forward[0], target), (dtype, target)
        assert _backward_dtypes(graphs) == [dtype]
