"""`python -m suites.torchbench.run`: the checkout flag is checked, set for the children, and shown in --help."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from suites.torchbench import checkout
from suites.torchbench.run import main

FIXTURE = Path(__file__).resolve().parent / "fixture"


def test_help_shows_the_checkout_flag_and_the_suite_cli(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    shown = capsys.readouterr().out
    assert "--torchbench-dir" in shown and "--backend BACKEND" in shown


def test_a_folder_that_is_no_checkout_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--torchbench-dir", str(tmp_path), "--backend", "eager", "--device", "cpu", "--out",
                 str(tmp_path / "out")]) == 2
    assert f"--torchbench-dir {tmp_path} is not a TorchBench checkout" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_suite_is_implied(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--suite", "timm", "--backend", "eager", "--device", "cpu", "--out", str(tmp_path)]) == 2
    assert "--suite is implied" in capsys.readouterr().err


def test_the_checkout_reaches_the_suite_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(checkout.ENV_VAR, "/elsewhere")  # the flag wins; the test's end restores the variable
    # An unknown model stops the suite CLI before any child starts, after the flag has been applied.
    assert main(["--torchbench-dir", str(FIXTURE), "--model", "no_such_model", "--backend", "eager", "--device",
                 "cpu", "--out", str(tmp_path)]) == 2
    assert os.environ[checkout.ENV_VAR] == str(FIXTURE.resolve())
    assert "unknown model 'no_such_model' in suite torchbench" in capsys.readouterr().err
