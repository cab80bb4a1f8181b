"""The per-device fallback policy: which ops Inductor must run through ATen on a device, and why.

Sources, merged in this order (a later one replaces an earlier reason for the same op):
  1. the op families' `forced_fallbacks` (compiler/lowering/<family>/): the checked-in device overrides;
     only the families importable here count, which under Bazel are the ones the target depends on;
  2. PARITY_FORCE_FALLBACK="op[=reason],op[=reason]": an experiment, e.g. to bisect a numerics problem
     (`aten.sigmoid.default=suspect lowering`).
Nothing is read at import; `policy_for` reads the families and the environment when called.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from compiler.lowering.registry import available_families

ENV = "PARITY_FORCE_FALLBACK"
NATIVE_FALLBACK_REASON = "no Inductor lowering for this op: Inductor's own ATen fallback"


class PolicyError(ValueError):
    """A fallback policy names something that is not an ATen op overload."""


@dataclass(frozen=True)
class FallbackPolicy:
    device: str
    forced: Mapping[str, str] = field(default_factory=dict)  # "aten.op.overload" -> why

    def reason_for(self, op: str) -> str:
        """Why `op` ran through an ATen fallback kernel: the policy's reason, or Inductor's own."""
        return self.forced.get(op, NATIVE_FALLBACK_REASON)


def parse_env(value: str) -> dict[str, str]:
    """`op[=reason],...` -> {op: reason}; ops are full overload names such as aten.sigmoid.default."""
    forced = {}
    for item in filter(None, (part.strip() for part in value.split(","))):
        op, _, reason = item.partition("=")
        op = op.strip()
        if op.count(".") != 2:
            raise PolicyError(f"{ENV}: {op!r} is not an op overload name; write it as namespace.op.overload, "
                              "e.g. aten.sigmoid.default")
        forced[op] = f"forced by {ENV}: {reason.strip() or 'no reason given'}"
    return forced


def policy_for(device: str, environ: Mapping[str, str] | None = None) -> FallbackPolicy:
    """The policy for `device` from the importable families and the environment."""
    environ = os.environ if environ is None else environ
    forced: dict[str, str] = {}
    for family in available_families():
        for op, reason in family.forced_fallbacks.get(device, {}).items():
            forced[op] = f"forced by device policy ({family.name} family, {device}): {reason}"
    forced.update(parse_env(environ.get(ENV, "")))
    return FallbackPolicy(device=device, forced=forced)
