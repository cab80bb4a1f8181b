"""Per op family: the fraction of model targets that a change in //compiler/lowering/<family> reruns.

  python -m tools.affected.family_benchmark [--bazel bazel] [--format=json]

Model targets are the rules the suite macro generates (generator_function suite_model_tests), the whole
matrix as `bazel query` sees it; a family's reruns are `rdeps(//suites/..., //compiler/lowering/<family>/...)`
among them, exactly what presubmit's affected-target query selects for a change in that family.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from tools.affected.bazel_query import bazel_query
from tools.affected.decision import Query, QueryError, parse_labels

MODEL_TARGETS = "attr(generator_function, suite_model_tests, //suites/...)"


def model_targets(scope: str = "//suites/...") -> str:
    return f"attr(generator_function, suite_model_tests, {scope})"
FAMILIES_BZL = Path(__file__).resolve().parent.parent.parent / "compiler" / "lowering" / "families.bzl"


@dataclass(frozen=True)
class FamilyReach:
    family: str
    targets: int
    total_targets: int
    models: int
    total_models: int

    @property
    def fraction(self) -> float:
        return self.targets / self.total_targets if self.total_targets else 0.0


def _model_of(label: str) -> str:
    """//suites/timm:deit_..._inference_bf16_inductor -> suites/timm + the part before the mode."""
    package, name = label.split(":", 1)
    for mode in ("_training_", "_inference_"):
        if mode in name:
            return package + ":" + name.split(mode, 1)[0]
    return label


def measure(query: Query, families: list[str], scope: str = "//suites/...") -> list[FamilyReach]:
    targets = model_targets(scope)
    every = set(parse_labels(query(targets)))
    if not every:
        raise QueryError(f"`{targets}` found no model targets")
    all_models = {_model_of(label) for label in every}
    reach = []
    for family in families:
        hit = set(parse_labels(query(f"{targets} intersect rdeps(//suites/..., //compiler/lowering/{family}/...)")))
        reach.append(FamilyReach(family, len(hit), len(every), len({_model_of(label) for label in hit}), len(all_models)))
    return reach


def render(reach: list[FamilyReach]) -> str:
    lines = [f"{'family':<10} {'targets':>15} {'fraction':>9} {'models':>9}"]
    for r in reach:
        lines.append(f"{r.family:<10} {r.targets:>6} / {r.total_targets:<6} {r.fraction:>9.1%} {r.models:>4} / {r.total_models}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from compiler.starlark_data import load_bzl_literals

    parser = argparse.ArgumentParser(prog="python -m tools.affected.family_benchmark", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bazel", default="bazel")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--scope", default="//suites/...", help="target pattern, e.g. //suites/timm/...")
    parser.add_argument("--repo", type=Path, default=Path(os.environ.get("BUILD_WORKSPACE_DIRECTORY") or Path.cwd()))
    args = parser.parse_args(argv)
    families = load_bzl_literals(FAMILIES_BZL)["FAMILIES"]
    try:
        reach = measure(bazel_query(args.repo, args.bazel), families, args.scope)
    except QueryError as exc:
        print(f"cannot measure: {exc}", file=sys.stderr)
        return 1
    if args.format == "json":
        print(json.dumps([{**asdict(r), "fraction": r.fraction} for r in reach], indent=2))
    else:
        print(f"model targets in {args.scope}: a change in //compiler/lowering/<family> reruns")
        print(render(reach))
    return 0


if __name__ == "__main__":
    sys.exit(main())
