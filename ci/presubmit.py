"""Presubmit: test only the targets a change affects, through the remote cache, and say what happened.

  python -m ci.presubmit --base origin/main                     # read the remote cache (everyone)
  python -m ci.presubmit --base origin/main --cache write       # CI: read and write it
  python -m ci.presubmit --base origin/main --cache off --no-disk-cache

The affected set comes from `python -m tools.affected` (FULL / SKIP / IMPACTED with a reason; any doubt
is FULL, i.e. `//...`). Bazel runs with --config=ci --config=presubmit (disk cache, --keep_going, the
presubmit tag filter) plus --config=remote_cache or --config=remote_cache_push, and writes its build
event file; the summary that follows says how many targets ran, how many were cache hits and which
failed. Exit code: 0 when no test failed (or nothing was affected), 1 when a test failed, Bazel's own
code for build or configuration errors.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ci.bazel_summary import RunSummary, summarize

CACHE_CONFIGS = {"read": ["--config=remote_cache"], "write": ["--config=remote_cache_push"], "off": []}
# `bazel test` exit codes: 3 = some test failed, 4 = no test targets matched (both are results, not errors).
TESTS_FAILED, NO_TESTS = 3, 4


@dataclass(frozen=True)
class Selection:
    decision: str  # FULL | SKIP | IMPACTED
    reason: str
    targets: tuple[str, ...]  # what to pass to `bazel test` (empty: nothing to run)


def select_targets(repo: Path, base: str, python: str, bazel: str = "bazel") -> Selection:
    """The affected-target decision of tools.affected, which already fails open; a CLI that cannot be
    read is one more doubt, so it also gives FULL."""
    command = [python, "-m", "tools.affected", "--base", base, "--repo", str(repo), "--format=json",
               "--bazel", bazel]
    try:
        done = subprocess.run(command, cwd=repo, capture_output=True, text=True)
    except OSError as exc:
        return Selection("FULL", f"tools.affected could not run ({exc})", ("//...",))
    try:
        answer = json.loads(done.stdout)
        decision, reason, tests = answer["decision"], answer["reason"], tuple(answer["tests"])
    except (json.JSONDecodeError, KeyError, TypeError):
        tail = (done.stderr or done.stdout).strip()[-500:]
        return Selection("FULL", f"tools.affected gave no readable answer (exit {done.returncode}): {tail}", ("//...",))
    if decision == "FULL":
        return Selection(decision, reason, ("//...",))
    if decision == "SKIP":
        return Selection(decision, reason, ())
    if decision == "IMPACTED":
        return Selection(decision, reason, tests)
    return Selection("FULL", f"tools.affected answered an unknown decision {decision!r}", ("//...",))


def bazel_command(bazel: str, targets_file: Path, bep: Path, cache: str, disk_cache: bool,
                  extra: list[str]) -> list[str]:
    return [bazel, "test", "--config=ci", "--config=presubmit", *CACHE_CONFIGS[cache],
            *([] if disk_cache else ["--disk_cache="]), "--keep_going",
            f"--build_event_json_file={bep}", f"--target_pattern_file={targets_file}", *extra]


def run(repo: Path, base: str, cache: str, disk_cache: bool, out: Path, bazel: str, python: str,
        extra: list[str]) -> tuple[int, RunSummary | None]:
    started = time.monotonic()
    selection = select_targets(repo, base, python, bazel)
    print(f"[presubmit] {selection.decision}: {selection.reason}")
    if not selection.targets:
        print("[presubmit] nothing to test")
        return 0, None
    out.mkdir(parents=True, exist_ok=True)
    targets_file, bep = out / "presubmit_targets.txt", out / "presubmit_bep.json"
    targets_file.write_text("".join(f"{t}\n" for t in selection.targets))
    command = bazel_command(bazel, targets_file.resolve(), bep.resolve(), cache, disk_cache, extra)
    print(f"[presubmit] {' '.join(command)}  ({len(selection.targets)} patterns)", flush=True)
    code = subprocess.run(command, cwd=repo).returncode
    elapsed = time.monotonic() - started
    if code not in (0, TESTS_FAILED, NO_TESTS):
        print(f"[presubmit] bazel exited {code} (build or configuration error) after {elapsed:.1f} s", file=sys.stderr)
        return code, None
    summary = summarize(bep)
    print("\n".join(summary.lines()))
    print(f"[presubmit] {selection.decision}, cache {cache}: {len(summary.targets)} tests in {elapsed:.1f} s")
    return (1 if summary.failed else 0), summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ci.presubmit", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True, help="revision the change is compared with (its merge base)")
    parser.add_argument("--cache", choices=sorted(CACHE_CONFIGS), default="read",
                        help="remote cache use: read (everyone), write (CI), off")
    parser.add_argument("--no-disk-cache", action="store_true", help="leave the local disk cache out")
    parser.add_argument("--repo", type=Path, default=Path.cwd())
    parser.add_argument("--out", type=Path, default=Path("out"), help="where the target list and BEP go")
    parser.add_argument("--bazel", default="bazel")
    parser.add_argument("--python", default=sys.executable, help="interpreter for tools.affected")
    parser.add_argument("bazel_args", nargs="*", help="more `bazel test` flags, after --")
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    out = args.out if args.out.is_absolute() else repo / args.out
    code, _ = run(repo, args.base, args.cache, not args.no_disk_cache, out, args.bazel, args.python, args.bazel_args)
    return code


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
