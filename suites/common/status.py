"""The community's status strings and their enum in the results schema (one table, both directions)."""

from __future__ import annotations

from parity.v1 import results_pb2 as pb

_TABLE: tuple[tuple[str, int], ...] = (
    ("pass", pb.STATUS_PASS),
    ("pass_due_to_skip", pb.STATUS_PASS_DUE_TO_SKIP),
    ("fail_accuracy", pb.STATUS_FAIL_ACCURACY),
    ("eager_two_runs_differ", pb.STATUS_EAGER_TWO_RUNS_DIFFER),
    ("eager_1st_run_fail", pb.STATUS_EAGER_1ST_RUN_FAIL),
    ("eager_1st_run_OOM", pb.STATUS_EAGER_1ST_RUN_OOM),
    ("eager_2nd_run_fail", pb.STATUS_EAGER_2ND_RUN_FAIL),
    ("eager_2nd_run_OOM", pb.STATUS_EAGER_2ND_RUN_OOM),
    ("fail_to_run", pb.STATUS_FAIL_TO_RUN),
    ("OOM", pb.STATUS_OOM),
    ("model_fail_to_load", pb.STATUS_MODEL_FAIL_TO_LOAD),
    ("eager_fail_to_run", pb.STATUS_EAGER_FAIL_TO_RUN),
    ("timeout", pb.STATUS_TIMEOUT),
    ("crash", pb.STATUS_CRASH),
    ("skipped", pb.STATUS_SKIPPED),
    ("infra_error", pb.STATUS_INFRA_ERROR),
    ("stopped", pb.STATUS_STOPPED),  # Parity's: the run was stopped while the model ran (no result of the model's)
)

COMMUNITY_STATUSES: tuple[str, ...] = tuple(name for name, _ in _TABLE)
_TO_ENUM = dict(_TABLE)
_TO_STRING = {value: name for name, value in _TABLE}

# The HUD counts these as passing (plus "eager_variation", which no current harness emits).
HUD_PASSING = frozenset({"pass", "pass_due_to_skip", "eager_variation"})


def to_enum(status: str) -> int:
    if status not in _TO_ENUM:
        raise ValueError(f"unknown status {status!r}; known: {', '.join(COMMUNITY_STATUSES)}")
    return _TO_ENUM[status]


def to_string(status: int) -> str:
    return _TO_STRING[status]
