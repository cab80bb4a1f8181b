"""The dashboard's pages as HTML, rendered on the server from the store (read-only).

The Python side computes each page's data (queries, verdicts, chart configurations); Jinja2 templates in
templates/ render it, with autoescape on, so every stored name is escaped on its way into the page.
Every page takes the same filters; numbers carry data-* attributes so tests can read them back.
Charts are Chart.js configurations embedded as JSON; static/dashboard.js draws them.
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from parity.v1 import opinfo_pb2
from parity.v1 import results_pb2 as pb
from tools.dashboard import queries
from tools.dashboard.filters import FILTER_COLUMNS, FILTER_LABELS, Filters
from tools.dashboard.signatures import is_compiled_side, is_failure, phase_name, risks, signature
from tools.store.hud import (COMPRESSION_THRESHOLD, GEOMEAN_THRESHOLD, PASS_RATE_THRESHOLD, SummaryRow, change,
                             passes)
from tools.store.db import Database, dtype_name, enum_name, mode_name, plan_progress, tracked_problems
from tools.store.failures import FAILING_CASE_OUTCOMES, opinfo_as_model_result
from tools.store.triages import StoredTriage
from tools.store.verdicts import (HOST_BOUND_IDLE_SHARE, KINDS, Figure, Verdict, change_points, compare_runs,
                                  history_of, key_of, noise_band)

COMPILE_PHASES = (("dynamo_s", "Dynamo"), ("aot_autograd_s", "AOTAutograd"), ("inductor_s", "Inductor lowering"),
                  ("codegen_s", "codegen"), ("triton_compile_s", "Triton compile"), ("autotune_s", "autotune"))
# How PyTorch's cumulative timers nest (suites/common/compile_stats.py reads them): a phase's field -> the phases
# timed inside it. Triton compilation and autotuning happen while Inductor compiles, beside codegen.
COMPILE_NESTING: dict[str, tuple[str, ...]] = {
    "dynamo_s": ("aot_autograd_s",),
    "aot_autograd_s": ("inductor_s",),
    "inductor_s": ("codegen_s", "triton_compile_s", "autotune_s"),
}
OTHER_PHASE = "other"
OUTCOME_COLOURS = {"pass": "#59a14f", "fail": "#e15759", "xfail": "#f28e2b", "skip": "#bab0ac"}
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f")

TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).resolve().parent / "templates"),
    autoescape=True,  # every value is escaped unless marked safe: only chart payloads are (see chart())
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def render_template(name: str, **values: Any) -> Markup:
    """A template rendered with autoescape: the result is HTML, safe to place in another template."""
    return Markup(TEMPLATES.get_template(name).render(**values))


@dataclass(frozen=True)
class Context:
    db: Database
    filters: Filters
    options: dict[str, list[str]]
    link: Callable[[str, dict[str, str]], str]  # (page, query parameters) -> href
    static_prefix: str                           # where dashboard.js, dashboard.css and chart.umd.js are
    static_export: bool                          # no server behind the page: the filter form is inert
    default_run: str

    @property
    def run(self) -> str:
        return self.filters.get("run") or self.default_run

    def repro_href(self, triage_id: str) -> str:
        """Where a triage's repro script is: served at /repro/<id>.py, written beside the static pages."""
        return f"{'' if self.static_export else '/'}repro/{triage_id}.py"


@dataclass(frozen=True)
class Page:
    name: str
    title: str
    render: Callable[[Context], str]
    extra_params: tuple[str, ...] = ()  # beyond the filters, e.g. "base"


def fmt(value: float, digits: int = 2, suffix: str = "") -> str:
    return f"{value:.{digits}f}{suffix}" if value else "–"


def interval_text(timing: pb.Timing) -> str:
    """The speedup's interval, its sample count, and why it may be wide (a host-bound eager side)."""
    if not timing.eager_s:
        return "–"
    idle = timing.eager_device_idle_share
    host = f", host-bound eager (device idle {idle:.0%})" if timing.idle_share_method.startswith("1 -") and \
        idle > HOST_BOUND_IDLE_SHARE else ""
    return f"{timing.speedup.low:.3f}–{timing.speedup.high:.3f} ({len(timing.eager_s)} pairs{host})"


def device_label(result: pb.ModelResult) -> str:
    return result.provenance.device_name or result.config.device


def chart(chart_id: str, config: dict[str, Any], caption: str, height_px: int = 0) -> dict[str, Any]:
    """A Chart.js chart for the templates' chart macro; with a height, the chart fills it (long bar charts)."""
    options = config.setdefault("options", {})
    options["animation"] = False
    if height_px:
        options["maintainAspectRatio"] = False
    # "<" as \u003c: neither "</script>" nor "<!--" in a stored name can end or blank the script block.
    payload = json.dumps(_finite(config), allow_nan=False).replace("<", "\\u003c")
    # The one deliberate exception to autoescape: HTML-escaping JSON inside <script type="application/json">
    # would corrupt it (the browser does not unescape a script's text), and the replace above already keeps it
    # from closing the element.
    return {"id": chart_id, "payload": Markup(payload), "caption": caption, "height_px": height_px}


