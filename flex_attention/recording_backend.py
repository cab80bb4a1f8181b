"""Test-only: an AOTAutograd backend that records the FX graphs and runs them as they are."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd
from torch.fx import GraphModule, Node


@dataclass
class GraphRecorder:
    """Collects forward and backward graphs; `backend()` is what torch.compile gets."""

    forward: list[GraphModule] = field(default_factory=list)
    backward: list[GraphModule] = field(default_factory=list)

    def backend(self) -> Callable[..., Any]:
        return aot_autograd(
            fw_compiler=self._recorder(self.forward), bw_compiler=self._recorder(self.backward)
        )

    @staticmethod
    def _recorder(graphs: list[GraphModule]) -> Callable[..., Any]:
        def compile_graph(gm: GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
            del example_inputs
            graphs.append(gm)
            return make_boxed_func(gm.forward)  # AOTAutograd calls compiled graphs boxed

        return compile_graph


def calls_to(gm: GraphModule, target: Any) -> list[Node]:
    """The call_function nodes of `gm` whose target is `target`."""
    return [n for n in gm.graph.nodes if n.op == "call_function" and n.target is target]


def meta_tensor(node: Any) -> torch.Tensor:
    """The fake value recorded for an FX node during tracing."""
    value = node.meta["val"]
    assert isinstance(value, torch.Tensor), f"{node} carries {type(value).__name__}, not a tensor"
    return value


def casts_to(gm: GraphModule, dtype: torch.dtype) -> list[Node]:
    """The nodes of `gm` that turn a tensor of another dtype into `dtype`, in graph order."""
    casts = []
    for node in gm.graph.nodes:
        if node.op != "call_function" or not node.args or not isinstance(node.args[0], Node):
            continue
        out, source = node.meta.get("val"), node.args[0].meta.get("val")
        if (
            isinstance(out, torch.Tensor)
            and isinstance(source, torch.Tensor)
            and out.dtype == dtype
            and source.dtype != dtype
        ):
            casts.append(node)
    return casts
