"""The results store: SQLite by default, PostgreSQL when configured; schema migrations; idempotent,
transactional ingestion.

Each ModelResult is kept whole (its serialized bytes) plus the columns that queries filter and
aggregate on. A result's id is stable, so ingesting the same file twice changes nothing.
Triage records (`<stem>.triage.txtpb`, with the `<stem>.repro.py` beside them) are ingested with the results:
one per failure signature, kept by the rule in tools/store/triages.py.
A store is named by a SQLite path (created if absent) or a `postgresql://` URL (a running server).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import sqlite3
import sys
import time
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf import text_format
from google.protobuf.message import Message

from parity.v1 import opinfo_pb2
from parity.v1 import results_pb2 as pb
from proto.result_files import OPINFO_SUFFIX, PLAN_SUFFIX
from tools.store.names import DTYPE_NAMES, MODE_NAMES, dtype_name, enum_name, mode_name  # noqa: F401 (re-exported)
from tools.store.triages import (TRIAGE_UPSERT, Repro, TriageFileError, incomplete, is_triage_file, progress,
                                 read_repro, triage_row)
from tools.store.validate import InvalidValue, check

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_BUSY_TIMEOUT_S = 60.0  # a writer waits this long for another (a concurrent ingest) before giving up


@dataclass(frozen=True)
class Migration:
    """One schema step, written once per SQL dialect (types and auto-increment differ)."""
    sqlite: str
    postgres: str


_RESULTS_COLUMNS_PG = """
        result_id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        suite TEXT NOT NULL,
        model TEXT NOT NULL,
        mode TEXT NOT NULL,
        dtype TEXT NOT NULL,
        backend TEXT NOT NULL,
        hud_compiler TEXT NOT NULL,
        device_type TEXT NOT NULL,
        device_name TEXT NOT NULL,
        smoke INTEGER NOT NULL,
        community_status TEXT NOT NULL,
        expected_status INTEGER NOT NULL,
        status INTEGER NOT NULL,
        speedup DOUBLE PRECISION NOT NULL,
        abs_latency_ms DOUBLE PRECISION NOT NULL,
        compilation_latency_s DOUBLE PRECISION NOT NULL,
        compression_ratio DOUBLE PRECISION NOT NULL,
        eager_peak_gb DOUBLE PRECISION NOT NULL,
        compiled_peak_gb DOUBLE PRECISION NOT NULL,
        graph_breaks INTEGER NOT NULL,
        recompiles INTEGER NOT NULL,
        torch_version TEXT NOT NULL,
        commit_sha TEXT NOT NULL,
        manifest_version TEXT NOT NULL,
        manifest_sha256 TEXT NOT NULL,
        start_time BIGINT NOT NULL,
        wall_time_s DOUBLE PRECISION NOT NULL,
        payload BYTEA NOT NULL
