"""Ascend entry point: enable FlexAttention for the real `npu` device from torch_npu.

Nothing here simulates a device: without torch_npu it fails with a clear error. Tests that need
an `npu` device without hardware use `flex_attention/simulated_npu.py` instead.
"""

from __future__ import annotations

import importlib

import torch

from flex_attention.registration import Registration, enable_privateuse1_flex_attention

NPU_BACKEND = "npu"


def enable_npu_flex_attention() -> Registration:
    """Import torch_npu (which registers the `npu` backend natively), then enable FlexAttention."""
    try:
        importlib.import_module("torch_npu")
    except ImportError as error:
        raise RuntimeError(
            "FlexAttention on npu needs the real torch_npu, which is not importable here "
            f"({error}). Install the torch_npu build that matches torch {torch.__version__}; "
            "tests without an NPU use flex_attention.simulated_npu instead."
        ) from error
    backend = torch._C._get_privateuse1_backend_name()
    if backend != NPU_BACKEND:
        raise RuntimeError(
            f"torch_npu was imported but the PrivateUse1 backend is named {backend!r}, not "
            f"{NPU_BACKEND!r}; another backend claimed PrivateUse1 first in this process."
        )
    return enable_privateuse1_flex_attention()
