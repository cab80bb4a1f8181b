"""The NPU lock is current and consistent (no install needed), and each rule catches what it is for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.npu_lock.lock import (
    PLATFORMS,
    Paths,
    compare_with_resolution,
    derive,
    load_reports,
    parse_pins,
    problems,
    resolution_path,
    resolution_problems,
)

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


# --- the lock against pip's stored resolutions (resolution-<machine>.json; `python -m tools.npu_lock resolve`) ---

def test_checked_in_lock_matches_the_stored_resolutions() -> None:
    found, notes = resolution_problems(REPO_PATHS)
    assert found == []
    for machine in PLATFORMS:  # what could not be resolved is said, not hidden
        assert any(n.startswith(f"{machine}: pip's full resolution of the lock on PyPI fails") for n in notes)
        assert any(n.startswith(f"setuptools (") and f"on {machine}" in n for n in notes)


def test_stored_resolutions_cover_both_platforms_and_every_pin() -> None:
    pins = parse_pins(REPO_PATHS.npu_lock.read_text(), "lock")
    for machine, report in load_reports().items():
        assert report is not None, machine
        assert report["python"] == "3.11" and report["machine"] == machine
        assert set(report["packages"]) | set(report["no_wheel"]) == set(pins)
        assert all(machine in entry["tags"] or entry["tags"].endswith("-any") for entry in report["packages"].values())


LOCK = "torch==2.14.0\ntorch-npu==2.14.0\nnumpy==2.4.6\n"
IN = "# exclude: nvidia-*\n"


def _report(machine: str, **changes: object) -> dict:
    report = {
        "machine": machine, "python": "3.11",
        "packages": {key: {"name": key, "version": version, "wheel": f"{key}.whl", "tags": f"cp311-cp311-{machine}"}
                     for key, version in (("torch", "2.14.0"), ("torch-npu", "2.14.0"), ("numpy", "2.4.6"))},
        "no_wheel": {},
        "full_resolution": {"ok": True},
        "closure": {"unpinned": {}, "mismatched": {}, "torch_family": {
            "torch": {"satisfied": ["numpy"], "excluded": ["nvidia-cudnn-cu13==9.24.0.43"]},
            "torch-npu": {"satisfied": ["torch==2.14.0.*"]}}},
    }
    report.update(changes)
    return report


def _compare(lock: str = LOCK, npu_in: str = IN, **reports: dict | None) -> tuple[list[str], list[str]]:
    both = {"x86_64": _report("x86_64"), "aarch64": _report("aarch64")}
    both.update(reports)
    return compare_with_resolution(lock, npu_in, both)


def test_agreeing_resolutions_pass_and_excluded_requirements_are_noted() -> None:
    found, notes = _compare()
    assert found == []
    assert any("left out by requirements-npu.in's excludes" in n and "nvidia-cudnn-cu13" in n for n in notes)


@pytest.mark.parametrize(("lock", "reports", "message"), [
    (LOCK.replace("numpy==2.4.6", "numpy==2.4.7"), {},
     "pins numpy==2.4.7, but the x86_64 resolution (tools/npu_lock/resolution-x86_64.json) has numpy 2.4.6"),
    (LOCK + "scipy==1.17.1\n", {}, "pins scipy==1.17.1, which the aarch64 resolution"),
    (LOCK.replace("numpy==2.4.6\n", ""), {}, "the x86_64 resolution (tools/npu_lock/resolution-x86_64.json) has numpy, "
                                            "which requirements-npu.lock does not pin"),
    (LOCK, {"aarch64": None}, "the aarch64 resolution (tools/npu_lock/resolution-aarch64.json) is missing"),
    (LOCK, {"aarch64": _report("aarch64", no_wheel={"torch-npu": "ERROR: No matching distribution found"})},
     "pins torch-npu==2.14.0, which has no aarch64 wheel"),
    (LOCK, {"x86_64": _report("x86_64", closure={"unpinned": {"setuptools": "84.2.1"}})},
     "pip's resolver on x86_64 adds setuptools 84.2.1, which requirements-npu.lock does not pin"),
    (LOCK, {"x86_64": _report("x86_64", closure={"mismatched": {"numpy": "2.5.0"}})},
     "pip's resolver on x86_64 needs numpy 2.5.0, requirements-npu.lock pins numpy==2.4.6"),
    (LOCK, {"x86_64": _report("x86_64", closure={"torch_family": {"torch": {"unsatisfied": ["numpy>=3"]}}})},
     "torch requires numpy>=3 on x86_64, which requirements-npu.lock does not satisfy"),
])
def test_disagreements_with_the_resolution_fail(lock: str, reports: dict, message: str) -> None:
    packages = _report("x86_64")["packages"]
    for machine in ("x86_64", "aarch64"):  # a report resolved from the lock without a pin has no entry for it
        reports.setdefault(machine, _report(machine))
        if reports[machine] is not None and reports[machine]["no_wheel"]:
            reports[machine]["packages"] = {k: v for k, v in packages.items() if k not in reports[machine]["no_wheel"]}
    found, _ = _compare(lock, **reports)
    assert any(message in p for p in found), found


def test_declared_gaps_are_notes_and_stale_declarations_fail() -> None:
    gap = _report("aarch64", no_wheel={"torch-npu": "ERROR: No matching distribution found for torch-npu==2.14.0"})
    del gap["packages"]["torch-npu"]
    npu_in = IN + "# no-wheel: torch_npu aarch64: Ascend ships it for x86_64 only\n"
    found, notes = _compare(npu_in=npu_in, aarch64=gap)
    assert found == []
    assert any("torch-npu==2.14.0 has no aarch64 wheel on PyPI (declared in requirements-npu.in: Ascend ships" in n
               for n in notes)
    found, _ = _compare(npu_in=npu_in)  # a wheel exists after all
    assert any("declares `no-wheel: torch-npu aarch64`, but the aarch64 resolution" in p for p in found)
    found, notes = _compare(npu_in=IN + "# unpinned: setuptools: the venv's own\n",
                            x86_64=_report("x86_64", closure={"unpinned": {"setuptools": "84.2.1"}}))
    assert found == [] and any("setuptools (84.2.1) is required on x86_64 but not pinned" in n for n in notes)
    found, _ = _compare(npu_in=IN + "# unpinned: setuptools: the venv's own\n")
    assert any("declares `unpinned: setuptools`, but no resolution needs it" in p for p in found)


def test_check_command_fails_on_a_disagreement(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tools.npu_lock.__main__ import main

    assert main(["check"]) == 0
    assert "matches the stored resolutions" in capsys.readouterr().out
    for machine in PLATFORMS:
        report = json.loads(resolution_path(machine).read_text())
        report["packages"]["numpy"]["version"] = "0.0.1"
        resolution_path(machine, tmp_path).write_text(json.dumps(report))
    found, _ = resolution_problems(REPO_PATHS, tmp_path)
    assert any("but the x86_64 resolution" in p and "has numpy 0.0.1" in p for p in found)
