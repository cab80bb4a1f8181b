"""Op family `other`. Every op no other family claims (new ops land here until a family takes them).

Device lowering overrides for these ops go in `forced_fallbacks` (device -> {op: reason}); the fallback
policy (compiler/fallback) applies them to every model target that depends on this library.
"""

from compiler.lowering.family import Family

FAMILY = Family(
    name="other",
    doc="Every op no other family claims (new ops land here until a family takes them).",
    patterns=(),
    # No device needs an override in this family yet.
    forced_fallbacks={},
)
