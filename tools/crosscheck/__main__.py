"""Cross-check: upstream's benchmarks/dynamo and Parity on the same models and device, side by side.

  python -m tools.crosscheck --upstream DIR --suite timm --mode inference --device cuda --out out/crosscheck \\
      --model mobilenetv3_large_100 --model inception_v3 [--torchbench-dir DIR] [--timeout-s S]

DIR is a local benchmarks/dynamo checkout, which Parity never ships or downloads. For each model in turn, as child
processes one at a time (timing runs never overlap): upstream's accuracy run and performance run with the HUD
dashboard's flags (upstream.py), then Parity's `suites.run --split-processes` (parity_side.py). Each model's table
is printed when it is done, a summary at the end; crosscheck.json and crosscheck.md in --out are rewritten after
every model, so a stopped cross-check keeps what it finished. tools/crosscheck/README.md says how to read them.
Exit 0: every run gave its figures; 1: some run gave none (its notes say which and why); 2: bad arguments, or DIR is
not a usable benchmarks/dynamo checkout, or its script does not start here (`SCRIPT --help` fails): no model has run.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from proto.codegen import ensure_generated

ensure_generated()

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from compiler.backends import get_backend  # noqa: E402
from parity.v1 import results_pb2 as pb  # noqa: E402
from suites.common.manifest import ManifestError, load_manifest  # noqa: E402
from tools.crosscheck import compare, offline, parity_side, upstream  # noqa: E402
from tools.crosscheck.checkout import SUITES, CheckoutError, check_checkout  # noqa: E402

DEFAULT_TIMEOUT_S = 2000.0  # upstream's per-model default (--timeout)
MODES = ("inference", "training")


class Stopped(Exception):
    """SIGTERM or Ctrl-C: the running child's group is killed on the way out (children.run_child)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.crosscheck", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--upstream", type=Path, required=True, help="a local benchmarks/dynamo folder")
    parser.add_argument("--suite", choices=tuple(SUITES), required=True)
    parser.add_argument("--mode", choices=MODES, required=True,
                        help="inference (upstream: --inference --bfloat16) or training (--training --amp)")
    parser.add_argument("--model", action="append", required=True, help="a model of the suite (repeatable)")
    parser.add_argument("--device", default="cuda", help="both sides' device (default %(default)s)")
    parser.add_argument("--out", type=Path, required=True, help="folder for both sides' outputs and the tables")
    parser.add_argument("--torchbench-dir", type=Path,
                        default=Path(os.environ.get("PARITY_TORCHBENCH_DIR") or parity_side.ROOT / ".torchbench"),
                        help="TorchBench checkout for --suite torchbench (default $PARITY_TORCHBENCH_DIR, else "
                             ".torchbench): both sides load its models from there")
    parser.add_argument("--timeout-s", type=float, default=DEFAULT_TIMEOUT_S,
                        help="limit for each model process of either side (default %(default)g, upstream's)")
    parser.add_argument("--parity-backend", default="inductor_cudagraphs",
                        help="Parity's backend (default %(default)s: Inductor with CUDA graphs, as upstream's "
                             "--backend inductor); another one makes the figures incomparable, for tests")
    parser.add_argument("--parity-arg", action="append", default=[], metavar="ARG",
                        help="passed to suites.run as it is, e.g. --parity-arg=--smoke (repeatable)")
    parser.add_argument("--upstream-arg", action="append", default=[], metavar="ARG",
                        help="appended to both upstream runs' flags, e.g. --upstream-arg=--batch-size=2 (repeatable)")
    parser.add_argument("--run-id", default="", help="Parity's run id (default: crosscheck-<host>-<time>)")
    return parser.parse_args(argv)


