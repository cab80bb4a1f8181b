"""Applies a fallback policy through Inductor's own mechanism, for the duration of a block.

For each forced op: its Inductor decomposition is taken out (so the op reaches lowering intact), and its
lowering is replaced by Inductor's `make_fallback`, the registration Inductor uses for the ops it never
lowers. The op then becomes a FallbackKernel: an ATen call between generated kernels, never fused into
them. Everything is restored on exit. While a non-empty policy is active, Inductor's caches are off: their
keys do not include the lowering tables, so a cached artifact compiled without the policy could be served.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import torch

from compiler.fallback.policy import FallbackPolicy, PolicyError


def resolve_op(name: str) -> torch._ops.OpOverload:
    """"aten.sigmoid.default" -> torch.ops.aten.sigmoid.default; PolicyError naming the problem otherwise."""
    parts = name.split(".")
    if len(parts) != 3:
        raise PolicyError(f"{name!r} is not an op overload name (namespace.op.overload, e.g. aten.sigmoid.default)")
    namespace, op, overload = parts
    try:
        resolved = getattr(getattr(getattr(torch.ops, namespace), op), overload)
    except (AttributeError, RuntimeError) as exc:
        raise PolicyError(f"{name!r} is not an operator overload this torch ({torch.__version__}) knows: {exc}") from exc
    if not isinstance(resolved, torch._ops.OpOverload):
        raise PolicyError(f"{name!r} resolves to {type(resolved).__name__}, not an OpOverload")
    return resolved


@contextlib.contextmanager
def forced_fallbacks(policy: FallbackPolicy) -> Iterator[FallbackPolicy]:
    """Inside the block, Inductor lowers every op of `policy.forced` as an ATen fallback."""
    if not policy.forced:
        yield policy
        return
    from torch._inductor import config, decomposition, lowering

    ops = [resolve_op(name) for name in sorted(policy.forced)]
    missing: Any = object()
    saved_lowerings = {op: lowering.lowerings.get(op, missing) for op in ops}
    saved_decomps = {op: decomposition.decompositions.get(op, missing) for op in ops}
    saved_fallbacks = {op for op in ops if op in lowering.fallbacks}
    saved_realized = {op for op in ops if op in lowering.needs_realized_inputs}
    try:
        for op in ops:
            decomposition.decompositions.pop(op, None)
            lowering.lowerings.pop(op, None)
            lowering.make_fallback(op, warn=False, override_decomp=True)
        _clear_decomposition_cache(decomposition)
        with config.patch(force_disable_caches=True):
            yield policy
    finally:
        for op in ops:
            _restore(lowering.lowerings, op, saved_lowerings[op], missing)
            _restore(decomposition.decompositions, op, saved_decomps[op], missing)
            if op not in saved_fallbacks:
                lowering.fallbacks.discard(op)
            if op not in saved_realized:
                lowering.needs_realized_inputs.discard(op)
        _clear_decomposition_cache(decomposition)


def _restore(table: dict[Any, Any], key: Any, value: Any, missing: Any) -> None:
    if value is missing:
        table.pop(key, None)
    else:
        table[key] = value


def _clear_decomposition_cache(decomposition: Any) -> None:
    # fast_random_decomps caches a copy of the decomposition table (torch 2.x); drop it on every change.
    cached = getattr(decomposition, "fast_random_decomps", None)
    if cached is not None:
        cached.cache_clear()