def _finite(value: Any) -> Any:
    """The chart data with inf and NaN as null (gaps): JSON has no Infinity, and the page must still draw."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


# ---------------------------------------------------------------- summary (the HUD's tables)

_METRICS = (  # (key, title, value of a row, format, threshold or None, higher is better)
    ("pass_rate", "Pass rate", lambda r: r.pass_rate,
     lambda r: f"{round(r.pass_rate * 100)}%, {r.passed}/{r.total}{' (accuracy only)' if r.accuracy_only else ''}"
               f"{' (ran; accuracy not checked)' if r.performance_only else ''}",
     PASS_RATE_THRESHOLD, True),
    ("geomean", "Geomean speedup", lambda r: r.geomean_speedup,
     lambda r: "not measured" if r.accuracy_only else f"{r.geomean_speedup:.2f}x",
     GEOMEAN_THRESHOLD, True),
    ("compile", "Mean compilation time (s)", lambda r: r.mean_compile_s, lambda r: f"{r.mean_compile_s:.2f}",
     None, False),
    ("compression", "Peak memory compression ratio", lambda r: r.mean_compression,
     lambda r: f"{r.mean_compression:.2f}x", COMPRESSION_THRESHOLD, True),
)


def render_summary(ctx: Context) -> str:
    run = ctx.run
    if not run:
        return render_template("summary.html", run=run)
    new_rows = queries.summary(ctx.db, run, ctx.filters)
    base = ctx.filters.base or queries.default_base(ctx.db, run, ctx.filters)
    base_rows = {r.key: r for r in queries.summary(ctx.db, base, ctx.filters)} if base else {}
    new_manifest = queries.manifest_versions(ctx.db, run)
    base_manifest = queries.manifest_versions(ctx.db, base) if base else ()
    comparable = not base or new_manifest == base_manifest
    suites = sorted({r.suite for r in new_rows})
    configs = sorted({(r.compiler, r.mode, r.dtype, r.device, r.device_name) for r in new_rows})
    by_cell = {(r.compiler, r.mode, r.dtype, r.device, r.device_name, r.suite): r for r in new_rows}
    metrics = []
    for key, title, value, show, threshold, higher in _METRICS:
        note = f" (threshold {threshold:.0%})" if key == "pass_rate" else (
            f" (threshold {threshold:.2f}x)" if threshold else "")
        rows = []
        for config in configs:
            cells: list[dict[str, Any] | None] = []
            for suite in suites:
                row = by_cell.get((*config, suite))
                if row is None:
                    cells.append(None)
                    continue
                base_row = base_rows.get(row.key)
                classes = []
                if threshold is not None and value(row) < threshold:
                    classes.append("below-threshold")
                if base_row is not None and comparable:
                    verdict = change(value(row), value(base_row), higher)
                    if verdict:
                        classes.append(verdict)
                cells.append({"classes": classes, "suite": suite, "compiler": row.compiler, "mode": row.mode,
                              "device": row.device_name or row.device, "value": f"{value(row):.6f}",
                              "passed": row.passed, "total": row.total, "show": show(row),
                              "base_show": show(base_row) if base_row is not None else None})
            compiler, mode, dtype, device, device_name = config
            rows.append({"compiler": compiler, "mode": mode, "dtype": dtype, "device": device_name or device,
                         "cells": cells})
        metrics.append({"key": key, "title": title, "note": note, "suites": suites, "rows": rows})
    return render_template("summary.html", run=run, base=base, new_manifest=new_manifest,
                           base_manifest=base_manifest, progress=plan_progress(ctx.db, run), comparable=comparable,
                           any_rows=bool(new_rows), metrics=metrics)


# ---------------------------------------------------------------- per-model table

MODEL_HEADERS = ("run", "model", "mode", "dtype", "backend", "device", "status", "expected", "speedup",
                 "speedup 95% interval", "latency ms", "compile s", "cold start", "compression", "eager GB",
                 "compiled GB", "graph breaks", "recompiles", "fallback ops", "risks", "bottleneck")


def render_models(ctx: Context) -> str:
    rows = []
    for item in queries.results(ctx.db, ctx.filters.with_values(run=ctx.run)):
        r = item.result
        c = r.config
        rows.append({
            "run": item.run_id, "model": c.model, "mode": mode_name(c.mode), "dtype": dtype_name(c.precision),
            "backend": c.backend, "device": device_label(r),
            "status_class": "fail" if is_failure(r) else ("skip" if r.community_status == "skipped" else "pass"),
            "status": r.community_status, "not_checked": c.performance_only,
            "expected": enum_name(pb.Status, r.expected_status, "STATUS_", unset="–"),
            "speedup": fmt(r.performance.speedup, 2, "x"), "interval": interval_text(r.performance.timing),
            "latency": fmt(r.performance.abs_latency_ms, 3), "compile": fmt(r.compile_time.compilation_latency_s),
            "cold_start": "yes" if r.compile_time.cold_start or c.cold_start else "no",
            "compression": fmt(r.memory.compression_ratio), "eager_gb": fmt(r.memory.eager_peak_gb, 3),
            "compiled_gb": fmt(r.memory.compiled_peak_gb, 3), "graph_breaks": r.dynamo.graph_breaks,
            "recompiles": r.dynamo.recompiles, "fallback_ops": sum(op.count or 1 for op in r.fallback_ops),
            "risks": "; ".join(risks(r)), "cause": r.bottleneck.cause})
    return render_template("models.html", run=ctx.run, headers=MODEL_HEADERS, rows=rows)


# ---------------------------------------------------------------- failures and risks

def _triage_view(ctx: Context, t: StoredTriage) -> dict[str, Any]:
    """What the failures page shows of a group's triage (tools/store/triages.py)."""
    r = t.record
    torch = f"; torch {r.provenance.torch_version}" if r.provenance.torch_version else ""
    return {"id": t.triage_id, "outcome": t.outcome, "culprit": t.culprit or "none named",
            "debug_info": r.debug_info, "reproduces": t.reproduces,
            "repro_href": ctx.repro_href(t.triage_id) if t.repro_name else "", "repro_name": t.repro_name,
            "repro_lines": r.repro_lines, "repro_nodes": r.repro_nodes, "output_tail": r.repro_output_tail,
            "error": r.error,
            "source": f"{t.configuration} ({r.community_status}) of run {r.run_id or '?'}: {r.wall_s:.0f} s of a "
                      f"{r.limit_s:.0f} s limit, {r.bisect_runs} bisector runs{torch}"}