def _plans(args: argparse.Namespace) -> tuple[upstream.UpstreamPlan, parity_side.ParityPlan, list[str]]:
    """Both sides' plans and the notes to print before anything runs; CheckoutError/ManifestError/ValueError for
    arguments that cannot work."""
    checkout = check_checkout(args.upstream, args.suite)
    manifest = load_manifest(args.suite)
    for model in args.model:
        entry = manifest.model(model)
        if args.mode not in entry.modes:
            raise ValueError(f"{model} has no {args.mode} mode in Parity's manifest ({manifest.path})")
    backend = get_backend(args.parity_backend)
    if args.timeout_s <= 0:
        raise ValueError(f"--timeout-s must be positive, not {args.timeout_s:g}")
    torchbench = None
    if args.suite == "torchbench":
        torchbench = args.torchbench_dir
        if not (torchbench / "torchbenchmark" / "__init__.py").is_file():
            raise ValueError(f"--torchbench-dir {torchbench} is not a TorchBench checkout (no "
                             "torchbenchmark/__init__.py); make one with `python -m suites.torchbench.trim_checkout "
                             "SRC .torchbench`")
    notes = [gap for model in args.model if (gap := offline.upstream_offline_gap(args.suite, model))]
    if backend.name != "inductor_cudagraphs":
        notes.append(f"Parity runs backend {backend.name}, upstream Inductor with CUDA graphs: the figures do not "
                     "compare (a test of the command, not of the harnesses)")
    extra = [f"{side} {' '.join(flags)}" for side, flags in (("upstream", args.upstream_arg),
                                                              ("Parity", args.parity_arg)) if flags]
    if extra:
        notes.append(f"extra flags ({'; '.join(extra)}): the two sides may not run the same workload")
    table = offline.write_offline_table(args.out / "offline.json")
    run_id = args.run_id or f"crosscheck-{socket.gethostname()}-{time.strftime('%Y%m%dT%H%M%S')}"
    up_plan = upstream.UpstreamPlan(checkout, args.mode, args.device, args.timeout_s, table, torchbench,
                                    tuple(args.upstream_arg))
    parity_plan = parity_side.ParityPlan(args.suite, args.mode, args.device, backend.name, args.timeout_s, run_id,
                                         torchbench, tuple(args.parity_arg))
    return up_plan, parity_plan, notes


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        up_plan, parity_plan, notes = _plans(args)
    except (CheckoutError, ManifestError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    console = Console(width=None if sys.stdout.isatty() else 200)  # a log gets whole lines, not wrapped cells
    for note in notes:
        print(f"[crosscheck] note: {note}", flush=True)
    problem = upstream.preflight(up_plan, args.out)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    context = _context(args, up_plan, parity_plan, notes)
    comparisons: list[compare.Comparison] = []
    runs: dict[str, Any] = {}
    previous = {s: signal.signal(s, _stop) for s in (signal.SIGTERM, signal.SIGINT)}
    start = time.perf_counter()
    try:
        for index, model in enumerate(args.model):
            _progress(index, len(args.model), model, time.perf_counter() - start)
            comparison, runs[model], parity = _cross_check(model, up_plan, parity_plan,
                                                           args.out / model.replace("/", "_"))
            comparisons.append(comparison)
            if parity is not None and parity.provenance.device_name and "machine" not in context:
                p = parity.provenance  # both sides ran on it, with the same torch
                context["machine"] = f"{p.device_name}, torch {p.torch_version}, triton {p.triton_version}"
            _write(args.out, comparisons, context, runs)
            console.print(_rich_table(comparison))
            for note in comparison.notes:
                print(f"[crosscheck] {model}: {note}", flush=True)
    except Stopped as stop:
        print(f"[crosscheck] stopped by {stop}: the running child was killed; {len(comparisons)} finished model(s) "
              f"are in {args.out}", file=sys.stderr, flush=True)
        return 128 + stop.signum
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    console.print(_rich_summary(comparisons))
    incomplete = [c.model for c in comparisons if c.notes]
    print(f"[crosscheck] {len(comparisons) - len(incomplete)} of {len(comparisons)} models with figures from every "
          f"run; tables in {args.out / 'crosscheck.md'} and {args.out / 'crosscheck.json'}", flush=True)
    return 1 if incomplete else 0


def _stop(signum: int, _frame: object) -> None:
    raise Stopped(signum)


def _progress(index: int, total: int, model: str, elapsed_s: float) -> None:
    eta = f", about {elapsed_s / index * (total - index):.0f} s left" if index else ""
    print(f"[crosscheck] {index + 1}/{total} {model}: upstream's accuracy and performance runs, then Parity's "
          f"({elapsed_s:.0f} s so far{eta})", flush=True)


def _cross_check(model: str, up_plan: upstream.UpstreamPlan, parity_plan: parity_side.ParityPlan,
                 folder: Path) -> tuple[compare.Comparison, dict[str, Any], pb.ModelResult | None]:
    theirs = upstream.run_model(up_plan, model, folder / "upstream")
    for run in theirs.runs:
        print(f"[crosscheck]   upstream {run.target}: {run.outcome.describe(up_plan.timeout_s)} after "
              f"{run.outcome.wall_s:.0f} s{'' if run.wrote_row else ', no row'}", flush=True)
    ours = parity_side.run_model(parity_plan, model, folder / "parity")
    print(f"[crosscheck]   Parity: {ours.outcome.describe(parity_plan.invocation_timeout_s)} after "
          f"{ours.outcome.wall_s:.0f} s{'' if ours.result is not None else ', no result'}", flush=True)
    comparison = compare.compare(model, theirs.result, theirs.wall_s, ours.result, ours.wall_s,
                                 [*theirs.problems, *ours.problems])
    return comparison, _runs_record(theirs, ours), ours.result


def _runs_record(theirs: upstream.UpstreamModel, ours: parity_side.ParityModel) -> dict[str, Any]:
    def child(outcome: Any) -> dict[str, Any]:
        return {"returncode": outcome.returncode, "timed_out": outcome.timed_out, "wall_s": round(outcome.wall_s, 3),
                "log": str(outcome.log)}

    return {
        "upstream": [{"target": run.target, "command": run.command, "csv": str(run.csv), "wrote_row": run.wrote_row,
                      "problem": run.problem, **child(run.outcome)} for run in theirs.runs],
        "parity": {"command": ours.command, **child(ours.outcome),
                   "model_processes_wall_s": round(ours.result.wall_time_s, 3) if ours.result is not None else None,
                   "problems": ours.problems},
    }


def _context(args: argparse.Namespace, up_plan: upstream.UpstreamPlan, parity_plan: parity_side.ParityPlan,
             notes: list[str]) -> dict[str, Any]:
    probe, script = "MODEL", up_plan.checkout.script.name
    flags = {target: f"{script} {' '.join(upstream.flags(up_plan, probe, target, Path('CSV')))}"
             for target in upstream.TARGETS}
    return {
        "suite": args.suite, "mode": args.mode, "device": args.device,
        "upstream_checkout": str(up_plan.checkout.root),
        "upstream accuracy run": flags["accuracy"], "upstream performance run": flags["performance"],
        "Parity run": " ".join(["python", *parity_side.command(parity_plan, probe, Path("OUT"))[1:]]),
        "run_id": parity_plan.run_id,
        "wall time": "upstream: its two processes; Parity: the whole suites.run invocation (imports included)",
        **({"notes": "; ".join(notes)} if notes else {}),
    }


def _write(out: Path, comparisons: list[compare.Comparison], context: dict[str, Any], runs: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "crosscheck.md").write_text(compare.markdown(comparisons, context))
    (out / "crosscheck.json").write_text(compare.as_json(comparisons, context, runs))


def _rich_table(c: compare.Comparison) -> Table:
    header, rows = compare.model_table(c)
    table = Table(title=c.model, title_justify="left")
    for index, name in enumerate(header):
        table.add_column(name, justify="left" if index == 0 else "right")
    for row in rows:
        table.add_row(*row)
    return table


def _rich_summary(comparisons: list[compare.Comparison]) -> Table:
    table = Table(title="cross-check summary: upstream / Parity (Parity/upstream - 1)", title_justify="left")
    for index, name in enumerate(compare.summary_header()):
        table.add_column(name, justify="left" if index < 2 else "right")
    for c in comparisons:
        table.add_row(*compare.summary_row(c))
    return table


if __name__ == "__main__":
    sys.exit(main())