"""

_OPINFO_TABLE = """
    CREATE TABLE opinfo_results (
        result_id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        op TEXT NOT NULL,
        variant TEXT NOT NULL,
        dtype TEXT NOT NULL,
        device TEXT NOT NULL,
        device_name TEXT NOT NULL,
        op_group TEXT NOT NULL,
        lowering_family TEXT NOT NULL,
        lowering TEXT NOT NULL,
        outcome TEXT NOT NULL,
        expected_outcome TEXT NOT NULL,
        reason TEXT NOT NULL,
        torch_version TEXT NOT NULL,
        commit_sha TEXT NOT NULL,
        manifest_version TEXT NOT NULL,
        start_time {integer} NOT NULL,
        payload {blob} NOT NULL
    );
    CREATE INDEX opinfo_by_run ON opinfo_results (run_id, device, op_group);
    """

_PROBLEM_COLUMNS = """
    ALTER TABLE results ADD COLUMN problem_signature TEXT NOT NULL DEFAULT '';
    ALTER TABLE results ADD COLUMN bottleneck_cause TEXT NOT NULL DEFAULT '';
    CREATE INDEX results_by_problem ON results (problem_signature, start_time);
    """

_PERFORMANCE_ONLY_COLUMN = "ALTER TABLE results ADD COLUMN performance_only INTEGER NOT NULL DEFAULT 0;"

_RUN_PLANS_TABLE = """
    CREATE TABLE run_plans (
        run_id TEXT NOT NULL,
        result_id TEXT NOT NULL,
        suite TEXT NOT NULL,
        model TEXT NOT NULL,
        mode TEXT NOT NULL,
        backend TEXT NOT NULL,
        device TEXT NOT NULL,
        PRIMARY KEY (run_id, result_id)
    );
    """

# Triages (tools/store/triages.py): one row per failure signature, the record whole plus what the failures page
# shows, and the repro script's text, so the dashboard serves it without the folder it was made in.
_TRIAGES_TABLE = """
    CREATE TABLE triages (
        signature TEXT PRIMARY KEY,
        triage_id TEXT NOT NULL,
        result_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        suite TEXT NOT NULL,
        model TEXT NOT NULL,
        mode TEXT NOT NULL,
        backend TEXT NOT NULL,
        device TEXT NOT NULL,
        community_status TEXT NOT NULL,
        outcome TEXT NOT NULL,
        culprit_backend TEXT NOT NULL,
        culprit_subsystem TEXT NOT NULL,
        bisect_number {integer} NOT NULL,
        reproduces TEXT NOT NULL,
        repro_name TEXT NOT NULL,
        repro_lines INTEGER NOT NULL,
        repro_script TEXT NOT NULL,
        progress INTEGER NOT NULL,
        created_at {integer} NOT NULL,
        stored_at {integer} NOT NULL,
        payload {blob} NOT NULL
    );
    CREATE UNIQUE INDEX triages_by_id ON triages (triage_id);
    CREATE INDEX triages_by_run ON triages (run_id);
    """

# Append-only: each entry moves the schema from version i to i+1. Never edit a released entry.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        sqlite="""
    CREATE TABLE results (
        result_id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        suite TEXT NOT NULL,
        model TEXT NOT NULL,
        mode TEXT NOT NULL,
        dtype TEXT NOT NULL,
        backend TEXT NOT NULL,
        hud_compiler TEXT NOT NULL,
        device_type TEXT NOT NULL,
        device_name TEXT NOT NULL,
        smoke INTEGER NOT NULL,
        community_status TEXT NOT NULL,
        expected_status INTEGER NOT NULL,
        status INTEGER NOT NULL,
        speedup REAL NOT NULL,
        abs_latency_ms REAL NOT NULL,
        compilation_latency_s REAL NOT NULL,
        compression_ratio REAL NOT NULL,
        eager_peak_gb REAL NOT NULL,
        compiled_peak_gb REAL NOT NULL,
        graph_breaks INTEGER NOT NULL,
        recompiles INTEGER NOT NULL,
        torch_version TEXT NOT NULL,
        commit_sha TEXT NOT NULL,
        manifest_version TEXT NOT NULL,
        manifest_sha256 TEXT NOT NULL,
        start_time INTEGER NOT NULL,
        wall_time_s REAL NOT NULL,
        payload BLOB NOT NULL
    );
    CREATE INDEX results_by_run ON results (run_id, suite, hud_compiler);
    CREATE INDEX results_by_model ON results (model, mode, backend, device_type);
    """,
        postgres=f"""
    CREATE TABLE results ({_RESULTS_COLUMNS_PG});
    CREATE INDEX results_by_run ON results (run_id, suite, hud_compiler);
    CREATE INDEX results_by_model ON results (model, mode, backend, device_type);
    """),
    # Where a result came from (our harness, or a community CSV imported as a baseline), and a log of
    # ingestion batches, so the dashboard can say what was loaded when.
    Migration(
        sqlite="""
    ALTER TABLE results ADD COLUMN origin TEXT NOT NULL DEFAULT 'parity';
    CREATE INDEX results_by_commit ON results (commit_sha, start_time);
    CREATE TABLE ingests (
        ingest_id INTEGER PRIMARY KEY AUTOINCREMENT,
        ingested_at INTEGER NOT NULL,
        source TEXT NOT NULL,
        results INTEGER NOT NULL
    );
    """,
        postgres="""
    ALTER TABLE results ADD COLUMN origin TEXT NOT NULL DEFAULT 'parity';
    CREATE INDEX results_by_commit ON results (commit_sha, start_time);
    CREATE TABLE ingests (
        ingest_id BIGSERIAL PRIMARY KEY,
        ingested_at BIGINT NOT NULL,
        source TEXT NOT NULL,
        results INTEGER NOT NULL
    );
    """),
    # OpInfo results (proto/parity/v1/opinfo.proto): one row per (op, variant, dtype, device).
    Migration(sqlite=_OPINFO_TABLE.format(integer="INTEGER", blob="BLOB"),
              postgres=_OPINFO_TABLE.format(integer="BIGINT", blob="BYTEA")),
    # Bottleneck analyses (ModelResult.bottleneck): a tracked problem is every result sharing a signature,
    # so first and last seen follow from the results themselves and re-ingestion cannot skew them.
    Migration(sqlite=_PROBLEM_COLUMNS, postgres=_PROBLEM_COLUMNS),
    # RunConfig.performance_only: the HUD summary flags a group whose statuses no accuracy check gave.
    Migration(sqlite=_PERFORMANCE_ONLY_COLUMN, postgres=_PERFORMANCE_ONLY_COLUMN),
    # Run ledgers (suites/common/ledger.py): what each run planned, so an interrupted run shows as incomplete.
    Migration(sqlite=_RUN_PLANS_TABLE, postgres=_RUN_PLANS_TABLE),
    # Triages of compiled-side failures (tools/triage), keyed by failure signature.
    Migration(sqlite=_TRIAGES_TABLE.format(integer="INTEGER", blob="BLOB"),
              postgres=_TRIAGES_TABLE.format(integer="BIGINT", blob="BYTEA")),
)

ORIGIN_PARITY = "parity"
ORIGIN_COMMUNITY = "community"


class IngestError(ValueError):
    """Input that cannot be stored; nothing from the batch was written."""


class StoreError(RuntimeError):
    """The store cannot be opened or used as asked (wrong schema version, unreachable server, ...)."""


Loadable = pb.ModelResult | opinfo_pb2.OpInfoResult | pb.RunLedger | pb.TriageRecord


@dataclass(frozen=True)
class LoadedResult:
    source: str
    result: Loadable
    origin: str = ORIGIN_PARITY
    repro: Repro | None = None  # a TriageRecord's repro script, read from beside it


@dataclass(frozen=True)
class IngestCounts:
    results: int          # model and OpInfo results in the batch (each stored, or already stored alike)
    triages: int = 0      # signatures with a triage record in the batch
    triages_stored: int = 0  # of those, the ones stored: new signatures, or records that got further

    def describe(self) -> str:
        text = f"stored {self.results} results"
        if self.triages:
            kept = self.triages - self.triages_stored
            text += (f" and {self.triages_stored} of {self.triages} triages"
                     + (f" ({kept} kept a stored triage that got as far or further)" if kept else ""))
        return text


class Database:
    """One connection to either dialect. SQL is written with `?` placeholders and never holds `?` or
    `%` literals, so the PostgreSQL form is a plain substitution."""

    def __init__(self, raw: Any, dialect: str, name: str) -> None:
        self.raw = raw
        self.dialect = dialect
        self.name = name

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.dialect == "postgres" else sql

    def query(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        cursor = self.raw.execute(self._sql(sql), tuple(params))
        return [tuple(row) for row in cursor.fetchall()]

    def execute(self, sql: str, params: Sequence[object] = ()) -> None:
        self.raw.execute(self._sql(sql), tuple(params))

    def execute_count(self, sql: str, params: Sequence[object] = ()) -> int:
        """Runs one statement; returns how many rows it inserted, updated or deleted."""
        return int(self.raw.execute(self._sql(sql), tuple(params)).rowcount)

    def executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        if self.dialect == "postgres":
            with self.raw.cursor() as cursor:
                cursor.executemany(self._sql(sql), rows)
        else:
            self.raw.executemany(sql, rows)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Commits on success, rolls back on any error."""
        if self.dialect == "postgres":
            with self.raw.transaction():
                yield
        else:
            with self.raw:
                yield

    def schema_version(self) -> int:
        if self.dialect == "sqlite":
            return int(self.raw.execute("PRAGMA user_version").fetchone()[0])
        # A catalog query, not to_regclass(): that reads a cached catalog snapshot, which can miss a table another
        # first use has just committed (schema set-up in migrate() reads the version again under its lock).
        exists = self.query("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables WHERE tablename = 'parity_schema' "
                            "AND schemaname = current_schema())")[0][0]
        if not exists:
            return 0
        rows = self.query("SELECT version FROM parity_schema")
        return int(rows[0][0]) if rows else 0

    def close(self) -> None:
        self.raw.close()


