"""Op family `pooling`. Pooling: max, average and adaptive pooling, forward and backward.

Device lowering overrides for these ops go in `forced_fallbacks` (device -> {op: reason}); the fallback
policy (compiler/fallback) applies them to every model target that depends on this library.
"""

from compiler.lowering.family import Family

FAMILY = Family(
    name="pooling",
    doc="Pooling: max, average and adaptive pooling, forward and backward.",
    patterns=(
        "aten.max_pool*",
        "aten.avg_pool*",
        "aten.adaptive_avg_pool*",
        "aten.adaptive_max_pool*",
        "aten._adaptive_avg_pool*",
        "aten.max_unpool*",
        "aten._low_memory_max_pool*",
        "aten.fractional_max_pool*",
    ),
    # No device needs an override in this family yet.
    forced_fallbacks={},
)
