"""Failure signatures (so one root cause shows as one group, and is triaged once) and which failures are on the
compiled side (the only ones tools/triage bisects and minifies; an eager failure says nothing of the compiler).

The dashboard's failures page groups by `signature(result).label`, and the store keys triages by it
(tools/store/triages.py), so both live here, below the dashboard and the nightly that use them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from parity.v1 import opinfo_pb2
from parity.v1 import results_pb2 as pb
from tools.store.names import enum_name, mode_name

PASSING = ("pass", "pass_due_to_skip", "eager_variation")  # the HUD's pass set
NOT_FAILURES = (*PASSING, "skipped")
_VOLATILE = (  # parts of a message that differ between runs of the same failure
    (re.compile(r"0x[0-9a-fA-F]+"), "<addr>"),
    (re.compile(r"(/[\w.+-]+)+/"), "…/"),
    (re.compile(r"\d+(\.\d+)?"), "N"),
)

# What tools/triage takes: the compiled run's own failures, and a crash or timeout once compilation began.
COMPILED_STATUSES = ("fail_accuracy", "fail_to_run")
DIED_STATUSES = ("crash", "timeout")
COMPILED_PHASES = (pb.PHASE_COMPILE, pb.PHASE_COMPILED_RUN, pb.PHASE_ACCURACY_CHECK, pb.PHASE_TIMING)
OPINFO_SUITE = "opinfo"  # an OpInfo case read as a model result (opinfo_as_model_result)
# The OpInfo outcomes that are failures: the failures page shows them, the nightly's triage takes them.
FAILING_CASE_OUTCOMES = (opinfo_pb2.OPINFO_OUTCOME_FAIL, opinfo_pb2.OPINFO_OUTCOME_XFAIL)
# A failing OpInfo case read as a model's failure: values or gradients that differ are an accuracy failure; compiled
# code that raised, in its compile or its run, a failure to run. The runner's own error has no phase: infra_error.
_OPINFO_FAILURE_STATUS = {pb.PHASE_ACCURACY_CHECK: "fail_accuracy", pb.PHASE_COMPILE: "fail_to_run",
                          pb.PHASE_COMPILED_RUN: "fail_to_run"}
# A child that died leaves phase CHILD_PROCESS; the launcher appends the last phase its log says it began
# (suites/common/launcher.py). These are the harness's phases that compile or run compiled code.
COMPILED_CHILD_PHASES = ("performance", "analysis", "compiled_check")
_LAST_PHASE = re.compile(r"the last phase it began: (\w+)")
# Where a child's log names no phase (results from before the launcher recorded one), its log tail can still show
# compiled code running when it died: faulthandler's stack passes through these (eager code never does).
COMPILED_FRAMES = ("torch/_dynamo/eval_frame.py", "torch/_inductor/", "torch/_functorch/_aot_autograd/")


@dataclass(frozen=True)
class Signature:
    status: str
    phase: str
    exception: str
    message: str
    configuration: str = ""  # suite/model mode backend device, where no exception tells failures apart

    @property
    def label(self) -> str:
        parts = [self.status, self.phase, self.exception, self.message, self.configuration]
        return " · ".join(p for p in parts if p)


def is_failure(result: pb.ModelResult) -> bool:
    return result.community_status not in NOT_FAILURES


def phase_name(result: pb.ModelResult) -> str:
    phase = result.failure.phase
    return enum_name(pb.Phase, phase, "PHASE_")


def signature(result: pb.ModelResult) -> Signature:
    """Status, phase, exception type and the first message line with numbers, addresses and paths
    masked; a timeout during compilation is named as such. A failure that raised no exception (an accuracy failure,
    a crash, a timeout: their messages are the harness's own, alike for every model) shows nothing that two models
    share a cause, so its signature also names the model configuration: one model's recurring `fail_accuracy` is
    one signature, and five models' are five, each triaged on its own."""
    status = result.community_status
    phase = phase_name(result)
    if status == "timeout" and result.failure.phase == pb.PHASE_COMPILE:
        status = "compile timeout"
    first_line = next((line.strip() for line in result.failure.message.splitlines() if line.strip()), "")
    for pattern, replacement in _VOLATILE:
        first_line = pattern.sub(replacement, first_line)
    if not first_line and result.failure.signal:
        first_line = f"signal {result.failure.signal}"
    exception = result.failure.exception_type
    configuration = "" if exception else configuration_label(result.config)
    return Signature(status, phase, exception, first_line[:160], configuration)


def opinfo_as_model_result(result: opinfo_pb2.OpInfoResult) -> pb.ModelResult:
    """An OpInfo case as the failures page and tools/triage read a model's result: suite `opinfo`, model `<op>
    <dtype>`, backend inductor (what the suite compiles with), and its first failing sample's failure. Status: pass,
    skipped, or for FAIL and XFAIL the status of the failure's phase."""
    if result.outcome == opinfo_pb2.OPINFO_OUTCOME_PASS:
        status = "pass"
    elif result.outcome == opinfo_pb2.OPINFO_OUTCOME_SKIP:
        status = "skipped"
    else:
        status = _OPINFO_FAILURE_STATUS.get(result.failure.phase, "infra_error")
    config = pb.RunConfig(suite=OPINFO_SUITE, model=opinfo_model(opinfo_case_name(result), result.dtype),
                          backend="inductor", device=result.device)
    view = pb.ModelResult(result_id=result.result_id, run_id=result.run_id, community_status=status, config=config)
    if result.expected_outcome == opinfo_pb2.OPINFO_OUTCOME_PASS:  # no expectation entry: the case should pass
        view.expected_status = pb.STATUS_PASS
    view.failure.CopyFrom(result.failure)
    view.provenance.CopyFrom(result.provenance)
    if status == "fail_accuracy":  # a comparison's AssertionError, alike for every op, as a model's accuracy failure:
        view.failure.exception_type = ""  # the signature then names the case (one triage per case, not one for all)
        view.accuracy.detail = result.reason
    return view


def opinfo_case_name(result: opinfo_pb2.OpInfoResult) -> str:
    """OpInfo's full name of the case's op: name, or name.variant."""
    return result.op + (f".{result.variant}" if result.variant else "")


def opinfo_model(op: str, dtype: str) -> str:
    """The model name an OpInfo case goes by, read as a model result: "<op> <dtype>"."""
    return f"{op} {dtype}"


def configuration_label(config: pb.RunConfig) -> str:
    return " ".join(p for p in (f"{config.suite}/{config.model}", mode_name(config.mode), config.backend,
                                config.device) if p)


def last_child_phase(result: pb.ModelResult) -> str:
    """The harness phase a child that died had begun last ("" when its log named none)."""
    found = _LAST_PHASE.search(result.failure.message)
    return found.group(1) if found else ""


def is_compiled_side(result: pb.ModelResult) -> bool:
    """fail_accuracy, fail_to_run, or a crash or timeout at or after the compile phase (by the phase the child
    began last, else by compiled frames in its log tail). Eager failures, load failures, OOM and infrastructure
    outcomes are not the compiler's to answer for."""
    status = result.community_status
    if status in COMPILED_STATUSES:
        return True
    if status not in DIED_STATUSES:
        return False
    if result.failure.phase in COMPILED_PHASES:
        return True
    if result.failure.phase != pb.PHASE_CHILD_PROCESS:
        return False
    if phase := last_child_phase(result):
        return phase in COMPILED_CHILD_PHASES
    return any(frame in result.failure.log_tail for frame in COMPILED_FRAMES)
