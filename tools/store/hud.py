"""The HUD compiler dashboard's summary metrics, with the HUD's own rules (torchci compilerUtils).

Per (suite, compiler, mode, dtype, device): pass rate over every model (a model passes when its
accuracy is pass/pass_due_to_skip/eager_variation AND its speedup is non-zero, or it is
pass_due_to_skip; every model with a result counts in the denominator); geometric mean speedup over passing models
with a non-zero speedup (no clipping); arithmetic means of compile latency and compression ratio over
passing models with non-zero values. Our own "skipped" rows, and "stopped" ones (the run was stopped while the model ran), are excluded: upstream
writes no row.
A group in which no record has a speedup but some passed accuracy is an accuracy-only run (suites.run
--plan accuracy): its pass rate is the accuracy pass rate, flagged as such, and it has no speed figures. A group of
performance-only results (--plan performance) checked no accuracy: its pass rate says only which models ran, flagged.
As on the HUD, a model counts once per run: where a run holds a model's checked result and a performance-only one
(two invocations with --plan, as upstream's accuracy and performance CSVs), the verdict is the checked one's and
the timings are whichever measured them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

from tools.store.db import Database
from tools.store.failures import PASSING

PASS_RATE_THRESHOLD = 0.90  # the HUD's pass-rate header threshold
GEOMEAN_THRESHOLD = 0.95  # the HUD's geomean speedup header threshold
COMPRESSION_THRESHOLD = 0.90  # the HUD's compression-ratio header threshold
# Results upstream writes no row for: our own skips, and models a stopped run never finished (plan_progress counts
# those as missing, so the run shows as incomplete instead of the models as failing).
NO_ROW_STATUSES = ("skipped", "stopped")
NO_ROW = f"({', '.join(repr(s) for s in NO_ROW_STATUSES)})"  # as SQL
CHANGE_THRESHOLD = 0.05  # a new-vs-base cell is a regression or an improvement past a 5% relative change


@dataclass(frozen=True)
class SummaryRow:
    suite: str
    compiler: str
    mode: str
    dtype: str
    device: str
    passed: int
    total: int
    geomean_speedup: float
    mean_compile_s: float
    mean_compression: float
    device_name: str = ""
    accuracy_only: bool = False  # no performance was measured: the pass rate is the accuracy check's alone
    performance_only: bool = False  # no accuracy was checked: the pass rate counts the models that ran
    passing_models: tuple[str, ...] = ()  # the `passed` models, by name

    @property
    def pass_rate(self) -> float:
        return self.passed / self.total if self.total else 0.0

    @property
    def key(self) -> tuple[str, ...]:
        """What a base row must share to be compared: never across devices."""
        return (self.suite, self.compiler, self.mode, self.dtype, self.device, self.device_name)


@dataclass(frozen=True)
class Record:
    """The fields of one stored result that the HUD's aggregates read."""
    model: str
    suite: str
    compiler: str
    mode: str
    dtype: str
    device: str
    device_name: str
    status: str
    speedup: float
    compile_s: float
    compression: float
    performance_only: bool = False


SUMMARY_COLUMNS = ("model, suite, hud_compiler, mode, dtype, device_type, device_name, community_status, speedup, "
                   "compilation_latency_s, compression_ratio, performance_only")


def summarize(db: Database, run_id: str, where: str = "", params: tuple[object, ...] = ()) -> list[SummaryRow]:
    """The HUD summary of one run; `where` (parameterised, from the dashboard's filters) narrows it."""
    rows = db.query(f"SELECT {SUMMARY_COLUMNS} FROM results WHERE run_id = ? AND community_status NOT IN {NO_ROW}"
                    + (f" AND {where}" if where else "")
                    + " ORDER BY suite, hud_compiler, mode, dtype, device_type, device_name, model, result_id",
                    (run_id, *params))
    return summarize_records(Record(*row) for row in rows)


