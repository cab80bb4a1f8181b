"""Op family `pointwise`. Elementwise math, activations and their backward ops (torch's `pointwise` tag, plus named backward ops).

Device lowering overrides for these ops go in `forced_fallbacks` (device -> {op: reason}); the fallback
policy (compiler/fallback) applies them to every model target that depends on this library.
"""

from compiler.lowering.family import Family

FAMILY = Family(
    name="pointwise",
    doc="Elementwise math, activations and their backward ops (torch's `pointwise` tag, plus named backward ops).",
    patterns=(
        "aten.hardswish",
        "aten.hardsigmoid",
        "aten.gelu_backward",
        "aten.threshold_backward",
        "aten.silu_backward",
        "aten.sigmoid_backward",
        "aten.tanh_backward",
        "aten.hardswish_backward",
        "aten.hardsigmoid_backward",
        "aten.leaky_relu_backward",
        "aten.elu_backward",
        "aten.softplus_backward",
        "aten.mish_backward",
        "aten.hardtanh_backward",
    ),
    tags=('pointwise',),
    # No device needs an override in this family yet.
    forced_fallbacks={},
)
