"""The op families (data only: read by Starlark and, in lowering_test, by Python).

Each family is the Bazel library //compiler/lowering/<family>; compiler/lowering/registry.py lists the same
names in its classification order (lowering_test checks the two agree).
"""

FAMILIES = [
    "conv",
    "matmul",
    "norm",
    "attention",
    "pooling",
    "reduction",
    "indexing",
    "rng",
    "layout",
    "pointwise",
    "other",
]
