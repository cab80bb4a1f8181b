"""Triages in the store, on SQLite and on a real PostgreSQL server: a record and its repro are ingested from beside
the result, one per failure signature; a stored triage gives way only to one that got further; a malformed record
or a missing repro stops the batch and leaves what is stored as it was; the nightly's selection takes compiled-side
failures only, most valuable first, one per signature."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from google.protobuf import text_format

from parity.v1 import results_pb2 as pb
from suites.common.result_io import write_result
from tools.store.__main__ import main
from tools.store.db import MIGRATIONS, ORIGIN_COMMUNITY, IngestError, LoadedResult, connect, count_results, \
    ingest, ingest_batch, load_results
from tools.store.failures import is_compiled_side, signature
from tools.store.store_fixtures import postgres, store_target  # noqa: F401 (fixtures)
from tools.store.triages import compiled_side_failures, progress, triage_for, triages, untriaged_failures

T = pb.TriageRecord
REPRO = "import torch\n\n\ndef repro():\n    raise RuntimeError('planted')\n\n\nrepro()\n"


def failed(model: str, status: str = "fail_accuracy", run_id: str = "r1", expected: int = pb.STATUS_PASS,
           phase: int = 0, message: str = "", exception: str = "", mode: int = pb.MODE_TRAINING) -> pb.ModelResult:
    result = pb.ModelResult(result_id=f"{run_id}-{model}-{mode}", run_id=run_id, community_status=status,
                            expected_status=expected)
    result.config.CopyFrom(pb.RunConfig(suite="torchbench", model=model, mode=mode,
                                        precision=pb.PRECISION_AMP if mode == pb.MODE_TRAINING
                                        else pb.PRECISION_BFLOAT16, backend="inductor", device="cuda"))
    result.failure.phase, result.failure.message, result.failure.exception_type = phase, message, exception
    return result


def record_for(result: pb.ModelResult, outcome: int = T.OUTCOME_DONE, reproduces: int = T.REPRODUCES_YES,
               repro: bool = True, culprit: str = "lowerings") -> pb.TriageRecord:
    c = result.config
    record = T(signature=signature(result).label, result_id=result.result_id, run_id=result.run_id, suite=c.suite,
               model=c.model, mode=c.mode, backend=c.backend, device=c.device,
               community_status=result.community_status, outcome=outcome, reproduces=reproduces,
               culprit_backend="inductor" if culprit else "", culprit_subsystem=culprit,
               bisect_number=4 if culprit else -1, debug_info="aten.convolution_backward.default" if culprit else "",
               repro_path=f"/gpu-host/out/{c.model}.repro.py" if repro else "", repro_lines=8, repro_nodes=3,
               limit_s=600.0, wall_s=120.0)
    record.step_wall_s["bisect"] = 90.0
    return record


def write_triage(folder: Path, stem: str, record: pb.TriageRecord, script: str | None = REPRO) -> Path:
    """What tools/triage leaves beside a result: <stem>.triage.txtpb and the <stem>.repro.py it names."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.triage.txtpb"
    path.write_text(text_format.MessageToString(record))
    if script is not None and record.repro_path:
        (folder / Path(record.repro_path).name).write_text(script)
    return path


def test_a_triage_is_stored_with_its_result_and_repro(tmp_path: Path, store_target: str) -> None:
    result = failed("demucs")
    folder = tmp_path / "out"
    write_result(result, folder, "demucs")
    write_triage(folder, "demucs", record_for(result))
    db = connect(store_target)
    assert db.schema_version() == len(MIGRATIONS) == 7
    counts = ingest_batch(db, load_results([folder]))
    assert (counts.results, counts.triages, counts.triages_stored) == (1, 1, 1)
    stored = triage_for(db, signature(result).label)
    assert stored is not None and stored.repro_script == REPRO and stored.repro_name == "demucs.repro.py"
    assert (stored.culprit, stored.reproduces, stored.outcome) == ("inductor / lowerings / bisect number 4", "yes",
                                                                   "done")
    assert stored.record.step_wall_s["bisect"] == 90.0
    row = db.query("SELECT signature, result_id, run_id, suite, model, mode, backend, device, community_status, "
                   "outcome, culprit_backend, culprit_subsystem, bisect_number, reproduces, repro_lines FROM triages")
    assert row == [(signature(result).label, result.result_id, "r1", "torchbench", "demucs", "training", "inductor",
                    "cuda", "fail_accuracy", "done", "inductor", "lowerings", 4, "yes", 8)]
    assert [t.record.model for t in triages(db)] == ["demucs"] and triages(db, "other-run") == []
    assert ingest_batch(db, load_results([folder])).triages_stored == 0  # the same record again: nothing changes
    assert db.query("SELECT COUNT(*) FROM triages") == [(1,)]