def render_failures(ctx: Context) -> str:
    stored = queries.results(ctx.db, ctx.filters.with_values(run=ctx.run))
    groups: dict[str, list[queries.Stored]] = defaultdict(list)
    for item in stored:
        if is_failure(item.result):
            groups[signature(item.result).label].append(item)
    # The newest OpInfo run's failing cases too, read as model results (suite opinfo, model "<op> <dtype>"):
    # tools/triage takes them as it takes a model's, and their triages show here the same way.
    opinfo_run = queries.opinfo_run(ctx.db, "")
    for case in queries.opinfo_results(ctx.db, opinfo_run):
        if case.outcome in FAILING_CASE_OUTCOMES:
            view = opinfo_as_model_result(case)
            groups[signature(view).label].append(queries.Stored(opinfo_run, "parity", view))
    triaged = queries.triages_by_signature(ctx.db, groups)
    shown = []
    for label, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        rows = []
        for item in items:
            r = item.result
            exit_text = f"{r.failure.exit_code or ''}{' signal ' + str(r.failure.signal) if r.failure.signal else ''}"
            rows.append({"model": r.config.model, "mode": mode_name(r.config.mode), "backend": r.config.backend,
                         "device": device_label(r), "phase": phase_name(r) or "–", "exit": exit_text,
                         "log": r.failure.log_tail or r.accuracy.detail or r.failure.message or "(no log kept)"})
        triage = triaged.get(label)
        shown.append({"label": label, "rows": rows, "triage": _triage_view(ctx, triage) if triage else None,
                      "triageable": any(is_compiled_side(item.result) for item in items)})
    risky = [{"model": i.result.config.model, "backend": i.result.config.backend,
              "status": i.result.community_status, "risks": "; ".join(found)}
             for i, found in ((item, risks(item.result)) for item in stored) if found]
    return render_template("failures.html", run=ctx.run, opinfo_run=opinfo_run,
                           failure_count=sum(len(g) for g in groups.values()),
                           groups=shown, risky=risky, triaged_count=sum(bool(g["triage"]) for g in shown))


# ---------------------------------------------------------------- compile phases

