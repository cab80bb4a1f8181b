"""Our side of running TorchBench models offline, without editing the checkout.

Substitutions, named in the manifest's build.offline (facts: shared/reference/torchbench-offline.md):
  random_weights  torchvision builders and timm.create_model never fetch weights (weights=None, pretrained=False)
  hf_config       AutoConfig.from_pretrained answers from our table of hub configs instead of the hub
  data            the model's synthetic dataset (suites/torchbench/synthetic_data.py) in our data folder
Always: the HF hub is put offline, torchbenchmark.DATA_PATH points at our data folder, and the internal
`torchbenchmark.util.framework.fb.installer.install_data` fallback (absent in OSS checkouts) answers from it.
Everything is scoped by `offline_substitutions` and undone on exit.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import tempfile
import types
from pathlib import Path
from typing import Any, Callable, Iterator

from suites.torchbench import synthetic_data
from suites.torchbench.checkout import ModelUnavailable

DATA_ENV_VAR = "PARITY_TORCHBENCH_DATA"
SUBSTITUTIONS = ("random_weights", "hf_config", "data")
INSTALLER_MODULE = "torchbenchmark.util.framework.fb.installer"

# Hub configs that TorchBench models ask for, written out (values of the published config.json).
HUB_CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    "albert-base-v2": ("AlbertConfig", {
        "vocab_size": 30000, "embedding_size": 128, "hidden_size": 768, "num_hidden_layers": 12,
        "num_attention_heads": 12, "intermediate_size": 3072, "hidden_act": "gelu_new",
        "hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0, "max_position_embeddings": 512,
        "type_vocab_size": 2, "layer_norm_eps": 1e-12, "pad_token_id": 0, "bos_token_id": 2, "eos_token_id": 3}),
}

# (module, attribute) builders that TorchBench models call with pretrained weights.
_TORCHVISION_BUILDERS = (("torchvision.models", "vgg16"),
                         ("torchvision.models.detection", "maskrcnn_resnet50_fpn"),
                         ("torchvision.models.detection.mask_rcnn", "maskrcnn_resnet50_fpn"))


def data_root(environ: dict[str, str] | None = None) -> Path:
    """Where our synthetic datasets live: PARITY_TORCHBENCH_DATA, or a folder in the temp dir."""
    value = (environ if environ is not None else os.environ).get(DATA_ENV_VAR, "").strip()
    return Path(value) if value else Path(tempfile.gettempdir()) / "parity-torchbench-data"


def _patch(stack: contextlib.ExitStack, owner: Any, name: str, replacement: Any) -> None:
    # A class keeps its own descriptor (a classmethod stays one); an inherited attribute is just removed.
    own = vars(owner)
    original = own[name] if name in own else getattr(owner, name)
    setattr(owner, name, replacement)
    if isinstance(owner, type) and name not in own:
        stack.callback(delattr, owner, name)
    else:
        stack.callback(setattr, owner, name, original)


def _without_weights(builder: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(builder)
    def build(*args: Any, **kwargs: Any) -> Any:
        kwargs.update(weights=None, **({"weights_backbone": None} if "maskrcnn" in builder.__name__ else {}))
        return builder(*args, **kwargs)

    return build


def _random_weights(stack: contextlib.ExitStack) -> None:
    import importlib

    for module_name, attr in _TORCHVISION_BUILDERS:
        module = importlib.import_module(module_name)
        _patch(stack, module, attr, _without_weights(getattr(module, attr)))
    try:
        import timm
    except ModuleNotFoundError:  # only timm-based models need it, and they fail on their own import
        return
    create_model = timm.create_model

    @functools.wraps(create_model)
    def create_without_weights(*args: Any, **kwargs: Any) -> Any:
        return create_model(*args, **{**kwargs, "pretrained": False})

    _patch(stack, timm, "create_model", create_without_weights)


def _hf_config(stack: contextlib.ExitStack) -> None:
    import transformers

    def from_table(name: str, *args: Any, **kwargs: Any) -> Any:
        if name not in HUB_CONFIGS:
            raise ModelUnavailable(f"the model asks the HF hub for the config {name!r}, and Parity has no offline "
                                   f"copy of it (known: {', '.join(HUB_CONFIGS)}); add it to HUB_CONFIGS in {__file__}")
        cls_name, values = HUB_CONFIGS[name]
        return getattr(transformers, cls_name)(**values)

    _patch(stack, transformers.AutoConfig, "from_pretrained", staticmethod(from_table))


def _installer_module(root: Path) -> types.ModuleType:
    """Stands in for Meta's internal installer: install_data(name) -> the folder holding <name>/."""
    module = types.ModuleType(INSTALLER_MODULE, "Parity's offline stand-in: synthetic data, no downloads")

    def install_data(name: str) -> str:
        if not (root / name).is_dir():
            raise ModelUnavailable(f"no synthetic data named {name!r} in {root}: Parity does not generate it yet "
                                   f"(generated: {', '.join(sorted(synthetic_data.DATA_ROOT_DATASETS))})")
        return str(root)

    module.install_data = install_data  # type: ignore[attr-defined]
    return module


@contextlib.contextmanager
def offline_substitutions(model: str, substitutions: tuple[str, ...], package: Any, root: Path) -> Iterator[None]:
    """Applies our substitutions around importing and constructing one TorchBench model."""
    unknown = set(substitutions) - set(SUBSTITUTIONS)
    if unknown:
        raise ValueError(f"{model}: unknown offline substitutions {sorted(unknown)}; known: {SUBSTITUTIONS}")
    with contextlib.ExitStack() as stack:
        for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
            stack.enter_context(_env(var, "1"))
        if "data" in substitutions:
            synthetic_data.ensure_dataset(model, root)
        _patch(stack, package, "DATA_PATH", str(root))
        parent = INSTALLER_MODULE.rpartition(".")[0]
        fb_package = types.ModuleType(parent)
        fb_package.__path__ = []  # type: ignore[attr-defined]
        for name, module in ((parent, fb_package), (INSTALLER_MODULE, _installer_module(root))):
            stack.enter_context(_module(name, module))
        if "random_weights" in substitutions:
            _random_weights(stack)
        if "hf_config" in substitutions:
            _hf_config(stack)
        yield


@contextlib.contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    saved = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


@contextlib.contextmanager
def _module(name: str, module: types.ModuleType) -> Iterator[None]:
    saved = sys.modules.get(name)
    sys.modules[name] = module
    try:
        yield
    finally:
        if saved is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = saved