def test_a_stored_triage_gives_way_only_to_one_that_got_further(tmp_path: Path, store_target: str) -> None:
    result = failed("moco")
    db = connect(store_target)

    def offer(name: str, record: pb.TriageRecord) -> int:
        return ingest_batch(db, load_results([write_triage(tmp_path / name, "moco", record)])).triages_stored

    def stored() -> tuple[str, str]:
        found = triage_for(db, signature(result).label)
        assert found is not None
        return found.outcome, found.reproduces

    assert offer("error", record_for(result, T.OUTCOME_ERROR, T.REPRODUCES_UNSPECIFIED, repro=False, culprit="")) == 1
    assert offer("gave-up", record_for(result, T.OUTCOME_GAVE_UP, T.REPRODUCES_UNSPECIFIED, repro=False)) == 1
    assert stored() == ("gave_up", "not checked")
    assert offer("error-again", record_for(result, T.OUTCOME_ERROR, repro=False, culprit="")) == 0
    assert offer("done-no", record_for(result, T.OUTCOME_DONE, T.REPRODUCES_NO)) == 1
    assert offer("done-yes", record_for(result, T.OUTCOME_DONE, T.REPRODUCES_YES)) == 1
    assert stored() == ("done", "yes")
    same_progress = record_for(result, T.OUTCOME_DONE, T.REPRODUCES_YES)
    same_progress.wall_s = 5.0  # another triage that got exactly as far: the stored one stays
    assert offer("done-yes-again", same_progress) == 0
    assert triage_for(db, signature(result).label).record.wall_s == 120.0  # type: ignore[union-attr]
    assert progress(record_for(result, T.OUTCOME_GAVE_UP, T.REPRODUCES_YES)) < progress(
        record_for(result, T.OUTCOME_DONE, T.REPRODUCES_NO, repro=False, culprit=""))  # the outcome comes first


def test_the_furthest_of_one_batch_is_kept(tmp_path: Path, store_target: str) -> None:
    result = failed("resnet50")
    folder = tmp_path / "batch"
    write_triage(folder, "a", record_for(result, T.OUTCOME_GAVE_UP))
    write_triage(folder, "b", record_for(result, T.OUTCOME_DONE))
    write_triage(folder, "c", record_for(result, T.OUTCOME_NOT_REPRODUCED, repro=False, culprit=""))
    db = connect(store_target)
    counts = ingest_batch(db, load_results([folder]))
    assert (counts.results, counts.triages, counts.triages_stored) == (0, 1, 1)
    assert triage_for(db, signature(result).label).outcome == "done"  # type: ignore[union-attr]


@pytest.mark.parametrize("damage, message", [
    ("garbage", r"bad.triage.txtpb: not a parity.v1.TriageRecord in text format"),
    ("no signature", r"bad.triage.txtpb: incomplete TriageRecord \(no signature"),
    ("no outcome", r"bad.triage.txtpb: incomplete TriageRecord \(no outcome"),
    ("negative count", r"bad.triage.txtpb: repro_lines is -3: a count or size cannot be negative"),
    ("infinite wall", r"bad.triage.txtpb: wall_s is inf: figures must be finite"),
    ("missing repro", r"bad.triage.txtpb: the record names its repro '/gpu-host/out/m.repro.py', but no m.repro.py"),
    ("binary repro", r"bad.triage.txtpb: its repro m.repro.py is not UTF-8 text"),
])
def test_a_malformed_triage_stores_nothing_and_loses_nothing(tmp_path: Path, store_target: str, damage: str,
                                                             message: str) -> None:
    result = failed("m")
    db = connect(store_target)
    ingest(db, load_results([write_triage(tmp_path / "first", "m", record_for(result, T.OUTCOME_GAVE_UP))]))
    batch = tmp_path / "batch"
    write_result(failed("other", run_id="r2"), batch, "other")  # a good result in the same batch: not stored either
    bad = record_for(result, T.OUTCOME_DONE)
    bad.repro_path = "/gpu-host/out/m.repro.py"
    script: str | None = REPRO
    if damage == "no signature":
        bad.ClearField("signature")
    elif damage == "no outcome":
        bad.ClearField("outcome")
    elif damage == "negative count":
        bad.repro_lines = -3
    elif damage == "infinite wall":
        bad.wall_s = float("inf")
    elif damage == "missing repro":
        script = None
    path = write_triage(batch, "bad", bad, script=None)
    if script is not None:
        (batch / "m.repro.py").write_text(script)
    if damage == "binary repro":
        (batch / "m.repro.py").write_bytes(b"\xff\xfe\x00 not text")
    if damage == "garbage":
        path.write_text("signature: \"unterminated")
    with pytest.raises(IngestError, match=message + ".*(?i:nothing was stored)"):
        ingest(db, load_results([batch]))
    assert count_results(db) == 0
    kept = triage_for(db, signature(result).label)
    assert kept is not None and kept.outcome == "gave_up" and kept.repro_script == REPRO


