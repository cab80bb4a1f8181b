"""The affected-target decision: changed paths in, FULL / SKIP / IMPACTED (with a reason) out.

Pure: the file system and Bazel reach this module only through the two callables that `decide` takes,
so the policy is tested without either. Every doubt resolves to FULL (fail open): running too much
costs time, running too little lets a regression through.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath


class Kind(enum.Enum):
    FULL = "FULL"  # run everything
    SKIP = "SKIP"  # run nothing
    IMPACTED = "IMPACTED"  # run `Decision.tests`


@dataclass(frozen=True)
class Decision:
    kind: Kind
    reason: str
    tests: tuple[str, ...] = ()


@dataclass(frozen=True)
class Change:
    """One changed path (relative to the repository root, '/'-separated) and how it changed."""

    path: str
    deleted: bool = False
    added: bool = False


class QueryError(RuntimeError):
    """`bazel query` failed or printed something that is not a label list."""


# (query expression) -> labels. Raises QueryError.
Query = Callable[[str], Sequence[str]]
# (repository-relative path) -> its package ("" for the root package), or None when outside any package.
FindPackage = Callable[[str], str | None]

# Files that change how everything is built or which packages exist: their effect is not in the graph.
GLOBAL_CONFIG = frozenset({
    "WORKSPACE", "WORKSPACE.bazel", "MODULE.bazel", ".bazelrc", ".bazelversion", ".bazelignore",
    "requirements.lock", "requirements.in", "requirements-npu.lock", "requirements-npu.in",
})
BUILD_FILES = frozenset({"BUILD", "BUILD.bazel"})
_LABEL = re.compile(r"^//[^\s:]*:\S+$")


def full_reason(path: str) -> str | None:
    """Why a change to `path` alone forces FULL, or None. Manifests are .bzl files, so they land here too."""
    name = PurePosixPath(path).name
    if name in GLOBAL_CONFIG:
        return f"{path} is global build configuration"
    if name.endswith(".bzl"):
        return f"{path} is Starlark (macros, rules or a manifest): its effect is not visible to rdeps"
    if path.startswith("third_party/"):
        return f"{path} is under third_party/ (repository stubs and pinned inputs)"
    return None


def is_doc(path: str) -> bool:
    # By convention no *.md file is a Bazel input here, so docs never change a test's result.
    return path.endswith(".md")


def file_label(package: str, path: str) -> str:
    """`a/b/c.py` in package `a/b` is `//a/b:c.py`; in package `a` it is `//a:b/c.py`."""
    name = path[len(package) + 1:] if package else path
    return f"//{package}:{name}"


def normalise(label: str) -> str:
    """Bzlmod prints the main repository as `@//` or `@@//`; compare labels in the `//` form."""
    return label.lstrip("@") if label.startswith(("@//", "@@//")) else label


def parse_labels(lines: Iterable[str]) -> tuple[str, ...]:
    """Labels from query output; anything else means the output is not what we asked for."""
    labels = []
    for line in lines:
        line = normalise(line.strip())
        if not line:
            continue
        if not _LABEL.match(line):
            raise QueryError(f"unparsable line in bazel query output: {line!r}")
        labels.append(line)
    return tuple(labels)


def _quoted(labels: Iterable[str]) -> str:
    return " ".join(f'"{label}"' for label in labels)


def decide(changes: Sequence[Change], find_package: FindPackage, query: Query) -> Decision:
    """The decision for `changes`. Fails open: global config, deletions and query errors give FULL."""
    if not changes:
        return Decision(Kind.SKIP, "nothing changed")
    for change in changes:
        reason = full_reason(change.path)
        if reason:
            return Decision(Kind.FULL, reason)
    code = [c for c in changes if not is_doc(c.path)]
    if not code:
        return Decision(Kind.SKIP, f"only documentation changed ({len(changes)} *.md files)")
    for change in code:
        if change.deleted:
            # The old label no longer exists, so rdeps cannot find what used it.
            return Decision(Kind.FULL, f"{change.path} was deleted (or renamed): its label no longer exists")

    build_packages: set[str] = set()
    candidates: set[str] = set()  # source-file labels
    for change in code:
        package = find_package(change.path)
        if package is None:
            return Decision(Kind.FULL, f"{change.path} is in no Bazel package (no BUILD file above it)")
        if PurePosixPath(change.path).name in BUILD_FILES:
            if change.added:
                # A new package takes files away from its parent's globs: the parent changes too.
                return Decision(Kind.FULL, f"{change.path} is a new BUILD file: package boundaries changed")
            build_packages.add(package)
        else:
            candidates.add(file_label(package, change.path))

    try:
        known = _existing(candidates, query)
        # A changed BUILD file can change any rule in it (config_setting and alias included):
        # every rule of the package is a root.
        roots = sorted(known) + [f"//{package}:all" for package in sorted(build_packages)]
        if not roots:
            return Decision(Kind.IMPACTED, f"{len(code)} changed files, none of them a Bazel input "
                            f"(not declared in any BUILD file): no test is affected")
        tests = tuple(sorted(parse_labels(query(f"tests(rdeps(//..., set({_quoted(roots)})))"))))
    except QueryError as exc:
        return Decision(Kind.FULL, f"bazel query failed, so the affected set is unknown: {exc}")

    unknown = len(candidates) - len(known)
    detail = f"; {unknown} changed files are not Bazel inputs" if unknown else ""
    return Decision(Kind.IMPACTED, f"{len(code)} changed files ({len(known)} source labels, "
                    f"{len(build_packages)} BUILD files) affect {len(tests)} test targets{detail}", tests)


def _existing(candidates: set[str], query: Query) -> set[str]:
    """The candidate labels Bazel knows. A file no BUILD file declares is no target (querying it is an
    error), and it cannot be an input of any test; `//pkg:*` lists the declared files of each package."""
    if not candidates:
        return set()
    packages = sorted({label.split(":", 1)[0] for label in candidates})
    declared = set(parse_labels(query(" + ".join(f"{package}:*" for package in packages))))
    return {label for label in candidates if label in declared}