def exclusive_phases(ct: pb.CompileTime) -> dict[str, float]:
    """Each phase's own time (COMPILE_PHASES' fields, plus "other"): PyTorch's timers are cumulative and nest
    (COMPILE_NESTING), so stacking them counts nested time several times over. A phase's exclusive time is its
    timer minus its direct children's, never below 0. A child is first capped at what its parent has left (a
    timer over its parent's, e.g. a backward graph compiled lazily outside Dynamo's frame, cannot be inside it), so
    the phases stack to at most dynamo_s. "other": the compilation latency that no timer covers, when positive."""
    capped: dict[str, float] = {}

    def cap(field: str, limit: float) -> None:
        capped[field] = min(max(getattr(ct, field), 0.0), limit) if math.isfinite(getattr(ct, field)) else 0.0
        left = capped[field]
        for child in COMPILE_NESTING.get(field, ()):
            cap(child, left)
            left = max(0.0, left - capped[child])

    cap("dynamo_s", math.inf)
    exclusive = {field: max(0.0, capped[field] - sum(capped[c] for c in COMPILE_NESTING.get(field, ())))
                 for field, _ in COMPILE_PHASES}
    stacked = sum(exclusive.values())
    latency = ct.compilation_latency_s if math.isfinite(ct.compilation_latency_s) else 0.0
    exclusive[OTHER_PHASE] = max(0.0, latency - stacked)
    return exclusive


def render_compile(ctx: Context) -> str:
    stored = [i for i in queries.results(ctx.db, ctx.filters.with_values(run=ctx.run))
              if i.result.compile_time.compilation_latency_s > 0 or i.result.compile_time.dynamo_s > 0]
    labels = [f"{i.result.config.model} ({mode_name(i.result.config.mode)}, "
              f"{i.result.config.backend})" for i in stored]
    exclusive = [exclusive_phases(i.result.compile_time) for i in stored]
    stacked = (*COMPILE_PHASES, (OTHER_PHASE, "other (not in a timer)"))
    datasets = [{"label": title, "backgroundColor": PALETTE[n % len(PALETTE)],
                 "data": [round(phases[field], 4) for phases in exclusive]}
                for n, (field, title) in enumerate(stacked)]
    config = {"type": "bar", "data": {"labels": labels, "datasets": datasets},
              "options": {"indexAxis": "y", "scales": {"x": {"stacked": True, "title": {"display": True,
                                                                                        "text": "seconds"}},
                                                       "y": {"stacked": True}}}}
    rows = []
    for i in stored:
        ct = i.result.compile_time
        rows.append({"model": i.result.config.model, "backend": i.result.config.backend,
                     "caches": "cold" if ct.cold_start else "warm", "latency": fmt(ct.compilation_latency_s),
                     "phases": [fmt(getattr(ct, field), 3) for field, _ in COMPILE_PHASES],
                     "fx_cache": f"{ct.fx_graph_cache_hits}/{ct.fx_graph_cache_misses}",
                     "aot_cache": f"{ct.aot_autograd_cache_hits}/{ct.aot_autograd_cache_misses}",
                     "raw": ", ".join(f"{k} {v:.3f}" for k, v in sorted(ct.raw_phases_s.items())) or "–"})
    headers = ["model", "backend", "caches", "compilation latency s", *(t + " s" for _, t in COMPILE_PHASES),
               "FX cache hit/miss", "AOT cache hit/miss", "timers"]
    return render_template("compile.html", headers=headers, rows=rows, phase_chart=chart(
        "compile-phases", config, "Compile time by phase (seconds, summed over frames; each phase without the "
        "phases nested in it), per model", height_px=max(240, 22 * len(labels) + 80)))


# ---------------------------------------------------------------- graph breaks and fallbacks

def render_breaks(ctx: Context) -> str:
    stored = queries.results(ctx.db, ctx.filters.with_values(run=ctx.run))
    reasons: dict[str, list[tuple[str, int]]] = defaultdict(list)
    fallbacks: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
    for i in stored:
        for br in i.result.dynamo.breaks:
            reasons[br.reason].append((i.result.config.model, br.count))
        for op in i.result.fallback_ops:
            fallbacks[op.op].append((i.result.config.model, op.count, op.reason))
    reason_rows = [{"reason": reason, "count": sum(c for _, c in uses),
                    "models": ", ".join(sorted({m for m, _ in uses}))}
                   for reason, uses in sorted(reasons.items(), key=lambda kv: -sum(c for _, c in kv[1]))]
    fallback_rows = [{"op": op, "count": sum(c for _, c, _ in uses),
                      "why": "; ".join(sorted({r for _, _, r in uses if r})),
                      "models": ", ".join(sorted({m for m, _, _ in uses}))}
                     for op, uses in sorted(fallbacks.items(), key=lambda kv: -sum(c for _, c, _ in kv[1]))]
    with_breaks = [i for i in stored if i.result.dynamo.graph_breaks or i.result.fallback_ops]
    config = {"type": "bar", "data": {
        "labels": [f"{i.result.config.model} ({i.result.config.backend})" for i in with_breaks],
        "datasets": [{"label": "graph breaks", "backgroundColor": PALETTE[2],
                      "data": [i.result.dynamo.graph_breaks for i in with_breaks]},
                     {"label": "fallback ops", "backgroundColor": PALETTE[0],
                      "data": [sum(op.count or 1 for op in i.result.fallback_ops) for i in with_breaks]}]}}
    return render_template("breaks.html", reasons=reason_rows, fallbacks=fallback_rows,
                           breaks_chart=chart("breaks", config, "Graph breaks and ATen fallback ops per model"))


