"""What one "iteration" is, the same way in every suite: a forward pass, or a full training step."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Callable

import torch
from torch._dynamo.testing import collect_results, reduce_to_scalar_loss
from torch._dynamo.utils import clone_inputs

LossFn = Callable[[Any], torch.Tensor]


@dataclass
class Workload:
    """A built model and its example inputs, as a suite's loader returns them (fp32, on the device)."""

    model: torch.nn.Module
    inputs: tuple[Any, ...] | dict[str, Any]
    loss_fn: LossFn = reduce_to_scalar_loss


@torch._disable_dynamo(recursive=True)
def _zero_grad(model: torch.nn.Module, optimizer: torch.optim.Optimizer | None) -> None:
    # Never compiled, as upstream: zero_grad is bookkeeping, not model work.
    if optimizer is not None:
        optimizer.zero_grad(True)
    else:
        model.zero_grad(True)


class Iteration:
    """One model iteration; the object itself is what gets compiled (its attributes become guards).

    Inference: the forward pass under autocast (a disabled autocast for cast dtypes such as bf16).
    Training: clone inputs, zero grads, forward + loss under autocast, backward (no loss scaling, as
    upstream), optimizer step; results are loss, grads, params and buffers (torch._dynamo.testing).
    """

    def __init__(self, training: bool, autocast: Callable[[], contextlib.AbstractContextManager[Any]], loss_fn: LossFn):
        self.training = training
        self.autocast = autocast
        self.loss_fn = loss_fn
        self.optimizer: torch.optim.Optimizer | None = None

    # The model is called right here, as upstream's forward_pass and forward_and_backward_pass call it: Dynamo counts
    # a graph break inside the model once in every frame on the way down, so a helper between the two would count
    # one more than upstream does.
    def __call__(self, model: torch.nn.Module, inputs: Any, collect_outputs: bool = True) -> Any:
        if not self.training:
            with self.autocast():
                return model(**inputs) if isinstance(inputs, dict) else model(*inputs)
        cloned = clone_inputs(inputs)
        _zero_grad(model, self.optimizer)
        with self.autocast():
            loss = self.loss_fn(model(**cloned) if isinstance(cloned, dict) else model(*cloned))
        loss.backward()
        if self.optimizer is not None:
            self.optimizer.step()
        return collect_results(model, None, loss, cloned) if collect_outputs else None


# The parts of a training step's results, in torch._dynamo.testing.collect_results' order (input grads follow).
TRAINING_RESULT_PARTS = ("prediction", "loss", "gradients", "parameters", "buffers")


def make_optimizer(kind: str, model: torch.nn.Module) -> torch.optim.Optimizer | None:
    """Upstream's choice: SGD(lr=0.01) with an uncompiled step, Adam(lr=0.01, capturable, foreach), or none
    (CI_SKIP_OPTIMIZER: the step ends with the backward pass and the parameters stay as they were)."""
    if kind == "none":
        return None
    params = list(model.parameters())
    if kind == "sgd":
        optimizer = torch.optim.SGD(params, lr=0.01, foreach=True)
        optimizer.step = torch._dynamo.disable(optimizer.step)  # type: ignore[method-assign]
        return optimizer
    # Capturable keeps Adam's step count on the device, as upstream's; the CPU has no capturable Adam.
    capturable = any(p.device.type != "cpu" for p in params)
    return torch.optim.Adam(params, lr=0.01, capturable=capturable, foreach=True)


def cast_floats(value: Any, dtype: torch.dtype) -> Any:
    """Casts floating-point tensors in a nested structure; integer and bool tensors are left alone."""
    if isinstance(value, torch.Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(cast_floats(v, dtype) for v in value)
    if isinstance(value, dict):
        cast = {k: cast_floats(v, dtype) for k, v in value.items()}
        return cast if type(value) is dict else _rebuild_mapping(value, cast)
    return value


def to_device(value: Any, device: str) -> Any:
    """Moves every tensor in a nested structure (used to park reference results off the device)."""
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        return type(value)(to_device(v, device) for v in value)
    if isinstance(value, dict):
        moved = {k: to_device(v, device) for k, v in value.items()}
        return moved if type(value) is dict else _rebuild_mapping(value, moved)
    return value


def _rebuild_mapping(original: Any, items: dict[str, Any]) -> Any:
    # HF ModelOutput and similar ordered mappings: keep the class so same() compares them the same way.
    try:
        return type(original)(**items)
    except TypeError:
        return items
