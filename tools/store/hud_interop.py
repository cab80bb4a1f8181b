"""Interoperability with the community's dashboard data.

Export: our results as rows of the HUD v3 benchmark schema (benchmark.oss_ci_benchmark_v3), one row per
metric, as upstream's harness writes them: the accuracy status (a string) goes into
metric.extra_info.benchmark_values of an "_accuracy" output; numeric metrics come from a
"_performance" output, because the HUD keeps perf metrics only from outputs without "_accuracy".
Import: upstream's benchmarks/dynamo CSV files (accuracy and performance) as ModelResult messages,
so a community run (e.g. H100) can be stored as a baseline beside ours.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any

from parity.v1 import results_pb2 as pb
from tools.store.db import DTYPE_NAMES, dtype_name, mode_name

# Our HUD compiler name -> the raw output prefix the HUD derives it from.
RAW_BACKEND = {"cudagraphs": "inductor_with_cudagraphs", "default": "inductor_no_cudagraphs", "eager": "inductor_eager",
               "aot_eager": "aot_eager"}
SUITE_ORIGIN = {"timm": "timm_models", "huggingface": "huggingface", "torchbench": "torchbench"}
# Upstream's output file name: <prefix>_<suite>_<dtype>_<mode>_<device>_<accuracy|performance>.csv
_FILE_NAME = re.compile(r"^(?P<prefix>.+)_(?P<suite>torchbench|huggingface|timm_models)_(?P<dtype>amp|bfloat16|float16|"
                        r"float32)_(?P<mode>training|inference)_(?P<device>.+)_(?P<target>accuracy|performance)\.(?P<format>csv|json)$")


class InteropError(ValueError):
    """A community file that cannot be read as upstream writes it."""


def output_name(result: pb.ModelResult, target: str) -> str:
    c = result.config
    device = c.device + (f"_{_arch_tag(result.provenance.device_name)}" if result.provenance.device_name else "")
    raw = RAW_BACKEND.get(c.hud_compiler, c.hud_compiler)
    return f"{raw}_{SUITE_ORIGIN.get(c.suite, c.suite)}_{dtype_name(c.precision)}_{mode_name(c.mode)}_{device}_{target}.csv"


def to_hud_rows(result: pb.ModelResult, repo: str = "", head_branch: str = "") -> list[dict[str, Any]]:
    """The HUD v3 rows of one result: accuracy first, then the performance metrics; none for a model a stopped run
    never finished (upstream writes no row for it)."""
    if result.community_status == "stopped":
        return []
    c, p = result.config, result.provenance
    common = {
        "timestamp": p.start_time.seconds,
        "schema_version": "v3",
        "name": "TorchInductor",
        "repo": repo,
        "head_branch": head_branch,
        "head_sha": p.commit,
        "runners": [{"name": c.device, "type": p.device_name, "gpu_info": p.device_name}],
        "model": {"name": c.model, "type": "OSS model", "backend": RAW_BACKEND.get(c.hud_compiler, c.hud_compiler),
                  "origins": [SUITE_ORIGIN.get(c.suite, c.suite)]},
        "dependencies": {"torch": p.torch_version, "triton": p.triton_version, "torch_npu": p.torch_npu_version},
    }

    def row(target: str, metric: dict[str, Any]) -> dict[str, Any]:
        batch_size = (c.accuracy_batch_size or c.batch_size) if target == "accuracy" else c.batch_size
        benchmark = {"name": "TorchInductor", "mode": mode_name(c.mode), "dtype": dtype_name(c.precision),
                     "extra_info": {"device": c.device, "arch": p.device_arch, "batch_size": str(batch_size),
                                    "output": output_name(result, target)}}
        return {**common, "benchmark": benchmark, "metric": metric}

    # A performance-only run checked no accuracy: like upstream's performance run it writes no accuracy row, and
    # a failure is a performance row of zeros.
    rows = [] if c.performance_only else [row("accuracy", {"name": "accuracy", "benchmark_values": [],
                                                           "extra_info": {"benchmark_values": [result.community_status]}})]
    if result.performance.measured or c.performance_only:
        mem, perf = result.memory, result.performance
        for name, value in (("speedup", perf.speedup), ("abs_latency", perf.abs_latency_ms),
                            ("compilation_latency", result.compile_time.compilation_latency_s),
                            ("compression_ratio", mem.compression_ratio), ("eager_peak_mem", mem.eager_peak_gb),
                            ("dynamo_peak_mem", mem.compiled_peak_gb)):
            extra = _interval_info(perf.timing) if name == "speedup" else {}
            # JSON has no Infinity or NaN; a figure that is not finite (a store from before validation) reads as 0,
            # the HUD's "not measured".
            finite = round(value, 6) if math.isfinite(value) else 0.0
            rows.append(row("performance", {"name": name, "benchmark_values": [finite], "extra_info": extra}))
        # Every sample, in rows of their own: the HUD reads none of these names, a reader of the rows gets the samples.
        for name, samples in ((EAGER_SAMPLES, perf.timing.eager_s), (COMPILED_SAMPLES, perf.timing.compiled_s)):
            in_ms = [s * 1000 for s in samples]
            if in_ms and all(math.isfinite(v) for v in in_ms):  # JSON has no Infinity (an older store's figures)
                rows.append(row("performance", {"name": name, "benchmark_values": in_ms,
                                                "extra_info": {"interleaved": "true"}}))
    return rows


EAGER_SAMPLES, COMPILED_SAMPLES = "eager_latency_samples_ms", "compiled_latency_samples_ms"
_INTERVAL_KEYS = ("point", "low", "high")


def _interval_info(timing: pb.Timing) -> dict[str, str]:
    """The speedup's interval as the HUD's string-valued extra_info; empty without samples."""
    if not timing.eager_s:
        return {}
    return {**{f"interval_{k}": repr(getattr(timing.speedup, k)) for k in _INTERVAL_KEYS},
            "confidence": repr(timing.confidence), "interval_method": timing.method}


def import_community_csvs(paths: list[Path], run_id: str, device_name: str) -> list[pb.ModelResult]:
    """Reads upstream accuracy/performance outputs (CSV, or the JSON lines written beside them) into one
    ModelResult per (file set, model)."""
    merged: dict[tuple[str, ...], pb.ModelResult] = {}
    for path in paths:
        match = _FILE_NAME.match(path.name)
        if not match:
            raise InteropError(f"{path.name}: not an upstream benchmark output name "
                               "(<prefix>_<suite>_<dtype>_<mode>_<device>_<accuracy|performance>.csv or .json)")
        f = match.groupdict()
        rows, fieldnames = _read_json_rows(path) if f["format"] == "json" else _read_csv_rows(path)
        header = set(fieldnames)
        # Upstream's failure rows fill only dev,name,batch_size and zero speed-up and latency.
        required = {"name", "accuracy"} if f["target"] == "accuracy" else {"name", "speedup"}
        if required - header:
            raise InteropError(f"{path}: missing column(s) {sorted(required - header)} (header: "
                               f"{','.join(fieldnames) or 'empty file'}); is this an upstream "
                               f"{f['target']} CSV?")
        for number, row in enumerate(rows, 2):
            missing = required - {k for k, v in row.items() if v}
            if missing:
                raise InteropError(f"{path}:{number}: missing value(s) for {sorted(missing)}")
            key = (f["prefix"], f["suite"], f["dtype"], f["mode"], f["device"], row["name"])
            result = merged.setdefault(key, _baseline_result(key, run_id, device_name))
            if f["target"] == "accuracy":
                result.community_status = row["accuracy"]
                result.config.accuracy_batch_size = int(_number(row, "batch_size"))  # statuses compare at one size
            else:
                _fill_performance(result, row)
    for result in merged.values():
        if not result.community_status:  # a performance row without its accuracy row
            result.community_status = "pass" if result.performance.speedup > 0 else "fail_to_run"
            result.config.performance_only = True
    return list(merged.values())


def _read_csv_rows(path: Path) -> tuple[list[dict[str, str]], list[str]]:
    try:
        with open(path, newline="") as handle:
            reader = csv.DictReader(handle)
            return list(reader), list(reader.fieldnames or ())
    except (OSError, csv.Error, UnicodeDecodeError) as exc:
        raise InteropError(f"{path}: unreadable ({exc})") from exc


def _read_json_rows(path: Path) -> tuple[list[dict[str, str]], list[str]]:
    """Upstream's JSON output: one line per (model, CSV column); the accuracy string sits in
    metric.extra_info.benchmark_values, numbers in metric.benchmark_values. Rebuilt as CSV-like rows."""
    rows: dict[str, dict[str, str]] = {}
    columns = ["name"]
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InteropError(f"{path}: unreadable ({exc})") from exc
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            model, metric = record["model"]["name"], record["metric"]
            name = metric["name"]
            values = metric.get("benchmark_values") or (metric.get("extra_info") or {}).get("benchmark_values") or [""]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InteropError(f"{path}:{number}: not an upstream benchmark JSON record ({exc!r})") from exc
        if name not in columns:
            columns.append(name)
        row = rows.setdefault(model, {"name": model})
        row[name] = json.dumps(values) if name in (EAGER_SAMPLES, COMPILED_SAMPLES) else str(values[0])
        row.update({f"speedup_{k}": str(v) for k, v in (metric.get("extra_info") or {}).items()
                    if name == "speedup" and (k.startswith("interval_") or k == "confidence")})
        batch_size = ((record.get("benchmark") or {}).get("extra_info") or {}).get("batch_size")
        if batch_size is not None:
            rows[model]["batch_size"] = str(batch_size)
    return list(rows.values()), columns


def _baseline_result(key: tuple[str, ...], run_id: str, device_name: str) -> pb.ModelResult:
    prefix, suite_origin, dtype, mode, device, model = key
    suite = {v: k for k, v in SUITE_ORIGIN.items()}[suite_origin]
    hud = {v: k for k, v in RAW_BACKEND.items()}.get(prefix, prefix)
    result = pb.ModelResult(run_id=run_id)
    result.result_id = hashlib.sha256("|".join((run_id, *key)).encode()).hexdigest()[:32]
    result.config.CopyFrom(pb.RunConfig(
        suite=suite, model=model, mode=pb.MODE_TRAINING if mode == "training" else pb.MODE_INFERENCE,
        precision={v: k for k, v in DTYPE_NAMES.items()}[dtype], backend=prefix, hud_compiler=hud,
        device=device.split("_")[0]))
    result.provenance.device_type = device.split("_")[0]
    result.provenance.device_name = device_name
    return result


def _number(row: dict[str, str], column: str) -> float:
    try:
        return float(row.get(column) or 0.0)
    except ValueError as exc:
        raise InteropError(f"column {column} of {row.get('name')}: {row.get(column)!r} is not a number") from exc


def _fill_performance(result: pb.ModelResult, row: dict[str, str]) -> None:
    result.config.batch_size = int(_number(row, "batch_size"))
    result.performance.measured = _number(row, "speedup") > 0
    result.performance.speedup = _number(row, "speedup")
    result.performance.abs_latency_ms = _number(row, "abs_latency")
    result.compile_time.compilation_latency_s = _number(row, "compilation_latency")
    result.compile_time.cold_start = True
    result.memory.compression_ratio = _number(row, "compression_ratio")
    result.memory.eager_peak_gb = _number(row, "eager_peak_mem")
    result.memory.compiled_peak_gb = _number(row, "dynamo_peak_mem")
    result.dynamo.graph_breaks = int(_number(row, "graph_breaks"))
    _fill_timing(result.performance.timing, row)


def _fill_timing(timing: pb.Timing, row: dict[str, str]) -> None:
    """Samples and the speedup's interval, where the rows carry them (our own export does)."""
    try:
        eager, compiled = (json.loads(row.get(name) or "[]") for name in (EAGER_SAMPLES, COMPILED_SAMPLES))
        timing.eager_s[:] = [float(v) / 1000 for v in eager]
        timing.compiled_s[:] = [float(v) / 1000 for v in compiled]
    except (ValueError, TypeError) as exc:
        raise InteropError(f"{row.get('name')}: latency samples are not a list of numbers ({exc})") from exc
    if len(timing.eager_s) != len(timing.compiled_s):
        raise InteropError(f"{row.get('name')}: {len(timing.eager_s)} eager but {len(timing.compiled_s)} compiled "
                           "samples; they come in pairs")
    for key in _INTERVAL_KEYS:
        setattr(timing.speedup, key, _number(row, f"speedup_interval_{key}"))
    timing.confidence = _number(row, "speedup_confidence")
    timing.method = row.get("speedup_interval_method", "")


def _arch_tag(device_name: str) -> str:
    """"NVIDIA H200" -> "h200", as upstream's output names (cuda_h100, cuda_a10g)."""
    words = [w for w in re.split(r"[^A-Za-z0-9]+", device_name.lower()) if w and w not in ("nvidia", "tesla")]
    return words[0] if words else ""