def is_postgres(target: str | Path) -> bool:
    return str(target).startswith(POSTGRES_SCHEMES)


def connect(target: str | Path, read_only: bool = False) -> Database:
    """Opens the store (creating and migrating it unless read_only)."""
    if is_postgres(target):
        db = _connect_postgres(str(target), read_only)
    else:
        db = _connect_sqlite(Path(target), read_only)
    if read_only:
        version = db.schema_version()
        if version != len(MIGRATIONS):
            db.close()
            raise StoreError(f"{display_name(target)} has schema version {version}, this code reads version "
                             f"{len(MIGRATIONS)}: run `python -m tools.store --db {display_name(target)} migrate`")
    else:
        migrate(db)
    return db


def _connect_sqlite(path: Path, read_only: bool) -> Database:
    if read_only:
        if not path.is_file():
            raise StoreError(f"{path} does not exist: ingest results into it first (python -m tools.store ingest)")
        return Database(sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True, check_same_thread=False),
                        "sqlite", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=SQLITE_BUSY_TIMEOUT_S)
    _enter_wal(conn)
    return Database(conn, "sqlite", str(path))


def _enter_wal(conn: sqlite3.Connection) -> None:
    """Switches a store to write-ahead logging (kept in the file, so a no-op after the first time). SQLite answers
    the switch with "database is locked" at once, without its busy handler, while another first use of a new file
    holds a lock: that is retried here for as long as the busy timeout would have waited."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _connect_postgres(url: str, read_only: bool) -> Database:
    try:
        import psycopg  # a dependency only when PostgreSQL is configured
    except ImportError as exc:
        raise StoreError("a postgresql:// store needs psycopg: install requirements.lock (tools/bootstrap.sh)") from exc
    options = "-c default_transaction_read_only=on" if read_only else ""
    try:
        conn = psycopg.connect(url, autocommit=True, options=options, connect_timeout=10)
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to {display_name(url)}: {str(exc).strip()}") from exc
    return Database(conn, "postgres", display_name(url))


def display_name(target: str | Path) -> str:
    """The store's name without a password: the only form in which a store is ever printed."""
    text = str(target)
    if is_postgres(text) and "@" in text:
        scheme, rest = text.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        return f"{scheme}://{credentials.split(':', 1)[0]}@{host}"
    return text


