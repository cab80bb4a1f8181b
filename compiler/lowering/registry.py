"""The op families and the one classification of ATen ops into them.

Families are found by name (compiler/lowering/<name>/__init__.py defines FAMILY), never imported
statically, so that a library that uses this registry does not depend on every family: under Bazel only
the families a target depends on are importable, and `available_families()` returns exactly those.
"""

from __future__ import annotations

import functools
import importlib

from compiler.lowering.family import Family

# Every family, in classification order for tags (patterns must not overlap; `other` takes the rest).
FAMILY_NAMES = ("conv", "matmul", "norm", "attention", "pooling", "reduction", "indexing", "rng", "layout",
                "pointwise", "other")
OTHER = "other"


class FamilyError(ValueError):
    """A family definition is inconsistent (overlapping patterns, wrong name)."""


def _module(name: str) -> str:
    return f"compiler.lowering.{name}"


def load_family(name: str) -> Family:
    if name not in FAMILY_NAMES:
        raise FamilyError(f"unknown op family {name!r}; families: {', '.join(FAMILY_NAMES)}")
    family = importlib.import_module(_module(name)).FAMILY
    if family.name != name:
        raise FamilyError(f"{_module(name)}.FAMILY is named {family.name!r}, expected {name!r}")
    return family


@functools.cache
def all_families() -> tuple[Family, ...]:
    """Every family (the op-set tool and its tests depend on all of them)."""
    return tuple(load_family(name) for name in FAMILY_NAMES)


def available_families() -> tuple[Family, ...]:
    """The families importable here: all of them in a source checkout, a target's own ones under Bazel."""
    found = []
    for name in FAMILY_NAMES:
        try:
            found.append(load_family(name))
        except ModuleNotFoundError as exc:
            if exc.name != _module(name):
                raise  # the family exists but something it imports does not: a real error
    return tuple(found)


def classify(op: str, tags: tuple[str, ...] = ()) -> str:
    """The family of op `op` (e.g. "aten.native_layer_norm.default") whose torch tags are `tags`.

    Patterns decide first and must match at most one family; then tags; then `other`.
    """
    by_pattern = [f.name for f in all_families() if f.matches_name(op)]
    if len(by_pattern) > 1:
        raise FamilyError(f"{op} matches the patterns of several families: {', '.join(by_pattern)}; "
                          "make the patterns in compiler/lowering/<family>/__init__.py disjoint")
    if by_pattern:
        return by_pattern[0]
    for family in all_families():
        if set(family.tags) & set(tags):
            return family.name
    return OTHER


def op_tags(op: str) -> tuple[str, ...]:
    """torch's tags of the op overload named `op` ("" tags for names torch does not know, e.g. HOPs)."""
    import torch

    parts = op.split(".")
    if len(parts) != 3:
        return ()
    namespace, name, overload = parts
    try:
        overload_op = getattr(getattr(getattr(torch.ops, namespace), name), overload)
    except (AttributeError, RuntimeError):
        return ()
    return tuple(tag.name for tag in getattr(overload_op, "tags", ()))
