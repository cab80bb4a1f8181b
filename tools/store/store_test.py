"""The store, on SQLite and on a real PostgreSQL server: migrations, idempotent all-or-nothing
ingestion, hostile input, and the HUD's summary rules."""

from __future__ import annotations

import math
import zipfile
from pathlib import Path

import pytest

from parity.v1 import opinfo_pb2
from parity.v1 import results_pb2 as pb
from proto.result_files import OPINFO_SUFFIX, write_message
from suites.common.result_io import write_result
from tools.store.__main__ import main
from tools.store.db import (MIGRATIONS, IngestError, StoreError, connect, count_results, ingest, load_results,
                            stored_results, tracked_problems)
from tools.store.hud import render, summarize
from tools.store.store_fixtures import postgres, store_target  # noqa: F401 (fixtures)


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


def write(tmp_path: Path, *results: pb.ModelResult, folder: str = "results") -> Path:
    out = tmp_path / folder
    for r in results:
        write_result(r, out, r.config.model)
    return out


def test_ingest_is_idempotent(tmp_path: Path, store_target: str) -> None:
    folder = write(tmp_path, make_result("a", "pass", 1.5), make_result("b", "fail_accuracy"))
    db = connect(store_target)
    assert ingest(db, load_results([folder])) == 2
    assert ingest(db, load_results([folder])) == 2  # a duplicate ingest: same ids, nothing added
    assert count_results(db) == 2
    stored = db.query("SELECT speedup FROM results WHERE model = ?", ("a",))
    assert stored == [(1.5,)]


def test_malformed_file_stores_nothing(tmp_path: Path, store_target: str) -> None:
    db = connect(store_target)
    ingest(db, load_results([write(tmp_path, make_result("a", "pass", 1.5))]))
    bad = tmp_path / "bad"
    write_result(make_result("c", "pass", 2.0), bad, "c")
    (bad / "zz_garbage.pb").write_bytes(b"\xff\xff\xff not a proto")
    with pytest.raises(IngestError, match="zz_garbage.pb: not a parity.v1.ModelResult.*nothing was stored"):
        ingest(db, load_results([bad]))
    assert count_results(db) == 1  # neither c nor the garbage


def test_truncated_file_and_broken_zip_store_nothing(tmp_path: Path, store_target: str) -> None:
    db = connect(store_target)
    ingest(db, load_results([write(tmp_path, make_result("a", "pass", 1.5))]))
    truncated = tmp_path / "truncated"
    truncated.mkdir()
    whole = make_result("t", "pass", 2.0)
    whole.failure.log_tail = "x" * 200
    (truncated / "t.pb").write_bytes(whole.SerializeToString()[:-40])
    with pytest.raises(IngestError, match="t.pb: not a parity.v1.ModelResult"):
        ingest(db, load_results([truncated]))
    zipped = tmp_path / "testlogs" / "t" / "test.outputs"
    zipped.mkdir(parents=True)
    (zipped / "outputs.zip").write_bytes(b"PK\x03\x04 cut short")
    with pytest.raises(IngestError, match="outputs.zip: not a readable zip archive"):
        load_results([tmp_path / "testlogs"])
    assert count_results(db) == 1


def test_conflicting_ids_in_one_batch_store_nothing(tmp_path: Path, store_target: str) -> None:
    db = connect(store_target)
    first = write(tmp_path, make_result("a", "pass", 1.5), folder="one")
    second = write(tmp_path, make_result("a", "pass", 9.0), folder="two")  # same id, other content
    with pytest.raises(IngestError, match="two different contents"):
        ingest(db, load_results([first, second]))
    assert count_results(db) == 0


def test_failure_inside_the_transaction_rolls_back(tmp_path: Path, store_target: str) -> None:
    db = connect(store_target)
    ingest(db, load_results([write(tmp_path, make_result("a", "pass", 1.5))]))
    loaded = load_results([write(tmp_path, make_result("b", "pass", 2.0), folder="more")])
    db.execute("DROP TABLE ingests")  # the batch's last statement now fails, after the results were written
    with pytest.raises(Exception, match="ingests"):
        ingest(db, loaded)
    assert count_results(db) == 1


