"""The per-family rerun benchmark: counting on a declared graph, and the real query on this workspace."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from tools.affected.bazel_query import bazel_query
from tools.affected.family_benchmark import MODEL_TARGETS, measure, render

REPO = Path(__file__).resolve().parent.parent.parent
TARGETS = ["//suites/timm:a_inference_bf16_inductor", "//suites/timm:a_training_amp_inductor",
           "//suites/timm:b_inference_bf16_inductor", "//suites/timm:b_training_amp_inductor"]


def graph(expression: str) -> Sequence[str]:
    if expression == MODEL_TARGETS:
        return TARGETS
    if expression.endswith("//compiler/lowering/norm/...)"):
        return [t for t in TARGETS if ":a_" in t]
    return []


def test_fraction_of_targets_and_models_per_family() -> None:
    norm, conv = measure(graph, ["norm", "conv"])
    assert (norm.targets, norm.total_targets, norm.models, norm.total_models) == (2, 4, 1, 2)
    assert norm.fraction == 0.5 and conv.fraction == 0.0
    assert "50.0%" in render([norm, conv])


@pytest.mark.skipif("TEST_SRCDIR" in os.environ or shutil.which("bazel") is None,
                    reason="runs bazel query (not inside a Bazel test; plain pytest with bazel on PATH)")
def test_real_workspace_norm_reruns_only_models_that_use_norm() -> None:
    from tools.opsets.data import load_opsets

    query = bazel_query(REPO)
    opsets = load_opsets("timm")
    assert opsets is not None
    for family in ("norm", "attention", "pooling"):
        uses = {_target_prefix(m) for m, e in opsets.models.items() if family in e["families"]}
        hit = query(f"{MODEL_TARGETS} intersect rdeps(//suites/timm/..., //compiler/lowering/{family}/...)")
        hit_models = {prefix for prefix in map(_target_prefix, opsets.models)
                      for label in hit if label.split(":", 1)[1].startswith(prefix)}
        assert hit_models == uses, family


def _target_prefix(model: str) -> str:
    """suites/timm's target names start with the model name in lower snake case."""
    return model.replace(".", "_").replace("-", "_").lower() + "_"
