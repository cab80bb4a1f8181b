"""Failure signatures (so one root cause shows as one group) and risks (a passing run that still
needs a look: unexpected recompiles, cache misses where the run was warm, an unexpected status).

Signatures live in tools/store/failures.py, since the store keys triages by them; they are re-exported here for the
pages (and tools/triage, which names a record's signature by `signature(result).label`)."""

from __future__ import annotations

from parity.v1 import results_pb2 as pb
from tools.store.failures import NOT_FAILURES, Signature, is_compiled_side, is_failure, phase_name, signature
from tools.store.names import enum_name

__all__ = ["NOT_FAILURES", "Signature", "is_compiled_side", "is_failure", "phase_name", "risks", "signature"]


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
