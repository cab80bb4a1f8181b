"""The dashboard's pages as HTML, rendered on the server from the store (read-only).

Every page takes the same filters; numbers carry data-* attributes so tests can read them back.
Charts are Chart.js configurations embedded as JSON; static/dashboard.js draws them.
"""

from __future__ import annotations

import html
import json
import math
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from parity.v1 import opinfo_pb2
from parity.v1 import results_pb2 as pb
from tools.dashboard import queries
from tools.dashboard.filters import FILTER_COLUMNS, FILTER_LABELS, Filters
from tools.dashboard.signatures import is_failure, phase_name, risks, signature
from tools.store.hud import (COMPRESSION_THRESHOLD, GEOMEAN_THRESHOLD, PASS_RATE_THRESHOLD, SummaryRow, change,
                             passes)
from tools.store.db import Database, dtype_name, enum_name, mode_name, plan_progress, tracked_problems
from tools.store.verdicts import (HOST_BOUND_IDLE_SHARE, KINDS, Figure, Verdict, change_points, compare_runs,
                                  history_of, key_of, noise_band)

COMPILE_PHASES = (("dynamo_s", "Dynamo"), ("aot_autograd_s", "AOTAutograd"), ("inductor_s", "Inductor lowering"),
                  ("codegen_s", "codegen"), ("triton_compile_s", "Triton compile"), ("autotune_s", "autotune"))
OUTCOME_COLOURS = {"pass": "#59a14f", "fail": "#e15759", "xfail": "#f28e2b", "skip": "#bab0ac"}
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f")


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


@dataclass(frozen=True)
class Page:
    name: str
    title: str
    render: Callable[[Context], str]
    extra_params: tuple[str, ...] = ()  # beyond the filters, e.g. "base"


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


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


def chart(chart_id: str, config: dict[str, Any], caption: str, height_px: int = 0) -> str:
    """A Chart.js chart; with a height, the chart fills it (long horizontal bar charts)."""
    options = config.setdefault("options", {})
    options["animation"] = False
    if height_px:
        options["maintainAspectRatio"] = False
    # "<" as \u003c: neither "</script>" nor "<!--" in a stored name can end or blank the script block.
    payload = json.dumps(_finite(config), allow_nan=False).replace("<", "\\u003c")
    box = f' style="position:relative;height:{height_px}px"' if height_px else ""
    return (f'<figure class="chart"><div{box}><canvas id="{esc(chart_id)}" data-chart="{esc(chart_id)}-config">'
            f'</canvas></div><script type="application/json" id="{esc(chart_id)}-config">{payload}</script>'
            f"<figcaption>{esc(caption)}</figcaption></figure>")


