"""A small store with known content for the dashboard's tests: three runs of one CPU machine (two
sharing a manifest version, one on a newer version), with failures, risks, graph breaks and fallbacks,
a triage of one failure signature (with markup in its fields and script, which must stay text),
plus a community H100 baseline imported from upstream-format CSV files."""

from __future__ import annotations

from pathlib import Path

from parity.v1 import opinfo_pb2
from parity.v1 import results_pb2 as pb
from tools.store.db import ORIGIN_COMMUNITY, LoadedResult, connect, ingest
from tools.store.failures import opinfo_as_model_result, signature
from tools.store.hud_interop import import_community_csvs
from tools.store.triages import Repro

OLD, NEW, NEXT_MANIFEST, BASELINE = "r-old", "r-new", "r-v2", "h100-community"
OPINFO = "opinfo-1"


def result(run: str, model: str, status: str, start: int, speedup: float = 0.0, compile_s: float = 0.0,
           compression: float = 0.0, mode: int = pb.MODE_INFERENCE, manifest: str = "1.0",
           expected: int = pb.STATUS_PASS) -> pb.ModelResult:
    r = pb.ModelResult(result_id=f"{run}-{model}-{mode}", run_id=run, community_status=status,
                       expected_status=expected)
    r.status = pb.STATUS_PASS if status == "pass" else pb.STATUS_FAIL_TO_RUN
    r.config.CopyFrom(pb.RunConfig(suite="timm", model=model, mode=mode,
                                   precision=pb.PRECISION_BFLOAT16 if mode == pb.MODE_INFERENCE else pb.PRECISION_AMP,
                                   backend="inductor", hud_compiler="default", device="cpu", cold_start=True))
    r.provenance.device_type, r.provenance.device_name = "cpu", "x86_64"
    r.provenance.torch_version, r.provenance.manifest_version = "2.14.1", manifest
    r.provenance.commit = f"{run}0123456789abcdef"
    r.provenance.start_time.seconds = start
    r.performance.measured = speedup > 0
    r.performance.speedup = speedup
    r.compile_time.compilation_latency_s = compile_s
    r.compile_time.cold_start = True
    r.compile_time.dynamo_s, r.compile_time.aot_autograd_s = compile_s * 0.3, compile_s * 0.2
    r.compile_time.inductor_s, r.compile_time.codegen_s = compile_s * 0.4, compile_s * 0.1
    r.memory.compression_ratio = compression
    return r


def failure(r: pb.ModelResult, phase: int, exception: str, message: str, log: str) -> pb.ModelResult:
    r.failure.phase, r.failure.exception_type, r.failure.message, r.failure.log_tail = phase, exception, message, log
    r.status = pb.STATUS_TIMEOUT if r.community_status == "timeout" else pb.STATUS_FAIL_TO_RUN
    return r


def below_target(r: pb.ModelResult, generated_ms: float, fallback_ms: float) -> pb.ModelResult:
    """A bottleneck analysis as the harness writes it (suites/common/bottleneck.py): sort fell back."""
    b = r.bottleneck
    b.trigger = f"speedup {r.performance.speedup:.2f} < target 1.2"
    for run, generated, fallback in ((b.eager, 0.0, 4.0), (b.compiled, generated_ms, fallback_ms)):
        total = (generated + fallback + 0.5) / 1000
        run.split.total_s, run.split.generated_s, run.split.fallback_s = total, generated / 1000, fallback / 1000
        run.split.gap_s = 0.5 / 1000
        run.top.add(name="aten::sort", category="fallback", time_s=fallback / 1000, share=fallback / 1000 / total,
                    calls=2)
    b.busy_time = "self CPU time"
    b.cause_category, b.cause_ops[:] = "fallback", ["aten.sort.stable"]
    share = round(100 * b.compiled.split.fallback_s / b.compiled.split.total_s)
    b.cause = f"{share}% of compiled time in 1 fallback op: aten.sort.stable"
    b.signature = f"bottleneck/v1:timm/{r.config.model}:inference:{r.config.backend}:cpu:fallback:aten.sort.stable"
    return r