def migrate(db: Database) -> int:
    """Applies pending migrations in one transaction; returns the schema version. Two first uses of a new store at
    once (two ingests) take turns under a lock (SQLite's BEGIN IMMEDIATE, a PostgreSQL advisory lock), and the
    second finds the schema made by the first."""
    if db.schema_version() == len(MIGRATIONS):
        return len(MIGRATIONS)
    if db.dialect == "sqlite":
        _migrate_sqlite(db)
    else:
        with db.transaction():
            db.raw.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for index in _pending(db.schema_version()):
                db.raw.execute(MIGRATIONS[index].postgres)
                db.raw.execute("CREATE TABLE IF NOT EXISTS parity_schema (version INTEGER NOT NULL)")
                db.raw.execute("DELETE FROM parity_schema")
                db.raw.execute("INSERT INTO parity_schema (version) VALUES (%s)", (index + 1,))
    return len(MIGRATIONS)


_SCHEMA_LOCK = 0x50415249  # "PARI": the advisory lock key of schema set-up


def _pending(version: int) -> range:
    if version > len(MIGRATIONS):
        raise StoreError(f"database schema version {version} is newer than this code ({len(MIGRATIONS)}): update Parity")
    return range(version, len(MIGRATIONS))


def _migrate_sqlite(db: Database) -> None:
    conn = db.raw
    saved, conn.isolation_level = conn.isolation_level, None  # the transaction below is opened and closed by hand
    try:
        conn.execute("BEGIN IMMEDIATE")  # the write lock first: another first use waits here
        try:
            for index in _pending(db.schema_version()):
                for statement in filter(str.strip, MIGRATIONS[index].sqlite.split(";")):  # no literal holds a ";"
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {index + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    finally:
        conn.isolation_level = saved


@dataclass(frozen=True)
class FoundFile:
    source: str
    data: bytes
    sibling: Callable[[str], bytes | None]  # a file beside it, by name (a triage's repro): its bytes, or None


def iter_result_files(paths: Iterable[Path]) -> Iterator[FoundFile]:
    """Every .pb result under the given files/folders, including Bazel's outputs.zip, and every triage record.
    A name ending in OPINFO_SUFFIX holds an OpInfoResult, PLAN_SUFFIX a RunLedger, `.triage.pb` a TriageRecord;
    any other .pb a ModelResult. A `.txtpb` without its `.pb` is read as its text form."""
    for path in paths:
        if not path.exists():
            raise IngestError(f"{path} does not exist")
        candidates = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in candidates:
            if file.suffix == ".pb" and not _is_split_half(file.name):
                _check_regular(file)
                yield FoundFile(str(file), file.read_bytes(), _beside(file))
            elif file.suffix == ".txtpb" and not _is_split_half(file.name) and not file.with_suffix(".pb").exists():
                _check_regular(file)  # a text-only result (the reference datasets keep only the text form)
                yield FoundFile(str(file), _text_to_binary(file), _beside(file))
            elif file.is_symlink() and file.is_dir():  # rglob does not follow it: say so rather than skip silently
                print(f"[ingest] skipped {file}: a symbolic link to a folder ({os.readlink(file)}); name its target "
                      "to ingest what it holds", file=sys.stderr)
            elif file.name == "outputs.zip":
                try:
                    with zipfile.ZipFile(file) as archive:
                        for member in sorted(archive.namelist()):
                            if member.endswith(".pb") and not _is_split_half(member):
                                yield FoundFile(f"{file}!{member}", archive.read(member), _beside_member(file, member))
                except (zipfile.BadZipFile, OSError) as exc:
                    raise IngestError(f"{file}: not a readable zip archive ({exc}); nothing was stored") from exc


def _beside(file: Path) -> Callable[[str], bytes | None]:
    def read(name: str) -> bytes | None:
        other = file.parent / name
        return other.read_bytes() if other.is_file() else None
    return read


def _beside_member(archive_path: Path, member: str) -> Callable[[str], bytes | None]:
    def read(name: str) -> bytes | None:
        with zipfile.ZipFile(archive_path) as archive:
            try:
                return archive.read(posixpath.join(posixpath.dirname(member), name))
            except KeyError:
                return None
    return read


def _check_regular(file: Path) -> None:
    """A result is a regular file: a dangling link, a folder or a FIFO named *.pb is an error, and nothing opens a
    FIFO (it would block)."""
    if file.is_symlink() and not file.exists():
        raise IngestError(f"{file}: a symbolic link to {os.readlink(file)}, which does not exist; remove the link or "
                          "point it at a result file. Nothing was stored")
    if not file.is_file():
        kind = "a folder" if file.is_dir() else "not a regular file (a FIFO, socket or device)"
        raise IngestError(f"{file}: {kind}, but named like a result file; rename or remove it. Nothing was stored")


def _is_split_half(name: str) -> bool:
    """The accuracy or performance half of a split run; the merged result beside it is what is stored."""
    return name.endswith((".accuracy.pb", ".performance.pb", ".accuracy.txtpb", ".performance.txtpb"))


def _message_for(source: str) -> Message:
    """An empty message of the kind a result file's name says (OPINFO_SUFFIX, PLAN_SUFFIX, a triage record, else a
    ModelResult)."""
    name = source.removesuffix(".txtpb") + ".pb" if source.endswith(".txtpb") else source
    return (opinfo_pb2.OpInfoResult() if name.endswith(OPINFO_SUFFIX) else
            pb.RunLedger() if name.endswith(PLAN_SUFFIX) else
            pb.TriageRecord() if is_triage_file(name) else pb.ModelResult())


def _text_to_binary(file: Path) -> bytes:
    message = _message_for(file.name)
    try:
        text_format.Parse(file.read_text(), message)
    except (text_format.ParseError, UnicodeDecodeError) as exc:
        raise IngestError(f"{file}: not a {message.DESCRIPTOR.full_name} in text format ({exc}); nothing was "
                          "stored") from exc
    return message.SerializeToString()


def _parse(source: str, data: bytes) -> Loadable:
    result: Message = _message_for(source)
    kind = result.DESCRIPTOR.full_name
    try:
        result.ParseFromString(data)
    except Exception as exc:  # noqa: BLE001 (protobuf raises several types for garbage)
        raise IngestError(f"{source}: not a {kind} ({exc}); nothing was stored") from exc
    if isinstance(result, pb.TriageRecord):
        if why := incomplete(result):
            raise IngestError(f"{source}: incomplete TriageRecord ({why}; tools/triage always sets these); nothing "
                              "was stored")
    elif isinstance(result, pb.RunLedger):
        if not result.run_id or any(not p.result_id for p in result.planned):
            raise IngestError(f"{source}: incomplete RunLedger (needs run_id, and a result_id per planned run); "
                              "nothing was stored")
    elif isinstance(result, opinfo_pb2.OpInfoResult):
        if not result.result_id or not result.op or not result.outcome:
            raise IngestError(f"{source}: incomplete OpInfoResult (needs result_id, op, outcome); nothing was stored")
    elif not result.result_id or not result.config.model or not result.community_status:
        raise IngestError(f"{source}: incomplete ModelResult (needs result_id, config.model, community_status); "
                          "nothing was stored")
    elif not result.config.mode or not result.config.precision:
        # Every query, page and HUD export keys on mode and dtype: a result without them could not be shown.
        raise IngestError(f"{source}: ModelResult {result.result_id} has no config.mode or config.precision "
                          "(write it with the harness, which always sets both); nothing was stored")
    return result


def run_scoped_id(run_id: str, result_id: str) -> str:
    """The id of a result that ran without a run id (a Bazel target's) once the ingest names its run. Its own id
    is the same every night (the configuration's hash), so without the run in it each night's ingest would replace
    the night before's row."""
    return hashlib.sha256(f"{run_id}\0{result_id}".encode()).hexdigest()[:32]


def load_results(paths: Iterable[Path], run_id: str = "", commit: str = "") -> list[LoadedResult]:
    """Parses every result first, so a malformed file stops the batch before anything is written. `run_id` names
    the run of results that carry none, and scopes their ids to it (run_scoped_id)."""
    loaded = []
    for found in iter_result_files(paths):
        source = found.source
        result = _parse(source, found.data)
        if run_id and not result.run_id:
            result.run_id = run_id
            if isinstance(result, (pb.ModelResult, opinfo_pb2.OpInfoResult)) and result.result_id:
                result.result_id = run_scoped_id(run_id, result.result_id)
        if isinstance(result, pb.TriageRecord):  # its run is the triaged result's: named when known, not required
            try:
                loaded.append(LoadedResult(source, result, repro=read_repro(source, result, found.sibling)))
            except TriageFileError as exc:
                raise IngestError(f"{exc}. Nothing was stored") from exc
            continue
        if not result.run_id:
            raise IngestError(f"{source}: the result carries no run id; pass --run-id. Nothing was stored")
        if commit and not result.provenance.commit:
            result.provenance.commit = commit
        loaded.append(LoadedResult(source, result))
    if not loaded:
        raise IngestError("no result files (*.pb, Bazel outputs.zip holding them, or *.triage.txtpb) under the "
                          "given paths")
    return loaded


_COLUMNS = ("result_id", "run_id", "suite", "model", "mode", "dtype", "backend", "hud_compiler", "device_type",
            "device_name", "smoke", "community_status", "expected_status", "status", "speedup", "abs_latency_ms",
            "compilation_latency_s", "compression_ratio", "eager_peak_gb", "compiled_peak_gb", "graph_breaks",
            "recompiles", "torch_version", "commit_sha", "manifest_version", "manifest_sha256", "start_time",
            "wall_time_s", "payload", "origin", "problem_signature", "bottleneck_cause", "performance_only")
# Same statement in both dialects: a stored id is overwritten with the same content (idempotent).
_UPSERT = (f"INSERT INTO results ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))}) "
           f"ON CONFLICT (result_id) DO UPDATE SET "
           + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS if c != "result_id"))


