"""Op family `conv`. Convolutions, forward and backward (cuDNN, mkldnn and ACL variants included).

Device lowering overrides for these ops go in `forced_fallbacks` (device -> {op: reason}); the fallback
policy (compiler/fallback) applies them to every model target that depends on this library.
"""

from compiler.lowering.family import Family

FAMILY = Family(
    name="conv",
    doc="Convolutions, forward and backward (cuDNN, mkldnn and ACL variants included).",
    patterns=(
        "aten.convolution*",
        "aten._convolution*",
        "aten.conv1d",
        "aten.conv2d",
        "aten.conv3d",
        "aten.conv_transpose*",
        "aten.cudnn_convolution*",
        "aten.mkldnn_convolution*",
        "aten.miopen_convolution*",
        "aten._slow_conv*",
        "aten.slow_conv*",
        "aten.thnn_conv*",
    ),
    # No device needs an override in this family yet.
    forced_fallbacks={},
)