def sample_results() -> list[pb.ModelResult]:
    old = [result(OLD, "a", "pass", 1000, 1.5, 10.0, 1.1), result(OLD, "b", "pass", 1000, 1.2, 20.0, 1.0),
           result(OLD, "c", "pass", 1000, 1.1, 30.0, 0.9), result(OLD, "d", "fail_accuracy", 1000, 1.3, 5.0, 1.0)]
    a = result(NEW, "a", "pass", 2000, 1.8, 12.0, 1.2)
    a.dynamo.graph_breaks = 3
    a.dynamo.breaks.add(reason="call_function builtin print", count=2)
    a.dynamo.breaks.add(reason="data-dependent branching", count=1)
    a.config.accuracy_batch_size = 8  # the baseline's size: its status compares
    b = below_target(result(NEW, "b", "pass", 2000, 1.0, 22.0, 1.0), generated_ms=1.0, fallback_ms=3.0)
    b.config.accuracy_batch_size = 128  # checked at the timed batch size: not like for like with the baseline's 8
    b.fallback_ops.add(op="aten.sort.stable", count=2, reason="no lowering")
    recompiling = result(NEW, "f", "pass", 2000, 1.4, 8.0, 1.0)
    recompiling.dynamo.recompiles = 2
    warm = result(NEW, "g", "pass", 2000, 1.3, 2.0, 1.0)
    warm.config.cold_start = warm.compile_time.cold_start = False
    warm.compile_time.fx_graph_cache_misses = 3
    new = [
        a, b, recompiling, warm,
        result(NEW, "a", "pass", 2000, 1.6, 40.0, 1.0, mode=pb.MODE_TRAINING),
        failure(result(NEW, "c", "fail_to_run", 2000), pb.PHASE_COMPILED_RUN, "RuntimeError",
                "shape mismatch at dim 3 of tensor 0x7f12aa", "Traceback (most recent call last):\n  c failed here"),
        failure(result(NEW, "d", "fail_to_run", 2000, expected=pb.STATUS_FAIL_ACCURACY), pb.PHASE_COMPILED_RUN,
                "RuntimeError", "shape mismatch at dim 5 of tensor 0x7f99bb", "Traceback: d failed here"),
        failure(result(NEW, "e", "timeout", 2000), pb.PHASE_COMPILE, "", "killed after 2000 s", "compiling e ..."),
    ]
    later = [result(NEXT_MANIFEST, "a", "pass", 3000, 2.0, 11.0, 1.2, manifest="2.0"),
             below_target(result(NEXT_MANIFEST, "b", "pass", 3000, 1.1, 21.0, 1.0, manifest="2.0"), 1.5, 2.5)]
    return old + new + later


TRIAGED_MODEL = "c"  # its fail_to_run signature (shared with d) is triaged; e's compile timeout is not
REPRO_SCRIPT = ("# minified by torch._dynamo.repro; </pre><script>alert('repro')</script>\n"
                "import torch\n\nraise RuntimeError('shape mismatch at dim 3')\n")
DEBUG_INFO = "<b>buf0</b> = aten.cat.default(x, y) & 'lowering'"


def sample_triage(results: list[pb.ModelResult]) -> LoadedResult:
    """A finished triage of the NEW run's fail_to_run signature, as tools/triage would write it."""
    triaged = next(r for r in results if r.run_id == NEW and r.config.model == TRIAGED_MODEL)
    c = triaged.config
    record = pb.TriageRecord(
        signature=signature(triaged).label, result_id=triaged.result_id, run_id=triaged.run_id, suite=c.suite,
        model=c.model, mode=c.mode, backend=c.backend, device=c.device, community_status=triaged.community_status,
        outcome=pb.TriageRecord.OUTCOME_DONE, culprit_backend="inductor", culprit_subsystem="lowerings",
        bisect_number=7, debug_info=DEBUG_INFO, bisect_runs=12, repro_path=f"{c.model}.repro.py", repro_lines=4,
        repro_nodes=3, reproduces=pb.TriageRecord.REPRODUCES_YES,
        repro_output_tail="Traceback (most recent call last):\nRuntimeError: shape mismatch at dim 3",
        limit_s=600.0, wall_s=95.0)
    record.provenance.torch_version = "2.14.1"
    record.provenance.start_time.seconds = 2100
    return LoadedResult("sample triage", record, repro=Repro(f"{c.model}.repro.py", REPRO_SCRIPT))


