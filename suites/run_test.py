"""The suite CLI rejects bad input with a clear message and exit code 2, before starting any child."""

from __future__ import annotations

from pathlib import Path

import pytest

from suites.run import main


@pytest.mark.parametrize("args, message", [
    (["--suite", "timm", "--model", "resnet999", "--backend", "inductor"], "unknown model 'resnet999' in suite timm"),
    (["--suite", "timm", "--backend", "tvm"], "unknown backend 'tvm'; known backends:"),
    (["--suite", "nope", "--backend", "inductor"], "no manifest for suite 'nope'"),
])
def test_bad_input_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main([*args, "--device", "cpu", "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing was run or written
