"""Forced fallbacks: the policy, that Inductor's tables are restored, and what Inductor really generates."""

from __future__ import annotations

import pytest
import torch

from compiler.fallback import policy as policy_module
from compiler.fallback.check import check_forced_fallback
from compiler.fallback.force import forced_fallbacks, resolve_op
from compiler.fallback.generated_code import calls_aten, kernels_containing
from compiler.fallback.policy import ENV, NATIVE_FALLBACK_REASON, FallbackPolicy, PolicyError, parse_env, policy_for
from compiler.lowering.family import Family


def test_environment_policy_and_reasons() -> None:
    policy = policy_for("cpu", {ENV: "aten.sigmoid.default=suspect lowering, aten.gelu.default"})
    assert policy.reason_for("aten.sigmoid.default") == f"forced by {ENV}: suspect lowering"
    assert policy.reason_for("aten.gelu.default") == f"forced by {ENV}: no reason given"
    assert policy.reason_for("aten.sort.stable") == NATIVE_FALLBACK_REASON
    with pytest.raises(PolicyError, match="write it as namespace.op.overload"):
        parse_env("sigmoid")


def test_family_overrides_apply_to_their_device_only(monkeypatch: pytest.MonkeyPatch) -> None:
    norm = Family("norm", "", ("aten.native_layer_norm*",),
                  forced_fallbacks={"npu": {"aten.native_layer_norm.default": "fused kernel loses precision"}})
    monkeypatch.setattr(policy_module, "available_families", lambda: (norm,))
    assert policy_for("cpu", {}).forced == {}
    assert policy_for("npu", {}).forced == {
        "aten.native_layer_norm.default": "forced by device policy (norm family, npu): fused kernel loses precision"}


def test_unknown_op_is_a_clear_error() -> None:
    with pytest.raises(PolicyError, match="not an operator overload this torch"):
        resolve_op("aten.no_such_op.default")
    with pytest.raises(PolicyError, match="not an op overload name"):
        with forced_fallbacks(FallbackPolicy("cpu", {"aten.sigmoid": "x"})):
            pass


def test_inductor_tables_are_restored() -> None:
    from torch._inductor import decomposition, lowering

    op = torch.ops.aten.sigmoid.default
    gelu = torch.ops.aten.gelu.default
    before = (lowering.lowerings[op], decomposition.decompositions.get(gelu), op in lowering.fallbacks)
    with forced_fallbacks(FallbackPolicy("cpu", {"aten.sigmoid.default": "t", "aten.gelu.default": "t"})):
        assert getattr(lowering.lowerings[op], "_is_fallback_handler", False)
        assert torch._inductor.config.force_disable_caches
    assert (lowering.lowerings[op], decomposition.decompositions.get(gelu), op in lowering.fallbacks) == before


def test_code_reading_on_a_known_wrapper() -> None:
    code = ("cpp_fused_mul_relu_0 = async_compile.cpp_pybinding(['float*'], r'''\nvoid kernel() {}\n''')\n"
            "def call(args):\n    buf1 = torch.ops.aten.sigmoid.default(buf0)\n")
    assert calls_aten(code, "aten.sigmoid.default")
    assert not calls_aten(code, "aten.relu.default")
    assert kernels_containing(code, "aten.relu.default") == ["cpp_fused_mul_relu_0"]
    assert kernels_containing(code, "aten.sigmoid.default") == []


@pytest.mark.slow
def test_forced_op_is_an_aten_call_in_no_kernel_with_equal_accuracy() -> None:
    check = check_forced_fallback("cpu")
    assert check.failures == []
    # The control: fused, one kernel computes the op; forced, it is split out between two kernels.
    assert check.fused.kernels_computing_op and not check.fused.aten_call
    assert len(check.forced.kernels) == 2 and check.forced.fallback_kernels == {"aten.sigmoid.default": 1}
    assert check.forced.max_abs_error_vs_eager == check.fused.max_abs_error_vs_eager == 0.0