def sample_opinfo_triage() -> LoadedResult:
    """A finished triage of the OpInfo run's failing group_norm case, with no repro made."""
    case = opinfo_as_model_result(next(r for r in opinfo_results() if r.outcome == opinfo_pb2.OPINFO_OUTCOME_FAIL))
    c = case.config
    record = pb.TriageRecord(
        signature=signature(case).label, result_id=case.result_id, run_id=case.run_id, suite=c.suite, model=c.model,
        backend=c.backend, device=c.device, community_status=case.community_status,
        outcome=pb.TriageRecord.OUTCOME_DONE, culprit_backend="inductor", bisect_number=-1, bisect_runs=13,
        error="minify: the minifier failed (exit 1)", limit_s=600.0, wall_s=80.0)
    record.provenance.start_time.seconds = 2600
    return LoadedResult("sample OpInfo triage", record)


def opinfo_results() -> list[opinfo_pb2.OpInfoResult]:
    cases = (("native_layer_norm", "norm", opinfo_pb2.OPINFO_OUTCOME_PASS, opinfo_pb2.LOWERING_NATIVE, ""),
             ("nn.functional.group_norm", "norm", opinfo_pb2.OPINFO_OUTCOME_FAIL, opinfo_pb2.LOWERING_FALLBACK,
              "sample 3: max abs diff 0.02 > atol 1e-05"),
             ("sort", "indexing", opinfo_pb2.OPINFO_OUTCOME_XFAIL, opinfo_pb2.LOWERING_FALLBACK,
              "expectation table: stable sort falls back on cpu"))
    found = []
    for op, group, outcome, lowering, reason in cases:
        r = opinfo_pb2.OpInfoResult(result_id=f"{OPINFO}-{op}", run_id=OPINFO, op=op, dtype="float32", device="cpu",
                                    group=group, lowering_family=group, lowering=lowering, outcome=outcome,
                                    expected_outcome=opinfo_pb2.OPINFO_OUTCOME_PASS, reason=reason)
        r.provenance.device_name = "x86_64"
        r.provenance.start_time.seconds = 2500
        if outcome == opinfo_pb2.OPINFO_OUTCOME_FAIL:  # values that differ, as opinfo/run_case.py records them
            r.failure.CopyFrom(pb.Failure(phase=pb.PHASE_ACCURACY_CHECK, exception_type="AssertionError",
                                          message="Tensor-likes are not close!"))
        found.append(r)
    return found


BASELINE_PREFIX = "inductor_no_cudagraphs_timm_models_bfloat16_inference_cuda_h100"


def write_baseline_csvs(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    accuracy = folder / f"{BASELINE_PREFIX}_accuracy.csv"
    accuracy.write_text("dev,name,batch_size,accuracy\ncuda,a,8,pass\ncuda,b,8,pass\ncuda,c,8,fail_accuracy\n")
    performance = folder / f"{BASELINE_PREFIX}_performance.csv"
    performance.write_text("dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio\n"
                           "cuda,a,128,2.5,3.0,30.0,1.3\ncuda,b,128,1.9,4.0,40.0,1.1\ncuda,c,128,1.2,5.0,50.0,1.0\n")
    return [accuracy, performance]


def build(target: str, scratch: Path) -> None:
    """Fills the (empty) store at `target` with the sample runs and the community baseline."""
    db = connect(target)
    results = sample_results()
    ingest(db, [LoadedResult("sample", r) for r in [*results, *opinfo_results()]] +
           [sample_triage(results), sample_opinfo_triage()],
           source="sample")
    baseline = import_community_csvs(write_baseline_csvs(scratch / "community"), BASELINE, "NVIDIA H100")
    for r in baseline:
        r.provenance.start_time.seconds = 500
    ingest(db, [LoadedResult("community", r, ORIGIN_COMMUNITY) for r in baseline], source="community")
    db.close()
