"""Dependency direction (ARCHITECTURE.md section 2), checked on the import statements themselves.

proto <- compiler <- suites/common <- suites/<suite>; tools never imports a suite; device-specific
modules (compiler/devices/<device>) are imported only through the registry.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

# resolve(): under Bazel this file is a runfiles symlink; the scan reads the source tree it points into.
REPO = Path(__file__).resolve().parent.parent
DEVICE_MODULES = {"compiler.devices.cpu", "compiler.devices.cuda", "compiler.devices.npu", "compiler.devices.privateuse1"}


def imports_of(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def sources(*folders: str) -> list[Path]:
    return [p for folder in folders for p in (REPO / folder).rglob("*.py")]


def test_device_code_is_reached_only_through_the_registry() -> None:
    offenders = [str(p.relative_to(REPO)) for p in sources("suites", "tools", "compiler", "opinfo", "flex_attention")
                 if "devices" not in p.parts and imports_of(p) & DEVICE_MODULES]
    assert offenders == []


def test_op_families_are_reached_only_through_the_registry() -> None:
    """A static import of compiler.lowering.<family> would make a target depend on that family without
    declaring it; families are loaded by name (compiler/lowering/registry.py)."""
    lowering = REPO / "compiler" / "lowering"
    families = {f"compiler.lowering.{p.name}" for p in lowering.iterdir() if (p / "__init__.py").is_file()}
    assert "compiler.lowering.norm" in families
    offenders = [str(p.relative_to(REPO)) for p in sources("suites", "tools", "compiler", "opinfo", "flex_attention", "ci")
                 if lowering not in p.parents and any(m.startswith(tuple(families)) for m in imports_of(p))]
    assert offenders == []


def test_compiler_does_not_import_suites_or_tools() -> None:
    offenders = [str(p.relative_to(REPO)) for p in sources("compiler")
                 if any(m.split(".")[0] in ("suites", "tools") for m in imports_of(p))]
    assert offenders == []


@pytest.mark.parametrize("folder", ["tools", "suites/common"])
def test_no_suite_is_imported_from(folder: str) -> None:
    suites = {p.name for p in (REPO / "suites").iterdir() if p.is_dir() and p.name != "common"}
    offenders = [str(p.relative_to(REPO)) for p in sources(folder)
                 if any(m.startswith("suites.") and m.split(".")[1] in suites for m in imports_of(p))]
    assert offenders == []
