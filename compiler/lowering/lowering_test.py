"""Op families: the classification is total and unambiguous over every ATen op this torch knows."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from compiler.starlark_data import load_bzl_literals
from compiler.lowering.registry import FAMILY_NAMES, FamilyError, all_families, classify, load_family, op_tags


def _all_registered_ops() -> list[str]:
    """Every operator overload registered with the dispatcher, as "aten.op.overload"."""
    names = []
    for qualified in torch._C._dispatch_get_all_op_names():  # "aten::add.Tensor"
        namespace, rest = qualified.split("::", 1)
        op, _, overload = rest.partition(".")
        names.append(f"{namespace}.{op}.{overload or 'default'}")
    return names


def test_every_family_has_a_package_and_a_library() -> None:
    here = Path(__file__).resolve().parent
    assert load_bzl_literals(here / "families.bzl")["FAMILIES"] == list(FAMILY_NAMES)  # Starlark == Python
    packages = {p.parent.name for p in here.glob("*/__init__.py")}
    assert packages == set(FAMILY_NAMES)
    for name in FAMILY_NAMES:
        assert (here / name / "BUILD").is_file(), f"compiler/lowering/{name} needs its own Bazel library"
    assert [f.name for f in all_families()] == list(FAMILY_NAMES)


def test_no_aten_op_matches_two_families() -> None:
    ops = [op for op in _all_registered_ops() if op.startswith("aten.")]
    assert len(ops) > 1000
    counts: dict[str, int] = {}
    for op in ops:
        family = classify(op, op_tags(op))  # raises FamilyError on overlapping patterns
        counts[family] = counts.get(family, 0) + 1
    assert set(counts) == set(FAMILY_NAMES), f"families that claim no ATen op: {set(FAMILY_NAMES) - set(counts)}"


@pytest.mark.parametrize(("op", "family"), [
    ("aten.convolution.default", "conv"),
    ("aten.convolution_backward.default", "conv"),
    ("aten.addmm.default", "matmul"),
    ("aten.native_layer_norm_backward.default", "norm"),
    ("aten._native_batch_norm_legit_functional.default", "norm"),
    ("aten._scaled_dot_product_flash_attention_for_cpu.default", "attention"),
    ("aten.max_pool2d_with_indices.default", "pooling"),
    ("aten.sum.dim_IntList", "reduction"),
    ("aten._softmax.default", "reduction"),
    ("aten.embedding_dense_backward.default", "indexing"),
    ("aten.native_dropout.default", "rng"),
    ("aten.view.default", "layout"),
    ("aten._to_copy.default", "layout"),
    ("aten.gelu.default", "pointwise"),
    ("aten.gelu_backward.default", "pointwise"),
    ("aten.mul.Tensor", "pointwise"),
    ("higher_order.flex_attention", "attention"),
])
def test_representative_ops(op: str, family: str) -> None:
    assert classify(op, op_tags(op)) == family


def test_unknown_family_and_unclaimed_op() -> None:
    with pytest.raises(FamilyError, match="unknown op family 'convs'"):
        load_family("convs")
    assert classify("mylib.custom_op.default", ()) == "other"
