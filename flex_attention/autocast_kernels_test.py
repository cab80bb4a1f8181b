"""The AutocastPrivateUse1 kernels: what they cast, what they leave, and that they redispatch."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

from flex_attention.autocast_kernels import (
    AUTOCAST_KEY,
    cast_for_autocast,
    make_backward_kernel,
    make_forward_kernel,
)
from flex_attention.recording_backend import GraphRecorder, calls_to, casts_to, meta_tensor

# Each test renames PrivateUse1 to `npu`, so each runs in its own process (conftest.py).
pytestmark = [pytest.mark.own_process, pytest.mark.usefixtures("npu")]


def _key_excluded() -> bool:
    return torch._C._dispatch_tls_is_dispatch_key_excluded(AUTOCAST_KEY)


class RecordingHop:
    """Stands in for the HOP: records what the kernel redispatches and whether its key is out."""

    def __init__(self) -> None:
        self.args: tuple[Any, ...] = ()
        self.key_excluded_during_call = False

    def __call__(self, *args: Any) -> str:
        self.args = args
        self.key_excluded_during_call = _key_excluded()
        return "redispatched"


def _npu_tensor(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.ones(*shape, device="npu", dtype=dtype)


def test_cast_rule_matches_autocast() -> None:
    with FakeTensorMode():
        assert cast_for_autocast(_npu_tensor(2), "npu", torch.float16).dtype == torch.float16
        for kept in (
            _npu_tensor(2, dtype=torch.float64),
            _npu_tensor(2, dtype=torch.int32),
            torch.ones(2),  # another device
        ):
            assert cast_for_autocast(kept, "npu", torch.float16) is kept
        assert cast_for_autocast(0.5, "npu", torch.float16) == 0.5


def test_forward_kernel_casts_only_qkv_then_redispatches() -> None:
    for dtype in (torch.float16, torch.bfloat16):
        hop = RecordingHop()
        kernel = make_forward_kernel(hop)
        with FakeTensorMode():
            q, k, v = (_npu_tensor(1, 2, 16, 8) for _ in range(3))
            block_mask = (16, 16, _npu_tensor(1, 1, 1, dtype=torch.int32))
            score_buffers = (_npu_tensor(16),)
            mask_buffers = (_npu_tensor(16),)
            options = {"BACKEND": "AUTO"}
            rest = (lambda s, *idx: s, block_mask, 0.25, options, score_buffers, mask_buffers)
            with torch.autocast(device_type="npu", dtype=dtype):
                assert not _key_excluded()
                assert kernel(q, k, v, *rest) == "redispatched"
                assert not _key_excluded()
        assert hop.key_excluded_during_call, f"{dtype}: redispatch would re-enter the kernel"
        assert [t.dtype for t in hop.args[:3]] == [dtype] * 3
        for sent, received in zip(rest, hop.args[3:]):
            assert received is sent  # score_mod, block mask, scale, options, buffers: untouched
        assert score_buffers[0].dtype == mask_buffers[0].dtype == torch.float32


def test_backward_kernel_redispatches_without_recasting() -> None:
    hop = RecordingHop()
    kernel = make_backward_kernel(hop)
    with FakeTensorMode():
        saved = [_npu_tensor(1, 2, 16, 8, dtype=torch.bfloat16) for _ in range(4)]
        lse = _npu_tensor(1, 2, 16)
        grad_out = _npu_tensor(1, 2, 16, 8)
        args = (*saved[:3], saved[3], lse, grad_out, None, None, None, (), 0.25, {}, (lse,), ())
        with torch.autocast(device_type="npu", dtype=torch.float16):
            assert kernel(*args) == "redispatched"
    assert hop.key_excluded_during_call, "redispatch would re-enter the autocast kernel"
    assert len(hop.args) == len(args)
    for sent, received in zip(args, hop.args):
        assert received is sent


def test_compiled_forward_casts_only_qkv() -> None:
    """End to end: buffers a score_mod captures and the block mask keep their dtypes."""

    def causal(b: Any, h: Any, q_idx: Any, kv_idx: Any) -> Any:
        return q_idx >= kv_idx

    def attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: torch.Tensor) -> Any:
        def add_bias(score: Any, b: Any, h: Any, q_idx: Any, kv_idx: Any) -> Any:
            return score + bias[kv_idx]

        mask = create_block_mask(causal, None, None, q.size(-2), k.size(-2), device=q.device)
        with torch.autocast(device_type="npu", dtype=torch.bfloat16):
            return flex_attention(q, k, v, score_mod=add_bias, block_mask=mask)

    torch._dynamo.reset()
    graphs = GraphRecorder()
    with FakeTensorMode():
        q, k, v = (torch.randn(1, 2, 256, 16, device="npu") for _ in range(3))
        bias = torch.randn(256, device="npu")
        out = torch.compile(attend, backend=graphs.backend(), fullgraph=True)(q, k, v, bias)
    assert out.dtype == torch.bfloat16

    (graph,) = graphs.forward
    (node,) = calls_to(graph, torch.ops.higher_order.flex_attention)
    assert [meta_tensor(a).dtype for a in node.args[:3]] == [torch.bfloat16] * 3
    score_buffers = node.args[7]
    assert [meta_tensor(b).dtype for b in score_buffers] == [torch.float32]
    mask_nodes = [a for a in node.args[4] if isinstance(a, torch.fx.Node) and a.op != "get_attr"]
    mask_tensors = [meta_tensor(a) for a in mask_nodes]
    assert mask_tensors and all(t.dtype == torch.int32 for t in mask_tensors)
    casts = casts_to(graph, torch.bfloat16)
    assert casts == list(node.args[:3]), f"expected casts of q, k, v only, got {casts}"
