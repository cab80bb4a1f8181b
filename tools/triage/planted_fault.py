"""Known compiler faults for the triage tests: Inductor lowers aten.tanh as sigmoid (LOWERING), or Inductor's
decomposition table, which `aot_eager_decomp_partition` shares, decomposes it into sigmoid (DECOMPOSITION), or holds a
decomposition of it that raises while AOT Autograd traces (RAISING_DECOMPOSITION).

Test-only. It is planted the way an out-of-tree device backend (torch_npu) hooks into torch (torch_plugin.py):
`plugin_folder(dest, fault)` writes a distribution's metadata into `dest`; with `dest` on PYTHONPATH every fresh
interpreter (the triage's model runs, the minifier's, the stored repro's) compiles tanh wrongly, and without it none
does. Nothing else changes: eager tanh, every other lowering or decomposition, and what the compiler bisector switches
to when it disables one (the ATen fallback, no decomposition) stay right.
"""

from __future__ import annotations

from pathlib import Path

from tools.triage import torch_plugin

FAULTY_OP = "aten.tanh.default"
# the entry point of each fault
LOWERING, DECOMPOSITION, RAISING_DECOMPOSITION = "install", "install_decomposition", "install_raising_decomposition"


def install() -> None:
    """The entry point: replaces Inductor's tanh lowering by its sigmoid lowering (wrong for every input but 0)."""
    import torch
    from torch._inductor import lowering

    sigmoid = lowering.lowerings[torch.ops.aten.sigmoid.default]

    def tanh_lowered_as_sigmoid(x: object) -> object:
        return sigmoid(x)

    # The overload itself: given the packet, register_lowering skips overloads that have a lowering already.
    lowering.register_lowering([torch.ops.aten.tanh.default], type_promotion_kind=None)(tanh_lowered_as_sigmoid)


def install_decomposition() -> None:
    """The entry point of DECOMPOSITION: tanh, which Inductor lowers whole, decomposed into sigmoid."""
    import torch
    from torch._inductor import decomposition

    decomposition.decompositions[torch.ops.aten.tanh.default] = torch.sigmoid


def install_raising_decomposition() -> None:
    """The entry point of RAISING_DECOMPOSITION: a compile that decomposes tanh fails, as `take`'s decomposition failed
    on an H100 (GuardOnDataDependentSymNode, a71c666)."""
    import torch
    from torch._inductor import decomposition

    def tanh_decomposition_that_raises(x: object) -> object:
        raise RuntimeError("planted fault: the decomposition of tanh raised")

    decomposition.decompositions[torch.ops.aten.tanh.default] = tanh_decomposition_that_raises


def plugin_folder(dest: Path, fault: str = LOWERING) -> Path:
    """Writes the plugin's distribution metadata into `dest` (a folder for PYTHONPATH) and returns `dest`. The
    entry point names this module, so the interpreter must also find the repository (it does: the triage passes
    its own sys.path on)."""
    return torch_plugin.plugin_folder(dest, "parity_planted_fault", f"{__name__}:{fault}")
