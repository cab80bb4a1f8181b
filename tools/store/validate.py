"""What the store accepts: every figure finite, and non-negative where that is its meaning; every enum value one
this schema knows; every string bounded. A refusal names the field, so that ingest can name the file too.

Readers still guard against what older stores hold (tools/store/hud.py, the dashboard, the HUD export), but
nothing new that would break them gets in.
"""

from __future__ import annotations

import math

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

MAX_NAME_CHARS = 256        # identities: model, suite, backend, run and result ids, device names, versions
MAX_TEXT_CHARS = 1_000_000  # logs, tracebacks, details
# Identity fields, by name, wherever they occur.
NAME_FIELDS = frozenset({"result_id", "run_id", "suite", "model", "backend", "hud_compiler", "device",
                         "community_status", "device_type", "device_name", "device_arch", "commit",
                         "manifest_version", "manifest_sha256", "torch_version", "triton_version"})
# Figures that may be negative: a difference of two noisy timings (an eager backend's compile latency is ~0 s).
SIGNED_FIELDS = frozenset({"compilation_latency_s"})
# Integers that may be negative: an exit code, and TriageRecord.bisect_number (-1: the bisector did not get that far).
SIGNED_INTEGERS = frozenset({"exit_code", "bisect_number"})
# Shares that are fractions of one.
FRACTION_FIELDS = frozenset({"eager_device_idle_share", "share", "confidence"})
_FLOATS = (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT)


class InvalidValue(ValueError):
    """A value the store refuses; the message names the field's path."""


def check(message: Message, path: str = "") -> None:
    """Raises InvalidValue for the first value of `message` the store must not hold."""
    for field, value in message.ListFields():
        where = f"{path}{field.name}"
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            for key, item in value.items():
                _check_string(f"{where}[key]", str(key), MAX_NAME_CHARS)
                _check_value(value_field, f"{where}[{str(key)[:40]!r}]", item)
        elif field.is_repeated:
            for index, item in enumerate(value):
                _check_value(field, f"{where}[{index}]", item)
        else:
            _check_value(field, where, value)


def _check_value(field: FieldDescriptor, where: str, value: object) -> None:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        check(value, f"{where}.")  # type: ignore[arg-type]
    elif field.type in _FLOATS:
        _check_float(field.name, where, float(value))  # type: ignore[arg-type]
    elif field.type == FieldDescriptor.TYPE_ENUM:
        if field.enum_type.values_by_number.get(int(value)) is None:  # type: ignore[call-overload]
            known = ", ".join(f"{v.number} ({v.name})" for v in field.enum_type.values)
            raise InvalidValue(f"{where} is {value}, which {field.enum_type.name} does not have (known: {known})")
    elif field.type == FieldDescriptor.TYPE_STRING:
        _check_string(where, str(value), MAX_NAME_CHARS if field.name in NAME_FIELDS else MAX_TEXT_CHARS)
    elif field.type in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64) and int(value) < 0 \
            and field.name not in SIGNED_INTEGERS:  # type: ignore[call-overload]
        raise InvalidValue(f"{where} is {value}: a count or size cannot be negative")


def _check_float(name: str, where: str, value: float) -> None:
    if not math.isfinite(value):
        raise InvalidValue(f"{where} is {value}: figures must be finite")
    if value < 0 and name not in SIGNED_FIELDS:
        raise InvalidValue(f"{where} is {value}: it cannot be negative")
    if name in FRACTION_FIELDS and value > 1:
        raise InvalidValue(f"{where} is {value}: a share lies between 0 and 1")


def _check_string(where: str, value: str, limit: int) -> None:
    if len(value) > limit:
        raise InvalidValue(f"{where} has {len(value)} characters, more than the {limit} the store keeps")
