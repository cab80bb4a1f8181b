"""Builds a TIMM model and its inputs from a manifest entry: random weights, nothing downloaded."""

from __future__ import annotations

from typing import Any

import torch
from torch._dynamo.testing import reduce_to_scalar_loss

from suites.common.manifest import ModelEntry
from suites.common.workload import Workload

SEED = 1337


def build(entry: ModelEntry, mode: str, device: str, smoke: bool, batch_size: int) -> Workload:
    import timm

    spec = entry.smoke_build if smoke else entry.build
    torch.manual_seed(SEED)
    model = timm.create_model(
        entry.build["timm_name"],
        pretrained=False,  # the community loads pretrained weights; we build the same graph with random ones
        in_chans=3,
        scriptable=False,
        drop_rate=0.0,
        **spec.get("kwargs", {}),
    )
    input_size = spec["input_size"] if smoke else spec["input_size"][mode]
    # As upstream: integer pixels normalised by their own mean/std, seeded just before generation.
    torch.manual_seed(SEED)
    pixels = torch.randint(256, (batch_size, *input_size)).float()
    images = (pixels - pixels.mean()) / pixels.std()
    scale = float(entry.build.get("loss_scale", 1.0))
    return Workload(model=model.to(device), inputs=(images.to(device),), loss_fn=_loss_fn(scale))


def _loss_fn(scale: float):  # noqa: ANN202
    def loss(output: Any) -> torch.Tensor:
        if isinstance(output, tuple):  # e.g. inception's aux logits, deit's distillation head
            output = output[0]
        reduced = reduce_to_scalar_loss(output)
        # Divide only where the manifest scales, as upstream does: Dynamo skips reduce_to_scalar_loss, so a `/ 1.0`
        # after it would compile into a graph of its own, one more than upstream's harness counts.
        return reduced if scale == 1.0 else reduced / scale

    return loss
