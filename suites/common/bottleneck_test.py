"""Bottleneck analysis: a model slowed by a forced fallback is analysed, and the cause names the forced op."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from parity.v1 import results_pb2 as pb
from suites.common import bottleneck
from suites.common.launcher import LaunchOptions, run_model
from suites.common.model_run import PERFORMANCE_ONLY_DETAIL
from suites.common.request import ModelRequest
from suites.common.result_io import read_result

FORCED = "aten.gelu.default"


@pytest.fixture(scope="module")
def slow(tmp_path_factory: pytest.TempPathFactory) -> tuple[pb.ModelResult, Path]:
    """The selftest model under Inductor with gelu forced to an ATen fallback (one small cold compile)."""
    out = tmp_path_factory.mktemp("bottleneck")
    request = ModelRequest(suite="selftest", model="slow_fallback", mode="inference", backend="inductor", device="cpu",
                           smoke=True, plan="performance", repeats=2, warmup=1, run_id="bottleneck")
    with pytest.MonkeyPatch.context() as env:  # the child inherits it; the manifest's target triggers the analysis
        env.setenv("PARITY_FORCE_FALLBACK", FORCED)
        # One thread: on a 2-core machine running several tests, OpenMP's spin-waiting threads made the shares vary
        # tenfold between runs and sometimes named a tiny addmm or the generated kernels as the cause.
        env.setenv("OMP_NUM_THREADS", "1")
        env.delenv(bottleneck.TARGET_ENV, raising=False)
        run_model(request, out, LaunchOptions(timeout_s=300.0))
    return read_result(out / f"{request.file_stem()}.pb"), out


def test_forced_fallback_is_named_as_the_cause(slow: tuple[pb.ModelResult, Path]) -> None:
    result, _ = slow
    assert result.community_status == "pass", result.failure.message
    # a performance-only run says so: its pass is not an accuracy check's
    assert result.config.performance_only and result.accuracy.detail == PERFORMANCE_ONLY_DETAIL
    analysis = result.bottleneck
    assert not analysis.error
    assert analysis.trigger.endswith("< target 1000")
    assert [f.op for f in result.fallback_ops] == [FORCED]
    assert analysis.cause_category == "fallback" and list(analysis.cause_ops) == [FORCED]
    assert "fallback op" in analysis.cause and FORCED in analysis.cause
    split = analysis.compiled.split
    assert split.fallback_s > split.generated_s > 0 and split.total_s > 0
    assert analysis.compiled.top[0].name == "aten::gelu" and analysis.compiled.top[0].category == "fallback"
    assert analysis.eager.split.generated_s == 0 and analysis.eager.split.fallback_s > 0
    assert analysis.busy_time == "self CPU time" and not analysis.device_graphs


def test_signature_is_stable_and_stored(slow: tuple[pb.ModelResult, Path]) -> None:
    result, _ = slow
    expected = f"bottleneck/v1:selftest/slow_fallback:inference:inductor:cpu:fallback:{FORCED}"
    assert result.bottleneck.signature == bottleneck.problem_signature(result) == expected
    assert bottleneck.problem_signature(pb.ModelResult()) == ""


def test_traces_are_written_next_to_the_result(slow: tuple[pb.ModelResult, Path]) -> None:
    result, out = slow
    for which in ("eager", "compiled"):
        name = getattr(result.bottleneck, which).trace
        assert name == f"{result.config.suite}.slow_fallback.inference.inductor.cpu.smoke.{which}.trace.json.gz"
        events = json.loads(gzip.decompress((out / name).read_bytes()))["traceEvents"]
        assert any(e.get("name") == "aten::gelu" for e in events)


def test_cli_prints_the_table_and_cause(slow: tuple[pb.ModelResult, Path], capsys: pytest.CaptureFixture[str]) -> None:
    result, out = slow
    assert bottleneck.main(["show", str(out / "selftest.slow_fallback.inference.inductor.cpu.smoke.pb")]) == 0
    printed = capsys.readouterr().out
    assert f"cause: {result.bottleneck.cause}" in printed
    assert "compiled" in printed and "aten::gelu" in printed and "fallback ops: aten.gelu.default x8" in printed


@pytest.mark.parametrize("name, on_device, category", [
    ("triton_poi_fused_add_0", True, "generated"),
    ("cpp_fused_mul_0", False, "generated"),
    ("## Call CompiledFxGraph fabc123 ##", False, "generated"),
    ("aten::addmm", False, "extern"),
    ("aten::mkldnn_convolution", False, "extern"),
    ("aten::_scaled_dot_product_flash_attention_for_cpu", False, "extern"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32", True, "extern"),
    ("aten::copy_", False, "copy"),
    ("Memcpy DtoD (Device -> Device)", True, "copy"),
    ("aten::gelu", False, "fallback"),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>", True, "fallback"),
    ("Torch-Compiled Region: 0/0", False, None),
    ("TorchDynamo Cache Lookup", False, None),
    ("autograd::engine::evaluate_function: AddmmBackward0", False, None),
])
def test_classify(name: str, on_device: bool, category: str | None) -> None:
    assert bottleneck.classify(name, on_device) == category


def _figures(total: float, **busy: float) -> pb.ModelResult:
    """A result whose compiled iteration ran these device kernels ("aten__gelu" stands for aten::gelu)."""
    result = pb.ModelResult()
    events = [(name.replace("__", "::"), seconds) for name, seconds in busy.items()]
    result.bottleneck.compiled.CopyFrom(bottleneck.summarise(events, total, on_device=True))
    return result


def test_cause_follows_the_largest_share() -> None:
    gaps = _figures(1.0, triton_poi_fused_0=0.2, sm90_gemm=0.1)
    gaps.dynamo.graph_breaks = 3
    category, ops, line = bottleneck.explain(gaps, "cuda")
    assert category == "gap" and ops == []
    assert line == "compiled time dominated by launch gaps (70%): 3 graph breaks, no device graphs"
    category, ops, line = bottleneck.explain(_figures(1.0, sm90_gemm=0.8, triton_poi_fused_0=0.1), "cuda")
    assert (category, ops) == ("extern", ["sm90_gemm"]) and "little for Inductor to fuse" in line
    aten_only = _figures(1.0, elementwise_kernel=0.6, sm90_gemm=0.2)
    category, _, line = bottleneck.explain(aten_only, "cuda")
    assert category == "fallback" and "ATen ops outside generated kernels; nothing generated" in line


def test_signature_ignores_the_figures() -> None:
    def signed(gelu_s: float) -> str:
        result = _figures(1.0, aten__gelu=gelu_s, triton_poi_fused_0=0.05)
        result.fallback_ops.add(op=FORCED, count=1)
        result.config.CopyFrom(pb.RunConfig(suite="s", model="m", mode=pb.MODE_TRAINING, backend="inductor",
                                            device="cuda"))
        category, ops, _ = bottleneck.explain(result, "cuda")
        result.bottleneck.cause_category = category
        result.bottleneck.cause_ops[:] = ops
        return bottleneck.problem_signature(result)

    assert signed(0.5) == signed(0.9) == f"bottleneck/v1:s/m:training:inductor:cuda:fallback:{FORCED}"


def test_profiler_failure_is_recorded_not_raised() -> None:
    def broken(which: str, trace: Path | None) -> tuple[pb.ProfiledRun, str]:
        raise RuntimeError("profiler unavailable")

    result = pb.ModelResult(community_status="pass")
    identity = ("s", "m", "inference", "inductor", "cpu")
    bottleneck.analyse(result, identity, "speedup 0.5 < target 1", False, broken, None)
    assert result.community_status == "pass"
    assert result.bottleneck.error == "RuntimeError: profiler unavailable"
    assert result.bottleneck.cause_category == "error" and result.bottleneck.cause.startswith("profiling failed")


def test_target_override_from_the_environment() -> None:
    assert bottleneck.target_for(1.0, {}) == 1.0
    assert bottleneck.target_for(1.0, {bottleneck.TARGET_ENV: "100"}) == 100.0
    with pytest.raises(ValueError, match="PARITY_BOTTLENECK_TARGET='fast' is not a speedup > 0"):
        bottleneck.target_for(1.0, {bottleneck.TARGET_ENV: "fast"})
