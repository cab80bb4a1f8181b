"""Where a result came from: code, packages, device, manifest, host, time and command line."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import socket
import subprocess
import sys
from pathlib import Path

from parity.v1 import results_pb2 as pb

REPO_ROOT = Path(__file__).resolve().parents[2]
_PACKAGES = ("timm", "transformers", "torchvision", "torch_npu", "triton")
# The line a model child logs once it knows its device, so that the parent can name the device in a result it
# writes for a child that died (the parent never touches the device itself).
_DEVICE_PREFIX, _DEVICE_NAME = "[child] device arch=", " name="
# The line a model child logs as it begins a phase, so that a result written for a child killed or dead on its
# way says how far it got (a log tail of compiler warnings seldom does).
_PHASE_PREFIX = b"[child] phase "


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return ""


def git_commit(repo: Path = REPO_ROOT) -> tuple[str, bool]:
    """(commit, dirty) of the checkout; PARITY_COMMIT where git cannot tell (Bazel's sandbox, a copied tree)."""
    if commit := os.environ.get("PARITY_COMMIT", ""):
        return commit, False
    try:
        commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=10, check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                                    capture_output=True, text=True, timeout=10, check=True).stdout.strip())
        return commit, dirty
    except (OSError, subprocess.SubprocessError):
        return "", False


def base_provenance(device_type: str, manifest_version: str, manifest_sha256: str, bazel_target: str = "") -> pb.Provenance:
    """Everything knowable without touching the device (so a parent process can fill it for a dead child)."""
    commit, dirty = git_commit()
    prov = pb.Provenance(
        commit=commit,
        commit_dirty=dirty,
        torch_version=_version("torch"),
        triton_version=_version("triton") or _version("pytorch-triton"),
        torch_npu_version=_version("torch_npu"),
        python_version=platform.python_version(),
        device_type=device_type,
        host=socket.gethostname(),
        manifest_version=manifest_version,
        manifest_sha256=manifest_sha256,
        command_line=list(sys.argv),
        bazel_target=bazel_target,
    )
    for dist in _PACKAGES:
        if version := _version(dist):
            prov.package_versions[dist] = version
    return prov


def device_line(name: str, arch: str) -> str:
    return f"{_DEVICE_PREFIX}{arch}{_DEVICE_NAME}{name}"


def phase_line(name: str) -> str:
    return _PHASE_PREFIX.decode() + name


def phase_from_log(log_path: Path) -> str | None:
    """The phase a child's log says it began last; None if it began none (or there is no log)."""
    last = None
    try:
        with open(log_path, "rb") as log:  # line by line: a compile's warnings can make a long log
            for line in log:
                if line.startswith(_PHASE_PREFIX):
                    last = line[len(_PHASE_PREFIX):].decode(errors="replace").strip()
    except OSError:
        return None
    return last


def device_from_log(head: str) -> tuple[str, str] | None:
    """(name, arch) from a child's device line in the start of its log; None if it never got that far."""
    for line in head.splitlines():
        if line.startswith(_DEVICE_PREFIX):
            arch, _, name = line[len(_DEVICE_PREFIX):].partition(_DEVICE_NAME)
            return name, arch
    return None