def summarize_records(records: Iterable[Record]) -> list[SummaryRow]:
    per_model: dict[tuple[str, ...], list[Record]] = {}
    for r in records:
        per_model.setdefault((r.suite, r.compiler, r.mode, r.dtype, r.device, r.device_name, r.model), []).append(r)
    groups: dict[tuple[str, ...], list[Record]] = {}
    for key, model_records in per_model.items():
        groups.setdefault(key[:-1], []).append(one_per_model(model_records))
    summary = []
    for (suite, compiler, mode, dtype, device, device_name), group in sorted(groups.items()):
        accuracy_only = not any(r.speedup for r in group) and any(r.status in PASSING for r in group)
        passing = [r for r in group if passes(compiler, r.status, r.speedup, performance_measured=not accuracy_only)]
        # Only figures a mean can take: ingest refuses the others, but a store written before it may hold them.
        speedups = [r.speedup for r in passing if _usable(r.speedup)]
        compiles = [r.compile_s for r in passing if r.compile_s != 0 and math.isfinite(r.compile_s)]
        compressions = [r.compression for r in passing if _usable(r.compression)]
        summary.append(SummaryRow(
            suite, compiler, mode, dtype, device, passed=len(passing), total=len(group),
            geomean_speedup=math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else 0.0,
            mean_compile_s=sum(compiles) / len(compiles) if compiles else 0.0,
            mean_compression=sum(compressions) / len(compressions) if compressions else 0.0,
            device_name=device_name, accuracy_only=accuracy_only,
            performance_only=all(r.performance_only for r in group),
            passing_models=tuple(sorted(r.model for r in passing))))
    return summary


def _usable(figure: float) -> bool:
    return figure > 0 and math.isfinite(figure)


def one_per_model(records: list[Record]) -> Record:
    """One model's record in a run of several results for it: the verdict of the checked results (a failing one
    over a passing one), the timings of the first that measured them."""
    checked = [r for r in records if not r.performance_only] or records
    verdict = next((r for r in checked if r.status not in PASSING), checked[0])
    timed = next((r for r in (verdict, *records) if r.speedup), verdict)
    return replace(verdict, speedup=timed.speedup, compile_s=timed.compile_s, compression=timed.compression,
                   performance_only=all(r.performance_only for r in records))


def passes(compiler: str, status: str, speedup: float, performance_measured: bool = True) -> bool:
    if status == "pass_due_to_skip":
        return True
    in_passing_set = status in PASSING or compiler == "eager"
    return in_passing_set and (speedup != 0 or not performance_measured)


def change(new: float, base: float, higher_is_better: bool = True) -> str:
    """"regression", "improvement" or "" for a new-vs-base cell (the HUD's 5% relative change)."""
    if not base or not new:
        return ""
    ratio = new / base
    if abs(ratio - 1) <= CHANGE_THRESHOLD:
        return ""
    return "improvement" if (ratio > 1) == higher_is_better else "regression"


def render(summary: list[SummaryRow]) -> str:
    header = (f"{'suite':12s} {'compiler':11s} {'mode':9s} {'dtype':8s} {'device':16s} {'pass rate':>16s} "
              f"{'geomean':>8s} {'compile s':>9s} {'compression':>11s}")
    lines = [header]
    for r in summary:
        flag = "" if r.pass_rate >= PASS_RATE_THRESHOLD else " (below 90%)"
        rate = f"{round(r.pass_rate * 100)}%, {r.passed}/{r.total}"
        if r.accuracy_only:
            flag += " (accuracy only: no speed figures)"
        if r.performance_only:
            flag += " (performance only: ran, accuracy not checked)"
        device = (r.device_name or r.device)[:16]  # H100 and H200 are both "cuda": name the device
        lines.append(f"{r.suite:12s} {r.compiler:11s} {r.mode:9s} {r.dtype:8s} {device:16s} {rate:>16s} "
                     f"{r.geomean_speedup:7.2f}x {r.mean_compile_s:9.2f} {r.mean_compression:11.2f}{flag}")
    return "\n".join(lines)
