"""Triage one stored result of a compiled-side failure.

  python -m tools.triage RESULT(.pb|.txtpb|.opinfo.pb) [--limit-s S] [--max-runs N] [--out DIR] [--keep-work DIR]
                         [--inductor-cache DIR]

Reruns the model's accuracy check as the result ran it (or an OpInfo case's samples: tools/triage/op_case.py),
bisects the compiler with torch's compiler bisector, minifies the failing graph with the Dynamo/AOT minifier, and
checks that the minified repro fails in a fresh interpreter. Writes <stem>.triage.txtpb (a parity.v1.TriageRecord)
and <stem>.repro.py beside the result (or into --out) and prints a summary. Exit status: 0 when the triage ran
(whatever it found, the limit included), 1 when the triage itself failed (OUTCOME_ERROR; the record says why), 2
when the input is not triaged (nothing is written).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from proto.codegen import ensure_generated  # noqa: E402

ensure_generated()

from parity.v1 import results_pb2 as pb  # noqa: E402
from proto.result_files import TRIAGE_TEXT_SUFFIX  # noqa: E402
from tools.triage.target import TriageInputError, result_stem  # noqa: E402
from tools.triage.triage import DEFAULT_LIMIT_S, triage  # noqa: E402

Record = pb.TriageRecord


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.triage", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("result", type=Path, help="a stored ModelResult (<stem>.pb or <stem>.txtpb), or an OpInfo "
                        "case's OpInfoResult (<stem>.opinfo.pb)")
    parser.add_argument("--limit-s", type=float, default=DEFAULT_LIMIT_S,
                        help="the whole triage's time limit in seconds (default %(default)g); every subprocess gets "
                             "what is left, and the record says how far each step got")
    parser.add_argument("--out", type=Path, default=None, help="folder for the record and repro (default: beside "
                        "the result)")
    parser.add_argument("--keep-work", type=Path, default=None, metavar="DIR",
                        help="keep the working files (each run's log and result, the minifier's folders) in DIR; "
                             "run again with the same DIR, a triage stopped by its limit goes on from where it stopped")
    parser.add_argument("--max-runs", type=int, default=0, metavar="N",
                        help="stop after N model runs (default 0: no limit), as --limit-s stops at a time")
    parser.add_argument("--inductor-cache", type=Path, default=None, metavar="DIR",
                        help="share compiled kernels with other runs through this Inductor cache (default: a fresh "
                             "one); compiled graphs are never shared, and the bisector's runs use a folder of their own")
    args = parser.parse_args(argv)
    try:
        record = triage(args.result, args.limit_s, args.out, args.keep_work, args.inductor_cache, args.max_runs)
    except TriageInputError as exc:
        print(f"tools.triage: {exc}", file=sys.stderr)
        return 2
    print(summary(record, (args.out or args.result.parent) / f"{result_stem(args.result)}{TRIAGE_TEXT_SUFFIX}"))
    return 1 if record.outcome == Record.OUTCOME_ERROR else 0


def summary(record: pb.TriageRecord, path: Path) -> str:
    """A few lines for a person: what was triaged, the culprit, the repro, how long."""
    outcome = Record.Outcome.Name(record.outcome).removeprefix("OUTCOME_").lower()
    culprit = " / ".join(p for p in (record.culprit_backend, record.culprit_subsystem) if p) or "not found"
    if record.culprit_subsystem and record.bisect_number >= 0:
        culprit += f" / bisect number {record.bisect_number}"
    if record.debug_info:
        culprit += f" ({record.debug_info})"
    reproduces = {Record.REPRODUCES_YES: "reproduces standalone", Record.REPRODUCES_NO: "does NOT reproduce standalone"}
    repro = (f"{record.repro_path}: {record.repro_lines} lines, {record.repro_nodes} FX nodes, "
             f"{reproduces.get(record.reproduces, 'not checked')}") if record.repro_path else "none"
    steps = ", ".join(f"{step} {seconds:.0f} s" for step, seconds in record.step_wall_s.items())
    lines = [f"triage of {record.suite}/{record.model} ({record.community_status}): {outcome} in {record.wall_s:.0f} s "
             f"of {record.limit_s:g} s ({steps})",
             f"  signature: {record.signature}",
             f"  culprit:   {culprit} ({record.bisect_runs} bisect runs)",
             f"  repro:     {repro}"]
    if record.error:
        lines.append("  notes:     " + record.error.splitlines()[0][:400])
    lines.append(f"  record:    {path}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
