"""Makes a trimmed TorchBench checkout: the model folders of the manifest plus the package files of the contract.

  python -m suites.torchbench.trim_checkout /path/to/benchmark .torchbench [--fambench /path/to/FAMBench]

Small enough (a few MiB) to carry to a machine without network; never commit it (model folders carry
their own licences: yolov3 and pytorch_unet are GPL-3.0, moco CC BY-NC 4.0). The copy also gets the
synthetic data files that models read from their own folder (suites/torchbench/synthetic_data.py);
datasets looked up through DATA_PATH are generated at load time, outside the checkout.
The torchvision architectures' folders come too: Parity builds those models from torchvision directly, but
upstream's torchbench.py imports them from the checkout (the cross-check, tools/crosscheck, runs it beside Parity).
What the contract needs at import (shared/reference/torchbench-offline.md): torchbenchmark/{__init__,tasks}.py,
torchbenchmark/util/, torchbenchmark/_components/, the root utils/, the package __init__ files of the model
folders, and dynamobench's HF/timm model lists that those factories assert on.
fambench_dlrm imports FAMBench's DLRM source from the checkout's submodules/FAMBench (a submodule at commit
4f815ecc): the .py files of its benchmarks/dlrm/ootb are copied there, plus its LICENSE (Apache-2.0), from
--fambench DIR, or else from the source's submodule when it is initialised. A FAMBench tree from a bare mirror:
`git --git-dir=MIRROR archive 4f815ecc benchmarks/dlrm/ootb LICENSE | tar -x -C DIR`.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from proto.codegen import ensure_generated

ensure_generated()

from suites.common.manifest import load_manifest  # noqa: E402
from suites.torchbench import synthetic_data  # noqa: E402
from suites.torchbench.checkout import FOLDERS, PACKAGE  # noqa: E402

FRAMEWORK_TREES = (f"{PACKAGE}/util", f"{PACKAGE}/_components", "utils")
FRAMEWORK_FILES = (f"{PACKAGE}/__init__.py", f"{PACKAGE}/tasks.py", f"{PACKAGE}/data/index.yaml",
                   "userbenchmark/dynamo/dynamobench/huggingface_models_list.txt",
                   "userbenchmark/dynamo/dynamobench/timm_models_list.txt")
PACKAGE_DIRS = (*(f"{PACKAGE}/{folder}" for folder in FOLDERS), f"{PACKAGE}/e2e_models")
FAMBENCH = "submodules/FAMBench"  # fambench_dlrm puts REPO_PATH/submodules/FAMBench/benchmarks/dlrm/ootb on sys.path
FAMBENCH_OOTB = "benchmarks/dlrm/ootb"
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", ".data")


# Models Parity builds from torchvision: their TorchBench folders (under models/) are for upstream's torchbench.py.
TORCHVISION_SOURCES = ("torchvision", "torchvision_qat")


def wanted_models(suite: str = "torchbench") -> dict[str, str]:
    """{model: folder} for every checkout model of the manifest with at least one mode that can run, and for the
    models Parity builds from torchvision (upstream loads them from the checkout)."""
    manifest = load_manifest(suite)
    wanted = {}
    for name, entry in manifest.models.items():
        build = entry.build
        if build.get("source") == "torchbench" and set(entry.modes) - set(build.get("unavailable", {})):
            wanted[name] = build["folder"]
        elif build.get("source") in TORCHVISION_SOURCES:
            wanted[name] = "models"
    return wanted


def trim(source: Path, dest: Path, models: dict[str, str], fambench: Path | None = None) -> list[str]:
    """Copies the trimmed checkout into dest (which must not exist); returns the models it lacks.

    With fambench_dlrm it also copies FAMBench's source, from fambench or else source's initialised submodule.
    """
    if fambench is not None and not (fambench / FAMBENCH_OOTB).is_dir():
        raise SystemExit(f"error: {fambench} is not a FAMBench tree (no {FAMBENCH_OOTB})")
    if not (source / PACKAGE / "__init__.py").is_file():
        raise SystemExit(f"error: {source} is not a TorchBench checkout (no {PACKAGE}/__init__.py); "
                         "give the root of a pytorch/benchmark clone")
    if dest.exists():
        raise SystemExit(f"error: {dest} exists; remove it or choose another destination")
    for tree in FRAMEWORK_TREES:
        shutil.copytree(source / tree, dest / tree, ignore=_IGNORE)
    for rel in FRAMEWORK_FILES:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / rel, dest / rel)
    for rel in PACKAGE_DIRS:  # the package files only, not every model
        (dest / rel).mkdir(parents=True, exist_ok=True)
        for item in (source / rel).iterdir():
            if item.is_file():
                shutil.copy2(item, dest / rel / item.name)
    missing = []
    for name, folder in sorted(models.items()):
        src = source / PACKAGE / folder / name
        if not src.is_dir():
            missing.append(name)
            continue
        shutil.copytree(src, dest / PACKAGE / folder / name, ignore=_IGNORE)
        synthetic_data.write_in_folder_file(name, dest / PACKAGE / folder / name)
    if "fambench_dlrm" in models and "fambench_dlrm" not in missing:
        fambench = fambench if fambench is not None else source / FAMBENCH
        if (fambench / FAMBENCH_OOTB).is_dir():
            copy_fambench(fambench, dest)
    return missing


def copy_fambench(fambench: Path, dest: Path) -> None:
    """Copies the .py files of FAMBench's benchmarks/dlrm/ootb, and its LICENSE, into dest's FAMBench submodule."""
    for path in sorted((fambench / FAMBENCH_OOTB).rglob("*.py")):
        target = dest / FAMBENCH / path.relative_to(fambench)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    if (fambench / "LICENSE").is_file():
        shutil.copy2(fambench / "LICENSE", dest / FAMBENCH / "LICENSE")


def _size_mib(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path, help="root of a pytorch/benchmark checkout")
    parser.add_argument("dest", type=Path, help="new folder for the trimmed copy (keep it git-ignored)")
    parser.add_argument("--fambench", type=Path, help="a FAMBench tree at commit 4f815ecc, for fambench_dlrm "
                        "(default: the source's submodules/FAMBench, if initialised)")
    args = parser.parse_args(argv)
    models = wanted_models()
    missing = trim(args.source.resolve(), args.dest, models, args.fambench.resolve() if args.fambench else None)
    print(f"{args.dest}: {len(models) - len(missing)} model folders, {_size_mib(args.dest):.1f} MiB")
    if missing:
        print(f"not in the source checkout (they load as model_fail_to_load): {', '.join(missing)}", file=sys.stderr)
    if "fambench_dlrm" in models and not (args.dest / FAMBENCH / FAMBENCH_OOTB).is_dir():
        print("no FAMBench source (--fambench DIR): fambench_dlrm loads as model_fail_to_load", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