def ingest(db: Database, loaded: list[LoadedResult], source: str = "") -> int:
    """Stores the batch in one transaction (all or nothing); returns how many results it holds."""
    return ingest_batch(db, loaded, source).results


def ingest_batch(db: Database, loaded: list[LoadedResult], source: str = "") -> IngestCounts:
    """ingest(), saying also how many of the batch's triage records were stored (tools/store/triages.py: a stored
    signature keeps its triage unless the new record got further)."""
    by_id: dict[str, tuple[object, ...]] = {}
    opinfo_rows: dict[str, tuple[object, ...]] = {}
    plan_rows: dict[tuple[str, str], tuple[object, ...]] = {}
    best_triage: dict[str, LoadedResult] = {}  # per signature, the record of the batch that got furthest
    for item in loaded:
        try:
            check(item.result)
        except InvalidValue as exc:
            raise IngestError(f"{item.source}: {exc}; nothing was stored") from exc
        if isinstance(item.result, pb.TriageRecord):
            held = best_triage.get(item.result.signature)
            if held is None or progress(item.result) > progress(held.result):  # type: ignore[arg-type]
                best_triage[item.result.signature] = item
            continue
        if isinstance(item.result, pb.RunLedger):
            plan_rows.update({(item.result.run_id, p.result_id): _plan_row(item.result, p) for p in item.result.planned})
            continue
        if isinstance(item.result, opinfo_pb2.OpInfoResult):
            opinfo_rows[item.result.result_id] = _opinfo_row(item.result)
            continue
        row = _row(item)
        earlier = by_id.get(item.result.result_id)
        if earlier is not None and earlier != row:  # the same result found twice (file and zip) is harmless
            sources = [i.source for i in loaded if i.result.result_id == item.result.result_id]
            raise IngestError(f"result id {item.result.result_id} has two different contents in the batch "
                              f"({', '.join(sources)}); nothing was stored")
        by_id[item.result.result_id] = row
    rows = list(by_id.values())
    now = int(time.time())
    triage_rows = [triage_row(item.result, item.repro, now) for item in best_triage.values()]  # type: ignore[arg-type]
    with db.transaction():
        if rows:
            db.executemany(_UPSERT, rows)
        if opinfo_rows:
            db.executemany(_OPINFO_UPSERT, list(opinfo_rows.values()))
        if plan_rows:
            db.executemany(_PLAN_UPSERT, list(plan_rows.values()))
        # One at a time: each statement's own count says whether it replaced the stored triage.
        stored = sum(db.execute_count(TRIAGE_UPSERT, row) for row in triage_rows)
        db.execute("INSERT INTO ingests (ingested_at, source, results) VALUES (?, ?, ?)",
                   (now, source or (loaded[0].source if loaded else ""), len(rows) + len(opinfo_rows)))
    return IngestCounts(len(rows) + len(opinfo_rows), len(triage_rows), stored)