def test_incomplete_message_and_missing_path_are_rejected(tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "empty.pb").write_bytes(pb.ModelResult(run_id="x").SerializeToString())
    with pytest.raises(IngestError, match="incomplete ModelResult"):
        load_results([folder])
    with pytest.raises(IngestError, match="does not exist"):
        load_results([tmp_path / "nope"])
    no_run = write(tmp_path, make_result("a", "pass", run_id=""), folder="norun")
    with pytest.raises(IngestError, match="carries no run id; pass --run-id"):
        load_results([no_run])
    no_dtype = make_result("a", "pass")
    no_dtype.config.ClearField("precision")
    with pytest.raises(IngestError, match="no config.mode or config.precision"):
        load_results([write(tmp_path, no_dtype, folder="nodtype")])


def test_each_nights_ingest_of_bazel_results_keeps_the_nights_before(tmp_path: Path, store_target: str) -> None:
    """A Bazel target's result carries no run id, and its id is the configuration's hash, alike every night: the
    ingest scopes it to the run it names, so the second night adds rows beside the first's instead of taking them."""
    folder = write(tmp_path, make_result("a", "pass", 1.5, run_id=""), make_result("b", "fail_accuracy", run_id=""))
    case = opinfo_pb2.OpInfoResult(result_id="same-every-night", op="sin", dtype="float32", device="cpu",
                                   outcome=opinfo_pb2.OPINFO_OUTCOME_PASS)
    write_message(case, folder, "sin", OPINFO_SUFFIX)
    for night in ("nightly-2026-12-01-cpu", "nightly-2026-12-02-cpu", "nightly-2026-12-02-cpu"):  # a rerun of one
        assert main(["--db", store_target, "ingest", str(folder), "--run-id", night]) == 0
    db = connect(store_target)
    for night in ("nightly-2026-12-01-cpu", "nightly-2026-12-02-cpu"):
        assert sorted(r.config.model for r in stored_results(db, night)) == ["a", "b"]
        assert db.query("SELECT COUNT(*) FROM opinfo_results WHERE run_id = ?", (night,))[0][0] == 1
    assert count_results(db) == 4
    # A result that names its run keeps its id.
    named = write(tmp_path, make_result("c", "pass", 1.2, run_id="r9"), folder="named")
    assert [item.result.result_id for item in load_results([named], run_id="other")] == ["r9-c-cudagraphs"]
    db.close()


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


def test_migrations_are_versioned(store_target: str) -> None:
    db = connect(store_target)
    assert db.schema_version() == len(MIGRATIONS) == 7
    if db.dialect == "sqlite":
        db.execute("PRAGMA user_version = 99")
    else:
        db.execute("UPDATE parity_schema SET version = 99")
    db.close()
    with pytest.raises(StoreError, match="newer than this code"):
        connect(store_target)


def test_old_sqlite_store_is_migrated_in_place(tmp_path: Path) -> None:
    """A store written by schema version 1 keeps its rows and gains version 2's columns."""
    import sqlite3

    path = tmp_path / "old.db"
    raw = sqlite3.connect(path)
    raw.executescript("BEGIN;" + MIGRATIONS[0].sqlite + "PRAGMA user_version = 1; COMMIT;")
    raw.execute("INSERT INTO results VALUES (" + ", ".join("?" * 29) + ")",
                ("id1", "r0", "timm", "m", "inference", "bfloat16", "inductor", "default", "cpu", "x86_64", 1, "pass",
                 1, 1, 1.2, 1.0, 2.0, 1.0, 0.1, 0.1, 0, 0, "2.14", "abc", "3", "sha", 0, 1.0, b""))
    raw.commit()
    raw.close()
    with pytest.raises(StoreError, match="schema version 1.*migrate"):
        connect(path, read_only=True)
    assert main(["--db", str(path), "migrate"]) == 0
    db = connect(path, read_only=True)
    assert db.query("SELECT result_id, origin FROM results") == [("id1", "parity")]


def test_read_only_store_refuses_writes(tmp_path: Path, store_target: str) -> None:
    writer = connect(store_target)
    ingest(writer, load_results([write(tmp_path, make_result("a", "pass", 1.5))]))
    reader = connect(store_target, read_only=True)
    with pytest.raises(Exception, match="(?i)read.?only"):
        with reader.transaction():
            reader.execute("DELETE FROM results")
    assert count_results(writer) == 1


