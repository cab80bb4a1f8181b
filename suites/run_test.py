"""The suite CLI rejects bad input with a clear message and exit code 2, before starting any child."""

from __future__ import annotations

from pathlib import Path

import pytest

from suites.common.result_io import read_result
from suites.run import main


@pytest.mark.parametrize("args, message", [
    (["--suite", "timm", "--model", "resnet999", "--backend", "inductor"], "unknown model 'resnet999' in suite timm"),
    (["--suite", "timm", "--backend", "tvm"], "unknown backend 'tvm'; known backends:"),
    (["--suite", "nope", "--backend", "inductor"], "no manifest for suite 'nope'"),
    (["--suite", "timm", "--backend", "inductor", "--jobs", "2"], "--jobs 2 runs models side by side"),
    (["--suite", "timm", "--backend", "inductor", "--jobs", "0", "--plan", "accuracy"], "--jobs must be at least 1"),
    (["--suite", "timm", "--backend", "inductor", "--shard", "4/4"], "I must be at least 0 and below N"),
    (["--suite", "timm", "--backend", "inductor", "--shard", "half"], "--shard must be I/N"),
])
def test_bad_input_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main([*args, "--device", "cpu", "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing was run or written


def test_accuracy_runs_side_by_side(tmp_path: Path) -> None:
    """--jobs runs accuracy-only children at once; each result is classified and says how it was run."""
    args = ["--suite", "selftest", "--model", "healthy", "--model", "killed", "--backend", "aot_eager",
            "--device", "cpu", "--smoke", "--plan", "accuracy", "--jobs", "2", "--out", str(tmp_path)]
    assert main(args) == 0  # both matched the manifest's expectations
    healthy = read_result(tmp_path / "selftest.healthy.inference.aot_eager.cpu.smoke.pb")
    assert healthy.community_status == "pass" and healthy.accuracy.checked and not healthy.performance.measured
    assert healthy.config.parallel_jobs == 2
    killed = read_result(tmp_path / "selftest.killed.inference.aot_eager.cpu.smoke.pb")
    assert killed.community_status == "crash" and killed.config.parallel_jobs == 2
