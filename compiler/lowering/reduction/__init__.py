"""Op family `reduction`. Reductions and scans: sums, means, variances, softmax, sort and top-k.

Device lowering overrides for these ops go in `forced_fallbacks` (device -> {op: reason}); the fallback
policy (compiler/fallback) applies them to every model target that depends on this library.
"""

from compiler.lowering.family import Family

FAMILY = Family(
    name="reduction",
    doc="Reductions and scans: sums, means, variances, softmax, sort and top-k.",
    patterns=(
        "aten.sum",
        "aten.mean",
        "aten.amax",
        "aten.amin",
        "aten.max",
        "aten.min",
        "aten.aminmax",
        "aten.var",
        "aten.var_mean",
        "aten.std",
        "aten.std_mean",
        "aten.prod",
        "aten.argmax",
        "aten.argmin",
        "aten.logsumexp",
        "aten._softmax*",
        "aten._safe_softmax",
        "aten._log_softmax*",
        "aten.softmax",
        "aten.log_softmax",
        "aten.cumsum",
        "aten.cumprod",
        "aten.cummax",
        "aten.cummin",
        "aten.logcumsumexp",
        "aten.norm",
        "aten.linalg_vector_norm",
        "aten.any",
        "aten.all",
        "aten.topk",
        "aten.sort",
        "aten.argsort",
        "aten.median",
        "aten.mode",
        "aten.count_nonzero",
        "aten.nll_loss*",
        "aten.mse_loss*",
        "aten.cross_entropy_loss",
        "aten._cdist*",
        "aten.cdist",
    ),
    # No device needs an override in this family yet.
    forced_fallbacks={},
)
