"""Op sets of suite models: trace them (fake tensors), store them, check they are current.

  python -m tools.opsets update --suite timm [--models a,b]   # trace and write suites/timm/opsets.bzl
  python -m tools.opsets reclassify --suite timm              # families from the stored ops (after a
                                                              # compiler/lowering pattern change; no tracing)
  python -m tools.opsets check [--suite timm ...]             # exit 1 with the reasons when stale
  python -m tools.opsets families --suite timm                # model -> families, one per line

A model whose trace fails is stored with its error and depends on every family (never on too few).
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback

from compiler.lowering.registry import FAMILY_NAMES
from tools.opsets.check import stale_reasons
from tools.opsets.data import OpSets, entry_sha256, families_of, library_versions, load_opsets, opsets_path, \
    raw_manifest_models


def update(suite: str, models: list[str] | None) -> int:
    from proto.codegen import ensure_generated

    ensure_generated()  # the harness (suites.common) imports the results schema
    from tools.opsets.trace import trace_ops

    manifest = raw_manifest_models(suite)
    unknown = sorted(set(models or []) - set(manifest))
    if unknown:
        print(f"unknown models for suite {suite}: {', '.join(unknown)}", file=sys.stderr)
        return 2
    versions = library_versions(suite)
    previous = load_opsets(suite)
    keep = previous.models if previous and previous.generated_with == versions else {}
    opsets = OpSets(suite=suite, generated_with=versions,
                    models={m: e for m, e in keep.items() if m in manifest})
    chosen = models or sorted(manifest)
    failures = 0
    for index, model in enumerate(chosen, 1):
        start = time.time()
        entry = {"entry_sha256": entry_sha256(manifest[model]), "ops": {}}
        try:
            for mode in sorted(manifest[model]["modes"]):
                entry["ops"][mode] = sorted(trace_ops(suite, model, mode))
            entry["families"] = families_of({op for ops in entry["ops"].values() for op in ops})
        except Exception as exc:  # noqa: BLE001 (record and go on: the model then depends on every family)
            failures += 1
            entry["trace_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
            entry["families"] = list(FAMILY_NAMES)
            traceback.print_exc()
        opsets.models[model] = entry
        print(f"[{index}/{len(chosen)}] {model}: {len(entry['families'])} families "
              f"{'(trace failed) ' if 'trace_error' in entry else ''}in {time.time() - start:.1f} s", flush=True)
    opsets_path(suite).write_text(opsets.render())
    print(f"wrote {opsets_path(suite)} ({len(opsets.models)} models, {failures} trace failures)")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.opsets", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    up = commands.add_parser("update", help="trace models and write suites/<suite>/opsets.bzl")
    up.add_argument("--suite", required=True)
    up.add_argument("--models", default="", help="comma-separated subset (default: every model)")
    check = commands.add_parser("check", help="fail when a suite's opsets.bzl is stale")
    check.add_argument("--suite", action="append", required=True)
    recl = commands.add_parser("reclassify", help="recompute families from the stored op sets")
    recl.add_argument("--suite", required=True)
    fam = commands.add_parser("families", help="print model -> families")
    fam.add_argument("--suite", required=True)
    args = parser.parse_args(argv)
    if args.command == "update":
        return update(args.suite, [m for m in args.models.split(",") if m] or None)
    if args.command == "check":
        reasons = [f"{suite}: {reason}" for suite in args.suite for reason in stale_reasons(suite)]
        print("\n".join(reasons) if reasons else f"op sets current: {', '.join(args.suite)}")
        return 1 if reasons else 0
    opsets = load_opsets(args.suite)
    if opsets is None:
        print(f"no op sets for suite {args.suite}: run `python -m tools.opsets update --suite {args.suite}`",
              file=sys.stderr)
        return 1
    if args.command == "reclassify":
        for entry in opsets.models.values():
            if "trace_error" not in entry:
                entry["families"] = families_of({op for ops in entry["ops"].values() for op in ops})
        opsets_path(args.suite).write_text(opsets.render())
        print(f"wrote {opsets_path(args.suite)}")
        return 0
    for model, entry in sorted(opsets.models.items()):
        print(f"{model}: {' '.join(entry['families'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
