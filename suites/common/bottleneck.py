"""Bottleneck analysis for a model below its speedup target: where one eager and one compiled iteration spend time.

ModelRun calls `analyse` after timing when the speedup is below `target_for(entry)`. It profiles one eager and
one compiled iteration with torch.profiler, splits busy time into generated kernels, ATen fallbacks, extern
(library) kernels and copies, counts the rest of the wall time as gaps, and derives a one-line cause from those
figures. The chrome traces go next to the result. `problem_signature` names the bottleneck stably across runs.

  python -m suites.common.bottleneck show out/bn/<stem>.pb
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Callable

import torch

if __name__ == "__main__":  # the CLI outside Bazel: generate the protobuf modules first
    from proto.codegen import ensure_generated

    ensure_generated()

from parity.v1 import results_pb2 as pb  # noqa: E402
from suites.common.request import MODE_NAMES  # noqa: E402

TARGET_ENV = "PARITY_BOTTLENECK_TARGET"  # overrides every model's speedup target (e.g. 100: always analyse)
CATEGORIES = ("generated", "fallback", "extern", "copy")  # busy time; the rest of the wall time is "gap"
TOP_N = 10

# Names are matched after lower-casing. Library kernels (matmul, convolution, attention): not Inductor's to fuse.
_EXTERN_OPS = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear", "aten::addmv",
               "aten::mv", "aten::dot", "aten::_scaled_mm", "aten::_addmm_activation", "aten::convolution",
               "aten::_convolution", "aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::convolution_backward"}
_EXTERN_PREFIXES = ("aten::mkldnn", "aten::cudnn", "mkldnn::", "onednn::", "aten::_scaled_dot_product_",
                    "aten::_flash_attention", "aten::_efficient_attention")
_EXTERN_MARKS = ("gemm", "cublas", "cutlass", "cudnn", "xmma", "nvjet", "mkldnn", "onednn", "mkl_", "conv", "flash",
                 "fmha", "matmul")
_COPY_OPS = {"aten::copy_", "aten::to", "aten::_to_copy", "aten::contiguous", "aten::clone", "aten::_copy_from",
             "aten::_copy_from_and_resize"}
_COPY_MARKS = ("memcpy", "memset", "copy")
_GENERATED_PREFIXES = ("triton_", "cpp_fused_", "kernel_cpp_", "cpp_kernel")
# On CPU without Inductor's kernel profiling, a compiled graph's C++ kernels run inside this record_function:
# its self time is the generated code (plus a thin Python wrapper).
_CPU_GRAPH_CALL = "## call compiledfxgraph"
_OP_NAME = re.compile(r"^[a-z_][a-z0-9_]*::[a-z0-9_.]+$")
_NOT_OPS = ("autograd::", "profiler::", "cuda::", "c10d::")


def target_for(target: float, environ: Mapping[str, str] | None = None) -> float:
    """The speedup below which a model is analysed: the manifest's target unless the environment overrides it."""
    override = (os.environ if environ is None else environ).get(TARGET_ENV, "").strip()
    if not override:
        return target
    try:
        value = float(override)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise ValueError(f"{TARGET_ENV}={override!r} is not a speedup > 0 (e.g. 100 analyses every model)")
    return value


def classify(name: str, on_device: bool) -> str | None:
    """The category of a profiled op or kernel; None for host-side wrappers (their time counts as gap)."""
    low = name.lower()
    if low.startswith(_GENERATED_PREFIXES) or (not on_device and low.startswith(_CPU_GRAPH_CALL)):
        return "generated"
    if on_device:  # every device kernel is busy time
        if any(mark in low for mark in _EXTERN_MARKS):
            return "extern"
        return "copy" if any(mark in low for mark in _COPY_MARKS) else "fallback"
    if not _OP_NAME.match(low) or low.startswith(_NOT_OPS):
        return None
    if low in _EXTERN_OPS or low.startswith(_EXTERN_PREFIXES):
        return "extern"
    return "copy" if low in _COPY_OPS else "fallback"


