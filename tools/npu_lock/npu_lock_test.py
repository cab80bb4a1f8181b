"""The NPU lock is current and consistent (no install needed), and each rule catches what it is for."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.npu_lock.lock import Paths, derive, parse_pins, problems

REPO_PATHS = Paths()


def test_checked_in_npu_lock_is_consistent() -> None:
    assert problems(REPO_PATHS) == []


CPU = "# header\nnumpy==2.4.6\nnvidia-cublas==13.1.1.3\ntorch==2.14.1\ntorchvision==0.29.1\ntriton==3.8.0\n"
NPU_IN = ("torch==2.14.0\ntorchvision==0.29.0\ntorch-npu==2.14.0\ntriton-ascend==3.2.0\n"
          "# exclude: nvidia-*\n# exclude: triton\n")


def _write(tmp_path: Path, cpu: str, npu_in: str, lock: str | None = None) -> Paths:
    paths = Paths(tmp_path / "requirements.lock", tmp_path / "requirements-npu.in", tmp_path / "requirements-npu.lock")
    paths.cpu_lock.write_text(cpu)
    paths.npu_in.write_text(npu_in)
    paths.npu_lock.write_text(lock if lock is not None else derive(cpu, npu_in))
    return paths


def test_derivation_replaces_adds_and_excludes(tmp_path: Path) -> None:
    pins = parse_pins(derive(CPU, NPU_IN), "lock")
    assert {k: v for k, (_, v) in pins.items()} == {
        "numpy": "2.4.6", "torch": "2.14.0", "torchvision": "0.29.0", "torch-npu": "2.14.0", "triton-ascend": "3.2.0"}
    assert problems(_write(tmp_path, CPU, NPU_IN)) == []


def test_an_out_of_date_lock_is_reported(tmp_path: Path) -> None:
    paths = _write(tmp_path, CPU, NPU_IN)
    paths.cpu_lock.write_text(CPU.replace("numpy==2.4.6", "numpy==2.4.7"))
    assert any("run `python -m tools.npu_lock write`" in p for p in problems(paths))


@pytest.mark.parametrize(("npu_in", "message"), [
    (NPU_IN.replace("torch==2.14.0", "torch==2.14.1"), "torch-npu 2.14.0 requires torch==2.14.0.*"),
    (NPU_IN.replace("torch-npu==2.14.0", "torch-npu==2.14.0.post1").replace("torchvision==0.29.0", "torchvision==0.28.0"),
     "torchvision 0.28.0 is not built for torch 2.14.0"),
    (NPU_IN.replace("# exclude: triton\n", ""), "triton must not be in the NPU set"),
    (NPU_IN.replace("triton-ascend==3.2.0\n", ""), "must pin triton-ascend"),
])
def test_inconsistent_sets_are_reported(tmp_path: Path, npu_in: str, message: str) -> None:
    assert any(message in p for p in problems(_write(tmp_path, CPU, npu_in)))


def test_malformed_line_names_the_file_and_line(tmp_path: Path) -> None:
    assert problems(_write(tmp_path, CPU + "torch>=2\n", NPU_IN, lock="")) == ["requirements.lock:7: expected name==version, got 'torch>=2'"]
