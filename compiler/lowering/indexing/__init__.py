"""Op family `indexing`. Gathers and scatters: index, index_put, gather, scatter, embedding, masked selection.

Device lowering overrides for these ops go in `forced_fallbacks` (device -> {op: reason}); the fallback
policy (compiler/fallback) applies them to every model target that depends on this library.
"""

from compiler.lowering.family import Family

FAMILY = Family(
    name="indexing",
    doc="Gathers and scatters: index, index_put, gather, scatter, embedding, masked selection.",
    patterns=(
        "aten.index",
        "aten.index_put*",
        "aten._index_put_impl*",
        "aten.index_select*",
        "aten.index_add*",
        "aten.index_copy*",
        "aten.index_fill*",
        "aten.gather*",
        "aten.scatter*",
        "aten.embedding*",
        "aten._embedding_bag*",
        "aten.take*",
        "aten.nonzero*",
        "aten.masked_select*",
        "aten.masked_scatter*",
        "aten._unsafe_index*",
        "aten._unsafe_masked_index*",
        "aten.searchsorted",
        "aten.bucketize",
        "aten.unique*",
        "aten._unique*",
        "aten.histc",
        "aten.bincount",
        "aten.upsample_*",
        "aten.grid_sampler*",
        "aten.im2col",
        "aten.col2im",
    ),
    # No device needs an override in this family yet.
    forced_fallbacks={},
)
