"""OpInfoResult messages (proto/parity/v1/opinfo.proto): building them and writing .pb + .txtpb files."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import platform
import socket
import subprocess
import sys
from pathlib import Path

from google.protobuf import text_format

from parity.v1 import opinfo_pb2, results_pb2
from proto.result_files import OPINFO_SUFFIX, write_message

REPO_ROOT = Path(__file__).resolve().parent.parent

_PHASES = {
    "compile": results_pb2.PHASE_COMPILE,
    "compiled_run": results_pb2.PHASE_COMPILED_RUN,
    "accuracy_check": results_pb2.PHASE_ACCURACY_CHECK,
    "gradient_check": results_pb2.PHASE_ACCURACY_CHECK,
    "fallback_check": results_pb2.PHASE_COMPILE,
    "harness": results_pb2.PHASE_UNSPECIFIED,  # the runner itself failed on the case (run._run_one)
}


def phase_enum(phase: str) -> int:
    return _PHASES[phase]


def result_id(run_id: str, device: str, op: str, variant: str, dtype: str) -> str:
    return hashlib.sha256("\0".join((run_id, device, op, variant, dtype)).encode()).hexdigest()


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return ""


def _git_commit() -> tuple[str, bool]:
    """(commit, dirty); PARITY_COMMIT where git cannot tell (Bazel's sandbox, a copied tree)."""
    if commit := os.environ.get("PARITY_COMMIT", ""):
        return commit, False
    try:
        head = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
        return head, bool(dirty)
    except (OSError, subprocess.SubprocessError):
        return "", False


def provenance(device_type: str, device_name: str, device_arch: str, table_version: str,
               table_sha256: str) -> results_pb2.Provenance:
    """The run's provenance; manifest_version/sha256 are the device's expectation table's."""
    commit, dirty = _git_commit()
    prov = results_pb2.Provenance(
        commit=commit, commit_dirty=dirty, torch_version=_version("torch"),
        triton_version=_version("triton") or _version("pytorch-triton"), torch_npu_version=_version("torch_npu"),
        python_version=platform.python_version(), device_type=device_type, device_name=device_name,
        device_arch=device_arch, host=socket.gethostname(), manifest_version=table_version,
        manifest_sha256=table_sha256, command_line=list(sys.argv),
        bazel_target=os.environ.get("TEST_TARGET", ""),
    )
    for dist in ("expecttest", "transformers"):
        if version := _version(dist):
            prov.package_versions[dist] = version
    return prov


def file_stem(result: opinfo_pb2.OpInfoResult) -> str:
    name = result.op + (f".{result.variant}" if result.variant else "")
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
    return f"opinfo-{result.device}-{safe}-{result.dtype}"


def write_result(result: opinfo_pb2.OpInfoResult, directory: Path) -> Path:
    """Writes `<stem>.opinfo.pb` and `<stem>.opinfo.txtpb` atomically; returns the .pb path."""
    return write_message(result, directory, file_stem(result), OPINFO_SUFFIX)


def read_result(path: Path) -> opinfo_pb2.OpInfoResult:
    result = opinfo_pb2.OpInfoResult()
    data = path.read_bytes()
    if path.suffix == ".txtpb":
        text_format.Parse(data.decode(), result)
    else:
        result.ParseFromString(data)
    if not result.result_id or not result.op or not result.dtype:
        raise ValueError(f"{path} is not a complete parity.v1.OpInfoResult (no result_id, op or dtype)")
    return result