# ---------------------------------------------------------------- history across commits and versions

def render_history(ctx: Context) -> str:
    runs = sorted(queries.runs(ctx.db), key=lambda r: (r.start_time, r.run_id))
    if ctx.filters.get("run"):
        runs = [r for r in runs if r.run_id == ctx.filters.get("run")]
    series: dict[tuple[str, ...], dict[str, SummaryRow]] = defaultdict(dict)
    rows = []
    for info in runs:
        for row in queries.summary(ctx.db, info.run_id, ctx.filters):
            series[(row.suite, row.compiler, row.mode, row.device_name or row.device)][info.run_id] = row
            rows.append({"run": info.run_id, "started": time.strftime("%Y-%m-%d %H:%M", time.gmtime(info.start_time)),
                         "commits": ", ".join(c[:10] for c in info.commits) or "–",
                         "torch": ", ".join(info.torch_versions) or "–",
                         "manifest": ", ".join(info.manifest_versions) or "–", "suite": row.suite,
                         "compiler": row.compiler, "mode": row.mode, "device": row.device_name or row.device,
                         "pass_rate": f"{round(row.pass_rate * 100)}%, {row.passed}/{row.total}",
                         "geomean": f"{row.geomean_speedup:.2f}x", "compile": f"{row.mean_compile_s:.2f}",
                         "compression": f"{row.mean_compression:.2f}x"})
    labels = [info.run_id for info in runs]

    def line(metric: Callable[[SummaryRow], float]) -> list[dict[str, Any]]:
        return [{"label": " / ".join(key), "borderColor": PALETTE[n % len(PALETTE)], "spanGaps": True,
                 "data": [round(metric(points[run]), 4) if run in points else None for run in labels]}
                for n, (key, points) in enumerate(sorted(series.items()))]

    return render_template(
        "history.html", rows=rows,
        geomean_chart=chart("history-geomean", {"type": "line", "data": {
            "labels": labels, "datasets": line(lambda r: r.geomean_speedup)}},
            "Geomean speedup per run (one line per suite / compiler / mode / device)"),
        passrate_chart=chart("history-passrate", {"type": "line", "data": {
            "labels": labels, "datasets": line(lambda r: r.pass_rate * 100)}}, "Pass rate (%) per run"))


# ---------------------------------------------------------------- verdicts (tools/store/verdicts.py)

VERDICT_RULE = ("Parity calls a regression or an improvement only when the two runs' speedup intervals (95% "
                "bootstrap over the timing samples) do not overlap, the change exceeds the model's noise band "
                "(3 robust deviations of its history since its last change point, at least 3%; the HUD's 5% until it has "
                "3 runs there) and the "
                "compiled latency moved the same way; a speedup that moved while the compiled latency did not is "
                "the eager side moving (eager_moved). Results without timing samples get \"unknown\". The HUD's 5% "
                "rule is shown beside it as the community-compatible column. The rule: tools/store/verdicts.py.")
VERDICT_HEADERS = ("model", "mode", "device", "HUD 5% rule (community-compatible)", "Parity verdict", "change (%)",
                   "noise band (%)", "base interval", "new interval", "host-bound", "evidence")


def _interval(figure: Figure | None) -> str:
    if figure is None:
        return "–"
    if not figure.has_interval:
        return f"{figure.speedup:.3f}x (no samples)"
    return f"{figure.point:.3f}x [{figure.low:.3f}, {figure.high:.3f}]"


def _host_bound(v: Verdict) -> bool:
    return any(f is not None and f.host_bound for f in (v.new, v.base))


def _verdict_row(v: Verdict) -> dict[str, Any]:
    _, model, mode, _, _, device, _ = v.key
    measured = v.new is not None and v.base is not None
    return {"model": model, "mode": mode, "device": device, "kind": v.kind, "hud": v.hud,
            "change": f"{v.change * 100:+.1f}" if measured else "–", "band": f"±{v.band * 100:.1f}" if v.band else "–",
            "base_interval": _interval(v.base), "new_interval": _interval(v.new),
            "host_bound": "yes" if _host_bound(v) else "no", "evidence": v.evidence}


def _run_start(db: Database, run_id: str) -> int:
    return next((r.start_time for r in queries.runs(db) if r.run_id == run_id), 0)