def test_a_failure_inside_the_transaction_leaves_the_stored_triage(tmp_path: Path, store_target: str) -> None:
    result = failed("m")
    db = connect(store_target)
    ingest(db, load_results([write_triage(tmp_path / "first", "m", record_for(result, T.OUTCOME_GAVE_UP))]))
    further = load_results([write_triage(tmp_path / "second", "m", record_for(result, T.OUTCOME_DONE))])
    db.execute("DROP TABLE ingests")  # the batch's last statement now fails, after the triage was written
    with pytest.raises(Exception, match="ingests"):
        ingest(db, further)
    assert triage_for(db, signature(result).label).outcome == "gave_up"  # type: ignore[union-attr]


def test_a_binary_record_beside_its_text_form_is_read_once(tmp_path: Path) -> None:
    from proto.result_files import write_message

    result = failed("m")
    write_message(record_for(result, repro=False), tmp_path / "out", "m", ".triage.pb")  # .triage.pb and .txtpb
    loaded = load_results([tmp_path / "out"])
    assert [(Path(item.source).name, type(item.result).__name__) for item in loaded] == [
        ("m.triage.pb", "TriageRecord")]


def test_an_old_store_gains_the_triages_table_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "v6.db"
    raw = sqlite3.connect(path)
    script = "".join(migration.sqlite.rstrip().rstrip(";") + ";" for migration in MIGRATIONS[:6])
    raw.executescript(f"BEGIN; {script} PRAGMA user_version = 6; COMMIT;")
    raw.close()
    db = connect(path)
    write_result(failed("m"), tmp_path / "out", "m")
    ingest(db, load_results([tmp_path / "out"]))
    db.close()
    assert main(["--db", str(path), "migrate"]) == 0
    db = connect(path, read_only=True)
    assert db.schema_version() == 7 and count_results(db) == 1
    assert db.query("SELECT COUNT(*) FROM triages") == [(0,)]


def crashed_in(frames: list[str]) -> pb.ModelResult:
    """A crash from before the launcher named the last phase: only faulthandler's stack in the log tail says where."""
    result = failed("a", "crash", phase=pb.PHASE_CHILD_PROCESS, message="child killed by SIGSEGV before writing its "
                    "result")
    result.failure.log_tail = "Current thread 0x00007fd2 (most recent call first):\n" + "\n".join(
        f'  File "/opt/torch/.venv/lib/python3.12/site-packages/{path}", {where}'
        for path, where in zip(frames[::2], frames[1::2]))
    return result


@pytest.mark.parametrize("result, compiled", [
    (failed("a", "fail_accuracy"), True),
    (failed("a", "fail_to_run", phase=pb.PHASE_COMPILE, exception="RuntimeError", message="x"), True),
    (failed("a", "timeout", phase=pb.PHASE_COMPILE, message="killed"), True),
    (failed("a", "crash", phase=pb.PHASE_CHILD_PROCESS,
            message="child killed by SIGSEGV before writing its result; the last phase it began: compiled_check"), True),
    (failed("a", "crash", phase=pb.PHASE_CHILD_PROCESS,
            message="child killed by SIGSEGV before writing its result; the last phase it began: performance"), True),
    (failed("a", "timeout", phase=pb.PHASE_CHILD_PROCESS,
            message="no result within the 2000 s timeout; killed; the last phase it began: eager_runs"), False),
    (failed("a", "crash", phase=pb.PHASE_CHILD_PROCESS, message="child killed by SIGKILL before writing its result"),
     False),
    (crashed_in(["torch/_functorch/_aot_autograd/runtime_wrappers.py", "line 2748 in backward",
                 "torch/_dynamo/eval_frame.py", "line 1024 in compile_wrapper"]), True),  # an older result's log
    (crashed_in(["suites/common/model_run.py", "line 426 in _eager_runs"]), False),
    (failed("a", "eager_fail_to_run", phase=pb.PHASE_EAGER, exception="RuntimeError", message="x"), False),
    (failed("a", "eager_two_runs_differ"), False),
    (failed("a", "OOM", phase=pb.PHASE_TIMING), False),
    (failed("a", "infra_error"), False),
    (failed("a", "pass"), False),
])
def test_only_compiled_side_failures_are_triaged(result: pb.ModelResult, compiled: bool) -> None:
    assert is_compiled_side(result) is compiled


