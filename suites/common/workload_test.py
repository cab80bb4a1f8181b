"""A training or inference iteration counts the graph breaks upstream's harness counts for the same model."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
import torch
from torch._dynamo.testing import reduce_to_scalar_loss
from torch._dynamo.utils import counters

from suites.common.workload import Iteration


class BreaksInside(torch.nn.Module):
    """A graph break inside the model's own code, as transformers' logger calls make in DistillGPT2."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        torch._dynamo.graph_break()
        return y.relu()


def _upstream_forward_pass(mod: torch.nn.Module, inputs: tuple[Any, ...]) -> Any:
    # The shape of upstream's forward_pass: the model called directly under its autocast context.
    with contextlib.nullcontext():
        return mod(*inputs)


def _graph_breaks(step: Any, *args: Any) -> int:
    torch._dynamo.reset()
    counters.clear()
    torch.compile(step, backend="eager")(*args)
    return sum(counters["graph_break"].values())


@pytest.mark.parametrize("inputs", [(torch.randn(2, 4),), {"x": torch.randn(2, 4)}], ids=["positional", "keywords"])
def test_a_break_inside_the_model_counts_as_in_upstreams_forward_pass(inputs: Any) -> None:
    model = BreaksInside()
    theirs = _graph_breaks(_upstream_forward_pass, model, (inputs["x"],) if isinstance(inputs, dict) else inputs)
    # The bound method, as suites/common/model_run.py compiles it.
    ours = _graph_breaks(Iteration(False, contextlib.nullcontext, reduce_to_scalar_loss).__call__, model, inputs)
    assert theirs > 0
    assert ours == theirs