def _history_chart(db: Database, verdict: Verdict, until: int) -> dict[str, Any] | None:
    """The compared configuration's speedup per run up to `until`, its intervals, its current noise band and change
    points; a variant's own point (verdict.base_key set) is drawn after the base configuration's history. None when
    there is no measured speedup to draw."""
    key = verdict.base_key or verdict.key
    figures: dict[str, Figure] = {}
    for found in history_of(db, key, until):
        figures.setdefault(found.run_id, found)  # a run once: its first result, as compare_runs reads it
    if verdict.base_key and verdict.new is not None:
        figures.setdefault(verdict.new.run_id, verdict.new)
    history = list(figures.values())
    if not history:
        return None
    labels = [f.run_id for f in history]
    values = [f.point if f.has_interval else f.speedup for f in history]
    own = values[:-1] if verdict.base_key else values  # the band and change points are the base configuration's
    shifts = change_points(own)
    start = shifts[-1] if shifts else 0
    median = statistics.median(own[start:])  # the latest segment's level
    band, why = noise_band(own, shifts)

    def segment(level: float) -> list[float | None]:
        return [round(level, 4) if i >= start else None for i in range(len(values))]

    def line(label: str, data: list[float | None], colour: str, **extra: Any) -> dict[str, Any]:
        return {"label": label, "data": data, "borderColor": colour, "backgroundColor": colour, "fill": False,
                **extra}

    config = {"type": "line", "data": {"labels": labels, "datasets": [
        line("speedup", [round(v, 4) for v in values], PALETTE[0]),
        line("interval low", [round(f.low, 4) if f.has_interval else None for f in history], PALETTE[3],
             pointRadius=0, borderWidth=1),
        line("interval high", [round(f.high, 4) if f.has_interval else None for f in history], PALETTE[3],
             pointRadius=0, borderWidth=1),
        line("noise band low", segment(median / (1 + band)), PALETTE[8], borderDash=[6, 4], pointRadius=0),
        line("noise band high", segment(median * (1 + band)), PALETTE[8], borderDash=[6, 4], pointRadius=0)]},
        "options": {"scales": {"y": {"title": {"display": True, "text": "speedup over eager"}}}}}
    name = " / ".join(part for part in key if part)
    variant = f"; the last point is the variant {verdict.key[-1]}" if verdict.base_key else ""
    return {"chart": chart("verdict-history", config, f"Speedup per run of {name}, with its interval and the noise "
                                                      f"band around the latest segment's median ({why}){variant}"),
            "change_points": [{"run": labels[i], "before": f"{values[i - 1]:.3f}", "after": f"{values[i]:.3f}"}
                              for i in shifts]}


def render_verdicts(ctx: Context) -> str:
    run = ctx.run
    values: dict[str, Any] = {"rule": VERDICT_RULE, "run": run, "base": "", "rows": [], "counts": [],
                              "hud_flags": 0, "model": "", "configurations": 0, "history": None,
                              "headers": VERDICT_HEADERS}
    base = ctx.filters.base or queries.default_base(ctx.db, run, ctx.filters) if run else ""
    if run and base:
        # compare_runs takes run ids only: keep the keys the filters leave in the run, as the other pages' queries do.
        shown = {key_of(item.result) for item in queries.results(ctx.db, ctx.filters.with_values(run=run))}
        found = sorted((v for v in compare_runs(ctx.db, run, base) if v.key in shown),
                       key=lambda v: (KINDS.index(v.kind), v.key))
        model = ctx.filters.get("model")
        values.update(base=base, rows=[_verdict_row(v) for v in found],
                      counts=[(kind, sum(v.kind == kind for v in found)) for kind in KINDS],
                      hud_flags=sum(bool(v.hud) for v in found), model=model if found else "",
                      configurations=len(found))
        if model and found:  # the filters leave this model's configurations; the first is charted
            values["history"] = _history_chart(ctx.db, min(found, key=lambda v: v.key), _run_start(ctx.db, run))
    return render_template("verdicts.html", **values)


# ---------------------------------------------------------------- baseline vs device