def summarise(events: Iterable[tuple[str, float]], total_s: float, on_device: bool) -> pb.ProfiledRun:
    """(name, busy seconds) events of one iteration -> its time split and top kernels."""
    by_name: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0])
    for name, seconds in events:
        if seconds > 0 and classify(name, on_device) is not None:
            by_name[name][0] += seconds
            by_name[name][1] += 1
    run = pb.ProfiledRun()
    split = run.split
    split.total_s = total_s
    for name, (seconds, _) in by_name.items():
        field = f"{classify(name, on_device)}_s"
        setattr(split, field, getattr(split, field) + seconds)
    busy = sum(getattr(split, f"{c}_s") for c in CATEGORIES)
    split.gap_s = max(0.0, total_s - busy)
    for name, (seconds, calls) in sorted(by_name.items(), key=lambda item: (-item[1][0], item[0]))[:TOP_N]:
        run.top.add(name=name, category=classify(name, on_device) or "", time_s=seconds, calls=int(calls),
                    share=seconds / total_s if total_s > 0 else 0.0)
    return run


def _activities(device_type: str) -> list[Any]:
    from torch.profiler import ProfilerActivity

    wanted = [ProfilerActivity.CPU]
    if device_type == "cuda":
        wanted.append(ProfilerActivity.CUDA)
    elif device_type != "cpu" and hasattr(ProfilerActivity, "PrivateUse1"):
        wanted.append(ProfilerActivity.PrivateUse1)
    supported = torch.profiler.supported_activities()
    return [activity for activity in wanted if activity in supported]


def profile_iteration(fn: Callable[..., Any], model: torch.nn.Module, inputs: Any, device: Any,
                      trace: Path | None) -> tuple[pb.ProfiledRun, str]:
    """Profiles one call of `fn` (already warm); returns its summary and how busy time was measured."""
    from torch.autograd import DeviceType

    device.synchronize()
    with torch.profiler.profile(activities=_activities(device.type)) as prof:
        start = time.perf_counter()
        fn(model, inputs, collect_outputs=False)
        device.synchronize()
        total_s = time.perf_counter() - start
    events = list(prof.events())
    device_events = [e for e in events if e.device_type != DeviceType.CPU and not e.is_async]
    if device_events:  # kernel durations on the device's own timeline
        busy = [(e.name, e.time_range.elapsed_us() / 1e6) for e in device_events]
        measure = f"{device.type} kernel time"
    else:
        busy = [(e.name, e.self_cpu_time_total / 1e6) for e in events if e.device_type == DeviceType.CPU]
        measure = "self CPU time"
    run = summarise(busy, total_s, on_device=bool(device_events))
    if trace is not None:
        trace.parent.mkdir(parents=True, exist_ok=True)
        prof.export_chrome_trace(str(trace))  # a ".gz" name is written gzipped
        run.trace = trace.name
    return run, measure


def record_eager_idle_share(timing: pb.Timing, device: Any, iteration: Callable[[], Any]) -> None:
    """How host-bound the eager side is: 1 - (union of the device's kernel intervals in one profiled eager
    iteration) / (the median unprofiled eager sample). The profiler slows the host, not the kernels, so the busy
    time is the device's own and the wall time is the timed one. Never raises: what failed goes into the method."""
    if device.type == "cpu":
        return  # the device is the host: there is no idle device to measure
    try:
        from torch.autograd import DeviceType

        device.synchronize()
        with torch.profiler.profile(activities=_activities(device.type)) as prof:
            iteration()
            device.synchronize()
        spans = sorted((e.time_range.start, e.time_range.end) for e in prof.events()
                       if e.device_type != DeviceType.CPU and not e.is_async)
    except Exception as exc:  # noqa: BLE001 (a profiler failure must not fail the model)
        timing.idle_share_method = f"not measured: the profiler failed ({type(exc).__name__}: {exc})"[:300]
        return
    if not spans:
        timing.idle_share_method = f"not measured: the profiler saw no {device.type} kernels"
        return
    busy_us, end = 0.0, float("-inf")
    for start, stop in spans:  # union of intervals: kernels on several streams overlap
        busy_us += max(0.0, stop - max(start, end))
        end = max(end, stop)
    wall_s = timing.eager_median_s.point
    timing.eager_device_idle_share = min(1.0, max(0.0, 1.0 - busy_us / 1e6 / wall_s)) if wall_s > 0 else 0.0
    timing.idle_share_method = (f"1 - union of {device.type} kernel time in one profiled eager iteration / median "
                                "eager sample")


