"""CPU FlexAttention still works, with the same numbers, once PrivateUse1 support is enabled.

Each test runs in its own process with the `npu` device enabled first (conftest.py). The bitwise
before/after comparison is in fresh_process_test.py (CPU) and cuda_regression_test.py (CUDA).
"""

from __future__ import annotations

import math

import pytest
import torch
from torch.nn.attention.flex_attention import flex_attention

pytestmark = [
    pytest.mark.own_process,
    pytest.mark.usefixtures("npu"),
    # Eager flex_attention warns that it is unfused; that is the point of these checks.
    pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile"),
]


def _qkv() -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    return [torch.randn(1, 2, 32, 16, generator=gen) for _ in range(3)]


def _reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: float) -> torch.Tensor:
    idx = torch.arange(q.size(-2))
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)) + (idx[:, None] - idx[None, :]) * bias
    return scores.softmax(-1) @ v


def test_cpu_eager_matches_plain_attention() -> None:
    q, k, v = _qkv()
    out = flex_attention(q, k, v, score_mod=lambda s, b, h, qi, ki: s + (qi - ki) * 0.01)
    torch.testing.assert_close(out, _reference(q, k, v, 0.01))


def test_cpu_autocast_still_uses_upstream_kernel() -> None:
    q, k, v = _qkv()
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        out = flex_attention(q, k, v)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out.float(), _reference(q, k, v, 0.0), atol=3e-2, rtol=3e-2)


def test_cpu_backward_is_still_refused() -> None:
    q, k, v = (t.requires_grad_(True) for t in _qkv())
    with pytest.raises(NotImplementedError, match="backward on CPU"):
        flex_attention(q, k, v)
