"""The HUD compiler dashboard's summary metrics, with the HUD's own rules (torchci compilerUtils).

Per (suite, compiler, mode, dtype, device): pass rate over every record (a model passes when its
accuracy is pass/pass_due_to_skip/eager_variation AND its speedup is non-zero, or it is
pass_due_to_skip; every record counts in the denominator); geometric mean speedup over passing models
with a non-zero speedup (no clipping); arithmetic means of compile latency and compression ratio over
passing models with non-zero values. Our own "skipped" rows are excluded: upstream writes no row.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass

PASSING = ("pass", "pass_due_to_skip", "eager_variation")
PASS_RATE_THRESHOLD = 0.90  # the HUD's pass-rate header threshold


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

    @property
    def pass_rate(self) -> float:
        return self.passed / self.total if self.total else 0.0


def summarize(conn: sqlite3.Connection, run_id: str) -> list[SummaryRow]:
    rows = conn.execute(
        "SELECT suite, hud_compiler, mode, dtype, device_type, community_status, speedup, compilation_latency_s, "
        "compression_ratio FROM results WHERE run_id = ? AND community_status != 'skipped' "
        "ORDER BY suite, hud_compiler, mode, dtype, device_type", (run_id,)).fetchall()
    groups: dict[tuple[str, ...], list[tuple[str, float, float, float]]] = {}
    for suite, compiler, mode, dtype, device, status, speedup, compile_s, compression in rows:
        groups.setdefault((suite, compiler, mode, dtype, device), []).append((status, speedup, compile_s, compression))
    summary = []
    for key, records in groups.items():
        compiler = key[1]
        passing = [r for r in records if _passes(compiler, r[0], r[1])]
        speedups = [r[1] for r in passing if r[1] != 0]
        compiles = [r[2] for r in passing if r[2] != 0]
        compressions = [r[3] for r in passing if r[3] != 0]
        summary.append(SummaryRow(
            *key, passed=len(passing), total=len(records),
            geomean_speedup=math.exp(sum(math.log(s) for s in speedups) / len(speedups)) if speedups else 0.0,
            mean_compile_s=sum(compiles) / len(compiles) if compiles else 0.0,
            mean_compression=sum(compressions) / len(compressions) if compressions else 0.0))
    return summary


def _passes(compiler: str, status: str, speedup: float) -> bool:
    if status == "pass_due_to_skip":
        return True
    in_passing_set = status in PASSING or compiler == "eager"
    return in_passing_set and speedup != 0


def render(summary: list[SummaryRow]) -> str:
    header = (f"{'suite':12s} {'compiler':11s} {'mode':9s} {'dtype':8s} {'device':6s} {'pass rate':>16s} "
              f"{'geomean':>8s} {'compile s':>9s} {'compression':>11s}")
    lines = [header]
    for r in summary:
        flag = "" if r.pass_rate >= PASS_RATE_THRESHOLD else " (below 90%)"
        rate = f"{round(r.pass_rate * 100)}%, {r.passed}/{r.total}"
        lines.append(f"{r.suite:12s} {r.compiler:11s} {r.mode:9s} {r.dtype:8s} {r.device:6s} {rate:>16s} "
                     f"{r.geomean_speedup:7.2f}x {r.mean_compile_s:9.2f} {r.mean_compression:11.2f}{flag}")
    return "\n".join(lines)
