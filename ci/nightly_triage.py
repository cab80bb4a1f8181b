"""The nightly's triage step (`python -m ci.nightly --triage`): once the night's results are in the store, each
compiled-side failure (a model's, or a failing OpInfo case's) whose signature has no triage yet is triaged, most
valuable first (the manifest expects a pass, or the community's baseline passes), one failure per signature. A
failure that recurs every night is triaged once: its signature keeps its triage (tools/store/triages.py).

For each one, the stored result (with the night's run id) is written to <work>/<stem>.pb (an OpInfo case to
<work>/<stem>.opinfo.pb), the triage command (`python -m tools.triage <stem>.pb --limit-s S`) runs with its output
in <stem>.triage.log, and what it wrote beside the result (<stem>.triage.txtpb, <stem>.repro.py) is ingested,
whatever the command's exit code. A triage that leaves no storable record of the failure's signature (it crashed,
was killed at its limit plus a grace period, wrote a malformed record, or one keyed by another signature) gets an
ERROR record written here instead (<stem>.error.triage.txtpb), so its signature is not retried every night; a later
triage that gets further replaces it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import text_format

from parity.v1 import opinfo_pb2
from parity.v1 import results_pb2 as pb
from proto.result_files import (MODEL_SUFFIX, OPINFO_SUFFIX, REPRO_SUFFIX, TRIAGE_TEXT_SUFFIX, write_atomically,
                                write_message)
from suites.common.process_group import run_in_own_group
from tools.store.db import IngestError, connect, ingest_batch, load_results
from tools.store.failures import configuration_label
from tools.store.names import enum_name
from tools.store.triages import (Failing, StoredTriage, as_model_result, compiled_side_failures, triage_for,
                                 untriaged_failures)

GRACE_S = 120.0  # past its own --limit-s, a triage is killed: its limit should have stopped it first


@dataclass(frozen=True)
class TriageRun:
    """One failure the night triaged."""
    configuration: str  # suite/model mode backend device
    status: str         # the failure's community status
    expected: str       # the manifest's expected status ("" when unknown)
    signature: str
    result_file: Path   # the result handed to the triage command
    log: Path           # the command's output
    triage: StoredTriage | None  # as stored afterwards; None when nothing could be stored
    note: str = ""      # what went wrong around the triage itself


@dataclass(frozen=True)
class TriageStep:
    runs: tuple[TriageRun, ...]
    already_triaged: int     # the run's compiled-side failures whose signature was triaged on an earlier night
    left: tuple[str, ...]    # signatures left for another night (over --triage-max)
    limit_s: float


def triage_command(text: str) -> list[str]:
    command = shlex.split(text)
    if not command:
        raise ValueError("--triage-command is empty")
    return command


def run_triages(store: str, run_id: str, work: Path, command: Sequence[str], limit_s: float, max_count: int = 0,
                cwd: Path | None = None, grace_s: float = GRACE_S) -> TriageStep:
    """Triages the run's untriaged compiled-side failures (max_count of them at most, 0: all) and stores what each
    left; see the module's docstring."""
    db = connect(store)
    try:
        pending = untriaged_failures(db, run_id)
        failures = compiled_side_failures(db, run_id)
    finally:
        db.close()
    tonight = {label for _, label in pending}
    already = sum(1 for _, label in failures if label not in tonight)
    chosen = pending[:max_count] if max_count > 0 else pending
    work.mkdir(parents=True, exist_ok=True)
    runs = []
    for number, (failing, label) in enumerate(chosen, 1):
        result = as_model_result(failing)
        print(f"[nightly] triage {number}/{len(chosen)}: {configuration_label(result.config)} "
              f"({result.community_status}), limit {limit_s:g} s", flush=True)
        runs.append(_triage_one(store, failing, result, label, work, command, limit_s, cwd, grace_s))
    return TriageStep(tuple(runs), already, tuple(label for _, label in pending[len(chosen):]), limit_s)


def _stem(result: pb.ModelResult) -> str:
    """A readable file stem, unique per result (two results of one configuration in a run: --plan runs)."""
    c = result.config
    readable = ".".join(p for p in (c.suite, c.model, enum_name(pb.Mode, c.mode, "MODE_"), c.backend, c.device) if p)
    unique = hashlib.sha256(result.result_id.encode()).hexdigest()[:8]
    return re.sub(r"[^\w.-]", "_", f"{readable}.{unique}")


def _triage_one(store: str, failing: Failing, result: pb.ModelResult, label: str, work: Path, command: Sequence[str],
                limit_s: float, cwd: Path | None, grace_s: float) -> TriageRun:
    """`result`: the failure read as a model's (as_model_result)."""
    stem = _stem(result)
    # An OpInfo case goes as itself: tools/triage reruns it with the OpInfo suite (tools/triage/op_case.py).
    suffix = OPINFO_SUFFIX if isinstance(failing, opinfo_pb2.OpInfoResult) else MODEL_SUFFIX
    result_file = write_message(failing, work, stem, suffix)
    log = work / f"{stem}.triage.log"
    record_file = work / f"{stem}{TRIAGE_TEXT_SUFFIX}"
    binary_record = work / f"{stem}.triage.pb"
    stale = (record_file, binary_record, work / f"{stem}{REPRO_SUFFIX}", work / f"{stem}.error{TRIAGE_TEXT_SUFFIX}")
    for stale_file in stale:  # a rerun of the night starts clean
        stale_file.unlink(missing_ok=True)
    started = time.monotonic()
    failed = _run(command, result_file, limit_s, grace_s, log, cwd)
    wall_s = time.monotonic() - started
    written = [f for f in (binary_record, record_file) if f.exists()]
    # A record, whatever the exit code, says how far the triage got: it is what is stored.
    problem = _store(store, written[0], label) if written else (
        failed or f"the triage command exited 0 but wrote no {record_file.name}")
    if written and problem.startswith(_NOT_STORED):  # kept for a look, out of the way of the next ingest here
        for file in written:
            file.rename(file.with_name(file.name + ".malformed"))
    note = "; ".join(p for p in (failed if written else "", problem) if p)
    if problem:  # no record of this failure's signature: an ERROR one, so the signature is not retried every night
        error_file = work / f"{stem}.error{TRIAGE_TEXT_SUFFIX}"
        _write_error(result, label, error_file, f"{note}; its output: {log}", limit_s, wall_s)
        error_problem = _store(store, error_file, label)
        note += f"; the ERROR record could not be stored either: {error_problem}" if error_problem else \
            " (stored as an ERROR triage)"
    db = connect(store)
    try:
        stored = triage_for(db, label)
    finally:
        db.close()
    expected = enum_name(pb.Status, result.expected_status, "STATUS_")
    return TriageRun(configuration_label(result.config), result.community_status, expected, label, result_file, log,
                     stored, note)


