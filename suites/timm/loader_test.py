"""The TIMM training loss compiles to the graphs upstream's harness compiles, so graph counts compare."""

from __future__ import annotations

import pytest
import torch
from torch._dynamo.testing import CompileCounter

from suites.timm.loader import _loss_fn


@pytest.mark.parametrize(("scale", "graphs"), [(1.0, 0), (1000.0, 1)])
def test_the_loss_divides_in_a_graph_only_where_the_manifest_scales_it(scale: float, graphs: int) -> None:
    # reduce_to_scalar_loss is skipped by Dynamo, so all that can compile is the division after it: upstream's
    # compute_loss has none, its scaled_compute_loss (mobilevit_s) divides by 1000.
    torch._dynamo.reset()
    counter = CompileCounter()
    logits = torch.randn(4, 10)
    loss = torch.compile(_loss_fn(scale), backend=counter)((logits, torch.randn(4, 10)))
    assert counter.frame_count == graphs
    assert torch.allclose(loss, logits.mean() / scale)
