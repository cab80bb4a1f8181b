"""Reads data-only `.bzl` files: the single source of truth shared by Starlark macros and Python.

Such a file holds assignments of literals (dicts, lists, strings, numbers, True/False/None) and
comments, which are valid Starlark and valid Python alike, so both sides read the same bytes.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any


class StarlarkDataError(ValueError):
    """A data `.bzl` file holds something other than literal assignments."""


def load_bzl_literals(path: Path) -> dict[str, Any]:
    """Returns {NAME: value} for every top-level `NAME = <literal>` in `path`."""
    try:
        source = path.read_text()
    except OSError as exc:
        raise StarlarkDataError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise StarlarkDataError(f"{path}:{exc.lineno}: not valid Starlark/Python literal syntax: {exc.msg}") from exc
    values: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue  # docstring
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            raise StarlarkDataError(f"{path}:{node.lineno}: only `NAME = <literal>` assignments are allowed")
        try:
            values[node.targets[0].id] = ast.literal_eval(node.value)
        except ValueError as exc:
            raise StarlarkDataError(f"{path}:{node.lineno}: value of {node.targets[0].id} is not a literal") from exc
    return values