def analyse(result: pb.ModelResult, identity: tuple[str, str, str, str, str], trigger: str, device_graphs: bool,
            runs: Callable[[str, Path | None], tuple[pb.ProfiledRun, str]], trace_prefix: Path | None) -> None:
    """Fills result.bottleneck; never raises (a profiler failure is recorded, the model's status stays).

    `identity` is (suite, model, mode, backend, device); `runs(which, trace_path)` profiles "eager" or "compiled".
    """
    analysis = result.bottleneck
    analysis.Clear()
    analysis.trigger, analysis.device_graphs = trigger, device_graphs
    try:
        for which in ("eager", "compiled"):
            trace = trace_prefix.with_name(f"{trace_prefix.name}.{which}.trace.json.gz") if trace_prefix else None
            run, analysis.busy_time = runs(which, trace)
            getattr(analysis, which).CopyFrom(run)
        category, ops, cause = explain(result, identity[4])
    except Exception as exc:  # noqa: BLE001 (analysis is diagnostics: it must never change the outcome)
        analysis.error = f"{type(exc).__name__}: {exc}"[:2000]
        category, ops, cause = "error", [], f"profiling failed: {analysis.error}"
    analysis.cause_category, analysis.cause = category, cause
    analysis.cause_ops[:] = ops
    analysis.signature = signature(*identity, category, ops)


def explain(result: pb.ModelResult, device: str) -> tuple[str, list[str], str]:
    """(cause category, the ops it names, one line) from the compiled iteration's figures on `device`."""
    analysis = result.bottleneck
    split, top = analysis.compiled.split, analysis.compiled.top
    total = split.total_s or 1.0
    shares = {c: getattr(split, f"{c}_s") / total for c in (*CATEGORIES, "gap")}
    category = max(shares, key=lambda c: (shares[c], c))
    names = [k.name for k in top if k.category == category]
    pct = f"{shares[category]:.0%}"
    if category == "fallback":
        return _fallback_cause(result, shares["fallback"], names)
    if category == "extern":
        line = f"extern kernels (matmul/conv/attention) take {pct} of compiled time: little for Inductor to fuse"
        return category, names[:3], line
    if category == "copy":
        return category, names[:3], f"copies take {pct} of compiled time: {_listed(names)}"
    if category == "generated":
        largest = next((k for k in top if k.category == "generated"), None)
        detail = f", largest {largest.name} ({largest.share:.0%})" if largest else ""
        eager_busy = sum(getattr(analysis.eager.split, f"{c}_s") for c in CATEGORIES)
        return category, names[:1], (f"generated kernels take {pct} of compiled time ({split.generated_s * 1e3:.3g} ms "
                                     f"vs {eager_busy * 1e3:.3g} ms busy in eager){detail}")
    extras = [f"{n} {what}" for n, what in ((result.dynamo.graph_breaks, "graph breaks"),
                                           (result.dynamo.recompiles, "recompiles")) if n]
    if device != "cpu" and not analysis.device_graphs:
        extras.append("no device graphs")
    line = f"compiled time dominated by launch gaps ({pct})"
    return category, [], line + (f": {', '.join(extras)}" if extras else "")


def _fallback_cause(result: pb.ModelResult, share: float, names: list[str]) -> tuple[str, list[str], str]:
    """Names Inductor's recorded fallbacks when they hold most of the ATen time, else the ATen ops themselves."""
    compiled = result.bottleneck.compiled
    time_of = {k.name: k.time_s for k in compiled.top}
    recorded = [(time_of.get(_profiler_name(f.op), 0.0), f.op) for f in result.fallback_ops]
    recorded = sorted((item for item in recorded if item[0] > 0), key=lambda item: (-item[0], item[1]))
    recorded_s = sum(seconds for seconds, _ in recorded)
    if recorded and recorded_s >= compiled.split.fallback_s / 2:
        ops = [op for _, op in recorded]
        recorded_share = recorded_s / (compiled.split.total_s or 1.0)
        plural = "s" if len(ops) > 1 else ""
        line = f"{recorded_share:.0%} of compiled time in {len(ops)} fallback op{plural}: {_listed(ops)}"
        return "fallback", ops[:3], line
    nothing = "; nothing generated" if compiled.split.generated_s == 0 else ""
    line = f"{share:.0%} of compiled time in ATen ops outside generated kernels{nothing}: {_listed(names)}"
    return "fallback", names[:3], line


