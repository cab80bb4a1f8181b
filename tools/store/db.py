"""The results store: SQLite by default, schema migrations, idempotent transactional ingestion.

Each ModelResult is kept whole (its serialized bytes) plus the columns that queries filter and
aggregate on. A result's id is stable, so ingesting the same file twice changes nothing.
"""

from __future__ import annotations

import sqlite3
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from parity.v1 import results_pb2 as pb

# Append-only: each entry moves the schema from version i to i+1. Never edit a released entry.
MIGRATIONS: tuple[str, ...] = (
    """
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
)

MODE_NAMES = {pb.MODE_TRAINING: "training", pb.MODE_INFERENCE: "inference"}
DTYPE_NAMES = {pb.PRECISION_AMP: "amp", pb.PRECISION_BFLOAT16: "bfloat16", pb.PRECISION_FLOAT16: "float16",
               pb.PRECISION_FLOAT32: "float32"}


class IngestError(ValueError):
    """Input that cannot be stored; nothing from the batch was written."""


@dataclass(frozen=True)
class LoadedResult:
    source: str
    result: pb.ModelResult


def connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    migrate(conn)
    return conn


def migrate(conn: sqlite3.Connection) -> int:
    """Applies pending migrations in one transaction each; returns the schema version."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise RuntimeError(f"database schema version {version} is newer than this code ({len(MIGRATIONS)}): update Parity")
    for index in range(version, len(MIGRATIONS)):
        with conn:
            conn.executescript("BEGIN;" + MIGRATIONS[index] + f"PRAGMA user_version = {index + 1};")
    return len(MIGRATIONS)


def iter_result_files(paths: Iterable[Path]) -> Iterator[tuple[str, bytes]]:
    """(source name, bytes) of every .pb result under the given files/folders, including Bazel's outputs.zip."""
    for path in paths:
        if not path.exists():
            raise IngestError(f"{path} does not exist")
        candidates = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in candidates:
            if file.suffix == ".pb" and not _is_split_half(file.name):
                yield str(file), file.read_bytes()
            elif file.name == "outputs.zip":
                with zipfile.ZipFile(file) as archive:
                    for member in sorted(archive.namelist()):
                        if member.endswith(".pb") and not _is_split_half(member):
                            yield f"{file}!{member}", archive.read(member)


def _is_split_half(name: str) -> bool:
    """The accuracy or performance half of a split run; the merged result beside it is what is stored."""
    return name.endswith((".accuracy.pb", ".performance.pb"))


def load_results(paths: Iterable[Path], run_id: str = "", commit: str = "") -> list[LoadedResult]:
    """Parses every result first, so a malformed file stops the batch before anything is written."""
    loaded = []
    for source, data in iter_result_files(paths):
        result = pb.ModelResult()
        try:
            result.ParseFromString(data)
        except Exception as exc:  # noqa: BLE001 (protobuf raises several types for garbage)
            raise IngestError(f"{source}: not a parity.v1.ModelResult ({exc}); nothing was stored") from exc
        if not result.result_id or not result.config.model or not result.community_status:
            raise IngestError(f"{source}: incomplete ModelResult (needs result_id, config.model, community_status); "
                              "nothing was stored")
        if run_id and not result.run_id:
            result.run_id = run_id
        if commit and not result.provenance.commit:
            result.provenance.commit = commit
        loaded.append(LoadedResult(source, result))
    if not loaded:
        raise IngestError("no result files (*.pb, or Bazel outputs.zip holding them) under the given paths")
    return loaded


def ingest(conn: sqlite3.Connection, loaded: list[LoadedResult]) -> int:
    """Stores the batch in one transaction (all or nothing); returns how many results it holds."""
    rows = [_row(item.result) for item in loaded]
    with conn:  # commits on success, rolls back on any error
        conn.executemany(
            f"INSERT OR REPLACE INTO results ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})", rows)
    return len(rows)


_COLUMNS = ("result_id", "run_id", "suite", "model", "mode", "dtype", "backend", "hud_compiler", "device_type",
            "device_name", "smoke", "community_status", "expected_status", "status", "speedup", "abs_latency_ms",
            "compilation_latency_s", "compression_ratio", "eager_peak_gb", "compiled_peak_gb", "graph_breaks",
            "recompiles", "torch_version", "commit_sha", "manifest_version", "manifest_sha256", "start_time",
            "wall_time_s", "payload")


def _row(r: pb.ModelResult) -> tuple[object, ...]:
    c, p = r.config, r.provenance
    return (r.result_id, r.run_id, c.suite, c.model, MODE_NAMES.get(c.mode, ""), DTYPE_NAMES.get(c.precision, ""),
            c.backend, c.hud_compiler, c.device, p.device_name, int(c.smoke), r.community_status, r.expected_status,
            r.status, r.performance.speedup, r.performance.abs_latency_ms, r.compile_time.compilation_latency_s,
            r.memory.compression_ratio, r.memory.eager_peak_gb, r.memory.compiled_peak_gb, r.dynamo.graph_breaks,
            r.dynamo.recompiles, p.torch_version, p.commit, p.manifest_version, p.manifest_sha256,
            p.start_time.seconds, r.wall_time_s, r.SerializeToString())


def stored_results(conn: sqlite3.Connection, run_id: str) -> list[pb.ModelResult]:
    """The whole messages of a run, as ingested."""
    results = []
    for (payload,) in conn.execute("SELECT payload FROM results WHERE run_id = ? ORDER BY suite, model, mode", (run_id,)):
        result = pb.ModelResult()
        result.ParseFromString(payload)
        results.append(result)
    return results
