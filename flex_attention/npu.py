"""Ascend entry point: enable FlexAttention for the `npu` device, and have the npu adapter do it.

Importing this module registers `enable_npu_flex_attention` as an npu initialiser
(compiler/devices/npu_hooks.py). The npu device adapter (compiler/devices/npu.py) runs the registered
initialisers in `prepare()`, which its `availability()` calls once the `npu` backend exists; if the
device was prepared before this import, the registration runs it at once.

Nothing here simulates a device. When no `npu` backend is registered yet, `enable_npu_flex_attention()`
imports torch_npu, and without it fails with a clear error. When `npu` is already registered in the
process (torch_npu imported, or the test simulation in compiler/devices/simulated_privateuse1.py) it
uses that backend as it is.
"""

from __future__ import annotations

import importlib

import torch

from compiler.devices.npu_hooks import register_npu_initializer
from flex_attention.registration import Registration, enable_privateuse1_flex_attention

NPU_BACKEND = "npu"
INITIALIZER = "flex_attention"


def enable_npu_flex_attention() -> Registration:
    """Enable FlexAttention for the `npu` backend, importing torch_npu first if no backend is registered yet."""
    backend = torch._C._get_privateuse1_backend_name()
    if backend == "privateuseone":
        try:
            importlib.import_module("torch_npu")  # registers the `npu` backend natively
        except ImportError as error:
            raise RuntimeError(
                "FlexAttention on npu needs the real torch_npu, which is not importable here "
                f"({error}). Install the torch_npu build that matches torch {torch.__version__}; "
                "tests without an NPU use flex_attention.simulated_npu instead."
            ) from error
        backend = torch._C._get_privateuse1_backend_name()
    if backend != NPU_BACKEND:
        raise RuntimeError(
            f"the PrivateUse1 backend is named {backend!r}, not {NPU_BACKEND!r}; another backend "
            "claimed PrivateUse1 first in this process."
        )
    if getattr(torch, NPU_BACKEND, None) is None:
        raise RuntimeError(f"PrivateUse1 is named {NPU_BACKEND!r} but torch.{NPU_BACKEND} is not registered")
    return enable_privateuse1_flex_attention()


register_npu_initializer(INITIALIZER, enable_npu_flex_attention)
