"""The nightly's triage step against a real SQLite store, up to the triage program's boundary: a real small program
stands in for `python -m tools.triage` (given through --triage-command), writing what the real one writes beside
the result, or failing in the ways a triage can. Checked: which failures are triaged (compiled-side, untriaged
signatures, most valuable first, each once across nights), that a triage that leaves no record still counts as
triaged, and the report's "New triages" section."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from proto.codegen import ensure_generated

ensure_generated()

from ci.nightly import main, render_report  # noqa: E402
from ci.nightly_triage import render_triages, run_triages  # noqa: E402
from parity.v1 import opinfo_pb2  # noqa: E402
from parity.v1 import results_pb2 as pb  # noqa: E402
from tools.store.db import LoadedResult, connect, ingest  # noqa: E402
from tools.store.failures import opinfo_as_model_result, signature  # noqa: E402
from tools.store.triages import triage_for, triages  # noqa: E402

NIGHT, NEXT_NIGHT = "nightly-2026-12-02-cuda", "nightly-2026-12-03-cuda"

# What the stand-in does for each model: what tools/triage leaves, or a way a triage fails.
STAND_IN = '''
import sys, time
from pathlib import Path
from google.protobuf import text_format
from parity.v1 import opinfo_pb2, results_pb2 as pb
from tools.store.failures import opinfo_as_model_result, signature

result_file, limit = Path(sys.argv[1]), sys.argv[sys.argv.index("--limit-s") + 1]
if result_file.name.endswith(".opinfo.pb"):  # an OpInfo case, which tools/triage reads as a model's result
    result = opinfo_as_model_result(opinfo_pb2.OpInfoResult.FromString(result_file.read_bytes()))
    stem = result_file.name.removesuffix(".opinfo.pb")
else:
    result = pb.ModelResult.FromString(result_file.read_bytes())
    stem = result_file.name.removesuffix(".pb")
model = result.config.model
print(f"triaging {model} within {limit} s", flush=True)
if model == "hangs":
    time.sleep(600)
if model == "exits":
    sys.exit(3)
record = pb.TriageRecord(signature=signature(result).label, result_id=result.result_id, run_id=result.run_id,
                         suite=result.config.suite, model=model, mode=result.config.mode,
                         backend=result.config.backend, device=result.config.device,
                         community_status=result.community_status, outcome=pb.TriageRecord.OUTCOME_DONE,
                         culprit_backend="inductor", culprit_subsystem="post_grad_passes", bisect_number=2,
                         debug_info="pass 2 of 5", repro_path=str(result_file.with_name(stem + ".repro.py")),
                         repro_lines=3, repro_nodes=2, reproduces=pb.TriageRecord.REPRODUCES_YES,
                         limit_s=float(limit), wall_s=1.0)
if model == "no_repro_file":
    record.repro_path = "/elsewhere/missing.repro.py"
else:
    result_file.with_name(stem + ".repro.py").write_text("import torch\\nraise AssertionError('planted')\\n")
if model == "keyed_otherwise":
    record.signature = "a signature of its own"
(result_file.parent / (stem + ".triage.txtpb")).write_text(text_format.MessageToString(record))
if model == "records_then_exits":
    sys.exit(2)
'''


def failure(model: str, status: str = "fail_accuracy", run_id: str = NIGHT, expected: int = pb.STATUS_PASS,
            phase: int = 0, message: str = "") -> pb.ModelResult:
    result = pb.ModelResult(result_id=f"{run_id}-{model}", run_id=run_id, community_status=status,
                            expected_status=expected)
    result.config.CopyFrom(pb.RunConfig(suite="torchbench", model=model, mode=pb.MODE_TRAINING,
                                        precision=pb.PRECISION_AMP, backend="inductor", device="cuda"))
    result.failure.phase, result.failure.message = phase, message
    return result


def night(run_id: str) -> list[pb.ModelResult]:
    died = "child killed by SIGSEGV before writing its result; the last phase it began: "
    return [failure(model, status, run_id, expected, phase, message) for model, status, expected, phase, message in (
        ("ok", "fail_accuracy", pb.STATUS_FAIL_ACCURACY, 0, ""),  # triaged last: the manifest expects it to fail
        ("exits", "fail_accuracy", pb.STATUS_PASS, 0, ""),
        ("hangs", "crash", pb.STATUS_PASS, pb.PHASE_CHILD_PROCESS, died + "compiled_check"),
        ("no_repro_file", "fail_accuracy", pb.STATUS_PASS, 0, ""),
        ("records_then_exits", "fail_accuracy", pb.STATUS_PASS, 0, ""),
        ("keyed_otherwise", "fail_accuracy", pb.STATUS_PASS, 0, ""),
        ("earlier", "fail_accuracy", pb.STATUS_PASS, 0, ""),  # triaged on an earlier night
        ("eager", "eager_1st_run_fail", pb.STATUS_PASS, pb.PHASE_EAGER, "expected scalar type Half"),
        ("eager_crash", "crash", pb.STATUS_PASS, pb.PHASE_CHILD_PROCESS, died + "eager_runs"),
        ("passes", "pass", pb.STATUS_PASS, 0, ""))]


@pytest.fixture
def store(tmp_path: Path) -> str:
    target = str(tmp_path / "parity.db")
    db = connect(target)
    ingest(db, [LoadedResult("night", r) for r in night(NIGHT)])
    earlier = failure("earlier", run_id="nightly-2026-11-30-cuda")
    ingest(db, [LoadedResult("earlier", pb.TriageRecord(
        signature=signature(earlier).label, result_id=earlier.result_id, run_id=earlier.run_id, model="earlier",
        outcome=pb.TriageRecord.OUTCOME_GAVE_UP, limit_s=600.0, wall_s=600.0))])
    db.close()
    return target


@pytest.fixture
def stand_in(tmp_path: Path) -> list[str]:
    program = tmp_path / "fake_triage.py"
    program.write_text(STAND_IN)
    return [sys.executable, str(program)]


def test_each_untriaged_compiled_side_signature_is_triaged_once(tmp_path: Path, store: str,
                                                                stand_in: list[str]) -> None:
    work = tmp_path / "night" / "triage"
    step = run_triages(store, NIGHT, work, stand_in, limit_s=2.0, grace_s=1.0)
    assert [run.configuration.split()[0].split("/")[1] for run in step.runs] == [
        "exits", "hangs", "keyed_otherwise", "no_repro_file", "records_then_exits", "ok"]  # most valuable first
    assert step.already_triaged == 1 and step.left == ()
    by_model = {run.configuration.split()[0].split("/")[1]: run for run in step.runs}
    done = by_model["ok"].triage
    assert done is not None and (done.outcome, done.culprit, done.reproduces) == (
        "done", "inductor / post_grad_passes / bisect number 2", "yes")
    assert done.repro_name.endswith(".repro.py") and "planted" in done.repro_script
    assert by_model["ok"].note == "" and "triaging ok within 2 s" in by_model["ok"].log.read_text()
    # Each failed triage still leaves an ERROR triage, which says what happened.
    for model, why in (("exits", "the triage command exited 3"),
                       ("hangs", "the triage ran past its 2 s limit and 1 s more, and was killed"),
                       ("no_repro_file", "its record could not be stored: ")):
        run = by_model[model]
        assert run.note.startswith(why) and run.note.endswith("(stored as an ERROR triage)"), run.note
        assert run.triage is not None and run.triage.outcome == "error" and why in run.triage.record.error
    assert list(work.glob("*.triage.txtpb.malformed"))  # the record the store refused, kept for a look
    # A record is stored whatever the exit code: it says how far the triage got.
    late = by_model["records_then_exits"]
    assert late.note == "the triage command exited 2" and late.triage is not None and late.triage.outcome == "done"
    # A record keyed by another signature is stored as it is, and said; this failure's signature gets an ERROR one.
    other = by_model["keyed_otherwise"]
    assert "stored under signature 'a signature of its own'" in other.note and other.note.endswith("ERROR triage)")
    assert other.triage is not None and other.triage.outcome == "error"
    db = connect(store)
    assert len(triages(db)) == 8
    # The next night the same failures recur: every signature has its triage, so nothing runs again.
    ingest(db, [LoadedResult("next", r) for r in night(NEXT_NIGHT)])
    db.close()
    again = run_triages(store, NEXT_NIGHT, tmp_path / "next" / "triage", stand_in, limit_s=2.0, grace_s=1.0)
    assert again.runs == () and again.already_triaged == 7
    assert "0 compiled-side failure signatures of this run triaged tonight" in render_triages(again, tmp_path)


def opinfo_case(op: str, outcome: int, expected: int, phase: int) -> opinfo_pb2.OpInfoResult:
    case = opinfo_pb2.OpInfoResult(result_id=f"{NIGHT}-{op}", run_id=NIGHT, op=op, dtype="float32", device="cuda",
                                   outcome=outcome, expected_outcome=expected)
    case.failure.phase = phase
    return case


def test_failing_opinfo_cases_are_triaged_beside_the_models(tmp_path: Path, stand_in: list[str]) -> None:
    """A failing case goes to the triage as itself (<stem>.opinfo.pb, which tools/triage reruns with the OpInfo
    suite), an unexpected failure before an expected one; passing cases and failures outside the compiled code stay."""
    fail, xfail = opinfo_pb2.OPINFO_OUTCOME_FAIL, opinfo_pb2.OPINFO_OUTCOME_XFAIL
    cases = [opinfo_case("sin", fail, opinfo_pb2.OPINFO_OUTCOME_PASS, pb.PHASE_ACCURACY_CHECK),
             opinfo_case("sort", xfail, xfail, pb.PHASE_COMPILED_RUN),
             opinfo_case("cos", opinfo_pb2.OPINFO_OUTCOME_PASS, opinfo_pb2.OPINFO_OUTCOME_PASS, 0),
             opinfo_case("tan", fail, opinfo_pb2.OPINFO_OUTCOME_PASS, pb.PHASE_EAGER)]  # eager's, not the compiler's
    store = str(tmp_path / "parity.db")
    db = connect(store)
    ingest(db, [LoadedResult("night", r) for r in (failure("ok", expected=pb.STATUS_FAIL_ACCURACY), *cases)])
    db.close()
    step = run_triages(store, NIGHT, tmp_path / "triage", stand_in, limit_s=5.0)
    assert [run.configuration for run in step.runs] == [
        "opinfo/sin float32 inductor cuda", "torchbench/ok training inductor cuda", "opinfo/sort float32 inductor cuda"]
    sin = step.runs[0]
    assert sin.result_file.name.endswith(".opinfo.pb") and sin.expected == "pass"
    assert opinfo_pb2.OpInfoResult.FromString(sin.result_file.read_bytes()) == cases[0]
    assert sin.triage is not None and sin.triage.outcome == "done" and sin.note == ""
    assert sin.signature == signature(opinfo_as_model_result(cases[0])).label
    assert (step.runs[2].status, step.runs[2].expected) == ("fail_to_run", "")


def test_a_cap_leaves_the_least_valuable_for_another_night(tmp_path: Path, store: str, stand_in: list[str]) -> None:
    step = run_triages(store, NIGHT, tmp_path / "triage", stand_in[:1] + ["-c", "import sys; sys.exit(0)"],
                       limit_s=5.0, max_count=1)
    assert len(step.runs) == 1 and len(step.left) == 5
    assert step.runs[0].note.startswith("the triage command exited 0 but wrote no ")
    report = render_triages(step, tmp_path)
    assert "Left for another night (over --triage-max): 5 signatures" in report


def test_a_triage_program_that_cannot_start_is_recorded(tmp_path: Path, store: str) -> None:
    step = run_triages(store, NIGHT, tmp_path / "triage", [str(tmp_path / "no-such-program")], limit_s=5.0,
                       max_count=1)
    assert "the triage command could not start" in step.runs[0].note
    stored = triage_for(connect(store), step.runs[0].signature)
    assert stored is not None and stored.outcome == "error"


def test_the_report_lists_new_triages(tmp_path: Path, store: str, stand_in: list[str]) -> None:
    root = tmp_path / "night"
    step = run_triages(store, NIGHT, root / "triage", stand_in, limit_s=2.0, grace_s=1.0)
    section = render_triages(step, root, "python -m tools.dashboard serve --db parity.db")
    assert section.startswith("6 compiled-side failure signatures of this run triaged tonight (limit 2 s each); 1 more")
    ok = next(line for line in section.splitlines() if line.startswith("| torchbench/ok "))
    cells = [cell.strip() for cell in ok.strip("|").split(" | ")]
    assert cells[:5] == ["torchbench/ok training inductor cuda", "fail_accuracy (expected fail_accuracy)",
                         "done in 1 s", "inductor / post_grad_passes / bisect number 2", "yes"]
    stored = triage_for(connect(store), step.runs[-1].signature)
    assert stored is not None
    assert cells[5] == (f"triage/{stored.repro_name} (3 lines, 2 nodes); dashboard /repro/{stored.triage_id}.py")
    assert "| torchbench/exits training inductor cuda | fail_accuracy (expected pass) | error in " in section
    assert "Triages that went wrong:" in section and "- `torchbench/hangs training inductor cuda`: the triage ran" \
        in section
    report = render_report(NIGHT, [], None, "", 60.0, "", section)
    assert "## New triages\n\n6 compiled-side failure signatures" in report
    assert "## New triages\n\nNone: --triage was not given." in render_report(NIGHT, [], None, "", 60.0)


def test_triage_needs_the_store(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["--triage", "--no-store"])
    assert refused.value.code == 2 and "--triage needs the store" in capsys.readouterr().err


def test_the_night_runs_the_step_with_its_options(tmp_path: Path, store: str, stand_in: list[str]) -> None:
    import argparse
    import shlex

    from ci.nightly import Night

    args = argparse.Namespace(archive=tmp_path / "archive", date="2026-12-02", device="cuda", db=Path(store),
                              triage=True, triage_limit_s=2.0, triage_max=1, triage_command=shlex.join(stand_in))
    section = Night(args).triage()
    assert section.startswith("1 compiled-side failure signatures of this run triaged tonight (limit 2 s each)")
    assert (tmp_path / "archive" / "2026-12-02" / "cuda" / "triage").is_dir()
    assert "/failures?run=nightly-2026-12-02-cuda" in section
    args.triage_command = ""
    assert Night(args).triage() == "None: the triage step failed: --triage-command is empty"
    args.triage = False
    assert Night(args).triage() == ""
