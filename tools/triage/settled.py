"""Runs a script under the settings of the accuracy check it came from:

  python -m tools.triage.settled --suite S --model M --device D SCRIPT [ARG...]

The model's process found its failing graph inside the check's settings: deterministic algorithms, no TF32, cuDNN
determinism (suites/common/settings.py and the device's determinism()). `python SCRIPT` runs with torch's defaults
instead, where a graph near its tolerance may be judged differently. So the minifier's process and the repro's check
run under this, with the harness's own context managers and the manifest entry's switches. An OpInfo case's
(`--suite opinfo`, `--model "<op> <dtype>"`) runs under the suite's high-precision mode and forced fallbacks.
"""

from __future__ import annotations

import argparse
import contextlib
import runpy
import sys
from collections.abc import Iterator

from compiler.devices.registry import get_device
from compiler.fallback.force import forced_fallbacks
from compiler.fallback.policy import policy_for
from compiler.precision import high_precision
from suites.common.manifest import load_manifest
from suites.common.request import ModelRequest
from suites.common.settings import accuracy_settings
from tools.store.failures import OPINFO_SUITE
from tools.triage import aot_check, dynamo_check
from tools.triage.op_case import OpCaseRequest


@contextlib.contextmanager
def check_settings(suite: str, model: str, device_type: str) -> Iterator[None]:
    """What the harness's accuracy check runs its compiled model under (a run that compiles for its check); for an
    OpInfo case, what the suite runs every case under (opinfo/run.py)."""
    if suite == OPINFO_SUITE:
        with high_precision(), forced_fallbacks(policy_for(device_type)):
            yield
        return
    entry = load_manifest(suite).model(model)
    device = get_device(device_type)
    device.prepare_deterministic_runs()
    with accuracy_settings(deterministic_algorithms=entry.deterministic_algorithms,
                           reduced_precision_reductions=entry.reduced_precision_reductions), device.determinism():
        yield


def command(request: ModelRequest | OpCaseRequest) -> list[str]:
    """The argv prefix that runs a script under the check settings of `request`'s model (append the script and its
    arguments)."""
    return [sys.executable, "-m", "tools.triage.settled", "--suite", request.suite, "--model", request.model,
            "--device", request.device]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.triage.settled", description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    sys.argv = [args.script, *args.args]
    dynamo_check.install()  # a minifier or repro cut after Dynamo checks graphs the way torch 2.14 cannot alone
    aot_check.install()  # and one cut after AOT Autograd keeps its inputs through a query that raised
    with check_settings(args.suite, args.model, args.device):
        runpy.run_path(args.script, run_name="__main__")


if __name__ == "__main__":
    main()
