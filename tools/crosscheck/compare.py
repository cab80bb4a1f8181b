"""Both sides' figures of one model, paired, with Parity's relative difference from upstream; as text.

Both sides are read into parity.v1.ModelResult (upstream's CSV rows through the store's importer), so one reader
per figure serves both. A relative difference is Parity / upstream - 1; it is left out ("-") where either side has
no figure, or upstream's is 0 and Parity's is not.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Callable

from parity.v1 import results_pb2 as pb

Value = float | str | None


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    digits: int
    read: Callable[[pb.ModelResult], float | None]


def _timed(read: Callable[[pb.ModelResult], float]) -> Callable[[pb.ModelResult], float | None]:
    """A figure of the performance run: none where the run measured nothing (a failure row has zeros)."""
    return lambda r: float(read(r)) if r.performance.measured else None


METRICS = (
    Metric("speedup", "speedup (x)", 2, _timed(lambda r: r.performance.speedup)),
    Metric("abs_latency_ms", "compiled latency (ms)", 3, _timed(lambda r: r.performance.abs_latency_ms)),
    Metric("compilation_latency_s", "compile latency (s)", 1, _timed(lambda r: r.compile_time.compilation_latency_s)),
    Metric("compression_ratio", "compression ratio", 3, _timed(lambda r: r.memory.compression_ratio)),
    Metric("eager_peak_gb", "eager peak memory (GB)", 3, _timed(lambda r: r.memory.eager_peak_gb)),
    Metric("compiled_peak_gb", "compiled peak memory (GB)", 3, _timed(lambda r: r.memory.compiled_peak_gb)),
    Metric("graph_breaks", "graph breaks", 0, _timed(lambda r: r.dynamo.graph_breaks)),
    Metric("batch_size", "batch size, performance", 0, lambda r: float(r.config.batch_size) or None),
    Metric("accuracy_batch_size", "batch size, accuracy", 0, lambda r: float(r.config.accuracy_batch_size) or None),
)
WALL_LABEL = "wall time (s)"


@dataclass(frozen=True)
class Row:
    key: str
    label: str
    upstream: Value
    parity: Value
    relative: float | None  # Parity / upstream - 1
    digits: int = 2

    @property
    def differs(self) -> str:
        """The last column: the relative difference, or for the status whether the two agree."""
        if self.key == "status":
            return "same" if self.upstream == self.parity else "differs"
        return "-" if self.relative is None else f"{self.relative:+.1%}"


@dataclass(frozen=True)
class Comparison:
    model: str
    rows: tuple[Row, ...]
    notes: tuple[str, ...] = ()

    def row(self, key: str) -> Row:
        return next(r for r in self.rows if r.key == key)


def relative(upstream: float | None, parity: float | None) -> float | None:
    if upstream is None or parity is None:
        return None
    if upstream == 0:
        return 0.0 if parity == 0 else None
    return parity / upstream - 1


def compare(model: str, upstream: pb.ModelResult, upstream_wall_s: float, parity: pb.ModelResult | None,
            parity_wall_s: float, notes: list[str] | tuple[str, ...] = ()) -> Comparison:
    rows = [Row("status", "status", upstream.community_status or "-",
                parity.community_status if parity is not None else "no_result", None)]
    for metric in METRICS:
        mine = metric.read(parity) if parity is not None else None
        theirs = metric.read(upstream)
        rows.append(Row(metric.key, metric.label, theirs, mine, relative(theirs, mine), metric.digits))
    rows.append(Row("wall_s", WALL_LABEL, upstream_wall_s, parity_wall_s, relative(upstream_wall_s, parity_wall_s), 1))
    return Comparison(model, tuple(rows), tuple(notes))


def fmt(value: Value, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return f"{value:.{digits}f}"


# The summary's columns: one line a model, for a closing note (status, then figures as "upstream / Parity (diff)").
SUMMARY_KEYS = ("speedup", "abs_latency_ms", "compilation_latency_s", "compression_ratio", "wall_s")


def summary_header() -> list[str]:
    labels = {m.key: m.label for m in METRICS} | {"wall_s": WALL_LABEL}
    return ["model", "status (upstream / Parity)", *(labels[k] for k in SUMMARY_KEYS)]


def summary_row(c: Comparison) -> list[str]:
    status = c.row("status")
    cells = [c.model, f"{status.upstream} / {status.parity}" + ("" if status.differs == "same" else " (differs)")]
    for key in SUMMARY_KEYS:
        row = c.row(key)
        cells.append(f"{fmt(row.upstream, row.digits)} / {fmt(row.parity, row.digits)} ({row.differs})")
    return cells


def _markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]


def model_table(c: Comparison) -> tuple[list[str], list[list[str]]]:
    header = ["", "upstream", "Parity", "Parity/upstream - 1"]
    return header, [[r.label, fmt(r.upstream, r.digits), fmt(r.parity, r.digits), r.differs] for r in c.rows]


def markdown(comparisons: list[Comparison], context: dict[str, Any]) -> str:
    lines = [f"# Cross-check: {context['suite']} {context['mode']} on {context['device']}", ""]
    lines += [f"- {key}: `{value}`" if key in ("upstream_checkout", "run_id") else f"- {key}: {value}"
              for key, value in context.items() if key not in ("suite", "mode", "device")]
    lines += ["", "## Summary", "", *_markdown_table(summary_header(), [summary_row(c) for c in comparisons])]
    for c in comparisons:
        lines += ["", f"## {c.model}", "", *_markdown_table(*model_table(c))]
        if c.notes:
            lines += ["", *(f"- {note.splitlines()[0]}" for note in c.notes)]
    return "\n".join(lines) + "\n"


def as_json(comparisons: list[Comparison], context: dict[str, Any], runs: dict[str, Any]) -> str:
    models = []
    for c in comparisons:
        rows = [{**asdict(r), "differs": r.differs} for r in c.rows]
        models.append({"model": c.model, "rows": rows, "notes": list(c.notes), "runs": runs.get(c.model, {})})
    return json.dumps({**context, "models": models}, indent=1) + "\n"
