"""The numeric settings contexts: what each one switches, and that each restores what it found."""

from __future__ import annotations

import torch

from suites.common.settings import accuracy_settings, performance_settings


def _state() -> tuple[bool, bool, bool]:
    return (torch.are_deterministic_algorithms_enabled(), torch.backends.cuda.matmul.allow_tf32,
            torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed())


def test_accuracy_settings_turn_reduced_precision_off_and_restore() -> None:
    before = _state()
    with performance_settings():
        with accuracy_settings(deterministic_algorithms=True):
            assert _state() == (True, False, False)
            assert torch._inductor.config.fallback_random
        assert _state() == (before[0], True, True)
    assert _state() == before


def test_eager_runs_checked_against_the_timed_artifact_keep_its_matmul_precision() -> None:
    with performance_settings():
        timed = _state()
        with accuracy_settings(deterministic_algorithms=True, reduced_precision=True):
            assert _state() == (True, timed[1], timed[2]) == (True, True, True)
        assert _state() == timed


def test_reduced_precision_reductions_go_off_only_for_the_models_that_ask() -> None:
    matmul = torch.backends.cuda.matmul
    before = (matmul.allow_fp16_reduced_precision_reduction, matmul.allow_bf16_reduced_precision_reduction)
    assert before == (True, True)  # PyTorch's default, so that turning them off shows below
    with accuracy_settings(deterministic_algorithms=True):
        assert (matmul.allow_fp16_reduced_precision_reduction, matmul.allow_bf16_reduced_precision_reduction) == before
    with accuracy_settings(deterministic_algorithms=True, reduced_precision_reductions=False):
        assert not matmul.allow_fp16_reduced_precision_reduction and not matmul.allow_bf16_reduced_precision_reduction
    assert (matmul.allow_fp16_reduced_precision_reduction, matmul.allow_bf16_reduced_precision_reduction) == before