def render_compare(ctx: Context) -> str:
    run = ctx.run
    base = ctx.filters.base or queries.default_baseline(ctx.db, run)
    if not run or not base:
        return render_template("compare.html", run=run, base=base)
    new_items = queries.results(ctx.db, ctx.filters.with_values(run=run))
    # The baseline is another device's run, with upstream's backend names and its own versions: only the filters
    # that pick models apply to it; each row is paired by the HUD's compiler name below.
    base_items = queries.results(ctx.db, ctx.filters.with_values(run=base, backend="", device="", torch="",
                                                                   manifest=""))
    base_by_key: dict[tuple[str, str, int], list[pb.ModelResult]] = defaultdict(list)
    for item in base_items:
        c = item.result.config
        base_by_key[(c.suite, c.model, c.mode)].append(item.result)
    base_device = ", ".join(sorted({device_label(i.result) for i in base_items})) or "–"
    new_device = ", ".join(sorted({device_label(i.result) for i in new_items})) or "–"

    def side(r: pb.ModelResult | None, note: str = "") -> dict[str, Any] | None:
        if r is None:
            return None
        return {"ok": passes(r.config.hud_compiler, r.community_status, r.performance.speedup),
                "status": r.community_status, "note": note, "backend": r.config.backend,
                "speedup": fmt(r.performance.speedup, 2, "x"), "compile": fmt(r.compile_time.compilation_latency_s),
                "compression": fmt(r.memory.compression_ratio)}

    rows, labels, base_speedups, new_speedups = [], [], [], []
    checked_apart = 0  # statuses from accuracy checks at different batch sizes: not like for like
    for item in new_items:
        c = item.result.config
        candidates = base_by_key.get((c.suite, c.model, c.mode), [])
        match = next((b for b in candidates if b.config.hud_compiler == c.hud_compiler), None) or (
            candidates[0] if candidates else None)
        mode = mode_name(c.mode)
        base_size = match.config.accuracy_batch_size if match is not None else 0
        apart = base_size > 0 and c.accuracy_batch_size > 0 and base_size != c.accuracy_batch_size
        checked_apart += apart
        note = f"checked at batch {c.accuracy_batch_size}, baseline at {base_size}" if apart else ""
        rows.append({"model": c.model, "mode": mode, "base": side(match), "new": side(item.result, note)})
        if match is not None:
            labels.append(f"{c.model} ({mode}, {c.backend})")
            base_speedups.append(round(match.performance.speedup, 4))
            new_speedups.append(round(item.result.performance.speedup, 4))
    summaries = [{"device": device, "run": run_id, "rows": [
        {"suite": r.suite, "compiler": r.compiler, "mode": r.mode, "dtype": r.dtype,
         "pass_rate": f"{round(r.pass_rate * 100)}%, {r.passed}/{r.total}", "geomean": f"{r.geomean_speedup:.2f}x",
         "compile": f"{r.mean_compile_s:.2f}", "compression": f"{r.mean_compression:.2f}x"}
        for r in queries.summary(ctx.db, run_id, ctx.filters)]}
        for run_id, device in ((base, base_device), (run, new_device))]
    config = {"type": "bar", "data": {"labels": labels, "datasets": [
        {"label": f"{base_device} ({base})", "backgroundColor": PALETTE[0], "data": base_speedups},
        {"label": f"{new_device} ({run})", "backgroundColor": PALETTE[1], "data": new_speedups}]}}
    headers = ["model", "mode"] + [f"{who}: {h}" for who in (base_device, new_device)
                                   for h in ("status", "backend", "speedup", "compile s", "compression")]
    return render_template("compare.html", run=run, base=base, base_device=base_device, new_device=new_device,
                           checked_apart=checked_apart, summaries=summaries, headers=headers, rows=rows,
                           speedup_chart=chart("compare-speedup", config,
                                               "Speedup over eager, per device (side by side)"))


# ---------------------------------------------------------------- bottlenecks (suites/common/bottleneck.py)

SPLIT_PARTS = (("generated_s", "generated kernels"), ("fallback_s", "ATen fallback"), ("extern_s", "extern (matmul/conv)"),
               ("copy_s", "copies"), ("gap_s", "gaps (launch, idle)"))


def _split_cells(run: pb.ProfiledRun) -> list[str]:
    total = run.split.total_s
    return [fmt(100 * getattr(run.split, field) / total, 0, "%") if total else "–" for field, _ in SPLIT_PARTS]


def render_bottlenecks(ctx: Context) -> str:
    analysed = [i for i in queries.results(ctx.db, ctx.filters.with_values(run=ctx.run)) if i.result.HasField("bottleneck")]
    rows = []
    for item in analysed:
        r, b = item.result, item.result.bottleneck
        top = ", ".join(f"{k.name} {fmt(100 * k.share, 0, '%')}" for k in b.compiled.top[:3])
        for label, run in (("eager", b.eager), ("compiled", b.compiled)):
            rows.append({"model": r.config.model, "kind": label, "mode": mode_name(r.config.mode),
                         "backend": r.config.backend, "ms": fmt(run.split.total_s * 1000, 3),
                         "split": _split_cells(run), "top": top if label == "compiled" else "",
                         "cause": b.cause or b.error if label == "compiled" else b.trigger})
    return render_template("bottlenecks.html", run=ctx.run, analysed=len(analysed), rows=rows,
                           split_labels=[label for _, label in SPLIT_PARTS],
                           problems=tracked_problems(ctx.db, ctx.filters.get("model")))


# ---------------------------------------------------------------- OpInfo (Inductor, high-precision mode)

def _name(enum: Any, value: int, prefix: str) -> str:
    return enum_name(enum, value, prefix, unset="–")


OPINFO_OUTCOMES = ("pass", "fail", "xfail", "skip")
OPINFO_LOWERINGS = {"native": "lowered native", "mixed": "lowered mixed", "fallback": "lowered fallback",
                    "not_compiled": "not compiled (data-dependent)"}


