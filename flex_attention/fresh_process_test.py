"""Before/after checks in a fresh interpreter (see fresh_process_probe.py for why a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import flex_attention

# Not resolved: under Bazel this must stay inside the runfiles tree.
_REPO_ROOT = Path(os.path.abspath(flex_attention.__file__)).parent.parent
_HOP_ERROR = (
    "could not find kernel for HigherOrderOperator flex_attention "
    "at dispatch key DispatchKey.AutocastPrivateUse1"
)


def _probe(name: str) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_REPO_ROOT), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "-m", "flex_attention.fresh_process_probe", name],
        cwd=_REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"probe {name} failed:\n{proc.stderr[-6000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def lifecycle() -> dict[str, Any]:
    return _probe("lifecycle")


def test_enable_imports_no_inductor_or_kernel_module() -> None:
    loaded = _probe("imports")["all_modules"]
    offending = [m for m in loaded if m.startswith(("torch._inductor", "torch_npu._inductor"))]
    assert not offending, f"enable_privateuse1_flex_attention() imported {offending}"


def test_cpu_output_is_bitwise_identical_before_and_after_enabling(
    lifecycle: dict[str, Any],
) -> None:
    assert lifecycle["cpu_equal"]


def test_npu_fails_without_enabling(lifecycle: dict[str, Any]) -> None:
    """Negative controls: the compile the other tests expect to pass fails without our pieces."""
    if not lifecycle["simulated"]:
        pytest.skip("real torch_npu registers its own FlexAttention support on import")
    assert "FlexAttention is only supported on" in lifecycle["without_enable"]
    assert _HOP_ERROR in lifecycle["validator_only"]


def test_enabling_makes_the_same_compile_pass(lifecycle: dict[str, Any]) -> None:
    assert lifecycle["with_enable"] == "torch.bfloat16", lifecycle["with_enable"]


def test_kernel_registered_first_by_a_backend_is_left_alone(lifecycle: dict[str, Any]) -> None:
    assert lifecycle["backend_kernel_kept"]
    assert "flex_attention_backward AutocastPrivateUse1 kernel" in lifecycle["first"]["kept"]
    if lifecycle["simulated"]:
        assert lifecycle["first"]["installed"] == ["flex_attention AutocastPrivateUse1 kernel"]


def test_second_enable_in_a_fresh_process_changes_nothing(lifecycle: dict[str, Any]) -> None:
    assert lifecycle["second"]["installed"] == []
    assert len(lifecycle["second"]["kept"]) == 3


def test_requirement1_script_prints_exactly_the_pass_line() -> None:
    script = _REPO_ROOT / "flex_attention" / "test_flex_attention_requirement1_fake_tensor.py"
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-6000:]
    assert proc.stdout == (
        "PASS: NPU FlexAttention FakeTensor AOT graph capture and AMP/HOP metadata.\n"
    )
