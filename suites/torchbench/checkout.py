"""The user's TorchBench checkout and TorchBench's model contract, seen from our side.

The contract (pytorch/benchmark): `torchbenchmark.<folder>.<name>` defines `Model(test, device, batch_size,
extra_args)`, with test "train" or "eval", and `Model.get_module()` returns `(module, example_inputs)`.
We import it from the checkout the user points to (PARITY_TORCHBENCH_DIR, or `--torchbench-dir` of
`python -m suites.torchbench.run`) and never run its installers. Everything that keeps a model from
loading (no checkout, a missing folder, an absent package, the model refusing the mode or device) is a
ModelUnavailable with the reason, which the harness classifies `model_fail_to_load`.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_VAR = "PARITY_TORCHBENCH_DIR"
PACKAGE = "torchbenchmark"
FOLDERS = ("models", "canary_models")
# The harness builds fp32 models and applies bf16 / AMP itself; without this TorchBench casts eval
# models to fp16 on CUDA for some model families.
CONTRACT_EXTRA_ARGS = ("--precision", "fp32")
_HOW_TO = (f"set {ENV_VAR} to a pytorch/benchmark checkout (or pass --torchbench-dir to "
           "`python -m suites.torchbench.run`); `python -m suites.torchbench.trim_checkout SRC DEST` makes a small one")


class ModelUnavailable(NotImplementedError):
    """A model that cannot be loaded here, with the reason.

    A NotImplementedError because the harness (suites/common/model_run.py), like upstream's, classifies a
    NotImplementedError at load as `model_fail_to_load` rather than an eager failure.
    """


@dataclass(frozen=True)
class Checkout:
    root: Path

    def model_dir(self, folder: str, name: str) -> Path:
        return self.root / PACKAGE / folder / name


def locate_checkout(environ: dict[str, str] | None = None) -> Checkout:
    """The checkout named by PARITY_TORCHBENCH_DIR; ModelUnavailable saying what is wrong otherwise."""
    value = (environ if environ is not None else os.environ).get(ENV_VAR, "").strip()
    if not value:
        raise ModelUnavailable(f"no TorchBench checkout is configured: {_HOW_TO}")
    root = Path(value).expanduser().resolve()
    if not (root / PACKAGE / "__init__.py").is_file():
        raise ModelUnavailable(f"{ENV_VAR}={value} is not a TorchBench checkout (no {PACKAGE}/__init__.py there): {_HOW_TO}")
    return Checkout(root)


def import_package(checkout: Checkout) -> Any:
    """Imports `torchbenchmark` from the checkout (and refuses one imported from anywhere else)."""
    root = str(checkout.root)
    if root not in sys.path:
        sys.path.insert(0, root)
    try:
        package = importlib.import_module(PACKAGE)
    except ModuleNotFoundError as exc:
        raise ModelUnavailable(f"importing {PACKAGE} from {root} needs the package {exc.name!r}, which is not "
                               f"installed: {exc}") from exc
    where = Path(package.__file__).resolve().parent.parent
    if where != checkout.root:
        raise ModelUnavailable(f"{PACKAGE} was already imported from {where}, not from the configured checkout {root}")
    return package


def import_model_module(checkout: Checkout, folder: str, name: str, packages: tuple[str, ...] = ()) -> Any:
    """Imports the model's module; a missing folder, package or data file becomes ModelUnavailable."""
    if folder not in FOLDERS:
        raise ValueError(f"unknown TorchBench folder {folder!r}; expected one of {FOLDERS}")
    if not (checkout.model_dir(folder, name) / "__init__.py").is_file():
        raise ModelUnavailable(f"{name} is not in the checkout ({checkout.model_dir(folder, name)} is missing): "
                               "removed upstream, or trimmed away")
    try:
        return importlib.import_module(f"{PACKAGE}.{folder}.{name}")
    except ModuleNotFoundError as exc:
        extra = f" (the model's extra packages: {', '.join(packages)})" if packages else ""
        raise ModelUnavailable(f"{name} needs the package {exc.name!r}, which is not installed{extra}; "
                               "install or carry its wheel (shared/reference/torchbench-offline.md)") from exc
    except Exception as exc:  # noqa: BLE001 (module-level asserts on data folders and the like)
        raise ModelUnavailable(f"importing {name} failed: {type(exc).__name__}: {exc}") from exc


def instantiate(module: Any, name: str, training: bool, device: str, batch_size: int | None,
                model_kwargs: dict[str, Any] | None = None) -> tuple[Any, Any]:
    """`Model(test, device, batch_size, extra_args[, model_kwargs]).get_module()`: the module and its example inputs
    (model_kwargs only where given: few models take it)."""
    model_cls = getattr(module, "Model", None)
    if model_cls is None:
        raise ModelUnavailable(f"{module.__name__} defines no Model class: not TorchBench's model contract")
    test = "train" if training else "eval"
    try:
        extra = {"model_kwargs": model_kwargs} if model_kwargs else {}
        benchmark = model_cls(test=test, device=device, batch_size=batch_size, extra_args=list(CONTRACT_EXTRA_ARGS),
                              **extra)
        return benchmark.get_module()
    except NotImplementedError as exc:
        raise ModelUnavailable(f"{name} does not support test={test} on {device}: {exc}") from exc
    except ModuleNotFoundError as exc:
        raise ModelUnavailable(f"{name} needs the package {exc.name!r}, which is not installed: {exc}") from exc
    except FileNotFoundError as exc:  # a data file the installer would have downloaded
        raise ModelUnavailable(f"{name} misses a data file: {exc}; a checkout made by "
                               "`python -m suites.torchbench.trim_checkout` has it generated") from exc