_PLAN_COLUMNS = ("run_id", "result_id", "suite", "model", "mode", "backend", "device")
_PLAN_UPSERT = (f"INSERT INTO run_plans ({', '.join(_PLAN_COLUMNS)}) VALUES ({', '.join('?' * len(_PLAN_COLUMNS))}) "
                "ON CONFLICT (run_id, result_id) DO UPDATE SET "
                + ", ".join(f"{c} = excluded.{c}" for c in _PLAN_COLUMNS[2:]))


def _plan_row(ledger: pb.RunLedger, planned: pb.PlannedRun) -> tuple[object, ...]:
    return (ledger.run_id, planned.result_id, ledger.suite, planned.model, mode_name(planned.mode), planned.backend,
            planned.device)


@dataclass(frozen=True)
class PlanProgress:
    """How much of what a run planned has a final result ("stopped" is none); planned == 0: no ledger stored."""
    planned: int
    missing: tuple[str, ...]  # "model (mode)" of each planned run without a final result

    @property
    def complete(self) -> bool:
        return not self.missing

    def describe(self) -> str:
        if not self.planned:
            return "no plan stored (a run from before ledgers, or Bazel's): completeness unknown"
        if self.complete:
            return f"complete: {self.planned} of {self.planned} planned runs have a result"
        shown = ", ".join(self.missing[:5]) + (", ..." if len(self.missing) > 5 else "")
        return (f"INCOMPLETE: {len(self.missing)} of {self.planned} planned runs have no result ({shown}); "
                "suites.run --resume runs them")


