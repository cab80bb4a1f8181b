"""Enum values as the store, its pages and reports name them ("training", "bfloat16", "fail_to_run"). A module of its
own, below db.py, so that modules db.py imports (failures.py, triages.py) can name values too."""

from __future__ import annotations

from typing import Any

from parity.v1 import results_pb2 as pb

MODE_NAMES = {pb.MODE_TRAINING: "training", pb.MODE_INFERENCE: "inference"}
DTYPE_NAMES = {pb.PRECISION_AMP: "amp", pb.PRECISION_BFLOAT16: "bfloat16", pb.PRECISION_FLOAT16: "float16",
               pb.PRECISION_FLOAT32: "float32"}


def enum_name(enum: Any, value: int, prefix: str, unset: str = "") -> str:
    """An enum value's name without its prefix, lower case; `unset` for 0, "unknown (N)" for a value this schema
    does not have (a store written by newer code): readers name it instead of failing."""
    if not value:
        return unset
    try:
        return enum.Name(value).removeprefix(prefix).lower()
    except ValueError:
        return f"unknown ({value})"


def mode_name(value: int) -> str:
    return MODE_NAMES.get(value) or enum_name(pb.Mode, value, "MODE_")


def dtype_name(value: int) -> str:
    return DTYPE_NAMES.get(value) or enum_name(pb.Precision, value, "PRECISION_")
