"""Op family `rng`. Random numbers: dropout, bernoulli, rand/randn/randint and the RNG primitives.

Device lowering overrides for these ops go in `forced_fallbacks` (device -> {op: reason}); the fallback
policy (compiler/fallback) applies them to every model target that depends on this library.
"""

from compiler.lowering.family import Family

FAMILY = Family(
    name="rng",
    doc="Random numbers: dropout, bernoulli, rand/randn/randint and the RNG primitives.",
    patterns=(
        "aten.native_dropout*",
        "aten.dropout",
        "aten.bernoulli*",
        "aten.rand",
        "aten.rand_like",
        "aten.randn",
        "aten.randn_like",
        "aten.randint",
        "aten.randint_like",
        "aten.randperm",
        "aten.uniform*",
        "aten.normal*",
        "aten.multinomial",
        "aten.exponential*",
        "aten.geometric*",
        "aten.cauchy*",
        "aten.log_normal*",
        "aten.seed",
        "rngprims.*",
        "prims.inductor_random",
        "prims.inductor_seed*",
    ),
    # No device needs an override in this family yet.
    forced_fallbacks={},
)