def render_opinfo(ctx: Context) -> str:
    run = queries.opinfo_run(ctx.db, ctx.filters.get("run"))
    if not run:
        return render_template("opinfo.html", run=run)
    found = queries.opinfo_results(ctx.db, run, ctx.filters.get("device"))
    groups: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in found:
        counts = groups[(r.provenance.device_name or r.device, r.group, r.lowering_family)]
        counts[_name(opinfo_pb2.OpInfoOutcome, r.outcome, "OPINFO_OUTCOME_")] += 1
        counts["lowering " + _name(opinfo_pb2.Lowering, r.lowering, "LOWERING_")] += 1
        counts["total"] += 1
    rows = [{"device": device, "group": group, "family": family, "total": counts["total"],
             "outcomes": {o: counts[o] for o in OPINFO_OUTCOMES},
             "lowerings": [counts["lowering " + low] for low in OPINFO_LOWERINGS]}
            for (device, group, family), counts in sorted(groups.items())]
    labels = [f"{group} ({device})" for device, group, _ in sorted(groups)]
    config = {"type": "bar", "data": {"labels": labels, "datasets": [
        {"label": o, "backgroundColor": OUTCOME_COLOURS[o], "data": [groups[k][o] for k in sorted(groups)]}
        for o in OPINFO_OUTCOMES]}, "options": {"scales": {"x": {"stacked": True}, "y": {"stacked": True}}}}
    problems = [{"op": r.op, "name": r.op + ("." + r.variant if r.variant else ""), "dtype": r.dtype,
                 "group": r.group, "outcome": _name(opinfo_pb2.OpInfoOutcome, r.outcome, "OPINFO_OUTCOME_"),
                 "expected": _name(opinfo_pb2.OpInfoOutcome, r.expected_outcome, "OPINFO_OUTCOME_"),
                 "reason": r.reason, "log": r.failure.log_tail or r.failure.message or r.first_failing_sample or "(none)"}
                for r in found if r.outcome not in (opinfo_pb2.OPINFO_OUTCOME_PASS,)]
    return render_template("opinfo.html", run=run, count=len(found), groups=rows, problems=problems,
                           outcomes=list(OPINFO_OUTCOMES), lowering_labels=list(OPINFO_LOWERINGS.values()),
                           outcomes_chart=chart("opinfo-outcomes", config, "Outcomes per op group", height_px=320))


PAGES: tuple[Page, ...] = (
    Page("summary", "HUD summary", render_summary, ("base",)),
    Page("models", "Models", render_models),
    Page("failures", "Failures and risks", render_failures),
    Page("compile", "Compile phases", render_compile),
    Page("breaks", "Graph breaks and fallbacks", render_breaks),
    Page("bottlenecks", "Bottlenecks", render_bottlenecks),
    Page("history", "History", render_history),
    Page("verdicts", "Verdicts", render_verdicts, ("base",)),
    Page("compare", "Baseline vs device", render_compare, ("base",)),
    Page("opinfo", "OpInfo", render_opinfo),
)
PAGES_BY_NAME = {page.name: page for page in PAGES}


def filter_form(ctx: Context, page: Page) -> dict[str, Any]:
    """The filter form's fields, for layout.html."""
    fields = []
    chosen = dict(ctx.filters.values)
    if page.name not in ("history", "opinfo"):  # these pages span runs / pick the newest OpInfo run
        chosen.setdefault("run", ctx.default_run)
    for name in list(FILTER_COLUMNS) + list(page.extra_params):
        # A page that shows one run shows the newest when none is chosen: "(any)" would promise all of them.
        fields.append({"name": name, "label": FILTER_LABELS.get(name, "base run" if name == "base" else name),
                       "empty": {"base": "(automatic)", "run": "(newest)" if "run" in chosen else "(any)"}.get(
                           name, "(any)"),
                       "choices": ctx.options.get("run" if name == "base" else name, []),
                       "current": ctx.filters.base if name == "base" else chosen.get(name, "")})
    return {"action": ctx.link(page.name, {}), "fields": fields, "inert": ctx.static_export}


def layout(ctx: Context, page: Page, body: str) -> str:
    params = ctx.filters.as_params()
    nav = [{"href": ctx.link(p.name, params), "title": p.title, "current": p is page} for p in PAGES]
    # body is a page's rendered template (Markup): placed as it is; a plain str would be escaped.
    return str(render_template("layout.html", page=page, nav=nav, form=filter_form(ctx, page), body=body,
                               static_prefix=ctx.static_prefix))


def render(ctx: Context, page: Page) -> str:
    return layout(ctx, page, page.render(ctx))


def error_page(ctx: Context, message: str) -> str:
    return layout(ctx, PAGES[0], render_template("error.html", message=message))