def _run(command: Sequence[str], result_file: Path, limit_s: float, grace_s: float, log: Path,
         cwd: Path | None) -> str:
    """Runs the triage command on one result; "" when it exited 0, else what happened."""
    argv = [*command, str(result_file), "--limit-s", f"{limit_s:g}"]
    # The command imports what this process imports (the generated protobuf modules, the repository).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    try:  # its own process group: a kill takes its model processes and compile workers too
        finished = run_in_own_group(argv, cwd=cwd, env=env, log=log, timeout_s=limit_s + grace_s)
    except OSError as exc:
        return f"the triage command could not start ({shlex.join(argv[:3])}: {exc.strerror})"
    if finished.returncode is None:
        return f"the triage ran past its {limit_s:g} s limit and {grace_s:g} s more, and was killed"
    return "" if finished.returncode == 0 else f"the triage command exited {finished.returncode}"


_NOT_STORED = "its record could not be stored"


def _store(store: str, record_file: Path, label: str) -> str:
    """Ingests one triage record (and its repro); "" when it was stored as this failure's, else what went wrong."""
    db = connect(store)
    try:
        loaded = load_results([record_file])
        ingest_batch(db, loaded, source=str(record_file))
    except IngestError as exc:
        return f"{_NOT_STORED}: {exc}"
    finally:
        db.close()
    keyed = loaded[0].result.signature  # type: ignore[union-attr]
    return "" if keyed == label else f"its record was stored under signature {keyed!r}, not this failure's {label!r}"


def _write_error(result: pb.ModelResult, label: str, record_file: Path, error: str, limit_s: float,
                 wall_s: float) -> None:
    c = result.config
    record = pb.TriageRecord(signature=label, result_id=result.result_id, run_id=result.run_id, suite=c.suite,
                             model=c.model, mode=c.mode, backend=c.backend, device=c.device,
                             community_status=result.community_status, outcome=pb.TriageRecord.OUTCOME_ERROR,
                             error=error, bisect_number=-1, limit_s=limit_s, wall_s=wall_s)
    record.provenance.start_time.FromSeconds(int(time.time() - wall_s))
    write_atomically(record_file, text_format.MessageToString(record).encode())


def _cell(text: str) -> str:
    """A markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|") or "–"


def render_triages(step: TriageStep | None, night: Path, dashboard: str = "") -> str:
    """The report's "New triages" section body. `dashboard`: how to serve the store's pages, for the repro links."""
    if step is None:
        return "None: --triage was not given."
    lines = [f"{len(step.runs)} compiled-side failure signatures of this run triaged tonight (limit "
             f"{step.limit_s:g} s each); {step.already_triaged} more failures share a signature triaged on an earlier "
             "night (the dashboard's failures page shows those triages).", ""]
    if step.runs:
        lines += ["| model | status | triage | culprit (backend / subsystem / bisect number) | reproduces | repro |",
                  "| --- | --- | --- | --- | --- | --- |"]
    for run in step.runs:
        t = run.triage
        status = run.status + (f" (expected {run.expected})" if run.expected else "")
        if t is None:
            lines.append(f"| {_cell(run.configuration)} | {_cell(status)} | not stored: {_cell(run.note)} | – | "
                         f"– | log {_cell(_relative(run.log, night))} |")
            continue
        r = t.record
        outcome = f"{t.outcome} in {r.wall_s:.0f} s" + (f": {r.error.splitlines()[0][:120]}" if r.error else "")
        repro = "none made"
        if t.repro_name:
            beside = run.result_file.with_name(t.repro_name)
            where = _relative(beside, night) if beside.exists() else t.repro_name
            repro = f"{where} ({r.repro_lines} lines, {r.repro_nodes} nodes); dashboard /repro/{t.triage_id}.py"
        lines.append(f"| {_cell(run.configuration)} | {_cell(status)} | {_cell(outcome)} | {_cell(t.culprit)} | "
                     f"{t.reproduces} | {_cell(repro)} |")
    notes = [f"- `{run.configuration}`: {run.note}; log {_relative(run.log, night)}" for run in step.runs if run.note]
    if notes:
        lines += ["", "Triages that went wrong:", "", *notes]
    if step.left:
        lines += ["", f"Left for another night (over --triage-max): {len(step.left)} signatures, "
                  + "; ".join(f"`{label}`" for label in step.left[:5]) + ("; ..." if len(step.left) > 5 else "")]
    if dashboard and step.runs:
        lines += ["", f"Repro links are the dashboard's: {dashboard}."]
    return "\n".join(lines)


def _relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
