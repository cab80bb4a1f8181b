"""What each dashboard page shows, read from the store with parameterised SQL only."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from parity.v1 import opinfo_pb2
from parity.v1 import results_pb2 as pb
from tools.dashboard.filters import Filters
from tools.store.db import Database, parse_payload
from tools.store.hud import SummaryRow, summarize
from tools.store.triages import StoredTriage, triages

# Optional ModelResult fields that other work adds to the schema; shown when the schema has them.


@dataclass(frozen=True)
class RunInfo:
    run_id: str
    start_time: int
    commits: tuple[str, ...]
    torch_versions: tuple[str, ...]
    manifest_versions: tuple[str, ...]
    devices: tuple[str, ...]
    origin: str
    results: int


@dataclass(frozen=True)
class Stored:
    """One result row: the indexed columns the pages sort on, plus the whole message."""
    run_id: str
    origin: str
    result: pb.ModelResult


def runs(db: Database) -> list[RunInfo]:
    """Every run, newest first."""
    rows = db.query("SELECT run_id, MAX(start_time), MIN(origin), COUNT(*) FROM results GROUP BY run_id")
    details: dict[str, dict[str, set[str]]] = {}
    for run_id, commit, torch, manifest, device in db.query(
            "SELECT DISTINCT run_id, commit_sha, torch_version, manifest_version, device_name FROM results"):
        entry = details.setdefault(run_id, {"commit": set(), "torch": set(), "manifest": set(), "device": set()})
        for key, value in (("commit", commit), ("torch", torch), ("manifest", manifest), ("device", device)):
            if value:
                entry[key].add(value)
    infos = [RunInfo(run_id, int(start or 0), *(tuple(sorted(details[run_id][k]))
                                                 for k in ("commit", "torch", "manifest", "device")),
                     origin=origin, results=int(count))
             for run_id, start, origin, count in rows]
    return sorted(infos, key=lambda r: (-r.start_time, r.run_id))


def default_run(db: Database, preferred: str = "") -> str:
    known = [r.run_id for r in runs(db)]
    if preferred in known:
        return preferred
    return known[0] if known else ""


def results(db: Database, filters: Filters, skip: Sequence[str] = ()) -> list[Stored]:
    where, params = filters.where(skip)
    rows = db.query(f"SELECT run_id, origin, payload FROM results WHERE {where} "
                    "ORDER BY suite, model, mode, backend, device_name, run_id", params)
    return [Stored(run_id, origin, parse_payload(payload)) for run_id, origin, payload in rows]


def summary(db: Database, run_id: str, filters: Filters) -> list[SummaryRow]:
    where, params = filters.where(skip=("run",))
    return summarize(db, run_id, where, params)


def default_base(db: Database, run_id: str, filters: Filters) -> str:
    """The newest older run that shares a summary row with `run_id` (same suite, compiler, mode,
    dtype and device): the HUD's "base" is the previous commit on the same hardware."""
    keys = {row.key for row in summary(db, run_id, filters)}
    ordered = runs(db)
    start = next((r.start_time for r in ordered if r.run_id == run_id), 0)
    for info in ordered:
        if info.run_id != run_id and info.start_time <= start:
            if keys & {row.key for row in summary(db, info.run_id, filters)}:
                return info.run_id
    return ""


def default_baseline(db: Database, run_id: str) -> str:
    """For the comparison page: the newest run on another device (a reference or community baseline)."""
    ordered = runs(db)
    mine = set(next((r.devices for r in ordered if r.run_id == run_id), ()))
    for info in ordered:
        if info.run_id != run_id and not (set(info.devices) & mine):
            return info.run_id
    return next((r.run_id for r in ordered if r.run_id != run_id), "")


def manifest_versions(db: Database, run_id: str) -> tuple[str, ...]:
    rows = db.query("SELECT DISTINCT manifest_version FROM results WHERE run_id = ? ORDER BY manifest_version",
                    (run_id,))
    return tuple(row[0] for row in rows)


def opinfo_run(db: Database, preferred: str) -> str:
    """The OpInfo run to show: the one asked for if it has OpInfo results, else the newest."""
    rows = db.query("SELECT run_id, MAX(start_time) FROM opinfo_results GROUP BY run_id ORDER BY 2 DESC, 1")
    known = [row[0] for row in rows]
    return preferred if preferred in known else (known[0] if known else "")


def opinfo_results(db: Database, run_id: str, device: str = "") -> list[opinfo_pb2.OpInfoResult]:
    sql = "SELECT payload FROM opinfo_results WHERE run_id = ?"
    params: tuple[object, ...] = (run_id,)
    if device:
        sql, params = sql + " AND device_name = ?", (*params, device)
    found = []
    for (payload,) in db.query(sql + " ORDER BY op_group, op, variant, dtype", params):
        result = opinfo_pb2.OpInfoResult()
        result.ParseFromString(bytes(payload))
        found.append(result)
    return found


def triages_by_signature(db: Database, signatures: Iterable[str]) -> dict[str, StoredTriage]:
    """The stored triages of the given failure signatures (without their scripts' text)."""
    wanted = set(signatures)
    return {t.signature: t for t in triages(db) if t.signature in wanted}
