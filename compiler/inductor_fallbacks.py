"""Records which ops Inductor ran through ATen fallback kernels while compiling."""

from __future__ import annotations

import collections
import contextlib
from typing import Iterator


@contextlib.contextmanager
def record_fallback_kernels() -> Iterator[collections.Counter[str]]:
    """Counts each op for which Inductor created a FallbackKernel inside the block.

    Fallbacks are created while lowering, so a compile served from the FX graph cache records none.
    """
    from torch._inductor import ir

    seen: collections.Counter[str] = collections.Counter()
    original = ir.FallbackKernel.__dict__["create"]  # a classmethod

    def create(cls, kernel, *args, **kwargs):  # noqa: ANN001,ANN202 (mirrors FallbackKernel.create)
        seen[str(kernel)] += 1  # e.g. "aten.sort.stable"
        return original.__func__(cls, kernel, *args, **kwargs)

    ir.FallbackKernel.create = classmethod(create)  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        ir.FallbackKernel.create = original  # type: ignore[method-assign]
