"""The OpInfo suite's data tables: expectations per device and per-op tolerances (JSON files, validated).

expectations/<device>.json: {"version", "device", "entries": [{"op", "dtypes", "outcome", "reason"}]}; any.json
  ("device": "any") holds the entries of every device.
  op: OpInfo full name ("name" or "name.variant"); dtypes: dtype names or ["*"]; outcome: SKIP or XFAIL.
  No XFAIL may cover a dtype of the supported scope (float32): there every case eager supports must pass.
tolerances.json: {"version", "default": {dtype: {"atol", "rtol"}}, "ops": [{"op", "dtypes", "atol", "rtol",
  "compare_values", "reason"}]}: per-op overrides, each with its reason.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opinfo.catalog import FP32_SCOPE, dtype_name

OPINFO_DIR = Path(__file__).resolve().parent
EXPECTATIONS_DIR = OPINFO_DIR / "expectations"
TOLERANCES_JSON = OPINFO_DIR / "tolerances.json"
SCOPE_DTYPES = frozenset(dtype_name(d) for d in FP32_SCOPE)
OUTCOMES = ("SKIP", "XFAIL")
ANY_DEVICE = "any"  # expectations/any.json: entries that hold on every device (what torch.compile cannot trace)


class TableError(ValueError):
    """A data table is malformed or breaks a rule; the message names the file, the entry and the fix."""


@dataclass(frozen=True)
class Expectation:
    outcome: str  # "PASS" (no entry), "SKIP" or "XFAIL"
    reason: str = ""


PASS = Expectation("PASS")


@dataclass(frozen=True)
class Tolerance:
    atol: float | None  # None: torch.testing.assert_close's default for the dtype
    rtol: float | None
    compare_values: bool = True
    reason: str = ""


def _read_json(path: Path) -> tuple[dict[str, Any], str]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TableError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        return json.loads(data), hashlib.sha256(data).hexdigest()
    except json.JSONDecodeError as exc:
        raise TableError(f"{path}: not valid JSON: {exc}") from exc


def _dtypes(path: Path, entry: dict[str, Any]) -> tuple[str, ...]:
    dtypes = entry.get("dtypes")
    if not isinstance(dtypes, list) or not dtypes or not all(isinstance(d, str) for d in dtypes):
        raise TableError(f"{path}: entry for {entry.get('op')!r} needs \"dtypes\": a non-empty list of dtype names "
                         "(e.g. [\"float16\"]) or [\"*\"]")
    return tuple(dtypes)


@dataclass(frozen=True)
class Expectations:
    device: str
    version: str
    sha256: str
    entries: dict[tuple[str, str], Expectation]  # (op full name, dtype name or "*") -> expectation

    def lookup(self, op_full_name: str, dtype: str) -> Expectation:
        return self.entries.get((op_full_name, dtype)) or self.entries.get((op_full_name, "*")) or PASS


def load_expectations(device: str, directory: Path = EXPECTATIONS_DIR) -> Expectations:
    """The device's table, with the entries of expectations/any.json (those that hold on every device)."""
    own = load_table_file(directory / f"{device}.json", device)
    shared_path = directory / f"{ANY_DEVICE}.json"
    if device == ANY_DEVICE or not shared_path.exists():
        return own
    shared = load_table_file(shared_path, ANY_DEVICE)
    clash = sorted(own.entries.keys() & shared.entries.keys())
    if clash:
        raise TableError(f"{directory / f'{device}.json'}: {clash[0][0]} / {clash[0][1]} is also in {shared_path}: "
                         "keep one")
    sha = hashlib.sha256(f"{shared.sha256}:{own.sha256}".encode()).hexdigest()
    return Expectations(device, own.version, sha, {**shared.entries, **own.entries})


def load_table_file(path: Path, device: str) -> Expectations:
    """One expectation file on its own (load_expectations adds any.json's entries)."""
    if not path.exists():
        raise TableError(f"no expectation table for device {device!r}: create {path} "
                         '({"version": "1", "device": "...", "entries": []})')
    raw, sha = _read_json(path)
    if raw.get("device") != device or not isinstance(raw.get("entries"), list) or not raw.get("version"):
        raise TableError(f"{path}: needs \"version\", \"device\": {device!r} and a list \"entries\"")
    entries: dict[tuple[str, str], Expectation] = {}
    for entry in raw["entries"]:
        op, outcome, reason = entry.get("op"), entry.get("outcome"), str(entry.get("reason", "")).strip()
        if not isinstance(op, str) or not op:
            raise TableError(f"{path}: an entry has no \"op\" (the OpInfo full name): {entry}")
        if outcome not in OUTCOMES:
            raise TableError(f"{path}: {op}: outcome {outcome!r} is not one of {OUTCOMES}")
        if not reason:
            raise TableError(f"{path}: {op}: every {outcome} needs a \"reason\" (what fails and why, with a link)")
        dtypes = _dtypes(path, entry)
        if outcome == "XFAIL" and ("*" in dtypes or SCOPE_DTYPES & set(dtypes)):
            raise TableError(f"{path}: {op}: XFAIL covers the supported scope ({', '.join(sorted(SCOPE_DTYPES))}), "
                             "where every case eager supports must pass: fix the failure (or its tolerance, "
                             "with a reason, in tolerances.json) or narrow \"dtypes\"")
        for dtype in dtypes:
            if (op, dtype) in entries:
                raise TableError(f"{path}: {op} / {dtype} is listed twice")
            entries[(op, dtype)] = Expectation(outcome, reason)
    return Expectations(device, str(raw["version"]), sha, entries)


@dataclass(frozen=True)
class Tolerances:
    version: str
    sha256: str
    default: dict[str, Tolerance]
    overrides: dict[tuple[str, str], Tolerance]  # (op full name, dtype name or "*")

    def lookup(self, op_full_name: str, op_name: str, dtype: str) -> Tolerance:
        for key in ((op_full_name, dtype), (op_full_name, "*"), (op_name, dtype), (op_name, "*")):
            if key in self.overrides:
                return self.overrides[key]
        return self.default.get(dtype, Tolerance(None, None))


def load_tolerances(path: Path = TOLERANCES_JSON) -> Tolerances:
    raw, sha = _read_json(path)
    if not raw.get("version") or not isinstance(raw.get("default"), dict) or not isinstance(raw.get("ops"), list):
        raise TableError(f"{path}: needs \"version\", a \"default\" dict (dtype -> atol/rtol) and an \"ops\" list")
    default = {dtype: Tolerance(float(t["atol"]), float(t["rtol"])) for dtype, t in raw["default"].items()}
    overrides: dict[tuple[str, str], Tolerance] = {}
    for entry in raw["ops"]:
        op, reason = entry.get("op"), str(entry.get("reason", "")).strip()
        if not isinstance(op, str) or not reason:
            raise TableError(f"{path}: every override needs \"op\" and a \"reason\": {entry}")
        unknown = set(entry) - {"op", "dtypes", "atol", "rtol", "compare_values", "reason"}
        if unknown:
            raise TableError(f"{path}: {op}: unknown keys {sorted(unknown)}")
        for dtype in _dtypes(path, entry):
            base = default.get(dtype, Tolerance(None, None))
            atol, rtol = entry.get("atol", base.atol), entry.get("rtol", base.rtol)
            if (op, dtype) in overrides:
                raise TableError(f"{path}: {op} / {dtype} is listed twice")
            overrides[(op, dtype)] = Tolerance(
                None if atol is None else float(atol), None if rtol is None else float(rtol),
                bool(entry.get("compare_values", True)), reason)
    return Tolerances(str(raw["version"]), sha, default, overrides)
