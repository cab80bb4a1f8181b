"""What a reference dataset says per suite, mode, backend and device: the lines issue #38 asks the suite READMEs for.

  python -m tools.store.dataset_summary                      # every reference dataset (tools/store/references.py)
  python -m tools.store.dataset_summary suites/timm/reference/h200 [...]

For each (suite, mode, dtype, compiler, device) group of a dataset's model results:
- the HUD's pass rate and geomean speedup (tools/store/hud.py: its rules, its figures);
- that geomean's 95% interval: a percentile bootstrap that resamples each passing model's timed pairs on its own
  (the models are fixed; the spread is their timing noise), over the models whose results keep their samples
  (issue #12). Its point is the geomean of each model's median eager / median compiled over every pair, so it may
  differ a little from the HUD's figure, which takes the first 30 pairs;
- the run's matrix wall and device busy share, from the `<run id>.matrix.jsonl` files kept in the folder
  (suites/common/device_busy.py); a dataset from before those files says so.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from proto.codegen import ensure_generated

ensure_generated()

from parity.v1 import results_pb2 as pb  # noqa: E402
from suites.common.device_busy import MATRIX_SUFFIX, totals  # noqa: E402
from suites.common.uncertainty import CONFIDENCE, RESAMPLES, SEED, Interval  # noqa: E402
from tools.store.db import load_results  # noqa: E402
from tools.store.hud import NO_ROW_STATUSES, Record, SummaryRow, summarize_records  # noqa: E402
from tools.store.names import DTYPE_NAMES, MODE_NAMES  # noqa: E402
from tools.store.references import REPO, reference_datasets  # noqa: E402

Pairs = tuple[np.ndarray, np.ndarray]  # one model's eager and compiled samples (s), pair i timed together


def geomean_interval(models: Sequence[Pairs]) -> Interval:
    """The geometric mean over models of median(eager) / median(compiled), with its percentile bootstrap interval
    (each model's pairs resampled on their own, scipy.stats.bootstrap over each model's pair indices)."""
    from scipy import stats

    eager = [np.asarray(e, dtype=float) for e, _ in models]
    compiled = [np.asarray(c, dtype=float) for _, c in models]

    def geomean(*indices: np.ndarray, axis: int = -1) -> np.ndarray:
        logs = [np.log(np.median(np.take(e, i), axis=axis) / np.median(np.take(c, i), axis=axis))
                for e, c, i in zip(eager, compiled, indices)]
        return np.exp(np.mean(logs, axis=0))

    everything = [np.arange(len(e)) for e in eager]
    point = float(geomean(*everything))
    if all(len(e) < 2 for e in eager):
        return Interval(point, point, point)
    found = stats.bootstrap(everything, geomean, paired=False, vectorized=True, n_resamples=RESAMPLES,
                            confidence_level=CONFIDENCE, method="percentile", rng=np.random.default_rng(SEED))
    low, high = float(found.confidence_interval.low), float(found.confidence_interval.high)
    return Interval(point, min(low, point), max(high, point))


def _record(result: pb.ModelResult) -> Record:
    c = result.config
    return Record(c.model, c.suite, c.hud_compiler, MODE_NAMES.get(c.mode, ""), DTYPE_NAMES.get(c.precision, ""),
                  c.device, result.provenance.device_name, result.community_status, result.performance.speedup,
                  result.compile_time.compilation_latency_s, result.memory.compression_ratio,
                  c.performance_only)


def _group(record: Record | SummaryRow) -> tuple[str, ...]:
    return (record.suite, record.compiler, record.mode, record.dtype, record.device, record.device_name)


def _samples(result: pb.ModelResult) -> Pairs | None:
    timing = result.performance.timing
    if not timing.eager_s or len(timing.eager_s) != len(timing.compiled_s):
        return None
    return np.asarray(timing.eager_s), np.asarray(timing.compiled_s)


def _group_line(row: SummaryRow, samples: dict[tuple[str, ...], Pairs]) -> str:
    rate = f"pass {row.pass_rate:.0%}, {row.passed}/{row.total}"
    if row.accuracy_only:
        return f"{rate} (accuracy only: no speed figures)"
    sampled = [samples[key] for model in row.passing_models if (key := (*_group(row), model)) in samples]
    line = f"{rate}; geomean speedup {row.geomean_speedup:.2f}x (the HUD's: each model's first 30 pairs)"
    if not sampled:
        return line + " (no interval: these results keep no timing samples)"
    spread = geomean_interval(sampled)
    return (line + f", over every sample {spread.point:.2f}x, {CONFIDENCE:.0%} interval {spread.low:.2f}-"
            f"{spread.high:.2f}x ({len(sampled)} of {row.passed} passing models keep their samples)")


def summarize_dataset(folder: Path) -> list[str]:
    results = [item.result for item in load_results([folder])
               if isinstance(item.result, pb.ModelResult) and item.result.community_status not in NO_ROW_STATUSES]
    records = [_record(r) for r in results]
    samples: dict[tuple[str, ...], Pairs] = {}  # (group, model): the first of the model's results that keeps them
    for result, record in zip(results, records):
        if (pairs := _samples(result)) is not None:
            samples.setdefault((*_group(record), record.model), pairs)
    lines = [f"{row.suite} {row.mode} {row.dtype} {row.compiler} on {row.device_name or row.device}: "
             f"{_group_line(row, samples)}" for row in summarize_records(records)]
    runs = sorted(path.name.removesuffix(MATRIX_SUFFIX) for path in folder.glob(f"*{MATRIX_SUFFIX}"))
    for run_id in runs:
        call = totals(folder, run_id)
        if call is not None:
            lines.append(f"run {run_id}: {call.describe()}")
    if not runs:
        lines.append(f"no matrix line (no *{MATRIX_SUFFIX} here): matrix wall and device busy share not recorded")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.store.dataset_summary",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("datasets", nargs="*", type=Path, help="dataset folders (default: every reference dataset)")
    args = parser.parse_args(argv)
    for folder in args.datasets or reference_datasets():
        if not folder.is_dir():
            print(f"error: {folder} is not a folder; give a dataset folder such as suites/timm/reference/h200",
                  file=sys.stderr)
            return 2
        name = folder.resolve().relative_to(REPO) if folder.resolve().is_relative_to(REPO) else folder
        print(f"{name}:")
        for line in summarize_dataset(folder):
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
