"""High-precision mode: IEEE fp32 matmul/conv (no TF32 on CUDA, no HF32 on NPU), fp32 compute inside
fused kernels, original dtypes kept, as a scoped context manager.

Nothing is read or changed at import. `high_precision()` changes process-wide switches for the duration
of the block and restores every one of them on exit, also when the block raises.

The switches are set through the legacy API (`allow_tf32`, `set_float32_matmul_precision`) because that
is what Dynamo's global-state guard and Inductor's matmul templates read; setting cuDNN's new-API
`fp32_precision` to "ieee" instead makes `torch.backends.cudnn.allow_tf32` raise on torch 2.11-2.14.
The state is saved and restored through both APIs, the new one (exact, parents before leaves) last.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import torch


@dataclass(frozen=True)
class Switch:
    """One process-wide setting: how to read it, how to write it, and its high-precision value."""

    name: str
    read: Callable[[], Any]
    write: Callable[[Any], None]
    value: Any


@dataclass(frozen=True)
class PrecisionState:
    """What high_precision() set (name -> value) and which switches this torch build does not have."""

    applied: dict[str, Any]
    absent: tuple[str, ...]


def _attr_switch(name: str, owner: Callable[[], Any], attr: str, value: Any) -> Switch:
    return Switch(name, lambda: getattr(owner(), attr), lambda v: setattr(owner(), attr, v), value)


def _backend_switches() -> list[Switch]:
    """Legacy-API switches, in the order they are applied (restored in reverse)."""
    b = torch.backends
    return [
        Switch("float32_matmul_precision", torch.get_float32_matmul_precision,
               torch.set_float32_matmul_precision, "highest"),
        _attr_switch("cuda.matmul.allow_tf32", lambda: b.cuda.matmul, "allow_tf32", False),
        _attr_switch("cudnn.allow_tf32", lambda: b.cudnn, "allow_tf32", False),
        # Reduced-precision reductions inside fp16/bf16 GEMMs: accumulate in fp32 instead.
        _attr_switch("cuda.matmul.allow_fp16_reduced_precision_reduction", lambda: b.cuda.matmul,
                     "allow_fp16_reduced_precision_reduction", False),
        _attr_switch("cuda.matmul.allow_bf16_reduced_precision_reduction", lambda: b.cuda.matmul,
                     "allow_bf16_reduced_precision_reduction", False),
    ]


# New-API (`fp32_precision`) nodes, parents before leaves: setting a parent can rewrite its leaves.
_FP32_PRECISION_NODES = (
    "", "cuda", "cuda.matmul", "cudnn", "cudnn.conv", "cudnn.rnn",
    "mkldnn", "mkldnn.matmul", "mkldnn.conv", "mkldnn.rnn",
)
# oneDNN on CPU may run fp32 conv/rnn in bf16 or tf32 when asked to; high precision pins IEEE.
_MKLDNN_IEEE_NODES = ("mkldnn.conv", "mkldnn.rnn")


def _backend_node(path: str) -> Any:
    node: Any = torch.backends
    for part in filter(None, path.split(".")):
        node = getattr(node, part)
    return node


def _fp32_precision_switch(path: str, value: Any = None) -> Switch | None:
    """None when this torch build has no new-API node at `path`."""
    try:
        node = _backend_node(path)
        node.fp32_precision  # noqa: B018 (probe)
    except (AttributeError, RuntimeError):
        return None
    return _attr_switch(f"{path or 'backends'}.fp32_precision", lambda: node, "fp32_precision", value)


def _npu_switches() -> list[Switch]:
    """HF32 off on Ascend (matmul defaults off, conv/aclnn default on). Empty where torch_npu is absent.

    torch.npu only exists after `import torch_npu`; an NPU run imports it anyway, so it is imported here,
    at context entry, and only when installed.
    """
    if importlib.util.find_spec("torch_npu") is None:
        return []
    importlib.import_module("torch_npu")
    npu = torch.npu  # type: ignore[attr-defined]
    switches = []
    for group in ("matmul", "conv", "aclnn"):
        if hasattr(getattr(npu, group, None), "allow_hf32"):
            switches.append(_attr_switch(f"npu.{group}.allow_hf32", lambda g=group: getattr(npu, g), "allow_hf32",
                                         False))
    return switches


# Inductor: compute fp16/bf16 in fp32 inside fused kernels, but round intermediates to their original
# dtype as eager does; no fast-math or FP contraction that eager would not do.
_INDUCTOR_CONFIG = {
    "emulate_precision_casts": True,
    "triton.codegen_upcast_to_fp32": True,
    "use_fast_math": False,
    "cuda.use_fast_math": False,
    "cpp.enable_unsafe_math_opt_flag": False,
    "cpp.enable_floating_point_contract_flag": "off",
}


def _autocast_device_types() -> list[str]:
    """cpu, cuda and the PrivateUse1 backend (named "npu" under torch_npu) where autocast exists."""
    names = ["cpu", "cuda"]
    privateuse1 = torch._C._get_privateuse1_backend_name()
    if hasattr(torch, privateuse1):  # autocast needs the backend's registered device module
        names.append(privateuse1)
    available = []
    for name in names:
        try:
            if torch.amp.is_autocast_available(name):
                available.append(name)
        except RuntimeError:  # a name that does not parse as a device string
            continue
    return available


def _inductor_config_present(key: str) -> bool:
    from torch._inductor import config

    node: Any = config
    try:
        for part in key.split("."):
            node = getattr(node, part)
    except AttributeError:
        return False
    return True


def _backend_flags_writable() -> contextlib.AbstractContextManager[None]:
    """torch's test utilities (imported with op_db) freeze the backend flags against unbracketed writes;
    this context is the bracketed write they allow, and it restores the freeze on exit."""
    allow = getattr(torch.backends, "__allow_nonbracketed_mutation", None)
    return allow() if allow is not None else contextlib.nullcontext()


def _read_all(switches: list[Switch]) -> list[tuple[Switch, Any]]:
    """Current values; a switch unreadable in the caller's state (mixed TF32 APIs) is not restored by
    the legacy path, the new-API snapshot restores it."""
    saved = []
    for switch in switches:
        try:
            saved.append((switch, switch.read()))
        except RuntimeError:
            continue
    return saved


@contextlib.contextmanager
def high_precision() -> Iterator[PrecisionState]:
    """Runs the block in high-precision mode and restores every switch on exit.

    Autocast is disabled for the block on every device type that has it, so ops keep their original
    dtypes. Yields what was set, for provenance.
    """
    from torch._inductor import config as inductor_config

    legacy = _backend_switches() + _npu_switches()
    fp32_nodes = [s for s in (_fp32_precision_switch(p) for p in _FP32_PRECISION_NODES) if s is not None]
    mkldnn_ieee = [s for s in (_fp32_precision_switch(p, "ieee") for p in _MKLDNN_IEEE_NODES) if s is not None]
    inductor = {k: v for k, v in _INDUCTOR_CONFIG.items() if _inductor_config_present(k)}
    absent = tuple(sorted(set(_INDUCTOR_CONFIG) - set(inductor)))
    absent += tuple(f"{p or 'backends'}.fp32_precision" for p in _MKLDNN_IEEE_NODES
                    if p not in {s.name.removesuffix(".fp32_precision") for s in mkldnn_ieee})

    saved_legacy = _read_all(legacy)
    saved_fp32 = _read_all(fp32_nodes)
    applied: dict[str, Any] = {}
    try:
        with _backend_flags_writable():
            for switch in legacy + mkldnn_ieee:
                switch.write(switch.value)
                applied[switch.name] = switch.value
        applied.update({f"inductor.{k}": v for k, v in inductor.items()})
        with contextlib.ExitStack() as stack:
            stack.enter_context(inductor_config.patch(inductor))
            for device_type in _autocast_device_types():
                stack.enter_context(torch.autocast(device_type, enabled=False))
            yield PrecisionState(applied=applied, absent=absent)
    finally:
        with _backend_flags_writable():
            for switch, value in reversed(saved_legacy):
                switch.write(value)
            for switch, value in saved_fp32:
                switch.write(value)


def current_settings() -> dict[str, Any]:
    """The precision switches as they are now (new-API nodes included), e.g. for provenance or tests."""
    switches = _backend_switches() + [s for s in map(_fp32_precision_switch, _FP32_PRECISION_NODES) if s]
    if "torch_npu" in sys.modules:  # never import torch_npu just to read
        switches += _npu_switches()
    return {switch.name: value for switch, value in _read_all(switches)}
