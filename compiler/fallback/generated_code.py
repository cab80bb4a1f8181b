"""Reads Inductor's generated wrapper code: its kernels and its ATen calls (for fallback checks)."""

from __future__ import annotations

import re
from dataclasses import dataclass

# `<name> = async_compile.<kind>(...'''<source>''' ...)`: every generated kernel (Triton, C++, ...).
_KERNEL = re.compile(r"^(?P<name>\w+) = async_compile\.(?P<kind>\w+)\((?P<head>.*?)r?'''(?P<source>.*?)'''",
                     re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Kernel:
    name: str
    kind: str  # triton, cpp_pybinding, ...
    source: str


def kernels(code: str) -> list[Kernel]:
    return [Kernel(m["name"], m["kind"], m["source"]) for m in _KERNEL.finditer(code)]


def calls_aten(code: str, op: str) -> bool:
    """Whether the wrapper calls the ATen overload `op` ("aten.sigmoid.default") outside any kernel."""
    outside = _KERNEL.sub("", code)
    return re.search(rf"(?<![\w.]){re.escape('torch.ops.' + op)}\(|(?<![\w.]){re.escape(op)}\(", outside) is not None


def kernels_containing(code: str, op: str) -> list[str]:
    """Names of generated kernels that compute `op`: Inductor names kernels after the ATen ops fused into
    them (descriptive_names = "original_aten"), and C++/Triton sources may name the op too."""
    short = op.split(".")[1]
    found = []
    for kernel in kernels(code):
        in_name = f"_{short}_" in f"_{kernel.name}_"
        if in_name or re.search(rf"\b{re.escape(short)}\b", kernel.source):
            found.append(kernel.name)
    return found
