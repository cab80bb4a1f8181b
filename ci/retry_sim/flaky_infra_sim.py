"""Simulated infrastructure flake (ci/retry_simulation.py): the first attempt exits 75, as ci/run_under
does when no device slot came free, and the next attempt passes. The attempt marker lives in
$PARITY_RETRY_SIM_DIR (default /tmp/parity-retry-sim), which the simulation clears and makes writable
for the sandbox."""

from __future__ import annotations

import os
import sys
from pathlib import Path

EXIT_TEMPFAIL = 75


def main() -> int:
    state = Path(os.environ.get("PARITY_RETRY_SIM_DIR", "/tmp/parity-retry-sim"))
    marker = state / "flaky_infra_sim.attempted"
    try:
        if not marker.exists():
            marker.write_text(f"first attempt, pid {os.getpid()}\n")
            print("simulated infrastructure failure: no device slot came free (exit 75)", file=sys.stderr)
            return EXIT_TEMPFAIL
    except OSError as exc:
        print(f"cannot use {state}: {exc}; run through ci/retry_simulation.py, which creates it and passes "
              f"--sandbox_writable_path", file=sys.stderr)
        return 2  # a configuration error, not the simulated flake
    print("second attempt: the device was free, the test ran and passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
