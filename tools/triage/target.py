"""What a triage works on: one stored result of a compiled-side failure, and the request that runs its model again.

The model runs again as the result ran it (suite, model, mode, backend, device, smoke or full, the batch size its
accuracy was checked at, its Inductor overrides and its training step's optimizer), through the harness's own
launcher and child process, but with `--plan accuracy`: the accuracy check alone, no timing, unless the failure came
while timing (`rerun_plan`). Whether a run "fails the same way" is decided by its classified status (and, for
fail_to_run, the exception type), never by reading logs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from parity.v1 import results_pb2 as pb
from proto.result_files import PLAN_SUFFIX, TRIAGE_SUFFIX, text_form
from suites.common.manifest import ManifestError, load_manifest
from suites.common.request import MODE_NAMES, ModelRequest
from suites.common.result_io import ResultFileError, read_result
from tools.dashboard.signatures import is_compiled_side, is_failure, signature
from tools.store.failures import DIED_STATUSES, last_child_phase, opinfo_as_model_result
from tools.triage import op_case
from tools.triage.op_case import OpCaseRequest

# A child that died naming no phase (results from before the launcher recorded one) can still show it was timing:
# faulthandler's stack in its log tail passes through the harness's timing step.
_TIMING_FRAME = re.compile(r'suites/common/model_run\.py", line \d+ in _performance\b')
DEFAULT_MODEL_TIMEOUT_S = 2000.0  # the launcher's default, for results that do not record theirs
RESULT_SUFFIXES = (".pb", ".txtpb")
# Files beside the results that hold other messages (proto/result_files.py names them).
_OTHER_MESSAGES = {suffix: kind for binary, kind in ((PLAN_SUFFIX, "a run's plan"), (TRIAGE_SUFFIX, "a triage record"))
                   for suffix in (binary, text_form(binary))}


class TriageInputError(ValueError):
    """The triage was asked for something it does not do (the message says what, and what to give instead)."""


@dataclass(frozen=True)
class Target:
    path: Path                # the result file
    result: pb.ModelResult    # an OpInfo case's result read as a model's (opinfo_as_model_result)
    request: ModelRequest | OpCaseRequest  # the accuracy check of the result's configuration, or the case's run
    model_timeout_s: float    # the model's own timeout in the run that failed

    @property
    def stem(self) -> str:
        """The triage's files are named after it."""
        return result_stem(self.path)

    @property
    def status(self) -> str:
        return self.result.community_status

    @property
    def signature(self) -> str:
        return signature(self.result).label


def result_stem(path: Path) -> str:
    """<stem> of <stem>.pb / <stem>.txtpb, and of an OpInfo case's <stem>.opinfo.pb."""
    suffix = next((s for s in op_case.RESULT_SUFFIXES if path.name.endswith(s)), path.suffix)
    return path.name[:-len(suffix)] if suffix else path.name


def read_target(path: Path) -> Target:
    """The result at `path` as a triage target; TriageInputError for a missing file, anything but a ModelResult or an
    OpInfo case, or a failure that is not on the compiled side."""
    other = next((kind for suffix, kind in _OTHER_MESSAGES.items() if path.name.endswith(suffix)), "")
    if other:
        raise TriageInputError(f"{path} is {other}, not a model result: give the <stem>.pb (or .txtpb) of the model "
                               "run that failed, or the <stem>.opinfo.pb of an OpInfo case")
    if path.suffix not in RESULT_SUFFIXES:
        raise TriageInputError(f"{path}: give a model result file (<stem>.pb or <stem>.txtpb, as suites.run and the "
                               "Bazel model targets write them)")
    if not path.is_file():
        raise TriageInputError(f"{path}: no such file")
    if op_case.is_case_file(path):
        return _case_target(path)
    try:
        result = read_result(path)
    except ResultFileError as exc:
        raise TriageInputError(str(exc)) from None
    refusal = _refusal(result)
    if refusal:
        raise TriageInputError(f"{path}: {refusal}")
    config = result.config
    if config.mode not in MODE_NAMES:
        raise TriageInputError(f"{path}: its config names no mode (training or inference), so its run cannot be "
                               "repeated")
    plan = rerun_plan(result)
    request = ModelRequest(
        suite=config.suite, model=config.model, mode=MODE_NAMES[config.mode], backend=config.backend,
        device=config.device, smoke=config.smoke,
        # The batch size its accuracy was checked at (a performance-only result checked none: its run's size); a
        # rerun with timing times at the size the result timed at.
        batch_size=(config.accuracy_batch_size if plan == "accuracy" else 0) or config.batch_size,
        plan=plan, run_id="triage", inductor_config=config.inductor_overrides, optimizer=stepped_optimizer(config),
        timing_cap_s=0.0)  # timing, where it runs, is there to reach the failure: one round of pairs is enough
    return Target(path, result, request, config.timeout_s or DEFAULT_MODEL_TIMEOUT_S)