def _finite(value: Any) -> Any:
    """The chart data with inf and NaN as null (gaps): JSON has no Infinity, and the page must still draw."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def table(headers: Iterable[str], rows: Iterable[str], table_id: str) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join(rows)
    return f'<table id="{esc(table_id)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


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
        return '<p class="empty">The store holds no results yet: ingest some (python -m tools.store ingest).</p>'
    new_rows = queries.summary(ctx.db, run, ctx.filters)
    base = ctx.filters.base or queries.default_base(ctx.db, run, ctx.filters)
    base_rows = {r.key: r for r in queries.summary(ctx.db, base, ctx.filters)} if base else {}
    new_manifest = queries.manifest_versions(ctx.db, run)
    base_manifest = queries.manifest_versions(ctx.db, base) if base else ()
    comparable = not base or new_manifest == base_manifest
    parts = [f'<p class="runs">new: <b data-run="new">{esc(run)}</b> (manifest {esc(", ".join(new_manifest) or "–")})'
             + (f' · base: <b data-run="base">{esc(base)}</b> (manifest {esc(", ".join(base_manifest) or "–")})'
                if base else " · base: none (no older run on the same device)") + "</p>"]
    progress = plan_progress(ctx.db, run)
    if progress.planned:  # a run with a stored plan says whether everything planned has a result
        parts.append(f'<p class="{"runs" if progress.complete else "banner"}" id="run-progress" '
                     f'data-planned="{progress.planned}" data-missing="{len(progress.missing)}">'
                     f"{esc(progress.describe())}</p>")
    if not comparable:
        parts.append(f'<p class="banner" id="manifest-mismatch">The base run used manifest version '
                     f'{esc(", ".join(base_manifest))} and the new run {esc(", ".join(new_manifest))}: their '
                     "denominators differ, so base values are shown but not judged as regressions.</p>")
    if not new_rows:
        parts.append('<p class="empty">No results match these filters in this run.</p>')
    for key, title, value, show, threshold, higher in _METRICS:
        suites = sorted({r.suite for r in new_rows})
        configs = sorted({(r.compiler, r.mode, r.dtype, r.device, r.device_name) for r in new_rows})
        by_cell = {(r.compiler, r.mode, r.dtype, r.device, r.device_name, r.suite): r for r in new_rows}
        note = f" (threshold {threshold:.0%})" if key == "pass_rate" else (
            f" (threshold {threshold:.2f}x)" if threshold else "")
        rows = []
        for config in configs:
            cells = []
            for suite in suites:
                row = by_cell.get((*config, suite))
                if row is None:
                    cells.append("<td>–</td>")
                    continue
                base_row = base_rows.get(row.key)
                classes = []
                if threshold is not None and value(row) < threshold:
                    classes.append("below-threshold")
                if base_row is not None and comparable:
                    verdict = change(value(row), value(base_row), higher)
                    if verdict:
                        classes.append(verdict)
                base_text = f' → <span class="base">{esc(show(base_row))}</span>' if base_row is not None else ""
                cells.append(f'<td class="{" ".join(classes)}" data-metric="{key}" data-suite="{esc(suite)}" '
                             f'data-compiler="{esc(row.compiler)}" data-mode="{esc(row.mode)}" '
                             f'data-device="{esc(row.device_name or row.device)}" data-value="{value(row):.6f}" '
                             f'data-passed="{row.passed}" data-total="{row.total}">'
                             f'<span class="new">{esc(show(row))}</span>{base_text}</td>')
            compiler, mode, dtype, device, device_name = config
            rows.append(f"<tr><th>{esc(compiler)}</th><td>{esc(mode)}</td><td>{esc(dtype)}</td>"
                        f"<td>{esc(device_name or device)}</td>{''.join(cells)}</tr>")
        parts.append(f"<h2>{esc(title)}{esc(note)}</h2>"
                     + table(["compiler", "mode", "dtype", "device", *suites], rows, f"summary-{key}"))
    parts.append('<p class="legend">Cells read "new → base". Pass rate counts a model when its accuracy is pass, '
                 "pass_due_to_skip or eager_variation and its speedup is non-zero; the denominator is every model "
                 "with a row. Regression/improvement: a relative change past 5%. Base rows are matched on suite, "
                 "compiler, mode, dtype and device: figures of different devices are never combined. "
                 "Parity's own per-model verdict, which weighs each change against its timing intervals and the "
                 "model's noise, is on the Verdicts page.</p>")
    return "".join(parts)


# ---------------------------------------------------------------- per-model table

def render_models(ctx: Context) -> str:
    stored = queries.results(ctx.db, ctx.filters.with_values(run=ctx.run))
    headers = ["run", "model", "mode", "dtype", "backend", "device", "status", "expected", "speedup",
               "speedup 95% interval", "latency ms", "compile s", "cold start", "compression", "eager GB", "compiled GB", "graph breaks",
               "recompiles", "fallback ops", "risks", "bottleneck"]
    rows = []
    for item in stored:
        r = item.result
        c = r.config
        status_class = "fail" if is_failure(r) else ("skip" if r.community_status == "skipped" else "pass")
        expected = enum_name(pb.Status, r.expected_status, "STATUS_", unset="–")
        rows.append(
            f'<tr data-model="{esc(c.model)}" data-run="{esc(item.run_id)}">'
            f"<td>{esc(item.run_id)}</td><td>{esc(c.model)}</td><td>{esc(mode_name(c.mode))}</td>"
            f"<td>{esc(dtype_name(c.precision))}</td><td>{esc(c.backend)}</td>"
            f"<td>{esc(device_label(r))}</td><td class=\"{status_class}\" data-status>{esc(r.community_status)}"
            f"{' (not checked)' if c.performance_only else ''}</td>"
            f"<td>{esc(expected)}</td><td data-speedup>{fmt(r.performance.speedup, 2, 'x')}</td>"
            f"<td data-interval>{esc(interval_text(r.performance.timing))}</td>"
            f"<td>{fmt(r.performance.abs_latency_ms, 3)}</td><td>{fmt(r.compile_time.compilation_latency_s)}</td>"
            f"<td>{'yes' if r.compile_time.cold_start or c.cold_start else 'no'}</td>"
            f"<td>{fmt(r.memory.compression_ratio)}</td><td>{fmt(r.memory.eager_peak_gb, 3)}</td>"
            f"<td>{fmt(r.memory.compiled_peak_gb, 3)}</td><td>{r.dynamo.graph_breaks}</td>"
            f"<td>{r.dynamo.recompiles}</td><td>{sum(op.count or 1 for op in r.fallback_ops)}</td>"
            f"<td class=\"risk\">{esc('; '.join(risks(r)))}</td><td data-cause>{esc(r.bottleneck.cause)}</td></tr>")
    count = f'<p><span id="model-count">{len(stored)}</span> results in run {esc(ctx.run)}.</p>'
    return count + table(headers, rows, "models")


# ---------------------------------------------------------------- failures and risks

def render_failures(ctx: Context) -> str:
    stored = queries.results(ctx.db, ctx.filters.with_values(run=ctx.run))
    groups: dict[str, list[queries.Stored]] = defaultdict(list)
    for item in stored:
        if is_failure(item.result):
            groups[signature(item.result).label].append(item)
    parts = [f'<p><span id="failure-count">{sum(len(g) for g in groups.values())}</span> failures in '
             f'<span id="signature-count">{len(groups)}</span> signatures (run {esc(ctx.run)}).</p>']
    for label, items in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        rows = []
        for item in items:
            r = item.result
            log = r.failure.log_tail or r.accuracy.detail or r.failure.message
            rows.append(f'<tr data-model="{esc(r.config.model)}"><td>{esc(r.config.model)}</td>'
                        f"<td>{esc(mode_name(r.config.mode))}</td><td>{esc(r.config.backend)}</td>"
                        f"<td>{esc(device_label(r))}</td><td>{esc(phase_name(r) or '–')}</td>"
                        f"<td>{r.failure.exit_code or ''}{' signal ' + str(r.failure.signal) if r.failure.signal else ''}</td>"
                        f"<td><details><summary>log</summary><pre class=\"log\">{esc(log or '(no log kept)')}</pre>"
                        "</details></td></tr>")
        parts.append(f'<section class="failure-group" data-signature="{esc(label)}" data-count="{len(items)}">'
                     f"<h2>{esc(label)} <small>({len(items)})</small></h2>"
                     + table(["model", "mode", "backend", "device", "phase", "exit", "log"], rows,
                             f"failures-{len(parts)}") + "</section>")
    risky = [(item, risks(item.result)) for item in stored]
    risky = [(item, found) for item, found in risky if found]
    rows = [f'<tr data-model="{esc(i.result.config.model)}"><td>{esc(i.result.config.model)}</td>'
            f"<td>{esc(i.result.config.backend)}</td><td>{esc(i.result.community_status)}</td>"
            f"<td>{esc('; '.join(found))}</td></tr>" for i, found in risky]
    parts.append(f'<h2>Risks <small>(<span id="risk-count">{len(risky)}</span>)</small></h2>'
                 "<p>Compile timeouts, unexpected recompilations, compile-cache misses in a run that expected "
                 "a warm cache, and outcomes other than the manifest expects.</p>"
                 + table(["model", "backend", "status", "risk"], rows, "risks"))
    return "".join(parts)


# ---------------------------------------------------------------- compile phases

def render_compile(ctx: Context) -> str:
    stored = [i for i in queries.results(ctx.db, ctx.filters.with_values(run=ctx.run))
              if i.result.compile_time.compilation_latency_s > 0 or i.result.compile_time.dynamo_s > 0]
    labels = [f"{i.result.config.model} ({mode_name(i.result.config.mode)}, "
              f"{i.result.config.backend})" for i in stored]
    datasets = [{"label": title, "backgroundColor": PALETTE[n % len(PALETTE)],
                 "data": [round(getattr(i.result.compile_time, field), 4) for i in stored]}
                for n, (field, title) in enumerate(COMPILE_PHASES)]
    config = {"type": "bar", "data": {"labels": labels, "datasets": datasets},
              "options": {"indexAxis": "y", "scales": {"x": {"stacked": True, "title": {"display": True,
                                                                                        "text": "seconds"}},
                                                       "y": {"stacked": True}}}}
    rows = []
    for i in stored:
        ct = i.result.compile_time
        raw = ", ".join(f"{k} {v:.3f}" for k, v in sorted(ct.raw_phases_s.items()))
        rows.append(f'<tr data-model="{esc(i.result.config.model)}"><td>{esc(i.result.config.model)}</td>'
                    f"<td>{esc(i.result.config.backend)}</td><td>{'cold' if ct.cold_start else 'warm'}</td>"
                    f"<td>{fmt(ct.compilation_latency_s)}</td>"
                    + "".join(f"<td>{fmt(getattr(ct, field), 3)}</td>" for field, _ in COMPILE_PHASES)
                    + f"<td>{ct.fx_graph_cache_hits}/{ct.fx_graph_cache_misses}</td>"
                    f"<td>{ct.aot_autograd_cache_hits}/{ct.aot_autograd_cache_misses}</td>"
                    f"<td><details><summary>all timers</summary>{esc(raw or '–')}</details></td></tr>")
    return (chart("compile-phases", config, "Compile time by phase (seconds, summed over frames), per model",
                  height_px=max(240, 22 * len(labels) + 80))
            + table(["model", "backend", "caches", "compilation latency s", *(t + " s" for _, t in COMPILE_PHASES),
                     "FX cache hit/miss", "AOT cache hit/miss", "timers"], rows, "compile"))


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
    reason_rows = [f'<tr><td class="reason">{esc(reason)}</td><td>{sum(c for _, c in uses)}</td>'
                   f"<td>{esc(', '.join(sorted({m for m, _ in uses})))}</td></tr>"
                   for reason, uses in sorted(reasons.items(), key=lambda kv: -sum(c for _, c in kv[1]))]
    fallback_rows = [f'<tr><td class="op">{esc(op)}</td><td>{sum(c for _, c, _ in uses)}</td>'
                     f"<td>{esc('; '.join(sorted({r for _, _, r in uses if r})))}</td>"
                     f"<td>{esc(', '.join(sorted({m for m, _, _ in uses})))}</td></tr>"
                     for op, uses in sorted(fallbacks.items(), key=lambda kv: -sum(c for _, c, _ in kv[1]))]
    with_breaks = [i for i in stored if i.result.dynamo.graph_breaks or i.result.fallback_ops]
    config = {"type": "bar", "data": {
        "labels": [f"{i.result.config.model} ({i.result.config.backend})" for i in with_breaks],
        "datasets": [{"label": "graph breaks", "backgroundColor": PALETTE[2],
                      "data": [i.result.dynamo.graph_breaks for i in with_breaks]},
                     {"label": "fallback ops", "backgroundColor": PALETTE[0],
                      "data": [sum(op.count or 1 for op in i.result.fallback_ops) for i in with_breaks]}]}}
    return (chart("breaks", config, "Graph breaks and ATen fallback ops per model")
            + f"<h2>Graph-break reasons ({len(reasons)})</h2>"
            + table(["reason", "occurrences", "models"], reason_rows, "break-reasons")
            + f"<h2>Inductor fallback ops ({len(fallbacks)})</h2>"
            + table(["op", "count", "why", "models"], fallback_rows, "fallback-ops"))


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
            rows.append(f'<tr data-run="{esc(info.run_id)}"><td>{esc(info.run_id)}</td>'
                        f"<td>{esc(time.strftime('%Y-%m-%d %H:%M', time.gmtime(info.start_time)))}</td>"
                        f"<td>{esc(', '.join(c[:10] for c in info.commits) or '–')}</td>"
                        f"<td>{esc(', '.join(info.torch_versions) or '–')}</td>"
                        f"<td>{esc(', '.join(info.manifest_versions) or '–')}</td><td>{esc(row.suite)}</td>"
                        f"<td>{esc(row.compiler)}</td><td>{esc(row.mode)}</td><td>{esc(row.device_name or row.device)}</td>"
                        f"<td>{round(row.pass_rate * 100)}%, {row.passed}/{row.total}</td>"
                        f"<td>{row.geomean_speedup:.2f}x</td><td>{row.mean_compile_s:.2f}</td>"
                        f"<td>{row.mean_compression:.2f}x</td></tr>")
    labels = [info.run_id for info in runs]

    def line(metric: Callable[[SummaryRow], float]) -> list[dict[str, Any]]:
        return [{"label": " / ".join(key), "borderColor": PALETTE[n % len(PALETTE)], "spanGaps": True,
                 "data": [round(metric(points[run]), 4) if run in points else None for run in labels]}
                for n, (key, points) in enumerate(sorted(series.items()))]

    return (chart("history-geomean", {"type": "line", "data": {"labels": labels,
                                                                "datasets": line(lambda r: r.geomean_speedup)}},
                  "Geomean speedup per run (one line per suite / compiler / mode / device)")
            + chart("history-passrate", {"type": "line", "data": {"labels": labels,
                                                                   "datasets": line(lambda r: r.pass_rate * 100)}},
                    "Pass rate (%) per run")
            + table(["run", "started (UTC)", "commit", "torch", "manifest", "suite", "compiler", "mode", "device",
                     "pass rate", "geomean", "compile s", "compression"], rows, "history"))


# ---------------------------------------------------------------- verdicts (tools/store/verdicts.py)

VERDICT_RULE = ("Parity calls a regression or an improvement only when the two runs' speedup intervals (95% "
                "bootstrap over the timing samples) do not overlap, the change exceeds the model's noise band "
                "(3 robust deviations of its history since its last change point, at least 3%; the HUD's 5% until it has "
                "3 runs there) and the "
                "compiled latency moved the same way; a speedup that moved while the compiled latency did not is "
                "the eager side moving (eager_moved). Results without timing samples get \"unknown\". The HUD's 5% "
                "rule is shown beside it as the community-compatible column. The rule: tools/store/verdicts.py.")


NO_CHANGE_POINTS = '<li class="empty">none found (a steady history, or fewer than 4 runs)</li>'


def _interval(figure: Figure | None) -> str:
    if figure is None:
        return "–"
    if not figure.has_interval:
        return f"{figure.speedup:.3f}x (no samples)"
    return f"{figure.point:.3f}x [{figure.low:.3f}, {figure.high:.3f}]"


def _host_bound(v: Verdict) -> bool:
    return any(f is not None and f.host_bound for f in (v.new, v.base))


def _verdict_row(v: Verdict) -> str:
    _, model, mode, _, _, device, _ = v.key
    measured = v.new is not None and v.base is not None
    return (f'<tr data-model="{esc(model)}" data-mode="{esc(mode)}" data-device="{esc(device)}" '
            f'data-kind="{esc(v.kind)}" data-hud="{esc(v.hud)}">'
            f"<td>{esc(model)}</td><td>{esc(mode)}</td><td>{esc(device)}</td>"
            f'<td class="{esc(v.hud)}">{esc(v.hud or "–")}</td><td class="{esc(v.kind)}">{esc(v.kind)}</td>'
            f"<td data-change>{f'{v.change * 100:+.1f}' if measured else '–'}</td>"
            f"<td>{f'±{v.band * 100:.1f}' if v.band else '–'}</td>"
            f"<td>{esc(_interval(v.base))}</td><td>{esc(_interval(v.new))}</td>"
            f"<td>{'yes' if _host_bound(v) else 'no'}</td><td>{esc(v.evidence)}</td></tr>")


def _run_start(db: Database, run_id: str) -> int:
    return next((r.start_time for r in queries.runs(db) if r.run_id == run_id), 0)


def _history_chart(db: Database, verdict: Verdict, until: int) -> str:
    """The compared configuration's speedup per run up to `until`, its intervals, its current noise band and change
    points; a variant's own point (verdict.base_key set) is drawn after the base configuration's history."""
    key = verdict.base_key or verdict.key
    figures: dict[str, Figure] = {}
    for found in history_of(db, key, until):
        figures.setdefault(found.run_id, found)  # a run once: its first result, as compare_runs reads it
    if verdict.base_key and verdict.new is not None:
        figures.setdefault(verdict.new.run_id, verdict.new)
    history = list(figures.values())
    if not history:
        return '<p class="empty">No measured speedup of this configuration up to the selected run.</p>'
    labels = [f.run_id for f in history]
    values = [f.point if f.has_interval else f.speedup for f in history]
    own = values[:-1] if verdict.base_key else values  # the band and change points are the base configuration's
    shifts = change_points(own)
    start = shifts[-1] if shifts else 0
    median = statistics.median(own[start:])  # the latest segment's level
    band, why = noise_band(own)

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
    items = [f'<li data-run="{esc(labels[i])}">{esc(labels[i])}: speedup {values[i - 1]:.3f}x before, '
             f"{values[i]:.3f}x from this run</li>" for i in shifts]
    variant = f"; the last point is the variant {verdict.key[-1]}" if verdict.base_key else ""
    return (chart("verdict-history", config, f"Speedup per run of {name}, with its interval and the noise band "
                                             f"around the latest segment's median ({why}){variant}")
            + "<h3>Change points</h3>"
            + f'<ul id="change-points">{"".join(items) or NO_CHANGE_POINTS}</ul>')


def render_verdicts(ctx: Context) -> str:
    run = ctx.run
    intro = f'<p class="legend" id="verdict-rule">{esc(VERDICT_RULE)}</p>'
    if not run:
        return intro + ('<p class="empty">The store holds no results yet: ingest some '
                        "(python -m tools.store ingest).</p>")
    base = ctx.filters.base or queries.default_base(ctx.db, run, ctx.filters)
    if not base:
        return intro + (f'<p class="empty">Run {esc(run)} has no base: no older run on the same device shares a '
                        "configuration with it. Choose a base run to compare with.</p>")
    # compare_runs takes run ids only: keep the keys the filters leave in the run, as the other pages' queries do.
    shown = {key_of(item.result) for item in queries.results(ctx.db, ctx.filters.with_values(run=run))}
    found = sorted((v for v in compare_runs(ctx.db, run, base) if v.key in shown),
                   key=lambda v: (KINDS.index(v.kind), v.key))
    parts = [intro, f'<p class="runs">new: <b data-run="new">{esc(run)}</b> · base: <b data-run="base">{esc(base)}'
                    "</b></p>"]
    if not found:
        return "".join(parts) + '<p class="empty">No results match these filters in this run.</p>'
    counts = ", ".join(f'<span data-count="{esc(kind)}">{sum(v.kind == kind for v in found)}</span> {esc(kind)}'
                       for kind in KINDS)
    parts.append(f'<p id="verdict-counts">{len(found)} model configurations. Parity: {counts}. The HUD\'s 5% rule '
                 f'flags <span id="hud-flags">{sum(bool(v.hud) for v in found)}</span>.</p>')
    model = ctx.filters.get("model")
    if model:
        charted = min(found, key=lambda v: v.key)  # the filters leave this model's configurations; one is charted
        keys = [v.key for v in found]
        more = (f'<p class="note">Charted: the first of {len(keys)} configurations of {esc(model)}; narrow them '
                "with the mode, dtype, backend or device filters.</p>" if len(keys) > 1 else "")
        parts.append(more + _history_chart(ctx.db, charted, _run_start(ctx.db, run)))
    headers = ["model", "mode", "device", "HUD 5% rule (community-compatible)", "Parity verdict", "change (%)",
               "noise band (%)", "base interval", "new interval", "host-bound", "evidence"]
    parts.append(table(headers, [_verdict_row(v) for v in found], "verdicts"))
    return "".join(parts)


# ---------------------------------------------------------------- baseline vs device

def render_compare(ctx: Context) -> str:
    run = ctx.run
    base = ctx.filters.base or queries.default_baseline(ctx.db, run)
    if not run or not base:
        return '<p class="empty">Comparison needs two runs in the store (a device run and a baseline).</p>'
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

    def side(r: pb.ModelResult | None, note: str = "") -> str:
        if r is None:
            return "<td>–</td>" * 5
        ok = passes(r.config.hud_compiler, r.community_status, r.performance.speedup)
        note_html = f' <span class="note" data-apart>({esc(note)})</span>' if note else ""
        return (f'<td class="{"pass" if ok else "fail"}">{esc(r.community_status)}{note_html}</td>'
                f"<td>{esc(r.config.backend)}</td>"
                f"<td data-speedup>{fmt(r.performance.speedup, 2, 'x')}</td>"
                f"<td>{fmt(r.compile_time.compilation_latency_s)}</td><td>{fmt(r.memory.compression_ratio)}</td>")

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
        rows.append(f'<tr data-model="{esc(c.model)}"><td>{esc(c.model)}</td><td>{esc(mode)}</td>'
                    + side(match) + side(item.result, note) + "</tr>")
        if match is not None:
            labels.append(f"{c.model} ({mode}, {c.backend})")
            base_speedups.append(round(match.performance.speedup, 4))
            new_speedups.append(round(item.result.performance.speedup, 4))
    summaries = []
    for run_id, device in ((base, base_device), (run, new_device)):
        lines = [f"<li>{esc(r.suite)} {esc(r.compiler)} {esc(r.mode)} {esc(r.dtype)}: pass "
                 f"{round(r.pass_rate * 100)}%, {r.passed}/{r.total} · geomean {r.geomean_speedup:.2f}x · "
                 f"compile {r.mean_compile_s:.2f} s · compression {r.mean_compression:.2f}x</li>"
                 for r in queries.summary(ctx.db, run_id, ctx.filters)]
        summaries.append(f'<div class="side"><h3>{esc(device)}</h3><p>run {esc(run_id)}</p><ul>{"".join(lines)}</ul></div>')
    config = {"type": "bar", "data": {"labels": labels, "datasets": [
        {"label": f"{base_device} ({base})", "backgroundColor": PALETTE[0], "data": base_speedups},
        {"label": f"{new_device} ({run})", "backgroundColor": PALETTE[1], "data": new_speedups}]}}
    headers = ["model", "mode"] + [f"{who}: {h}" for who in (base_device, new_device)
                                   for h in ("status", "backend", "speedup", "compile s", "compression")]
    return (f'<p>Baseline <b data-run="base">{esc(base)}</b> ({esc(base_device)}) beside '
            f'<b data-run="new">{esc(run)}</b> ({esc(new_device)}). Each device keeps its own columns and its own '
            "summary: speedups are relative to each device's own eager run and are never pooled.</p>"
            + (f'<p class="note" data-apart-count="{checked_apart}">Statuses checked at another batch size than the '
               f"baseline's (marked in the table): {checked_apart}. Those need not agree with the baseline's; for "
               "statuses that compare, check both at one size (<code>--plan accuracy</code> uses upstream's).</p>"
               if checked_apart else "")
            + f'<div class="sides">{"".join(summaries)}</div>'
            + chart("compare-speedup", config, "Speedup over eager, per device (side by side)")
            + table(headers, rows, "compare"))


# ---------------------------------------------------------------- bottlenecks (suites/common/bottleneck.py)

SPLIT_PARTS = (("generated_s", "generated kernels"), ("fallback_s", "ATen fallback"), ("extern_s", "extern (matmul/conv)"),
               ("copy_s", "copies"), ("gap_s", "gaps (launch, idle)"))


def _split_cells(run: pb.ProfiledRun) -> str:
    total = run.split.total_s
    return "".join(f"<td>{fmt(100 * getattr(run.split, field) / total, 0, '%') if total else '–'}</td>"
                   for field, _ in SPLIT_PARTS)


def render_bottlenecks(ctx: Context) -> str:
    analysed = [i for i in queries.results(ctx.db, ctx.filters.with_values(run=ctx.run)) if i.result.HasField("bottleneck")]
    rows = []
    for item in analysed:
        r, b = item.result, item.result.bottleneck
        top = ", ".join(f"{k.name} {fmt(100 * k.share, 0, '%')}" for k in b.compiled.top[:3])
        for label, run in (("eager", b.eager), ("compiled", b.compiled)):
            rows.append(f'<tr data-model="{esc(r.config.model)}" data-run-kind="{label}"><td>{esc(r.config.model)}</td>'
                        f"<td>{esc(mode_name(r.config.mode))}</td><td>{esc(r.config.backend)}</td>"
                        f"<td>{label}</td><td>{fmt(run.split.total_s * 1000, 3)}</td>{_split_cells(run)}"
                        f"<td>{esc(top if label == 'compiled' else '')}</td>"
                        f"<td data-cause>{esc(b.cause or b.error if label == 'compiled' else b.trigger)}</td></tr>")
    problems = [f'<tr data-signature="{esc(p.signature)}"><td>{esc(p.model)}</td><td>{esc(p.mode)}</td>'
                f"<td>{esc(p.backend)}</td><td>{esc(p.device_type)}</td><td>{esc(p.cause)}</td>"
                f"<td>{esc(p.first_seen_run)}</td><td>{esc(p.last_seen_run)}</td><td>{p.results}</td></tr>"
                for p in tracked_problems(ctx.db, ctx.filters.get("model"))]
    return (f'<p><span id="bottleneck-count">{len(analysed)}</span> results of run {esc(ctx.run)} are below their '
            "speedup target and carry an analysis: one eager and one compiled iteration under the profiler "
            "(traces beside the result files). <code>python -m suites.common.bottleneck show RESULT.pb</code> "
            "prints one.</p>"
            + table(["model", "mode", "backend", "run", "ms", *(label for _, label in SPLIT_PARTS), "top kernels",
                     "cause / trigger"], rows, "bottlenecks")
            + "<h2>Tracked problems (all runs)</h2>"
            + table(["model", "mode", "backend", "device", "newest cause", "first seen", "last seen", "results"],
                    problems, "problems"))


# ---------------------------------------------------------------- OpInfo (Inductor, high-precision mode)

def _name(enum: Any, value: int, prefix: str) -> str:
    return enum_name(enum, value, prefix, unset="–")


def render_opinfo(ctx: Context) -> str:
    run = queries.opinfo_run(ctx.db, ctx.filters.get("run"))
    if not run:
        return '<p class="empty">The store holds no OpInfo results (files named *.opinfo.pb) yet.</p>'
    found = queries.opinfo_results(ctx.db, run, ctx.filters.get("device"))
    outcomes = ("pass", "fail", "xfail", "skip")
    groups: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in found:
        counts = groups[(r.provenance.device_name or r.device, r.group, r.lowering_family)]
        counts[_name(opinfo_pb2.OpInfoOutcome, r.outcome, "OPINFO_OUTCOME_")] += 1
        counts["lowering " + _name(opinfo_pb2.Lowering, r.lowering, "LOWERING_")] += 1
        counts["total"] += 1
    lowerings = {"native": "lowered native", "mixed": "lowered mixed", "fallback": "lowered fallback",
                 "not_compiled": "not compiled (data-dependent)"}
    rows = [f'<tr data-group="{esc(group)}"><td>{esc(device)}</td><td>{esc(group)}</td><td>{esc(family)}</td>'
            f"<td>{counts['total']}</td>" + "".join(f'<td data-outcome="{o}">{counts[o]}</td>' for o in outcomes)
            + "".join(f"<td>{counts['lowering ' + low]}</td>" for low in lowerings) + "</tr>"
            for (device, group, family), counts in sorted(groups.items())]
    labels = [f"{group} ({device})" for device, group, _ in sorted(groups)]
    config = {"type": "bar", "data": {"labels": labels, "datasets": [
        {"label": o, "backgroundColor": OUTCOME_COLOURS[o], "data": [groups[k][o] for k in sorted(groups)]}
        for o in outcomes]}, "options": {"scales": {"x": {"stacked": True}, "y": {"stacked": True}}}}
    problems = [r for r in found if r.outcome not in (opinfo_pb2.OPINFO_OUTCOME_PASS,)]
    problem_rows = [f'<tr data-op="{esc(r.op)}"><td>{esc(r.op)}{esc("." + r.variant if r.variant else "")}</td>'
                    f"<td>{esc(r.dtype)}</td><td>{esc(r.group)}</td>"
                    f"<td>{esc(_name(opinfo_pb2.OpInfoOutcome, r.outcome, 'OPINFO_OUTCOME_'))}</td>"
                    f"<td>{esc(_name(opinfo_pb2.OpInfoOutcome, r.expected_outcome, 'OPINFO_OUTCOME_'))}</td>"
                    f"<td>{esc(r.reason)}</td><td><details><summary>log</summary><pre class=\"log\">"
                    f"{esc(r.failure.log_tail or r.failure.message or r.first_failing_sample or '(none)')}</pre>"
                    "</details></td></tr>" for r in problems]
    return (f'<p>OpInfo run <b data-run="opinfo">{esc(run)}</b>: <span id="opinfo-count">{len(found)}</span> '
            "cases (op, variant, dtype, device).</p>"
            + chart("opinfo-outcomes", config, "Outcomes per op group", height_px=320)
            + table(["device", "group", "lowering family", "cases", *outcomes, *lowerings.values()],
                    rows, "opinfo-groups")
            + f"<h2>Not passing ({len(problems)})</h2>"
            + table(["op", "dtype", "group", "outcome", "expected", "reason", "log"], problem_rows, "opinfo-problems"))


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


def filter_form(ctx: Context, page: Page) -> str:
    fields = []
    chosen = dict(ctx.filters.values)
    if page.name not in ("history", "opinfo"):  # these pages span runs / pick the newest OpInfo run
        chosen.setdefault("run", ctx.default_run)
    names = list(FILTER_COLUMNS) + list(page.extra_params)
    for name in names:
        values = ctx.options.get("run" if name == "base" else name, [])
        current = ctx.filters.base if name == "base" else chosen.get(name, "")
        # A page that shows one run shows the newest when none is chosen: "(any)" would promise all of them.
        empty = {"base": "(automatic)", "run": "(newest)" if "run" in chosen else "(any)"}.get(name, "(any)")
        opts = [f'<option value="">{empty}</option>']
        opts += [f'<option value="{esc(v)}"{" selected" if v == current else ""}>{esc(v)}</option>' for v in values]
        label = FILTER_LABELS.get(name, "base run" if name == "base" else name)
        fields.append(f'<label>{esc(label)} <select name="{esc(name)}"{" disabled" if ctx.static_export else ""}>'
                      f"{''.join(opts)}</select></label>")
    note = ('<p class="note">Static export: filters need the server (python -m tools.dashboard serve).</p>'
            if ctx.static_export else "")
    return (f'<form id="filters" method="get" action="{esc(ctx.link(page.name, {}))}">{"".join(fields)}'
            f'<button type="submit"{" disabled" if ctx.static_export else ""}>apply</button></form>{note}')


def layout(ctx: Context, page: Page, body: str) -> str:
    params = ctx.filters.as_params()
    nav = "".join(f'<a href="{esc(ctx.link(p.name, params))}"{" class=current" if p is page else ""}>{esc(p.title)}</a>'
                  for p in PAGES)
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Parity · {esc(page.title)}</title>'
            f'<link rel="stylesheet" href="{ctx.static_prefix}dashboard.css"></head>'
            f'<body data-page="{esc(page.name)}"><header><h1>Parity · {esc(page.title)}</h1><nav>{nav}</nav></header>'
            f"{filter_form(ctx, page)}<main>{body}</main>"
            f'<script src="{ctx.static_prefix}chart.umd.js"></script>'
            f'<script src="{ctx.static_prefix}dashboard.js"></script></body></html>')


def render(ctx: Context, page: Page) -> str:
    return layout(ctx, page, page.render(ctx))


def error_page(ctx: Context, message: str) -> str:
    page = PAGES[0]
    return layout(ctx, page, f'<p class="error" id="error">{esc(message)}</p>')
