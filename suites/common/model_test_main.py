"""Entry point of one generated model target (tools/build_defs/suite_tests.bzl); also runs without Bazel.

Runs the model in a child process with a timeout, writes its result into $TEST_UNDECLARED_OUTPUTS_DIR
(or --out), and passes when the outcome equals the manifest's expected status.
Device and variant come from the environment so that one target serves every machine:
  PARITY_DEVICE   cpu (default) | cuda | npu      (set by --config=cuda / --config=npu)
  PARITY_VARIANT  smoke (default on cpu) | full (default elsewhere)
  PARITY_INDUCTOR_CACHE  a compile cache shared between targets (CI smoke); unset = cold start
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from proto.codegen import ensure_generated

ensure_generated()

from suites.common.launcher import LaunchOptions, run_model  # noqa: E402
from suites.common import cpu_sets  # noqa: E402
from suites.common.request import ModelRequest  # noqa: E402

SMOKE_REPEATS, SMOKE_WARMUP = 3, 2  # smoke timings prove the path works; they are not benchmarks
TIMEOUT_MARGIN_S = 30  # classify a hang ourselves before Bazel's own timeout kills us


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag in ("--suite", "--model", "--mode", "--backend"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    device = os.environ.get("PARITY_DEVICE", "cpu")
    smoke = os.environ.get("PARITY_VARIANT", "smoke" if device == "cpu" else "full") == "smoke"
    out = args.out or Path(os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR", "out/model_tests"))
    bazel_timeout = float(os.environ.get("TEST_TIMEOUT", "0"))
    timeout = bazel_timeout - TIMEOUT_MARGIN_S if bazel_timeout > 2 * TIMEOUT_MARGIN_S else 2000.0
    cache = os.environ.get("PARITY_INDUCTOR_CACHE")
    request = ModelRequest(suite=args.suite, model=args.model, mode=args.mode, backend=args.backend, device=device,
                           smoke=smoke, repeats=SMOKE_REPEATS if smoke else 30, warmup=SMOKE_WARMUP if smoke else 5)
    cpus = cpu_sets.split() if device != "cpu" else None  # timing on cores of its own (not on the host device)
    result = run_model(request, out, LaunchOptions(timeout_s=timeout, inductor_cache=Path(cache) if cache else None,
                                                   cpus=cpus if cpus is not None and cpus.isolated else None))
    from suites.common.status import to_string

    expected = to_string(result.expected_status)
    print(f"{args.model} {args.mode} {args.backend} on {device}{' (smoke)' if smoke else ''}: "
          f"{result.community_status} (expected {expected}) in {result.wall_time_s:.1f} s")
    if result.failure.message:
        print(f"  {result.failure.message}")
    if result.status != result.expected_status:
        print(f"FAIL: outcome {result.community_status} differs from the manifest's expected {expected}; "
              f"log and result in {out}", file=sys.stderr)
        if result.failure.log_tail:
            print(result.failure.log_tail, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