def _case_target(path: Path) -> Target:
    try:
        case, request = op_case.read_case(path)
    except (ValueError, OSError, DecodeError, text_format.ParseError) as exc:  # malformed, incomplete or unreadable
        raise TriageInputError(f"{path}: not a readable OpInfo result ({exc})") from None
    result = opinfo_as_model_result(case)
    refusal = _refusal(result)
    if refusal:
        raise TriageInputError(f"{path}: {refusal}")
    return Target(path, result, request, op_case.CASE_TIMEOUT_S)


def stepped_optimizer(config: pb.RunConfig) -> str:
    """The optimizer the result's training step used, for its rerun to step too. A result from before
    RunConfig.optimizer stepped the manifest's `optimizer` (accuracy-only runs got one of their own with that field;
    one commit, 1d1e286, ran them without recording it). "" for inference, or a model the manifest no longer has."""
    if config.optimizer or config.mode != pb.MODE_TRAINING:
        return config.optimizer
    try:
        return load_manifest(config.suite).model(config.model).optimizer
    except ManifestError:
        return ""


def rerun_plan(result: pb.ModelResult) -> str:
    """The accuracy check alone, unless the failure struck, or may have struck, while timing (which runs before the
    check, and which the accuracy plan skips): a failure in the timing phase, or a crash or timeout whose child
    began the performance or analysis phase last (or whose stack shows it timing), runs again with timing alone; a
    crash or timeout whose child named no phase (results from before the launcher recorded one) runs again as it
    ran, timing and then the check."""
    if result.failure.phase == pb.PHASE_TIMING:
        return "performance"
    if result.community_status in DIED_STATUSES and result.failure.phase == pb.PHASE_CHILD_PROCESS:
        phase = last_child_phase(result) or ("performance" if _TIMING_FRAME.search(result.failure.log_tail) else "")
        return "performance" if phase in ("performance", "analysis") else "both" if not phase else "accuracy"
    return "accuracy"


def _refusal(result: pb.ModelResult) -> str:
    """Why this result is not triaged ("" when it is)."""
    status = result.community_status
    if is_compiled_side(result):
        return ""
    if status in DIED_STATUSES:
        began = last_child_phase(result) or "none recorded"
        return (f"a {status} before compilation began (the last phase the model began: {began}); only a crash or "
                "timeout once compiled code was compiled or run is the compiler's to answer for")
    if not is_failure(result):
        return f"not a failure ({status}): there is nothing to triage"
    return (f"{status} is not a compiled-side failure (eager, load, OOM and harness outcomes say nothing of the "
            "compiler); triage takes fail_accuracy, fail_to_run, or a crash or timeout after compilation began")


def same_failure(original: pb.ModelResult, run: pb.ModelResult) -> bool:
    """Whether `run` failed as `original` did: the same status, and for fail_to_run the same exception type (another
    exception is another failure, which the bisector must not chase)."""
    if run.community_status != original.community_status:
        return False
    if original.community_status == "fail_to_run" and original.failure.exception_type:
        return run.failure.exception_type == original.failure.exception_type
    return True


def other_failure_note(what: str, original: pb.ModelResult, run: pb.ModelResult) -> str:
    """A note for a bisector test that failed, but not as `original` did: the bisector counts it as fixed (it chases
    this failure), so the culprit it names may only turn the failure into another one ("" for a pass or the same
    failure)."""
    if not is_failure(run) or same_failure(original, run):
        return ""
    lines = [line.strip() for line in (run.failure.message or run.accuracy.detail).splitlines() if line.strip()]
    # The error itself, not a wrapper's heading (Dynamo's "backend='aot_eager' raised:")
    first = next((line for line in lines if not line.endswith(":")), lines[0] if lines else "")
    said = f": {first[:160]}" if first else ""
    return (f"bisect: {what} ended in {described(run)}{said}; the bisector counts that as fixed, since it is not "
            f"{described(original)}")


def described(result: pb.ModelResult) -> str:
    """The status, with the exception type where there is one: what same_failure compares."""
    return result.community_status + (f" ({result.failure.exception_type})" if result.failure.exception_type else "")
