"""Simulated genuine accuracy failure (ci/retry_simulation.py): runs the real harness on the selftest
model whose compiled output is off by one, writes its real result (status fail_accuracy) where Bazel
collects outputs, and fails, standing for a model the manifest expects to pass. The nightly must report
it and must not retry it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from proto.codegen import ensure_generated

ensure_generated()

from suites.common.launcher import LaunchOptions, run_model  # noqa: E402
from suites.common.request import ModelRequest  # noqa: E402


def main() -> int:
    out = Path(os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR", "out/retry_sim"))
    request = ModelRequest(suite="selftest", model="differs_when_compiled", mode="inference", backend="aot_eager",
                           device="cpu", smoke=True, plan="accuracy", repeats=1, warmup=1)
    result = run_model(request, out, LaunchOptions(timeout_s=240))
    print(f"differs_when_compiled inference aot_eager: {result.community_status} ({result.failure.message})")
    if result.community_status != "fail_accuracy":
        print("the selftest model no longer fails its accuracy check: the simulation needs another model",
              file=sys.stderr)
        return 2
    print("FAIL: accuracy check failed (this target stands for a model expected to pass)", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
