"""The npu adapter without hardware: unavailable with a reason here, and its code paths on the simulated
device, run in a process of their own (npu_simulated_checks.py) so this process never renames PrivateUse1."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from compiler.devices.registry import get_device

CHECKS = Path(__file__).resolve().with_name("npu_simulated_checks.py")


@pytest.mark.skipif(importlib.util.find_spec("torch_npu") is not None, reason="torch_npu is installed here")
def test_without_torch_npu_the_adapter_says_what_to_install() -> None:
    availability = get_device("npu").availability()
    assert not availability.ok
    assert "torch_npu is not installed" in availability.reason and "requirements-npu.lock" in availability.reason
    assert torch._C._get_privateuse1_backend_name() == "privateuseone"  # asking renamed nothing


def test_adapter_on_the_simulated_device_in_its_own_process() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(CHECKS)],
                          capture_output=True, text=True, env=env, timeout=600)
    print(done.stdout[-6000:], done.stderr[-3000:])
    assert done.returncode == 0, "the simulated-npu checks failed (output above)"
    assert " passed" in done.stdout and " failed" not in done.stdout
    assert torch._C._get_privateuse1_backend_name() == "privateuseone"