def plan_progress(db: Database, run_id: str) -> PlanProgress:
    rows = db.query("SELECT p.model, p.mode FROM run_plans p LEFT JOIN results r ON r.run_id = p.run_id AND "
                    "r.result_id = p.result_id AND r.community_status <> 'stopped' WHERE p.run_id = ? AND "
                    "r.result_id IS NULL ORDER BY p.model, p.mode", (run_id,))
    planned = int(db.query("SELECT COUNT(*) FROM run_plans WHERE run_id = ?", (run_id,))[0][0])
    return PlanProgress(planned, tuple(f"{model} ({mode})" for model, mode in rows))


_OPINFO_COLUMNS = ("result_id", "run_id", "op", "variant", "dtype", "device", "device_name", "op_group",
                   "lowering_family", "lowering", "outcome", "expected_outcome", "reason", "torch_version",
                   "commit_sha", "manifest_version", "start_time", "payload")
_OPINFO_UPSERT = (f"INSERT INTO opinfo_results ({', '.join(_OPINFO_COLUMNS)}) "
                  f"VALUES ({', '.join('?' * len(_OPINFO_COLUMNS))}) ON CONFLICT (result_id) DO UPDATE SET "
                  + ", ".join(f"{c} = excluded.{c}" for c in _OPINFO_COLUMNS if c != "result_id"))


