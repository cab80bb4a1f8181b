"""Results store CLI.

  python -m tools.store ingest  --db out/parity.db RESULT_PATHS... [--run-id ID] [--commit SHA]
  python -m tools.store migrate --db out/parity.db                    (brings an older store up to this schema)
  python -m tools.store summary --db out/parity.db [--run-id ID]      (default: the newest run)
  python -m tools.store export-hud --db out/parity.db --run-id ID --out rows.json   (HUD v3 rows, JSON lines)
  python -m tools.store problems --db out/parity.db [--model M]      (tracked bottlenecks, first and last seen)
  python -m tools.store triages --db out/parity.db [--run-id ID]    (stored triages, one per failure signature)
  python -m tools.store verdicts --db out/parity.db --run-id NEW --base BASE   (regression, improvement or noise,
      per model, beside the HUD's 5% rule; tools/store/verdicts.py says how a verdict is decided)
  python -m tools.store import-community --db out/parity.db --run-id h100-2026-12 --device-name "NVIDIA H100" \
      inductor_with_cudagraphs_timm_models_bfloat16_inference_cuda_h100_{accuracy,performance}.csv

RESULT_PATHS are result files or folders: the CLI's --out folders, or Bazel's test logs
(.bazel/testlogs/...), whose outputs.zip files hold the results. Triage records tools/triage wrote beside a
result (<stem>.triage.txtpb, and the <stem>.repro.py it names) are stored with them; a signature keeps its
stored triage unless the new one got further (tools/store/triages.py states the rule).
--db is a SQLite file (the default, created if absent) or a postgresql://user@host:port/dbname URL;
$PARITY_DB sets the default.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from pathlib import Path

from proto.codegen import ensure_generated

ensure_generated()

from tools.store.db import (ORIGIN_COMMUNITY, IngestError, LoadedResult, StoreError, connect, display_name,  # noqa: E402
                            ingest, ingest_batch, load_results, newest_run, plan_progress, stored_results,
                            tracked_problems)
from tools.store.hud_interop import InteropError, import_community_csvs, to_hud_rows  # noqa: E402
from tools.store.hud import render, summarize  # noqa: E402
from tools.store.verdicts import compare_runs  # noqa: E402
from tools.store.triages import StoredTriage, triages  # noqa: E402
from tools.store.verdicts import render as render_verdicts  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.store", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    db_help = "SQLite file (created if absent) or postgresql:// URL; default $PARITY_DB or out/parity.db"
    parser.add_argument("--db", default=os.environ.get("PARITY_DB", "out/parity.db"), help=db_help)
    sub = parser.add_subparsers(dest="command", required=True)
    ingest_cmd = sub.add_parser("ingest", help="store result files (all or nothing)")
    ingest_cmd.add_argument("paths", nargs="+", type=Path)
    sub.add_parser("migrate", help="apply pending schema migrations")
    ingest_cmd.add_argument("--run-id", default="",
                            help="run id for results that carry none (Bazel's); their ids then name the run too, so "
                                 "each night's ingest adds its rows beside the last one's")
    ingest_cmd.add_argument("--commit", default="", help="commit for results that carry none")
    summary_cmd = sub.add_parser("summary", help="print the HUD summary of a run")
    summary_cmd.add_argument("--run-id", default="")
    export_cmd = sub.add_parser("export-hud", help="write a run as HUD v3 benchmark rows (JSON lines)")
    export_cmd.add_argument("--run-id", required=True)
    export_cmd.add_argument("--out", type=Path, required=True)
    export_cmd.add_argument("--repo", default="")
    import_cmd = sub.add_parser("import-community",
                                help="store upstream benchmark outputs (CSV or JSON) as a baseline run")
    import_cmd.add_argument("csvs", nargs="+", type=Path)
    import_cmd.add_argument("--run-id", required=True)
    import_cmd.add_argument("--device-name", required=True, help='e.g. "NVIDIA H100 80GB HBM3"')
    problems_cmd = sub.add_parser("problems", help="list tracked bottlenecks (one per signature)")
    problems_cmd.add_argument("--model", default="")
    verdicts_cmd = sub.add_parser("verdicts", help="Parity's verdict per model between two runs, beside the HUD's")
    verdicts_cmd.add_argument("--run-id", required=True, help="the new run")
    verdicts_cmd.add_argument("--base", required=True, help="the run to compare with (same device)")
    triages_cmd = sub.add_parser("triages", help="list stored triages (one per failure signature)")
    triages_cmd.add_argument("--run-id", default="", help="only the triages of this run's results")
    for command in sub.choices.values():  # --db is accepted after the command too
        command.add_argument("--db", default=argparse.SUPPRESS, help=db_help)
    args = parser.parse_args(argv)
    shown = display_name(args.db)  # a postgresql:// URL may hold a password
    try:
        # Only ingest, import-community and migrate write; the others must not create a store at a mistyped path.
        conn = connect(args.db, read_only=args.command in ("summary", "export-hud", "problems", "verdicts",
                                                           "triages"))
        if args.command == "migrate":
            print(f"{shown}: schema version {conn.schema_version()}")
            return 0
        if args.command == "ingest":
            counts = ingest_batch(conn, load_results(args.paths, run_id=args.run_id, commit=args.commit),
                                  source=" ".join(str(p) for p in args.paths))
            print(f"{counts.describe()} in {shown}")
            return 0
        if args.command == "import-community":
            results = import_community_csvs(args.csvs, args.run_id, args.device_name)
            stored = {r.result_id: r for r in stored_results(conn, args.run_id)}
            changed = sorted(r.config.model for r in results if r.result_id in stored and stored[r.result_id] != r)
            if changed:  # an accuracy file and its performance file apart would each overwrite the other's half
                print(f"error: run {args.run_id!r} already holds other baseline results for {len(changed)} models "
                      f"({', '.join(changed[:3])}{', ...' if len(changed) > 3 else ''}); import a run's accuracy and "
                      "performance files in one call, which merges them per model, or give a new --run-id. "
                      "Nothing was stored", file=sys.stderr)
                return 2
            count = ingest(conn, [LoadedResult(str(args.csvs[0]), r, ORIGIN_COMMUNITY) for r in results],
                           source=" ".join(str(p) for p in args.csvs))
            print(f"stored {count} baseline results of run {args.run_id} in {shown}")
            return 0
        if args.command == "export-hud":
            rows = [row for r in stored_results(conn, args.run_id) for row in to_hud_rows(r, repo=args.repo)]
            if not rows:
                print(f"error: run {args.run_id!r} has no results in {shown}", file=sys.stderr)
                return 2
            try:
                args.out.write_text("".join(json.dumps(row) + "\n" for row in rows))
            except OSError as exc:
                print(f"error: cannot write {args.out} ({exc.strerror}): give --out a path in an existing, "
                      "writable folder", file=sys.stderr)
                return 2
            print(f"wrote {len(rows)} HUD v3 rows to {args.out}")
            return 0
        if args.command == "problems":
            problems = tracked_problems(conn, args.model)
            print(f"{len(problems)} tracked problems in {shown}")
            for p in problems:
                print(f"{p.model} {p.mode} {p.backend} {p.device_type}: {p.cause}\n"
                      f"  signature {p.signature}\n  first seen {p.first_seen_run}, last seen {p.last_seen_run}, "
                      f"{p.results} results")
            return 0
        if args.command == "triages":
            found = triages(conn, args.run_id)
            print(f"{len(found)} stored triages in {shown}" + (f" of run {args.run_id}" if args.run_id else ""))
            for t in found:
                print(describe_triage(t))
            return 0
        if args.command == "verdicts":
            found = compare_runs(conn, args.run_id, args.base)
            if not found:
                print(f"error: run {args.run_id!r} has no results in {shown}", file=sys.stderr)
                return 2
            print(f"Verdicts: run {args.run_id} against {args.base} ({shown})")
            print(render_verdicts(found))
            return 0
        run_id = args.run_id or newest_run(conn)
        if not run_id:
            print(f"error: {shown} holds no results; ingest some first", file=sys.stderr)
            return 2
        summary, progress = summarize(conn, run_id), plan_progress(conn, run_id)
        if not summary and not progress.planned:
            print(f"error: run {run_id!r} has no results in {shown}", file=sys.stderr)
            return 2
        print(f"HUD summary of run {run_id} ({shown}); {progress.describe()}")
        print(render(summary))
        return 0
    except (IngestError, InteropError, StoreError, sqlite3.DatabaseError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def describe_triage(t: StoredTriage) -> str:
    r = t.record
    repro = (f"{t.repro_name} ({r.repro_lines} lines, {r.repro_nodes} nodes), reproduces {t.reproduces}"
             if t.repro_name else "no repro")
    lines = [f"{t.configuration}: {r.community_status}, triage {t.outcome} in {r.wall_s:.0f} s of {r.limit_s:.0f} s",
             f"  signature {t.signature}",
             f"  culprit {t.culprit or 'none named'}" + (f" ({r.debug_info.splitlines()[0][:120]})" if r.debug_info
                                                       else ""),
             f"  {repro}; result {r.result_id} of run {r.run_id or '?'}; id {t.triage_id}"]
    if r.error:
        lines.append(f"  error: {r.error.splitlines()[0][:200]}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
