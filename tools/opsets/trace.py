"""Traces one model of a suite to its ATen op set, on fake tensors (no real compute, no device).

The model is built from its manifest entry (full size) on the meta device, then materialised as fake
CPU tensors. A model whose construction cannot run on the meta device (it reads tensor values, e.g.
`.item()`) is built for real on the CPU at its smoke batch size instead (the same architecture). One
iteration (forward for inference; forward, loss and backward for training, under autocast as the harness
runs it) goes through Dynamo and AOTAutograd with no decompositions beyond the ones every backend sees.
The op set is every OpOverload and higher-order op in the forward and backward graphs: what a compile
backend (Inductor included) receives.
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch

from suites.common import loaders


def _materialise(value: Any) -> Any:
    """Meta tensors -> fake CPU tensors of the same shape and dtype (inside the ambient FakeTensorMode)."""
    if isinstance(value, torch.Tensor):
        return torch.empty_like(value, device="cpu")
    if isinstance(value, (list, tuple)):
        return type(value)(_materialise(v) for v in value)
    if isinstance(value, dict):
        return {k: _materialise(v) for k, v in value.items()}
    return value


def _graph_ops(gm: torch.fx.GraphModule) -> set[str]:
    ops = set()
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        if isinstance(node.target, torch._ops.OpOverload):
            ops.add(str(node.target))  # "aten.convolution.default"
        elif isinstance(node.target, torch._ops.HigherOrderOperator):
            ops.add(f"higher_order.{node.target.name()}")
    return ops


# What a construction that needs real tensor values raises on the meta device.
_META_BUILD_ERRORS = ("cannot be called on meta tensors", "Cannot copy out of meta tensor", "meta not supported")


def _build(build: Any, entry: Any, mode: str) -> Any:
    """The full-size model on the meta device; a real CPU build at the smoke batch size when that fails."""
    try:
        with torch.device("meta"):
            return build(entry, mode, "meta", False, entry.batch_sizes[mode])
    except Exception as exc:  # noqa: BLE001 (only the meta-device failures below fall back)
        if not any(marker in str(exc) for marker in _META_BUILD_ERRORS):
            raise
    return build(entry, mode, "cpu", True, entry.smoke_batch_size)


def trace_ops(suite: str, model: str, mode: str) -> set[str]:
    """The ATen op set of `model` in `mode` (training / inference), as the harness would compile it."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd
    from torch._subclasses.fake_tensor import FakeTensorMode

    from suites.common.manifest import load_manifest
    from suites.common.workload import Iteration, cast_floats

    manifest = load_manifest(suite)
    entry = manifest.model(model)
    if mode not in entry.modes:
        raise ValueError(f"{suite}/{model} does not take part in {mode} (modes: {', '.join(entry.modes)})")
    build = loaders.loader_module(suite).build
    workload = _build(build, entry, mode)

    ops: set[str] = set()

    def record(gm: torch.fx.GraphModule, example_inputs: Any) -> Any:  # noqa: ARG001
        ops.update(_graph_ops(gm))
        return make_boxed_func(gm.forward)

    training = mode == "training"
    module, inputs = workload.model, workload.inputs
    if not training:  # the community's bf16 inference: cast model and inputs (on meta: fake params cannot swap)
        module, inputs = module.to(torch.bfloat16), cast_floats(inputs, torch.bfloat16)
    torch._dynamo.reset()
    # Meta tensors are not fake tensors: allow them in only to be copied (their values are never read).
    with FakeTensorMode(allow_non_fake_inputs=True):
        module = module.to_empty(device="cpu")
        inputs = _materialise(inputs)
        module.train(training)
        if training:
            def autocast() -> contextlib.AbstractContextManager[Any]:
                return torch.autocast("cpu", dtype=torch.get_autocast_dtype("cpu"))
        else:
            autocast = contextlib.nullcontext
        iteration = Iteration(training, autocast, workload.loss_fn)
        compiled = torch.compile(iteration, backend=aot_autograd(fw_compiler=record, bw_compiler=record))
        with torch.enable_grad() if training or entry.inference_grad else torch.no_grad():  # as the harness
            compiled(module, inputs, collect_outputs=False)
    torch._dynamo.reset()
    if not ops:
        raise RuntimeError(f"{suite}/{model} {mode}: Dynamo captured no graph, so no op set was traced")
    return ops
