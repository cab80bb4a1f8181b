"""Op family `norm`. Normalisation: batch, layer, group, instance and RMS norm, forward and backward.

Device lowering overrides for these ops go in `forced_fallbacks` (device -> {op: reason}); the fallback
policy (compiler/fallback) applies them to every model target that depends on this library.
"""

from compiler.lowering.family import Family

FAMILY = Family(
    name="norm",
    doc="Normalisation: batch, layer, group, instance and RMS norm, forward and backward.",
    patterns=(
        "aten.native_batch_norm*",
        "aten._native_batch_norm_legit*",
        "aten.batch_norm*",
        "aten._batch_norm*",
        "aten.cudnn_batch_norm*",
        "aten.miopen_batch_norm*",
        "aten.native_layer_norm*",
        "aten.layer_norm",
        "aten.native_group_norm*",
        "aten.group_norm",
        "aten.instance_norm",
        "aten.rms_norm",
        "aten._fused_rms_norm*",
        "aten.local_response_norm",
    ),
    # No device needs an override in this family yet.
    forced_fallbacks={},
)