def _profiler_name(op: str) -> str:
    """"aten.gelu.default" (an overload, as fallback_ops records it) -> "aten::gelu" (as the profiler names it)."""
    namespace, _, rest = op.partition(".")
    return f"{namespace}::{rest.partition('.')[0]}"


def _listed(names: list[str]) -> str:
    return ", ".join(names[:3]) + (", ..." if len(names) > 3 else "") if names else "(none in the top kernels)"


def signature(suite: str, model: str, mode: str, backend: str, device: str, category: str, ops: Iterable[str]) -> str:
    """Stable name of one bottleneck: identity, cause category and the ops it names (sorted), never figures."""
    return f"bottleneck/v1:{suite}/{model}:{mode}:{backend}:{device}:{category}:{','.join(sorted(ops))}"


def problem_signature(result: pb.ModelResult) -> str:
    """The tracked-problem key of a stored result; "" when it has no analysis."""
    if not result.HasField("bottleneck"):
        return ""
    config, analysis = result.config, result.bottleneck
    return signature(config.suite, config.model, MODE_NAMES.get(config.mode, ""), config.backend, config.device,
                     analysis.cause_category, analysis.cause_ops)


# -- CLI ------------------------------------------------------------------------------------------------------
def format_analysis(result: pb.ModelResult) -> str:
    """The analysis as a table, with the cause line last."""
    config, analysis = result.config, result.bottleneck
    lines = [f"{config.suite}/{config.model} {MODE_NAMES.get(config.mode, '')} {config.backend} {config.device}: "
             f"speedup {result.performance.speedup:.3f}"]
    if not result.HasField("bottleneck"):
        return "\n".join(lines + ["no bottleneck analysis (speedup at or above target, or not measured)"])
    lines.append(f"trigger: {analysis.trigger}; busy time: {analysis.busy_time or '-'}; "
                 f"device graphs: {'yes' if analysis.device_graphs else 'no'}")
    if not analysis.error:
        lines.append(f"{'':10}" + "".join(f"{c:>16}" for c in ("total", *CATEGORIES, "gap")))
        for which in ("eager", "compiled"):
            split = getattr(analysis, which).split
            total = split.total_s or 1.0
            cells = [f"{split.total_s * 1e3:>13.3f} ms"]
            cells += [f"{getattr(split, f'{c}_s') * 1e3:>8.3f} ms {getattr(split, f'{c}_s') / total:>3.0%}"
                      for c in (*CATEGORIES, "gap")]
            lines.append(f"{which:10}" + "".join(f"{cell:>16}" for cell in cells))
        for which in ("eager", "compiled"):
            run = getattr(analysis, which)
            lines.append(f"top {which} kernels{f' (trace {run.trace})' if run.trace else ''}:")
            lines += [f"  {k.share:>4.0%} {k.time_s * 1e3:>9.3f} ms {k.calls:>5}x  {k.category:<9} {k.name}"
                      for k in run.top[:5]]
    dynamo = result.dynamo
    lines.append(f"graphs {dynamo.unique_graphs}, graph breaks {dynamo.graph_breaks}, recompiles {dynamo.recompiles}; "
                 f"fallback ops: {', '.join(f'{f.op} x{f.count}' for f in result.fallback_ops) or 'none'}")
    lines.append(f"cause: {analysis.cause}")
    lines.append(f"signature: {analysis.signature}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from suites.common.result_io import ResultFileError, read_result

    parser = argparse.ArgumentParser(description="Prints the bottleneck analysis of result files.")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("show", help="print the analysis of each result file")
    show.add_argument("results", nargs="+", type=Path, help=".pb or .txtpb result files")
    args = parser.parse_args(argv)
    status = 0
    for path in args.results:
        try:
            print(format_analysis(read_result(path)))
        except ResultFileError as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
