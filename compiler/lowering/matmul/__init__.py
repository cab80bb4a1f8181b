"""Op family `matmul`. Matrix products: mm, addmm, bmm, baddbmm, linear and their relatives.

Device lowering overrides for these ops go in `forced_fallbacks` (device -> {op: reason}); the fallback
policy (compiler/fallback) applies them to every model target that depends on this library.
"""

from compiler.lowering.family import Family

FAMILY = Family(
    name="matmul",
    doc="Matrix products: mm, addmm, bmm, baddbmm, linear and their relatives.",
    patterns=(
        "aten.mm",
        "aten.addmm",
        "aten.bmm",
        "aten.baddbmm",
        "aten.addbmm",
        "aten.matmul",
        "aten.linear*",
        "aten._addmm_activation",
        "aten.dot",
        "aten.vdot",
        "aten.mv",
        "aten.addmv",
        "aten.addr",
        "aten._int_mm",
        "aten._scaled_mm",
        "aten.einsum",
        "aten.tensordot",
        "aten.outer",
    ),
    # No device needs an override in this family yet.
    forced_fallbacks={},
)
