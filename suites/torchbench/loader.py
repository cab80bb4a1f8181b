"""Builds a TorchBench-suite model and its inputs from a manifest entry: random weights, nothing downloaded.

build.source (suites/torchbench/manifest.bzl) picks the way: torchvision architectures directly from
torchvision, the two QAT models through torchvision's quantizable architectures, everything else from the
user's TorchBench checkout through its model contract (suites/torchbench/checkout.py).
"""

from __future__ import annotations

from typing import Any

import torch

from suites.common.manifest import ModelEntry
from suites.common.workload import Workload
from suites.torchbench import checkout as tb
from suites.torchbench.offline import data_root, offline_substitutions

SEED = 1337  # upstream's set_random_seed()
IMAGE_SIZE = 224  # TorchBench's TorchVisionModel: randn(bs, 3, 224, 224)
YOLOV3_INPUT = (3, 384, 512)  # upstream's harness replaces yolov3's example inputs with rand(bs, 3, 384, 512)


def build(entry: ModelEntry, mode: str, device: str, smoke: bool, batch_size: int) -> Workload:
    spec = entry.build
    unavailable = spec.get("unavailable", {}).get(mode)
    if unavailable:
        raise tb.ModelUnavailable(f"{entry.name} {mode}: {unavailable}")
    source = spec.get("source")
    if source == "torchvision":
        return _torchvision(entry, device, smoke, batch_size, qat=False)
    if source == "torchvision_qat":
        return _torchvision(entry, device, smoke, batch_size, qat=True)
    if source == "torchbench":
        return _from_checkout(entry, mode, device, batch_size)
    raise ValueError(f"{entry.name}: unknown build.source {source!r}; expected torchvision, torchvision_qat or torchbench")


def _torchvision(entry: ModelEntry, device: str, smoke: bool, batch_size: int, *, qat: bool) -> Workload:
    import torchvision

    arch = entry.build["arch"]
    kwargs: dict[str, Any] = {"weights": None}
    image_size = IMAGE_SIZE
    if smoke:  # the same architecture, fewer classes and a small image
        kwargs["num_classes"] = entry.smoke_build["num_classes"]
        image_size = entry.smoke_build["image_size"]
    torch.manual_seed(SEED)
    if qat:
        model = getattr(torchvision.models.quantization, arch)(quantize=False, **kwargs)
        _prepare_qat(model)
    else:
        model = getattr(torchvision.models, arch)(**kwargs)
        _torchvision_model_cudnn_flags()
    torch.manual_seed(SEED)
    images = torch.randn(batch_size, 3, image_size, image_size)
    return Workload(model=model.to(device), inputs=(images.to(device),))


def _torchvision_model_cudnn_flags() -> None:
    """What TorchBench's TorchVisionModel sets when it builds one of these models, and upstream's harness then keeps
    for both its runs: cuDNN's autotuner on, cuDNN determinism off (the accuracy check's deterministic algorithms
    still apply). Its QAT models set neither. Without them, mobilenet_v2 inference ran 1.6-1.7x slower, eager and
    compiled, than under upstream's harness on an H200 (issue #41; the GPU has yet to confirm these flags close it)."""
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = False


def _prepare_qat(model: torch.nn.Module) -> None:
    """Eager-mode QAT on torchvision's quantizable architecture: fuse, attach fake-quant observers."""
    from torch.ao import quantization

    model.train()
    model.fuse_model(is_qat=True)
    model.qconfig = quantization.get_default_qat_qconfig("fbgemm")
    quantization.prepare_qat(model, inplace=True)


def _from_checkout(entry: ModelEntry, mode: str, device: str, batch_size: int) -> Workload:
    spec = entry.build
    checkout = tb.locate_checkout()
    package = tb.import_package(checkout)
    substitutions = tuple(spec.get("offline", ()))
    packages = tuple(spec.get("packages", ()))
    with offline_substitutions(entry.name, substitutions, package, data_root()):
        module = tb.import_model_module(checkout, spec["folder"], entry.name, packages)
        torch.manual_seed(SEED)
        model, inputs = tb.instantiate(module, entry.name, mode == "training", device, batch_size or None,
                                       spec.get("model_kwargs", {}).get(mode))
    if entry.name == "yolov3":
        torch.manual_seed(SEED)
        inputs = (torch.rand(batch_size or entry.batch_sizes[mode], *YOLOV3_INPUT, device=device),)
    if not isinstance(model, torch.nn.Module):
        raise tb.ModelUnavailable(f"{entry.name}.get_module() returned {type(model).__name__}, not a torch.nn.Module")
    return Workload(model=model, inputs=inputs if isinstance(inputs, dict) else tuple(inputs))
