"""Prints model results as a markdown table, the form the reference READMEs use.

  python -m suites.table suites/timm/reference/h200                 # one row per result, then wall-time figures
  python -m suites.table out/single-1 out/split --label             # rows say which folder they came from
  python -m suites.table suites/timm/reference/h200 --spread        # and each speedup's interval over every pair

Reads the result files of each folder (not recursively): `.pb`, or the `.txtpb` text form where it stands alone.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from proto.codegen import ensure_generated  # noqa: E402

ensure_generated()

from parity.v1 import results_pb2 as pb  # noqa: E402
from suites.common.result_io import ResultFileError, read_result, result_files  # noqa: E402

HEADER = ("model", "mode", "backend", "status", "speedup", "compile latency (s)", "compression", "wall (s)",
          "eager (ms)", "compiled (ms)")
SPREAD_HEADER = ("95% interval (every pair)", "pairs")  # after the speedup, which is the HUD's: the first 30 pairs


def spread(result: pb.ModelResult) -> list[str]:
    """The speedup's bootstrap interval over every timed pair, and how many pairs there were."""
    timing = result.performance.timing
    if not timing.eager_s:
        return ["-", "-"]
    return [f"{timing.speedup.low:.2f}-{timing.speedup.high:.2f}x", str(len(timing.eager_s))]


def row(result: pb.ModelResult, label: str = "", with_spread: bool = False) -> list[str]:
    training = result.config.mode == pb.MODE_TRAINING
    perf = result.performance
    ms = (lambda stats: f"{stats.median_s * 1000:.2f}") if perf.measured else (lambda _: "-")
    return [result.config.model + (f" ({label})" if label else ""), "training amp" if training else "inference bf16",
            result.config.backend, result.community_status + (" (not checked)" if result.config.performance_only else ""),
            f"{perf.speedup:.2f}x" if perf.measured else "-", *(spread(result) if with_spread else ()),
            f"{result.compile_time.compilation_latency_s:.1f}", f"{result.memory.compression_ratio:.2f}",
            f"{result.wall_time_s:.1f}", ms(perf.eager), ms(perf.compiled)]


def render(results: list[tuple[str, pb.ModelResult]], with_spread: bool = False) -> str:
    at = HEADER.index("speedup") + 1
    header = HEADER[:at] + (SPREAD_HEADER if with_spread else ()) + HEADER[at:]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row(result, label, with_spread)) + " |" for label, result in results]
    walls = [result.wall_time_s for _, result in results]
    if walls:
        lines.append(f"\nWall time per model: mean {statistics.mean(walls):.1f} s, from {min(walls):.1f} s to "
                     f"{max(walls):.1f} s ({len(walls)} results).")
    phases = sorted({phase for _, result in results for phase in result.phase_wall_s})
    if phases:
        timed = [result.phase_wall_s for _, result in results if result.phase_wall_s]
        means = ", ".join(f"{phase} {statistics.mean(p.get(phase, 0.0) for p in timed):.1f}" for phase in phases)
        lines.append(f"Phase means over the {len(timed)} results that time their phases (s): {means}.")
    return "\n".join(lines)


def load(folders: list[Path], label: bool) -> list[tuple[str, pb.ModelResult]]:
    results = []
    for folder in folders:
        if not folder.is_dir():
            raise ResultFileError(f"{folder} is not a folder of result files")
        for path in result_files(folder):
            results.append((folder.name if label else "", read_result(path)))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", type=Path, nargs="+")
    parser.add_argument("--label", action="store_true", help="add each result's folder name to its model column")
    parser.add_argument("--spread", action="store_true", help="add each speedup's 95%% interval over every timed pair "
                        "and the number of pairs (the speedup column is the HUD's, over the first 30)")
    args = parser.parse_args(argv)
    try:
        results = load(args.folders, args.label)
    except ResultFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(render(results, args.spread))
    return 0


if __name__ == "__main__":
    sys.exit(main())
