"""Reads data-only `.bzl` files: the single source of truth shared by Starlark macros and Python.

Such a file holds assignments of literals (dicts, lists, strings, numbers, True/False/None) and
comments, which are valid Starlark and valid Python alike, so both sides read the same bytes.
Where the two languages differ, this reader refuses what Starlark refuses, so both sides see the same
values: Python keeps the last of two equal keys in a dict literal and lets a name be assigned twice,
while Bazel fails on both ("dictionary expression has duplicate key", "cannot reassign global").
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# A path to a value inside the file: the assigned NAME, then dict keys and list indices.
KeyPath = tuple[Any, ...]


class StarlarkDataError(ValueError):
    """A data `.bzl` file holds something other than literal assignments."""


@dataclass(frozen=True)
class BzlData:
    """The literals of a data `.bzl` file, and the line of every dict key and list item, so that a
    validator of the values can name file:line of what it refuses."""

    path: Path
    values: dict[str, Any]
    lines: dict[KeyPath, int]

    def line_of(self, *keys: Any) -> int:
        """The line of the value at `keys` (NAME, key, index, ...); the nearest enclosing one that has a line."""
        for depth in range(len(keys), 0, -1):
            if keys[:depth] in self.lines:
                return self.lines[keys[:depth]]
        return 1

    def where(self, *keys: Any) -> str:
        return f"{self.path}:{self.line_of(*keys)}"


def load_bzl_literals(path: Path) -> dict[str, Any]:
    """Returns {NAME: value} for every top-level `NAME = <literal>` in `path`."""
    return load_bzl_data(path).values


def load_bzl_data(path: Path) -> BzlData:
    """The literals of `path` with their lines; refuses duplicate dict keys and names assigned twice."""
    try:
        source = path.read_text()
    except OSError as exc:
        raise StarlarkDataError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        tree = ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise StarlarkDataError(f"{path}:{exc.lineno}: not valid Starlark/Python literal syntax: {exc.msg}") from exc
    values: dict[str, Any] = {}
    lines: dict[KeyPath, int] = {}
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue  # docstring
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            raise StarlarkDataError(f"{path}:{node.lineno}: only `NAME = <literal>` assignments are allowed")
        name = node.targets[0].id
        if (name,) in lines:
            raise StarlarkDataError(
                f"{path}:{node.lineno}: {name} is assigned a second time (first at line {lines[(name,)]}); "
                "Starlark cannot reassign a global and Python would keep only the last: keep one assignment")
        try:
            values[name] = ast.literal_eval(node.value)
        except (ValueError, TypeError) as exc:  # TypeError: an unhashable dict key such as a list
            raise StarlarkDataError(f"{path}:{node.lineno}: value of {name} is not a literal") from exc
        lines[(name,)] = node.lineno
        _index_literal(node.value, (name,), path, lines)
    return BzlData(path=path, values=values, lines=lines)


def _index_literal(node: ast.expr, at: KeyPath, path: Path, lines: dict[KeyPath, int]) -> None:
    """Records the line of every dict key and list item under `node`; fails on a key given twice in one dict."""
    if isinstance(node, ast.Dict):
        for key_node, value_node in zip(node.keys, node.values):
            key = ast.literal_eval(key_node)  # a literal: the whole value already passed literal_eval
            if at + (key,) in lines:  # equal in Python (so 1 and True too): Python would keep only one
                raise StarlarkDataError(
                    f"{path}:{key_node.lineno}: duplicate key {key!r} in {_describe(at)} (first at line "
                    f"{lines[at + (key,)]}); Starlark refuses it and Python would keep only the last: "
                    "merge the two entries or rename one")
            lines[at + (key,)] = key_node.lineno
            _index_literal(value_node, at + (key,), path, lines)
    elif isinstance(node, (ast.List, ast.Tuple)):
        for index, item in enumerate(node.elts):
            lines[at + (index,)] = item.lineno
            _index_literal(item, at + (index,), path, lines)


def _describe(at: KeyPath) -> str:
    """`MANIFEST['models']` for the path (MANIFEST, "models")."""
    return at[0] + "".join(f"[{key!r}]" for key in at[1:])