def test_signatures_without_an_exception_name_the_model() -> None:
    """Two models' accuracy failures, or crashes, are two signatures (each gets its own triage); two models'
    identical exceptions remain one."""
    assert signature(failed("demucs")).label == "fail_accuracy · torchbench/demucs training inductor cuda"
    assert signature(failed("demucs")).label != signature(failed("moco")).label
    segfault = "child killed by SIGSEGV before writing its result; the last phase it began: performance"
    assert signature(failed("speech_transformer", "crash", phase=pb.PHASE_CHILD_PROCESS, message=segfault)).label == (
        "crash · child_process · child killed by SIGSEGV before writing its result; the last phase it began: "
        "performance · torchbench/speech_transformer training inductor cuda")
    crash = [failed(m, "fail_to_run", phase=pb.PHASE_COMPILED_RUN, exception="RuntimeError",
                    message=f"shape mismatch at dim {d} of tensor 0x7f{d}") for m, d in (("x", 1), ("y", 2))]
    assert signature(crash[0]).label == signature(crash[1]).label == \
        "fail_to_run · compiled_run · RuntimeError · shape mismatch at dim N of tensor <addr>"


def test_untriaged_failures_come_most_valuable_first_once_per_signature(tmp_path: Path, store_target: str) -> None:
    shared = dict(status="fail_to_run", phase=pb.PHASE_COMPILE, exception="RuntimeError",
                  message="one of the variables needed for gradient computation has been modified by an inplace op")
    results = [
        failed("a_expected_fail", expected=pb.STATUS_FAIL_ACCURACY),      # neither the manifest nor community pass
        failed("b_community_only", expected=pb.STATUS_FAIL_ACCURACY),     # the community's baseline passes
        failed("c_both"),                                                 # both pass
        failed("d_manifest_only"),                                        # the manifest expects a pass
        failed("e_inplace", expected=pb.STATUS_FAIL_TO_RUN, **shared),    # one signature for e and f
        failed("f_inplace", **shared),
        failed("g_eager", "eager_1st_run_fail", phase=pb.PHASE_EAGER, exception="RuntimeError", message="x"),
        failed("h_triaged"),
        failed("i_other_run", run_id="r0"),
    ]
    db = connect(store_target)
    ingest(db, [LoadedResult("t", r) for r in results])
    community = [failed(m, "pass", run_id="h100") for m in ("b_community_only", "c_both", "a_expected_fail")]
    community[-1].community_status = "fail_accuracy"  # the community fails it too
    ingest(db, [LoadedResult("csv", r, ORIGIN_COMMUNITY) for r in community])
    ingest(db, [LoadedResult("t", record_for(results[7]))])
    every = [(r.config.model, label) for r, label in compiled_side_failures(db, "r1")]
    assert [model for model, _ in every] == ["c_both", "b_community_only", "d_manifest_only", "f_inplace",
                                             "h_triaged", "a_expected_fail", "e_inplace"]
    assert [r.config.model for r, _ in untriaged_failures(db, "r1")] == [
        "c_both", "b_community_only", "d_manifest_only", "f_inplace", "a_expected_fail"]  # e shares f's signature
    assert untriaged_failures(db, "no-such-run") == []


def test_cli_lists_stored_triages(tmp_path: Path, store_target: str, capsys: pytest.CaptureFixture[str]) -> None:
    result = failed("Super_SloMo")
    folder = tmp_path / "out"
    write_result(result, folder, "Super_SloMo")
    write_triage(folder, "Super_SloMo", record_for(result))
    assert main(["--db", store_target, "ingest", str(folder)]) == 0
    assert "stored 1 results and 1 of 1 triages" in capsys.readouterr().out
    assert main(["--db", store_target, "triages"]) == 0
    out = capsys.readouterr().out
    assert "1 stored triages" in out
    assert "torchbench/Super_SloMo training inductor cuda: fail_accuracy, triage done in 120 s of 600 s" in out
    assert "culprit inductor / lowerings / bisect number 4 (aten.convolution_backward.default)" in out
    assert "Super_SloMo.repro.py (8 lines, 3 nodes), reproduces yes" in out
    assert main(["--db", store_target, "triages", "--run-id", "r9"]) == 0
    assert "0 stored triages" in capsys.readouterr().out
    assert main(["--db", str(tmp_path / "typo.db"), "triages"]) == 2
    assert "does not exist" in capsys.readouterr().err and not (tmp_path / "typo.db").exists()
