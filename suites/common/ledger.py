"""The run ledger: what a run planned, written before any model runs, and the one writer of an output folder.

`<out>/<run id>.plan.pb` (a parity.v1.RunLedger, with its text copy) lists every planned model run with the
child's arguments. The store ingests it beside the results, so a run whose planned models lack a final result
shows as incomplete; `suites.run --resume` runs exactly those. A "stopped" result (the run was stopped while the
model ran) is no final result. While a run writes into a folder it holds `<out>/.parity-run.lock`; a second run
into that folder fails at once instead of mixing its results with the first's.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from parity.v1 import results_pb2 as pb
from proto.result_files import PLAN_SUFFIX, write_message
from suites.common.provenance import base_provenance
from suites.common.request import MODE_ENUMS, ModelRequest, add_request_arguments, request_from_args
from suites.common.result_io import ResultFileError, read_result

LOCK_NAME = ".parity-run.lock"
NOT_FINAL = ("stopped",)  # statuses that say nothing of the model: --resume runs it again


class LedgerError(RuntimeError):
    """The ledger cannot be written or read as asked, or the folder is in use."""


def plan_path(out: Path, run_id: str) -> Path:
    return out / f"{re.sub(r'[^A-Za-z0-9._-]', '_', run_id)}{PLAN_SUFFIX}"


def write_plan(out: Path, run_id: str, suite: str, device: str, manifest_version: str, manifest_sha256: str,
               requests: Sequence[ModelRequest], result_id: Callable[[ModelRequest], str]) -> Path:
    ledger = pb.RunLedger(run_id=run_id, suite=suite,
                          provenance=base_provenance(device, manifest_version, manifest_sha256))
    ledger.provenance.start_time.FromSeconds(int(time.time()))
    for request in requests:
        ledger.planned.add(result_id=result_id(request), stem=request.file_stem(), model=request.model,
                           mode=MODE_ENUMS[request.mode], backend=request.backend, device=request.device,
                           request_args=request.to_args())
    path = plan_path(out, run_id)
    return write_message(ledger, out, path.name.removesuffix(PLAN_SUFFIX), PLAN_SUFFIX)


def read_plan(out: Path, run_id: str) -> pb.RunLedger:
    path = plan_path(out, run_id)
    if not path.is_file():
        raise LedgerError(f"{out} holds no plan of run {run_id!r} ({path.name}): --resume continues a run started "
                          "with the same --out and --run-id")
    ledger = pb.RunLedger()
    try:
        ledger.ParseFromString(path.read_bytes())
    except Exception as exc:  # noqa: BLE001 (protobuf raises several types for garbage)
        raise LedgerError(f"{path}: not a run plan ({exc})") from exc
    return ledger


def unfinished(out: Path, ledger: pb.RunLedger) -> list[ModelRequest]:
    """The planned runs without a final result in `out`, as requests to run again."""
    parser = argparse.ArgumentParser()
    add_request_arguments(parser)
    todo = []
    for planned in ledger.planned:
        try:
            final = read_result(out / f"{planned.stem}.pb").community_status not in NOT_FINAL
        except (ResultFileError, OSError):
            final = False
        if not final:
            todo.append(request_from_args(parser.parse_args(list(planned.request_args))))
    return todo


def claim_folder(out: Path, run_id: str) -> int:
    """Takes the folder for this run (the lock goes with the process, however it ends); returns the descriptor to
    keep open. A folder in use by another run is an error that names that run."""
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 512).decode(errors="replace").strip() or "another run"
        os.close(fd)
        raise LedgerError(f"{out} is in use by {holder}: two runs into one folder would mix their results; give "
                          "this run another --out, or wait for that one to end") from None
    os.ftruncate(fd, 0)
    os.write(fd, f"run {run_id} (pid {os.getpid()})".encode())
    return fd
