"""The OpInfo catalogue: torch's own op_db, split into the op groups of opinfo/groups.bzl.

op_db ships with torch (`torch.testing._internal.common_methods_invocations`); it is imported only when
asked for (it takes seconds and needs the `expecttest` package).
"""

from __future__ import annotations

import fnmatch
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

import torch

from compiler.starlark_data import load_bzl_literals

GROUPS_BZL = Path(__file__).resolve().parent / "groups.bzl"

# The community's OpInfo dtype set for Inductor (test_torchinductor_opinfo.py runs these; no bfloat16).
COMMUNITY_DTYPES: tuple[torch.dtype, ...] = (
    torch.float16, torch.float32, torch.float64, torch.int32, torch.int64, torch.bool,
)
# High-precision mode's supported scope: what the acceptance counts (every eager-supported case passes).
FP32_SCOPE: tuple[torch.dtype, ...] = (torch.float32,)
DTYPE_SETS = {"fp32": FP32_SCOPE, "community": COMMUNITY_DTYPES}
# Each community dtype alone too, by name ("float16"): a triage reruns one case (tools/triage/op_case.py).
DTYPE_CHOICES = {**DTYPE_SETS, **{str(dtype).removeprefix("torch."): (dtype,) for dtype in COMMUNITY_DTYPES}}
# Ops whose every sample runs even when a run takes the first sample only (the community test's
# inductor_all_samples): their samples differ in kind (layouts, dims, scalar forms), not just in size.
ALWAYS_ALL_SAMPLES = frozenset({
    "H", "T", "all", "amax", "amin", "arange", "diagonal", "diagonal_copy", "diagonal_scatter", "index_add",
    "index_copy", "index_reduce.amax", "index_reduce.amin", "index_reduce.mean", "index_reduce.prod", "isinf",
    "isneginf", "isposinf", "mH", "mT", "nan_to_num", "rsub", "scatter_reduce.sum", "select_scatter",
    "softmax.with_dtype", "squeeze", "sum", "triu", "unfold", "unsqueeze",
})


class CatalogError(ValueError):
    """groups.bzl is inconsistent, or a group / op name is unknown."""


@dataclass(frozen=True)
class Group:
    name: str
    family: str
    presubmit: bool
    ops: tuple[str, ...]       # fnmatch patterns over OpInfo names
    classes: tuple[str, ...]   # OpInfo class names (e.g. "ReductionOpInfo")

    def claims(self, op_name: str, op_class: str) -> bool:
        return any(fnmatch.fnmatchcase(op_name, p) for p in self.ops) or op_class in self.classes


@dataclass(frozen=True)
class OpCase:
    """One (op, variant, dtype) of op_db: the unit every result is about."""

    op: Any  # torch.testing._internal.opinfo.core.OpInfo
    dtype: torch.dtype
    group: str

    @property
    def name(self) -> str:
        return self.op.name

    @property
    def variant(self) -> str:
        return self.op.variant_test_name

    @property
    def full_name(self) -> str:
        return f"{self.name}.{self.variant}" if self.variant else self.name

    @property
    def dtype_name(self) -> str:
        return dtype_name(self.dtype)


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


@functools.cache
def groups() -> tuple[Group, ...]:
    from compiler.lowering.registry import FAMILY_NAMES

    raw = load_bzl_literals(GROUPS_BZL)["GROUPS"]
    found = []
    for entry in raw:
        unknown = set(entry) - {"name", "family", "presubmit", "ops", "classes"}
        if unknown:
            raise CatalogError(f"{GROUPS_BZL}: group {entry.get('name')!r} has unknown keys {sorted(unknown)}")
        if entry["family"] not in FAMILY_NAMES:
            raise CatalogError(f"{GROUPS_BZL}: group {entry['name']!r} names family {entry['family']!r}; "
                               f"families (compiler/lowering): {', '.join(FAMILY_NAMES)}")
        found.append(Group(entry["name"], entry["family"], bool(entry["presubmit"]), tuple(entry.get("ops", ())),
                           tuple(entry.get("classes", ()))))
    names = [g.name for g in found]
    if len(set(names)) != len(names) or not found or found[-1].ops != ("*",):
        raise CatalogError(f"{GROUPS_BZL}: group names must be unique and the last group must claim '*' "
                           f"(got {names})")
    return tuple(found)


def get_group(name: str) -> Group:
    for group in groups():
        if group.name == name:
            return group
    raise CatalogError(f"unknown op group {name!r}; groups (opinfo/groups.bzl): {', '.join(g.name for g in groups())}")


def group_of(op_name: str, op_class: str) -> str:
    """The first group, in groups.bzl order, that claims the op."""
    return next(g.name for g in groups() if g.claims(op_name, op_class))


def op_db() -> list[Any]:
    try:
        import torch.testing._internal.common_methods_invocations as methods
    except ModuleNotFoundError as exc:
        raise CatalogError(f"cannot import torch's OpInfo database: no module {exc.name!r}; install it "
                           "(it is in requirements.lock; on a GPU machine carry its wheel in .whl/)") from exc
    # op_db's random ops go through this module global, which seeds inside the call: Dynamo cannot put a seed
    # in a graph, so under fullgraph every such op would fail to compile (upstream lists them as expected
    # failures). Seeding is the runner's job, before each eager and each compiled call.
    methods.wrapper_set_seed = _call
    return list(methods.op_db)


def _call(op: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return op(*args, **kwargs)


def select_cases(group: str | None, device: str, dtypes: Iterable[torch.dtype],
                 ops: Iterable[str] = ()) -> list[OpCase]:
    """(op, dtype) cases of `group` (comma-separated names; None: all groups) whose dtype eager supports
    on `device`. `ops` narrows to OpInfo full names (name or name.variant); an unknown name is an error.
    """
    wanted_groups = None if group is None else {get_group(name).name for name in group.split(",")}
    wanted = set(ops)
    cases = []
    seen: set[str] = set()
    for op in op_db():
        full = f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name
        seen.update((full, op.name))
        if wanted and full not in wanted and op.name not in wanted:
            continue
        op_group = group_of(op.name, type(op).__name__)
        if wanted_groups is not None and op_group not in wanted_groups:
            continue
        supported = op.supported_dtypes(device)
        cases.extend(OpCase(op, dtype, op_group) for dtype in dtypes if dtype in supported)
    missing = wanted - seen
    if missing:
        raise CatalogError(f"no OpInfo named {sorted(missing)} in this torch's op_db ({torch.__version__})")
    return cases
