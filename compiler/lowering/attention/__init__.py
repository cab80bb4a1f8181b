"""Op family `attention`. Attention kernels: scaled dot product attention (all backends) and FlexAttention.

Device lowering overrides for these ops go in `forced_fallbacks` (device -> {op: reason}); the fallback
policy (compiler/fallback) applies them to every model target that depends on this library.
"""

from compiler.lowering.family import Family

FAMILY = Family(
    name="attention",
    doc="Attention kernels: scaled dot product attention (all backends) and FlexAttention.",
    patterns=(
        "aten.scaled_dot_product_attention",
        "aten._scaled_dot_product_*",
        "aten._flash_attention_*",
        "aten._efficient_attention_*",
        "aten._fused_sdp_choice",
        "higher_order.flex_attention*",
    ),
    # No device needs an override in this family yet.
    forced_fallbacks={},
)