def test_unreachable_postgres_is_a_clear_error() -> None:
    with pytest.raises(StoreError, match="cannot connect to postgresql://nobody@127.0.0.1:1/x"):
        connect("postgresql://nobody:secret@127.0.0.1:1/x")


def test_hud_summary_rules(tmp_path: Path, store_target: str) -> None:
    db = connect(store_target)
    results = [
        make_result("a", "pass", 2.0, 10.0, 1.2),
        make_result("b", "pass", 0.5, 30.0, 0.8),
        make_result("c", "pass", 0.0),                 # accuracy passed, perf failed: counts as failing
        make_result("d", "pass_due_to_skip", 0.0),     # passes regardless of speedup
        make_result("e", "fail_accuracy", 3.0, 5.0, 2.0),
        make_result("f", "skipped"),                   # upstream writes no row: not in the denominator
        make_result("g", "eager_fail_to_run", compiler="eager", speedup=1.0),  # compiler eager always passes
    ]
    ingest(db, load_results([write(tmp_path, *results)]))
    rows = {r.compiler: r for r in summarize(db, "r1")}
    inductor = rows["cudagraphs"]
    assert (inductor.passed, inductor.total) == (3, 5)
    assert math.isclose(inductor.geomean_speedup, 1.0)  # sqrt(2.0 * 0.5)
    assert math.isclose(inductor.mean_compile_s, 20.0)
    assert math.isclose(inductor.mean_compression, 1.0)
    assert (rows["eager"].passed, rows["eager"].total) == (1, 1)


def test_accuracy_only_run_reports_its_accuracy_pass_rate(tmp_path: Path, store_target: str) -> None:
    """No speedup anywhere in the group (suites.run --plan accuracy): the pass rate is accuracy's, flagged."""
    db = connect(store_target)
    ingest(db, load_results([write(tmp_path, make_result("a", "pass"), make_result("b", "pass"),
                                   make_result("c", "fail_accuracy"))]))
    (row,) = summarize(db, "r1")
    assert (row.passed, row.total, row.accuracy_only, row.geomean_speedup) == (2, 3, True, 0.0)
    assert "accuracy only" in render([row])


def test_performance_only_run_is_flagged(tmp_path: Path, store_target: str) -> None:
    """suites.run --plan performance checked no accuracy: the group's pass rate counts the models that ran, flagged."""
    results = [make_result("a", "pass", 2.0), make_result("b", "fail_to_run")]
    for r in results:
        r.config.performance_only = True
    db = connect(store_target)
    ingest(db, load_results([write(tmp_path, *results)]))
    (row,) = summarize(db, "r1")
    assert (row.passed, row.total, row.performance_only, row.accuracy_only) == (1, 2, True, False)
    assert "performance only" in render([row])
    ingest(db, load_results([write(tmp_path, make_result("c", "pass", 1.5), folder="checked")]))
    (row,) = summarize(db, "r1")  # one checked result: the group's statuses are no longer all unchecked
    assert (row.passed, row.total, row.performance_only) == (2, 3, False)


def test_a_model_counts_once_per_run(tmp_path: Path, store_target: str) -> None:
    """A run holding a model's checked result and a performance-only one (two --plan invocations into one run id,
    as upstream's accuracy and performance CSVs): the HUD's one record per model, verdict from the check."""
    timed_alone = make_result("a", "pass", 5.6, 440.0, 1.3)
    timed_alone.config.performance_only = True
    timed_alone.result_id = "r1-a-performance"
    checked = make_result("a", "timeout")  # the checked run timed out: no timings of its own
    passing = make_result("b", "pass", 2.0, 10.0, 1.2)
    db = connect(store_target)
    ingest(db, load_results([write(tmp_path, checked, passing), write(tmp_path, timed_alone, folder="perf")]))
    (row,) = summarize(db, "r1")
    assert (row.passed, row.total, row.performance_only) == (1, 2, False)  # "a" fails on its verdict
    assert math.isclose(row.geomean_speedup, 2.0)
    checked.community_status = "pass"
    ingest(db, load_results([write(tmp_path, checked, folder="rechecked")]))
    (row,) = summarize(db, "r1")  # "a" now passes, with the timings of its performance-only run
    assert (row.passed, row.total) == (2, 2)
    assert math.isclose(row.geomean_speedup, math.sqrt(5.6 * 2.0))
    assert math.isclose(row.mean_compile_s, 225.0)


