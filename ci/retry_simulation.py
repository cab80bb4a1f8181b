"""Checks the nightly's retry policy end to end with real Bazel runs of two simulation targets:

  python -m ci.retry_simulation

//ci/retry_sim:flaky_infra_sim exits 75 (no device slot) on its first attempt and passes on the next:
the nightly must retry it and report it passed after 2 attempts. //ci/retry_sim:accuracy_failure_sim
runs the real harness on a model whose compiled output is wrong (status fail_accuracy): the nightly must
report it failed after 1 attempt, classified as a model outcome. Exit code 1 when either expectation
fails, with what was seen.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from ci import nightly

STATE = Path("/tmp/parity-retry-sim")  # also the default of flaky_infra_sim.py
FLAKY, ACCURACY = "//ci/retry_sim:flaky_infra_sim", "//ci/retry_sim:accuracy_failure_sim"
EXPECTED = {
    FLAKY: {"status": "PASSED", "attempts": 2, "kind": "passed"},
    ACCURACY: {"status": "FAILED", "attempts": 1, "kind": "model outcome", "result_status": "fail_accuracy"},
}


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="python -m ci.retry_simulation", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)  # --help only
    shutil.rmtree(STATE, ignore_errors=True)
    STATE.mkdir(parents=True)
    archive = STATE / "archive"
    code = nightly.main(["--targets", FLAKY, ACCURACY, "--retries", "2", "--retry-delay", "0", "--no-store",
                         "--archive", str(archive), "--date", "simulation", "--device", "cpu", "--",
                         f"--sandbox_writable_path={STATE}"])
    records = {r["label"]: r for r in json.loads((archive / "simulation" / "cpu" / "nightly.json").read_text())}
    problems = []
    for label, expected in EXPECTED.items():
        seen = records.get(label)
        if seen is None:
            problems.append(f"{label}: not in the nightly's records")
            continue
        wrong = {k: (seen[k], v) for k, v in expected.items() if seen[k] != v}
        if wrong:
            problems.append(f"{label}: " + ", ".join(f"{k} was {a!r}, expected {b!r}" for k, (a, b) in wrong.items()))
        else:
            print(f"[retry-simulation] {label}: {seen['status']} after {seen['attempts']} attempt(s) "
                  f"({seen['kind']}: {seen['reason']})")
    if code != 1:
        problems.append(f"the nightly exited {code}; with a genuine accuracy failure it must exit 1")
    for problem in problems:
        print(f"[retry-simulation] FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
