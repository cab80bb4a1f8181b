"""Triages in the store: one per failure signature (tools/store/failures.py), so a failure that recurs every night
is triaged once.

tools/triage writes, beside a result `<stem>.pb`, the record `<stem>.triage.txtpb` (a parity.v1.TriageRecord:
the compiler bisector's culprit, the minified repro, whether it fails in a fresh interpreter) and the repro script
`<stem>.repro.py`. `python -m tools.store ingest` stores both: the record whole, the columns the pages need, and
the script's text (db.ingest, in the same transaction as the results).

Which triage a signature keeps: a new record replaces the stored one only if it got further (`progress`):
  1. by outcome: DONE > GAVE_UP (the limit was reached) > NOT_REPRODUCED > ERROR (the triage itself failed);
  2. then a repro that fails standalone (reproduces yes) > one that did not (no) > none checked;
  3. then a culprit found > none; then a repro made > none.
Equal progress keeps the stored one: re-ingesting is idempotent, and a triage is not redone for nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from parity.v1 import opinfo_pb2
from parity.v1 import results_pb2 as pb
from proto.result_files import TRIAGE_SUFFIX, TRIAGE_TEXT_SUFFIX
from tools.store.failures import FAILING_CASE_OUTCOMES, PASSING, is_compiled_side, opinfo_as_model_result, signature
from tools.store.names import enum_name, mode_name
from tools.store.validate import MAX_TEXT_CHARS

if TYPE_CHECKING:  # db.py imports this module; the queries below only take its connection
    from tools.store.db import Database

MAX_SIGNATURE_CHARS = 1024  # the table's key (an index entry): a signature label is ~400 characters at most
Record = pb.TriageRecord

_OUTCOME_RANK = {Record.OUTCOME_DONE: 4, Record.OUTCOME_GAVE_UP: 3, Record.OUTCOME_NOT_REPRODUCED: 2,
                 Record.OUTCOME_ERROR: 1}
_REPRODUCES_RANK = {Record.REPRODUCES_YES: 2, Record.REPRODUCES_NO: 1}
REPRODUCES_TEXT = {Record.REPRODUCES_YES: "yes", Record.REPRODUCES_NO: "no"}


class TriageFileError(ValueError):
    """A triage record or its repro that cannot be stored (the message names the file)."""


@dataclass(frozen=True)
class Repro:
    name: str  # the script's file name, as it lay beside the record
    text: str


def is_triage_file(name: str) -> bool:
    return name.endswith((TRIAGE_SUFFIX, TRIAGE_TEXT_SUFFIX))


def incomplete(record: pb.TriageRecord) -> str:
    """Why the store cannot key or show a record ("" when it can)."""
    missing = [name for name in ("signature", "result_id", "model") if not getattr(record, name)]
    if missing:
        return f"no {', '.join(missing)}"
    if not record.outcome:
        return "no outcome (OUTCOME_UNSPECIFIED)"
    if len(record.signature) > MAX_SIGNATURE_CHARS:
        return f"a signature of {len(record.signature)} characters (the store keys on at most {MAX_SIGNATURE_CHARS})"
    return ""


def progress(record: pb.TriageRecord) -> int:
    """How far a triage got, as one number: larger got further (the module's docstring has the rule)."""
    return (_OUTCOME_RANK.get(record.outcome, 0) * 1000 + _REPRODUCES_RANK.get(record.reproduces, 0) * 100
            + bool(record.culprit_backend or record.culprit_subsystem) * 10 + bool(record.repro_path))


def read_repro(source: str, record: pb.TriageRecord, sibling: Callable[[str], bytes | None]) -> Repro | None:
    """The repro script a record names, read from beside the record (`sibling(name)`: its bytes, or None when
    absent). Only the file name of repro_path counts: the record may carry the path of the machine that triaged."""
    if not record.repro_path:
        return None
    name = PurePosixPath(record.repro_path.replace("\\", "/")).name
    if name in ("", ".", ".."):
        raise TriageFileError(f"{source}: repro_path {record.repro_path!r} names no file")
    data = sibling(name)
    if data is None:
        raise TriageFileError(f"{source}: the record names its repro {record.repro_path!r}, but no {name} lies "
                              "beside it; keep the repro next to its record (tools/triage writes both beside the "
                              "result), or clear repro_path")
    try:
        text = data.decode()
    except UnicodeDecodeError as exc:
        raise TriageFileError(f"{source}: its repro {name} is not UTF-8 text ({exc})") from exc
    if len(text) > MAX_TEXT_CHARS:
        raise TriageFileError(f"{source}: its repro {name} has {len(text)} characters, more than the "
                              f"{MAX_TEXT_CHARS} the store keeps")
    return Repro(name, text)


def triage_id(signature_label: str) -> str:
    """A short, URL-safe name for a signature: the dashboard serves its repro at /repro/<id>.py."""
    return hashlib.sha256(signature_label.encode()).hexdigest()[:16]


TRIAGE_COLUMNS = ("signature", "triage_id", "result_id", "run_id", "suite", "model", "mode", "backend", "device",
                  "community_status", "outcome", "culprit_backend", "culprit_subsystem", "bisect_number",
                  "reproduces", "repro_name", "repro_lines", "repro_script", "progress", "created_at", "stored_at",
                  "payload")
# A stored signature is overwritten only by a record that got further: the comparison is the statement's own, so
# two ingests at once cannot both read the old row and the lesser one win.
TRIAGE_UPSERT = (f"INSERT INTO triages ({', '.join(TRIAGE_COLUMNS)}) VALUES ({', '.join('?' * len(TRIAGE_COLUMNS))}) "
                 "ON CONFLICT (signature) DO UPDATE SET "
                 + ", ".join(f"{c} = excluded.{c}" for c in TRIAGE_COLUMNS if c != "signature")
                 + " WHERE excluded.progress > triages.progress")


def triage_row(record: pb.TriageRecord, repro: Repro | None, stored_at: int) -> tuple[object, ...]:
    named: dict[str, object] = dict(
        signature=record.signature, triage_id=triage_id(record.signature), result_id=record.result_id,
        run_id=record.run_id, suite=record.suite, model=record.model, mode=mode_name(record.mode),
        backend=record.backend, device=record.device, community_status=record.community_status,
        outcome=outcome_name(record), culprit_backend=record.culprit_backend,
        culprit_subsystem=record.culprit_subsystem, bisect_number=record.bisect_number,
        reproduces=REPRODUCES_TEXT.get(record.reproduces, ""), repro_name=repro.name if repro else "",
        repro_lines=record.repro_lines, repro_script=repro.text if repro else "", progress=progress(record),
        created_at=record.provenance.start_time.seconds or stored_at, stored_at=stored_at,
        payload=record.SerializeToString())
    if named.keys() != set(TRIAGE_COLUMNS):
        raise AssertionError(f"triage_row and TRIAGE_COLUMNS disagree: {sorted(named.keys() ^ set(TRIAGE_COLUMNS))}")
    return tuple(named[column] for column in TRIAGE_COLUMNS)


def outcome_name(record: pb.TriageRecord) -> str:
    return enum_name(Record.Outcome, record.outcome, "OUTCOME_", unset="unspecified")


@dataclass(frozen=True)
class StoredTriage:
    """One stored triage: the record as ingested, and where its repro is."""
    record: pb.TriageRecord
    triage_id: str
    repro_name: str   # "" when the triage made no repro
    created_at: int   # when the triage ran (its provenance), else when it was stored
    stored_at: int
    repro_script: str = ""  # read only where asked for (triage_for, triage_by_id)

    @property
    def signature(self) -> str:
        return self.record.signature

    @property
    def outcome(self) -> str:
        return outcome_name(self.record)

    @property
    def reproduces(self) -> str:
        return REPRODUCES_TEXT.get(self.record.reproduces, "not checked")

    @property
    def culprit(self) -> str:
        """"inductor / lowerings / bisect number 12"; "" when the bisector named nothing."""
        r = self.record
        parts = [r.culprit_backend, r.culprit_subsystem]
        if r.culprit_subsystem and r.bisect_number >= 0:
            parts.append(f"bisect number {r.bisect_number}")
        return " / ".join(p for p in parts if p)

    @property
    def configuration(self) -> str:
        r = self.record
        return " ".join(p for p in (f"{r.suite}/{r.model}" if r.suite else r.model, mode_name(r.mode), r.backend,
                                    r.device) if p)


def _stored(row: Sequence[object], with_script: bool) -> StoredTriage:
    record = pb.TriageRecord()
    record.ParseFromString(bytes(row[4]))  # type: ignore[arg-type]
    return StoredTriage(record, str(row[0]), str(row[1]), int(row[2]), int(row[3]),  # type: ignore[call-overload]
                        str(row[5]) if with_script else "")


_SELECT = "SELECT triage_id, repro_name, created_at, stored_at, payload{script} FROM triages"


def triage_for(db: Database, signature_label: str) -> StoredTriage | None:
    rows = db.query(_SELECT.format(script=", repro_script") + " WHERE signature = ?", (signature_label,))
    return _stored(rows[0], with_script=True) if rows else None


def triage_by_id(db: Database, triage_id_: str) -> StoredTriage | None:
    rows = db.query(_SELECT.format(script=", repro_script") + " WHERE triage_id = ?", (triage_id_,))
    return _stored(rows[0], with_script=True) if rows else None


def triages(db: Database, run_id: str = "") -> list[StoredTriage]:
    """Every stored triage (of the results of one run, with run_id), newest first; without the scripts' text."""
    rows = db.query(_SELECT.format(script="") + " WHERE (? = '' OR run_id = ?) ORDER BY created_at DESC, signature",
                    (run_id, run_id))
    return [_stored(row, with_script=False) for row in rows]


def triaged_signatures(db: Database) -> set[str]:
    return {str(row[0]) for row in db.query("SELECT signature FROM triages")}


_FAILING_CASES = tuple(enum_name(opinfo_pb2.OpInfoOutcome, outcome, "OPINFO_OUTCOME_")  # as the store spells them
                       for outcome in FAILING_CASE_OUTCOMES)
Failing = pb.ModelResult | opinfo_pb2.OpInfoResult  # what tools/triage is handed: a model's result or an OpInfo case


def as_model_result(failing: Failing) -> pb.ModelResult:
    """A failure as the triage and its signature read it: an OpInfo case as a model's result (suite opinfo)."""
    return failing if isinstance(failing, pb.ModelResult) else opinfo_as_model_result(failing)


def compiled_side_failures(db: Database, run_id: str) -> list[tuple[Failing, str]]:
    """The run's own compiled-side failures (failures.is_compiled_side), its models' and its failing OpInfo cases',
    each with its signature label, most valuable first: a failure where the manifest (for a case, the expectation
    table) expects a pass, or the community's baseline passes, before the others (both before either); then models
    by suite, model, mode and backend, then cases by op and dtype."""
    rows = db.query("SELECT payload FROM results WHERE run_id = ? AND origin = 'parity' AND community_status IN "
                    "('fail_accuracy', 'fail_to_run', 'crash', 'timeout') "
                    "ORDER BY suite, model, mode, backend, device_type, result_id", (run_id,))
    found: list[Failing] = [pb.ModelResult.FromString(bytes(payload)) for (payload,) in rows]
    rows = db.query(f"SELECT payload FROM opinfo_results WHERE run_id = ? AND outcome IN "
                    f"({', '.join('?' * len(_FAILING_CASES))}) ORDER BY op, variant, dtype, device, result_id",
                    (run_id, *_FAILING_CASES))
    found += [opinfo_pb2.OpInfoResult.FromString(bytes(payload)) for (payload,) in rows]
    community = _community_passes(db)

    def value(result: pb.ModelResult) -> int:
        c = result.config
        return (result.expected_status == pb.STATUS_PASS) + ((c.suite, c.model, mode_name(c.mode)) in community)

    viewed = [(failing, as_model_result(failing)) for failing in found]
    return [(failing, signature(view).label) for failing, view in sorted(viewed, key=lambda pair: -value(pair[1]))
            if is_compiled_side(view)]


def untriaged_failures(db: Database, run_id: str) -> list[tuple[Failing, str]]:
    """compiled_side_failures whose signature has no stored triage, one per signature (its most valuable failure),
    in the same order: what the nightly's --triage runs tools/triage on."""
    done = triaged_signatures(db)
    chosen: dict[str, Failing] = {}
    for failing, label in compiled_side_failures(db, run_id):
        if label not in done:
            chosen.setdefault(label, failing)
    return [(failing, label) for label, failing in chosen.items()]


def _community_passes(db: Database) -> set[tuple[str, str, str]]:
    """(suite, model, mode) that a community baseline in the store passes."""
    rows = db.query("SELECT DISTINCT suite, model, mode FROM results WHERE origin = 'community' AND community_status "
                    f"IN ({', '.join('?' * len(PASSING))})", PASSING)
    return {(str(s), str(m), str(mode)) for s, m, mode in rows}
