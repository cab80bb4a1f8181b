"""The store: migrations, idempotent all-or-nothing ingestion, and the HUD's summary rules."""

from __future__ import annotations

import math
import sqlite3
import zipfile
from pathlib import Path

import pytest

from parity.v1 import results_pb2 as pb
from suites.common.result_io import write_result
from tools.store.db import IngestError, connect, ingest, load_results
from tools.store.hud import summarize


def make_result(model: str, status: str, speedup: float = 0.0, compile_s: float = 0.0, compression: float = 0.0,
                compiler: str = "cudagraphs", run_id: str = "r1") -> pb.ModelResult:
    result = pb.ModelResult(result_id=f"{run_id}-{model}-{compiler}", run_id=run_id, community_status=status)
    result.config.CopyFrom(pb.RunConfig(suite="timm", model=model, mode=pb.MODE_INFERENCE,
                                        precision=pb.PRECISION_BFLOAT16, backend="inductor_cudagraphs",
                                        hud_compiler=compiler, device="cuda"))
    result.performance.speedup = speedup
    result.compile_time.compilation_latency_s = compile_s
    result.memory.compression_ratio = compression
    return result


def write(tmp_path: Path, *results: pb.ModelResult) -> Path:
    out = tmp_path / "results"
    for r in results:
        write_result(r, out, r.config.model)
    return out


def count(db: Path) -> int:
    return sqlite3.connect(db).execute("SELECT COUNT(*) FROM results").fetchone()[0]


def test_ingest_is_idempotent(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    folder = write(tmp_path, make_result("a", "pass", 1.5), make_result("b", "fail_accuracy"))
    conn = connect(db)
    assert ingest(conn, load_results([folder])) == 2
    assert ingest(conn, load_results([folder])) == 2
    assert count(db) == 2


def test_malformed_file_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    conn = connect(db)
    ingest(conn, load_results([write(tmp_path, make_result("a", "pass", 1.5))]))
    bad = tmp_path / "bad"
    write_result(make_result("c", "pass", 2.0), bad, "c")
    (bad / "zz_garbage.pb").write_bytes(b"\xff\xff\xff not a proto")
    with pytest.raises(IngestError, match="zz_garbage.pb: not a parity.v1.ModelResult.*nothing was stored"):
        ingest(conn, load_results([bad]))
    assert count(db) == 1  # neither c nor the garbage


def test_incomplete_message_and_missing_path_are_rejected(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "empty.pb").write_bytes(pb.ModelResult(run_id="x").SerializeToString())
    with pytest.raises(IngestError, match="incomplete ModelResult"):
        load_results([folder])
    with pytest.raises(IngestError, match="does not exist"):
        load_results([tmp_path / "nope"])


def test_bazel_outputs_zip_is_read(tmp_path: Path) -> None:
    folder = write(tmp_path, make_result("a", "pass", 1.5, run_id=""))
    testlogs = tmp_path / "testlogs" / "suites" / "timm" / "a_test" / "test.outputs"
    testlogs.mkdir(parents=True)
    with zipfile.ZipFile(testlogs / "outputs.zip", "w") as archive:
        archive.write(folder / "a.pb", "a.pb")
        archive.write(folder / "a.txtpb", "a.txtpb")
    loaded = load_results([tmp_path / "testlogs"], run_id="bazel-1", commit="abc")
    assert [item.result.run_id for item in loaded] == ["bazel-1"]
    assert loaded[0].result.provenance.commit == "abc"


def test_migrations_are_versioned(tmp_path: Path) -> None:
    conn = connect(tmp_path / "p.db")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(RuntimeError, match="newer than this code"):
        connect(tmp_path / "p.db")


def test_hud_summary_rules(tmp_path: Path) -> None:
    conn = connect(tmp_path / "p.db")
    results = [
        make_result("a", "pass", 2.0, 10.0, 1.2),
        make_result("b", "pass", 0.5, 30.0, 0.8),
        make_result("c", "pass", 0.0),                 # accuracy passed, perf failed: counts as failing
        make_result("d", "pass_due_to_skip", 0.0),     # passes regardless of speedup
        make_result("e", "fail_accuracy", 3.0, 5.0, 2.0),
        make_result("f", "skipped"),                   # upstream writes no row: not in the denominator
        make_result("g", "eager_fail_to_run", compiler="eager", speedup=1.0),  # compiler eager always passes
    ]
    ingest(conn, load_results([write(tmp_path, *results)]))
    rows = {r.compiler: r for r in summarize(conn, "r1")}
    inductor = rows["cudagraphs"]
    assert (inductor.passed, inductor.total) == (3, 5)
    assert math.isclose(inductor.geomean_speedup, 1.0)  # sqrt(2.0 * 0.5)
    assert math.isclose(inductor.mean_compile_s, 20.0)
    assert math.isclose(inductor.mean_compression, 1.0)
    assert (rows["eager"].passed, rows["eager"].total) == (1, 1)
