"""Runs one of upstream's suite scripts in its own process, with the offline substitutions Parity makes for itself.

  python tools/crosscheck/upstream_shim.py --suite SUITE --offline TABLE.json -- SCRIPT ARG...

Started as a file, not as a module of Parity's packages: upstream's process imports nothing of Parity's. Made right
after the library's own import, whenever the script first imports it, and reported on stderr:
  weights  timm's create_model builds with pretrained=False (TIMM, TorchBench); torchvision's model builders get
           weights=None (TorchBench): random weights, as Parity's models have, and no download
  configs  transformers' AutoConfig.from_pretrained answers the hub ids of TABLE (HuggingFace, TorchBench); any other
           id goes to transformers, which fails offline as it would have
Then SCRIPT runs as __main__ with its folder first on sys.path and ARG... as its arguments, as `python SCRIPT ARG...`.
Nothing else of upstream's behaviour is touched.
"""

from __future__ import annotations

import argparse
import functools
import importlib.abc
import importlib.machinery
import json
import runpy
import sys
import types
from pathlib import Path
from typing import Any, Callable

# The substitutions, each made right after the module named has run its own code, the first time anything imports it.
_HOOKS_BY_SUITE = {
    "timm": ("timm.models",),
    "huggingface": ("transformers",),
    "torchbench": ("timm.models", "torchvision.models", "transformers"),
}
# torchvision's model packages whose builders TorchBench calls, and which of them also take a pretrained backbone.
_TORCHVISION_PACKAGES = ("", "detection", "segmentation", "video")
_WITH_BACKBONE = ("detection", "segmentation")


def _say(message: str) -> None:
    print(f"[crosscheck shim] {message}", file=sys.stderr, flush=True)


def timm_without_weights() -> str:
    # timm/__init__ binds `from .models import create_model` after timm.models has run: it gets this one too, and so
    # do upstream's `from timm.models import create_model` and TorchBench's timm.create_model.
    models = sys.modules["timm.models"]
    create_model = models.create_model

    @functools.wraps(create_model)
    def create_without_weights(*args: Any, **kwargs: Any) -> Any:
        if len(args) > 1:  # create_model(name, pretrained, ...)
            args = (args[0], False, *args[2:])
        return create_model(*args, **{**kwargs, "pretrained": False})

    models.create_model = create_without_weights
    return "timm's create_model builds with pretrained=False"


def _without_weights(builder: Callable[..., Any], backbone: bool) -> Callable[..., Any]:
    @functools.wraps(builder)
    def build(*args: Any, **kwargs: Any) -> Any:
        for legacy in ("pretrained", "pretrained_backbone"):
            kwargs.pop(legacy, None)
        kwargs["weights"] = None
        if backbone:
            kwargs["weights_backbone"] = None
        return builder(*args, **kwargs)

    return build


def torchvision_without_weights() -> str:
    models = sys.modules["torchvision.models"]
    count = 0
    for package in _TORCHVISION_PACKAGES:
        module = getattr(models, package) if package else models
        for name in models.list_models(module=module):
            builder = getattr(module, name, None)
            if callable(builder):
                setattr(module, name, _without_weights(builder, package in _WITH_BACKBONE))
                count += 1
    return f"{count} torchvision model builders get weights=None"


def configs_from_table(table: dict[str, dict[str, Any]]) -> Callable[[], str]:
    def substitute() -> str:
        transformers = sys.modules["transformers"]  # its lazy module, which replaced the one that ran
        from_hub = transformers.AutoConfig.from_pretrained

        def from_table(name: Any, *args: Any, **kwargs: Any) -> Any:
            entry = table.get(str(name))
            if entry is None:
                return from_hub(name, *args, **kwargs)
            config_class = getattr(transformers, entry["model_class"]).config_class
            return config_class(**entry["config"])

        transformers.AutoConfig.from_pretrained = staticmethod(from_table)
        return f"AutoConfig.from_pretrained answers {', '.join(sorted(table))} from Parity's manifest"

    return substitute


class AfterImport(importlib.abc.MetaPathFinder):
    """Runs a substitution right after a module's own code, the first time it is imported: the shim imports none
    of these libraries itself, so a script that never does pays nothing, and import order stays the script's."""

    def __init__(self, hooks: dict[str, Callable[[], str]]) -> None:
        self._hooks = dict(hooks)

    def find_spec(self, name: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        hook = self._hooks.pop(name, None)
        if hook is None:
            return None
        spec = next((found for finder in sys.meta_path if finder is not self and hasattr(finder, "find_spec")
                     if (found := finder.find_spec(name, path, target)) is not None), None)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec  # not there (the script says so itself), or nothing to wrap
        run = spec.loader.exec_module

        def exec_module(module: types.ModuleType) -> None:
            run(module)
            _say(hook())

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def arm(suite: str, table: dict[str, dict[str, Any]]) -> list[str]:
    """Puts the suite's substitutions in place for when their modules are imported; returns those modules."""
    every = {"timm.models": timm_without_weights, "torchvision.models": torchvision_without_weights,
             "transformers": configs_from_table(table)}
    hooks = {name: every[name] for name in _HOOKS_BY_SUITE[suite]}
    for name in [n for n in hooks if n in sys.modules]:  # imported already: substitute now
        _say(hooks.pop(name)())
    sys.meta_path.insert(0, AfterImport(hooks))
    return list(hooks)


def main(argv: list[str]) -> None:
    if "--" not in argv:
        sys.exit("usage: upstream_shim.py --suite SUITE --offline TABLE.json -- SCRIPT ARG...")
    split = argv.index("--")
    parser = argparse.ArgumentParser(prog="upstream_shim.py")
    parser.add_argument("--suite", required=True)
    parser.add_argument("--offline", type=Path, required=True)
    own = parser.parse_args(argv[:split])
    script, *script_args = argv[split + 1:] or [""]
    path = Path(script).resolve()
    if not path.is_file():
        sys.exit(f"upstream_shim.py: no script {script!r}")
    if own.suite not in _HOOKS_BY_SUITE:
        sys.exit(f"upstream_shim.py: unknown suite {own.suite!r}")
    table = json.loads(own.offline.read_text()).get("hub_configs", {})
    _say(f"offline substitutions armed for {', '.join(arm(own.suite, table))}")
    sys.argv = [str(path), *script_args]
    sys.path[0] = str(path.parent)  # where `python SCRIPT` puts it: upstream imports its common.py from there
    runpy.run_path(str(path), run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