def test_cli_round_trip_on_both_dialects(tmp_path: Path, store_target: str, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write(tmp_path, make_result("a", "pass", 2.0, 10.0, 1.2), make_result("b", "fail_accuracy", 1.0))
    assert main(["--db", store_target, "ingest", str(folder)]) == 0
    assert main(["--db", store_target, "summary"]) == 0
    assert "50%, 1/2" in capsys.readouterr().out
    assert main(["--db", store_target, "ingest", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_cli_reading_commands_create_no_store_and_name_a_bad_out_path(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    mistyped = tmp_path / "parity-typo.db"
    for command in (["summary"], ["problems"], ["export-hud", "--run-id", "r1", "--out", str(tmp_path / "rows")]):
        assert main(["--db", str(mistyped), *command]) == 2
        assert "does not exist" in capsys.readouterr().err and not mistyped.exists()
    store = tmp_path / "parity.db"
    assert main(["--db", str(store), "ingest", str(write(tmp_path, make_result("a", "pass", 2.0)))]) == 0
    assert main(["--db", str(store), "export-hud", "--run-id", "r1", "--out", str(tmp_path / "no" / "rows")]) == 2
    assert "cannot write" in capsys.readouterr().err


def make_opinfo(op: str, outcome: int, lowering: int = 0, run_id: str = "op1") -> opinfo_pb2.OpInfoResult:
    result = opinfo_pb2.OpInfoResult(result_id=f"{run_id}-{op}", run_id=run_id, op=op, dtype="float32", device="cpu",
                                     group="norm", lowering_family="norm", lowering=lowering, outcome=outcome,
                                     expected_outcome=opinfo_pb2.OPINFO_OUTCOME_PASS, reason="")
    result.provenance.device_name = "x86_64"
    return result


def test_opinfo_results_are_ingested_beside_model_results(tmp_path: Path, store_target: str) -> None:
    folder = write(tmp_path, make_result("a", "pass", 1.5))
    (folder / f"native_layer_norm{OPINFO_SUFFIX}").write_bytes(
        make_opinfo("native_layer_norm", opinfo_pb2.OPINFO_OUTCOME_PASS, opinfo_pb2.LOWERING_NATIVE).SerializeToString())
    (folder / f"group_norm{OPINFO_SUFFIX}").write_bytes(
        make_opinfo("group_norm", opinfo_pb2.OPINFO_OUTCOME_FAIL, opinfo_pb2.LOWERING_FALLBACK).SerializeToString())
    db = connect(store_target)
    assert ingest(db, load_results([folder])) == 3
    assert ingest(db, load_results([folder])) == 3  # idempotent
    assert count_results(db) == 1
    assert db.query("SELECT op, lowering, outcome FROM opinfo_results ORDER BY op") == [
        ("group_norm", "fallback", "fail"), ("native_layer_norm", "native", "pass")]
    (folder / f"cut{OPINFO_SUFFIX}").write_bytes(b"\x0a\xff")
    with pytest.raises(IngestError, match="cut.opinfo.pb: not a parity.v1.OpInfoResult"):
        load_results([folder])


def test_a_bottleneck_is_tracked_across_runs(tmp_path: Path, store_target: str) -> None:
    def slow(run_id: str, start: int, share: int) -> pb.ModelResult:
        result = make_result("m", "pass", 0.6, run_id=run_id)
        result.provenance.start_time.seconds = start
        result.bottleneck.signature = "bottleneck/v1:timm/m:inference:inductor_cudagraphs:cuda:fallback:aten.gelu.default"
        result.bottleneck.cause = f"{share}% of compiled time in 1 fallback op: aten.gelu.default"
        return result

    db = connect(store_target)
    for run_id, start, share in (("r1", 100, 60), ("r2", 200, 55), ("r3", 300, 58)):
        ingest(db, load_results([write(tmp_path, slow(run_id, start, share), folder=run_id)]))
    ingest(db, load_results([write(tmp_path, slow("r3", 300, 58), folder="r3")]))  # re-ingested: no new sighting
    ingest(db, load_results([write(tmp_path, make_result("fast", "pass", 2.0, run_id="r3"), folder="fast")]))
    (problem,) = tracked_problems(db)
    assert (problem.model, problem.first_seen_run, problem.last_seen_run, problem.results) == ("m", "r1", "r3", 3)
    assert (problem.first_seen_time, problem.last_seen_time) == (100, 300)
    assert problem.cause.startswith("58% of compiled time")  # the newest sighting's figures
    assert tracked_problems(db, model="fast") == []


def test_two_first_ingests_into_a_new_store_both_succeed(tmp_path: Path, store_target: str) -> None:
    """Both create the schema on first use: under the set-up lock the second finds it made, and neither batch is lost."""
    import threading

    folders = [write(tmp_path, make_result(f"m{i}", "pass", 1.5, run_id=f"r{i}"), folder=f"r{i}") for i in range(4)]
    start, errors = threading.Barrier(len(folders)), []

    def first_use(folder: Path) -> None:
        try:
            start.wait()
            db = connect(store_target)
            ingest(db, load_results([folder]))
            db.close()
        except Exception as exc:  # noqa: BLE001 (collected for the assertion)
            errors.append(exc)

    threads = [threading.Thread(target=first_use, args=(folder,)) for folder in folders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors
    db = connect(store_target)
    assert count_results(db) == len(folders)
    db.close()


def test_many_first_opens_of_a_new_sqlite_file_all_succeed(tmp_path: Path) -> None:
    """The switch to write-ahead logging meets a lock that SQLite's busy timeout does not wait for; before it was
    retried, about 1 in 15 of these four-way races failed with "database is locked"."""
    import threading

    errors: list[Exception] = []
    for trial in range(60):
        start = threading.Barrier(4)

        def first_open(path: Path = tmp_path / f"new-{trial}.db") -> None:
            try:
                start.wait()
                connect(path).close()
            except Exception as exc:  # noqa: BLE001 (collected for the assertion)
                errors.append(exc)

        threads = [threading.Thread(target=first_open) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    assert not errors


def test_a_password_in_the_store_url_is_never_printed(tmp_path: Path, postgres, capsys: pytest.CaptureFixture[str]  # noqa: F811
                                                       ) -> None:
    url = postgres.new_database()
    secret_url = url.replace("://", "://parity:s3cret-pw@", 1) if "@" not in url else url
    results = write(tmp_path, make_result("m", "pass", 1.5))
    for command in (["ingest", str(results)], ["summary"], ["problems"], ["migrate"],
                    ["verdicts", "--run-id", "r1", "--base", "r1"]):
        main(["--db", secret_url, *command])
    out = capsys.readouterr()
    password = secret_url.split("://", 1)[1].split("@", 1)[0].partition(":")[2]
    assert password and password not in out.out + out.err


@pytest.mark.parametrize("odd", ["dangling link", "folder", "fifo"])
def test_odd_files_named_like_results_are_named_and_nothing_blocks(tmp_path: Path, odd: str) -> None:
    import os

    folder = write(tmp_path, make_result("m", "pass", 1.5))
    strange = folder / "strange.pb"
    {"dangling link": lambda: strange.symlink_to(tmp_path / "gone.pb"), "folder": strange.mkdir,
     "fifo": lambda: os.mkfifo(strange)}[odd]()
    with pytest.raises(IngestError, match="strange.pb: .*Nothing was stored"):
        load_results([folder])


def test_a_symlinked_folder_is_reported_not_skipped_silently(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write(tmp_path, make_result("m", "pass", 1.5))
    elsewhere = write(tmp_path, make_result("n", "pass", 1.5), folder="elsewhere")
    (folder / "linked").symlink_to(elsewhere)
    assert [r.result.config.model for r in load_results([folder])] == ["m"]
    assert f"skipped {folder / 'linked'}: a symbolic link to a folder" in capsys.readouterr().err
