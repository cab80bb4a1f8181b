"""Failure signatures (so one root cause shows as one group) and risks (a passing run that still
needs a look: unexpected recompiles, cache misses where the run was warm, an unexpected status)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from parity.v1 import results_pb2 as pb
from tools.store.db import enum_name

NOT_FAILURES = ("pass", "pass_due_to_skip", "eager_variation", "skipped")
_VOLATILE = (  # parts of a message that differ between runs of the same failure
    (re.compile(r"0x[0-9a-fA-F]+"), "<addr>"),
    (re.compile(r"(/[\w.+-]+)+/"), "…/"),
    (re.compile(r"\d+(\.\d+)?"), "N"),
)


@dataclass(frozen=True)
class Signature:
    status: str
    phase: str
    exception: str
    message: str

    @property
    def label(self) -> str:
        parts = [self.status, self.phase, self.exception, self.message]
        return " · ".join(p for p in parts if p)


def is_failure(result: pb.ModelResult) -> bool:
    return result.community_status not in NOT_FAILURES


def phase_name(result: pb.ModelResult) -> str:
    phase = result.failure.phase
    return enum_name(pb.Phase, phase, "PHASE_")


def signature(result: pb.ModelResult) -> Signature:
    """Status, phase, exception type and the first message line with numbers, addresses and paths
    masked; a timeout during compilation is named as such."""
    status = result.community_status
    phase = phase_name(result)
    if status == "timeout" and result.failure.phase == pb.PHASE_COMPILE:
        status = "compile timeout"
    first_line = next((line.strip() for line in result.failure.message.splitlines() if line.strip()), "")
    for pattern, replacement in _VOLATILE:
        first_line = pattern.sub(replacement, first_line)
    if not first_line and result.failure.signal:
        first_line = f"signal {result.failure.signal}"
    return Signature(status, phase, result.failure.exception_type, first_line[:160])


def risks(result: pb.ModelResult) -> list[str]:
    """What a reader must see even when the status is a pass."""
    found = []
    if result.expected_status and result.status and result.status != result.expected_status:
        found.append(f"unexpected status: {enum_name(pb.Status, result.status, 'STATUS_')} "
                     f"(expected {enum_name(pb.Status, result.expected_status, 'STATUS_')})")
    if result.community_status == "timeout" and result.failure.phase == pb.PHASE_COMPILE:
        found.append("compile timeout")
    if result.dynamo.recompiles > 0:
        found.append(f"{result.dynamo.recompiles} unexpected recompilation(s)")
    ct = result.compile_time
    misses = ct.fx_graph_cache_misses + ct.aot_autograd_cache_misses
    if not ct.cold_start and not result.config.cold_start and misses > 0 and result.performance.measured:
        found.append(f"{misses} compile-cache miss(es) in a warm run (hits expected)")
    return found
