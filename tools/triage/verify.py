"""Checks that the stored repro fails on its own: the stored `<stem>.repro.py` in a fresh interpreter, with the
environment the model ran in, must fail as the model did.

It runs under the accuracy check's settings (settled.py), as the model's check did. A minified repro's default
command (`run`) compiles its graph with Inductor and runs it; an accuracy repro then
compares it with eager (fp64 reference) and raises AccuracyError when it is off. So: fail_accuracy reproduces when the
script raises AccuracyError; fail_to_run when it exits with an error; crash when it dies from a signal (or Python's
fatal-error handler); timeout when it is still running at the model's own timeout.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from suites.common.process_group import run_in_own_group
from tools.triage.budget import Budget, GaveUp
from tools.triage.runs import log, script_env, tail

ACCURACY_ERROR = "AccuracyError"
FATAL_ERROR = "Fatal Python error"


@dataclass(frozen=True)
class Verdict:
    reproduces: bool
    output_tail: str
    why: str


def verify(script: Path, status: str, cache: Path, work: Path, budget: Budget, model_timeout_s: float,
           runner: list[str]) -> Verdict:
    """runner: the argv prefix the script runs under (settled.command: the accuracy check's settings)."""
    folder = work / "verify"
    folder.mkdir(parents=True, exist_ok=True)
    left = budget.left_for("the repro's check")
    timeout_s = min(model_timeout_s, left)
    run = run_in_own_group([*runner, str(script)], cwd=folder, env=script_env(cache), log=folder / "repro.log",
                           timeout_s=timeout_s)
    output_tail = tail(run.log)
    log(f"repro check: {'killed at its time limit' if run.timed_out else f'exit {run.returncode}'} "
        f"in {run.wall_s:.0f} s")
    if run.timed_out:
        if status == "timeout" and timeout_s >= model_timeout_s:
            return Verdict(True, output_tail, f"still running at the model's {model_timeout_s:g} s timeout")
        raise GaveUp(f"the {budget.limit_s:g} s limit stopped the repro's check")
    code = run.returncode
    assert code is not None
    if status == "fail_accuracy":
        failed = code != 0 and ACCURACY_ERROR in output_tail
        why = "it raised AccuracyError" if failed else f"it exited {code} without an AccuracyError"
    elif status == "crash":
        failed = code < 0 or FATAL_ERROR in output_tail
        why = f"it died (exit {code})" if failed else f"it exited {code} without dying"
    elif status == "fail_to_run":
        failed = code > 0
        why = f"it raised (exit {code})" if failed else "it ran to its end" if code == 0 else f"it died (exit {code})"
    else:  # timeout: it ended before the model's timeout
        failed = False
        why = f"it ended (exit {code}) within the model's {model_timeout_s:g} s timeout"
    return Verdict(failed, output_tail, why)
