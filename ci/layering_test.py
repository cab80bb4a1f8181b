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


DYNAMIC_IMPORTS = {"import_module", "__import__"}  # importlib.import_module("x"), __import__("x")


def imports_of(path: Path) -> set[str]:
    """Every module a file imports: import statements, and importlib calls whose name is a literal or an f-string
    (a formatted part reads "*", any module: f"suites.{suite}.loader" -> "suites.*.loader")."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Call) and _called_name(node.func) in DYNAMIC_IMPORTS and node.args:
            name = _literal(node.args[0])
            if name:
                found.add(name)
    return found


def _called_name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _literal(arg: ast.expr) -> str:
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "*" for v in arg.values)
    return ""


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


SUITE_REGISTRY = REPO / "suites" / "common" / "loaders.py"  # finds a suite's loader by name, for everyone else


@pytest.mark.parametrize("folder", ["tools", "suites/common"])
def test_no_suite_is_imported_from(folder: str) -> None:
    suites = {p.name for p in (REPO / "suites").iterdir() if p.is_dir() and p.name != "common"} | {"*"}
    offenders = [str(p.relative_to(REPO)) for p in sources(folder)
                 if p != SUITE_REGISTRY
                 and any(m.startswith("suites.") and m.split(".")[1] in suites for m in imports_of(p))]
    assert offenders == []


def test_dynamic_imports_are_seen(tmp_path: Path) -> None:
    source = tmp_path / "sneaky.py"
    source.write_text("import importlib\nimportlib.import_module(f'suites.{name}.loader')\n__import__('suites.timm')\n")
    assert imports_of(source) == {"importlib", "suites.*.loader", "suites.timm"}