def _opinfo_row(r: opinfo_pb2.OpInfoResult) -> tuple[object, ...]:
    p = r.provenance
    return (r.result_id, r.run_id, r.op, r.variant, r.dtype, r.device, p.device_name, r.group, r.lowering_family,
            enum_name(opinfo_pb2.Lowering, r.lowering, "LOWERING_"),
            enum_name(opinfo_pb2.OpInfoOutcome, r.outcome, "OPINFO_OUTCOME_"),
            enum_name(opinfo_pb2.OpInfoOutcome, r.expected_outcome, "OPINFO_OUTCOME_"), r.reason,
            p.torch_version, p.commit, p.manifest_version, p.start_time.seconds, r.SerializeToString())


def _row(item: LoadedResult) -> tuple[object, ...]:
    """The result's values in _COLUMNS order, from a row built by column name (a missing or extra name fails)."""
    r = item.result
    c, p = r.config, r.provenance
    named: dict[str, object] = dict(
        result_id=r.result_id, run_id=r.run_id, suite=c.suite, model=c.model, mode=MODE_NAMES.get(c.mode, ""),
        dtype=DTYPE_NAMES.get(c.precision, ""), backend=c.backend, hud_compiler=c.hud_compiler, device_type=c.device,
        device_name=p.device_name, smoke=int(c.smoke), community_status=r.community_status,
        expected_status=r.expected_status, status=r.status, speedup=r.performance.speedup,
        abs_latency_ms=r.performance.abs_latency_ms, compilation_latency_s=r.compile_time.compilation_latency_s,
        compression_ratio=r.memory.compression_ratio, eager_peak_gb=r.memory.eager_peak_gb,
        compiled_peak_gb=r.memory.compiled_peak_gb, graph_breaks=r.dynamo.graph_breaks,
        recompiles=r.dynamo.recompiles, torch_version=p.torch_version, commit_sha=p.commit,
        manifest_version=p.manifest_version, manifest_sha256=p.manifest_sha256, start_time=p.start_time.seconds,
        wall_time_s=r.wall_time_s, payload=r.SerializeToString(), origin=item.origin,
        problem_signature=r.bottleneck.signature, bottleneck_cause=r.bottleneck.cause,
        performance_only=int(c.performance_only))
    if named.keys() != set(_COLUMNS):
        raise AssertionError(f"_row and _COLUMNS disagree: {sorted(named.keys() ^ set(_COLUMNS))}")
    return tuple(named[column] for column in _COLUMNS)


def parse_payload(payload: bytes | memoryview) -> pb.ModelResult:
    result = pb.ModelResult()
    result.ParseFromString(bytes(payload))
    return result


def stored_results(db: Database, run_id: str) -> list[pb.ModelResult]:
    """The whole messages of a run, as ingested."""
    rows = db.query("SELECT payload FROM results WHERE run_id = ? ORDER BY suite, model, mode", (run_id,))
    return [parse_payload(payload) for (payload,) in rows]


def newest_run(db: Database) -> str:
    rows = db.query("SELECT run_id FROM results ORDER BY start_time DESC, run_id LIMIT 1")
    return rows[0][0] if rows else ""


def count_results(db: Database) -> int:
    return int(db.query("SELECT COUNT(*) FROM results")[0][0])


@dataclass(frozen=True)
class TrackedProblem:
    """One bottleneck signature across the store: where it was first and last seen, and how often."""
    signature: str
    suite: str
    model: str
    mode: str
    backend: str
    device_type: str
    cause: str  # the newest result's cause line (its figures change from run to run)
    first_seen_run: str
    first_seen_time: int
    last_seen_run: str
    last_seen_time: int
    results: int


def tracked_problems(db: Database, model: str = "") -> list[TrackedProblem]:
    """Every bottleneck signature (newest first), optionally of one model."""
    rows = db.query("SELECT problem_signature, suite, model, mode, backend, device_type, bottleneck_cause, run_id, "
                    "start_time FROM results WHERE problem_signature <> '' AND (? = '' OR model = ?) "
                    "ORDER BY start_time, run_id", (model, model))
    found: dict[str, TrackedProblem] = {}
    for signature, suite, name, mode, backend, device_type, cause, run_id, start in rows:
        first = found.get(signature)
        found[signature] = TrackedProblem(
            signature, suite, name, mode, backend, device_type, cause,
            first.first_seen_run if first else run_id, first.first_seen_time if first else int(start),
            run_id, int(start), (first.results if first else 0) + 1)
    return sorted(found.values(), key=lambda p: (-p.last_seen_time, p.signature))
