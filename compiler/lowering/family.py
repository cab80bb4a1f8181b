"""An op family: the ATen ops one group of device lowering overrides is about.

Ops are named as Inductor and FX print them, `<namespace>.<op>.<overload>` (e.g. "aten.convolution.default").
A family claims ops by fnmatch patterns over the packet name `<namespace>.<op>`; the pointwise family also
claims ops by torch's own `pointwise` tag. Each family is its own Bazel library, so a model target that
depends only on the families its op set uses reruns only when one of those changes.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

# device type -> {op overload name: why it must run through ATen rather than a generated kernel}
ForcedFallbacks = dict[str, dict[str, str]]


@dataclass(frozen=True)
class Family:
    name: str
    doc: str
    patterns: tuple[str, ...]
    # torch.Tag names that claim an op when no family's pattern does (e.g. "pointwise").
    tags: tuple[str, ...] = ()
    # Device lowering overrides: ops forced to Inductor's ATen fallback on a device (compiler/fallback).
    forced_fallbacks: ForcedFallbacks = field(default_factory=dict)

    def matches_name(self, op: str) -> bool:
        packet = packet_name(op)
        return any(fnmatch.fnmatchcase(packet, pattern) for pattern in self.patterns)


def packet_name(op: str) -> str:
    """"aten.convolution.default" -> "aten.convolution" (names with fewer parts are returned unchanged)."""
    parts = op.split(".")
    return ".".join(parts[:2]) if len(parts) >= 3 else op
