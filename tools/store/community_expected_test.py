"""Our statuses beside the community's expected ones, on real result files (copies of a reference result, as the
harness writes them) and a community file in upstream's format, for the selftest suite whose manifest rules are
known."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import text_format

from parity.v1 import results_pb2 as pb
from suites.common.result_io import read_result, result_files, write_result
from tools.store.community_expected import main
from tools.store.references import reference_datasets

TEMPLATE = read_result(result_files(reference_datasets()[0])[0])


def _result(folder: Path, model: str, status: str, *, smoke: bool = False,
            graph_breaks: int | None = 0, mode: int = pb.MODE_TRAINING) -> pb.ModelResult:
    result = pb.ModelResult()
    result.CopyFrom(TEMPLATE)
    result.ClearField("dynamo")  # a result that never compiled has no Dynamo counters
    if graph_breaks is not None:
        result.dynamo.graph_breaks = graph_breaks
    result.result_id = f"{model}-{smoke}-{mode}"
    result.config.suite, result.config.model, result.config.smoke = "selftest", model, smoke
    result.config.mode, result.config.backend, result.config.device = mode, "inductor_cudagraphs", "cuda"
    result.community_status = status
    suffix = ("-smoke" if smoke else "") + ("-inference" if mode == pb.MODE_INFERENCE else "")
    write_result(result, folder, f"{model}{suffix}")
    return result


def test_every_divergence_is_explained_by_the_manifest_or_a_triage_or_flagged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "dataset"
    _result(results, "healthy", "pass", graph_breaks=2)  # two breaks more than the community's file counts
    # The community checked and passed: both pass. No Dynamo counters: its breaks show as "-".
    _result(results, "not_deterministic", "pass_due_to_skip", graph_breaks=None)
    _result(results, "raises_in_forward", "eager_fail_to_run")  # what its manifest rule expects, with the reason
    _result(results, "segfault", "fail_accuracy", graph_breaks=1)  # its rule expects crash: nothing explains this
    triaged = _result(results, "killed", "fail_accuracy")  # nor this, but a triage of this very result does
    _result(results, "hang", "fail_accuracy", smoke=True)  # a smoke variant is not the community's configuration
    record = pb.TriageRecord(signature="s", result_id=triaged.result_id, suite="selftest", model="killed",
                             community_status="fail_accuracy", outcome=pb.TriageRecord.OUTCOME_DONE,
                             culprit_backend="inductor", culprit_subsystem="lowerings", debug_info="tanh")
    (results / "killed.triage.txtpb").write_text(text_format.MessageToString(record))
    expected = tmp_path / "ci_expected_accuracy"
    expected.mkdir()
    (expected / "inductor_selftest_training.csv").write_text(
        "name,accuracy,graph_breaks\nhealthy,pass,0\nnot_deterministic,pass,0\nraises_in_forward,pass,0\nsegfault,pass,3\nkilled,pass,0\n"
        "exits,pass,\nonly_upstream,pass,0\n")  # upstream leaves a count empty where it has none

    assert main([str(results), "--expected", str(expected), "--out", str(tmp_path / "table.md")]) == 1
    out = capsys.readouterr().out
    rows = {line.split(" | ")[3]: line for line in out.splitlines() if line.startswith("| selftest")}
    assert rows["healthy"].endswith(" | pass | pass | same |  | 2 (0) |")
    assert rows["not_deterministic"].endswith(" | pass_due_to_skip | pass | both pass |  | - (0) |")
    assert " | eager_fail_to_run | pass | explained | manifest: the model's first eager iteration raises" in rows[
        "raises_in_forward"]
    assert rows["segfault"].endswith(" | fail_accuracy | pass | unexplained |  | 1 (3) |")
    assert " | explained | triage: inductor / lowerings / tanh |" in rows["killed"]
    assert rows["exits"].endswith(" | - | pass | not run here |  |  |")
    assert " | - | pass | not in our matrix | " in rows["only_upstream"]
    assert "hang" not in rows
    assert out.endswith("1 both pass, 2 explained, 1 not in our matrix, 1 not run here, 1 same, 1 unexplained\n"
                        "graph breaks in the 4 models both sides count: 2 the same, 1 more here (healthy (+2)), "
                        "1 fewer here (segfault (-2))\n")
    assert (tmp_path / "table.md").read_text() == out

    (results / "segfault.txtpb").unlink()
    (results / "segfault.pb").unlink()
    assert main([str(results), "--expected", str(expected)]) == 0  # every divergence left is explained


def test_a_missing_community_file_is_an_error_that_says_what_to_give(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    _result(tmp_path / "dataset", "healthy", "pass")
    assert main([str(tmp_path / "dataset"), "--expected", str(tmp_path / "nowhere")]) == 2
    assert "give --expected the ci_expected_accuracy folder of a pytorch checkout" in capsys.readouterr().err


def test_a_graph_break_count_that_is_no_number_is_an_error_that_names_it(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    _result(tmp_path / "dataset", "healthy", "pass")
    (tmp_path / "expected").mkdir()
    (tmp_path / "expected" / "inductor_selftest_training.csv").write_text(
        "name,accuracy,graph_breaks\nhealthy,pass,n/a\n")
    assert main([str(tmp_path / "dataset"), "--expected", str(tmp_path / "expected")]) == 2
    assert "graph_breaks 'n/a' is not a count" in capsys.readouterr().err


def test_graph_breaks_are_summed_up_per_mode_where_one_model_runs_in_both(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    _result(tmp_path / "dataset", "healthy", "pass", graph_breaks=1)
    _result(tmp_path / "dataset", "healthy", "pass", graph_breaks=0, mode=pb.MODE_INFERENCE)
    (tmp_path / "expected").mkdir()
    for mode in ("training", "inference"):
        (tmp_path / "expected" / f"inductor_selftest_{mode}.csv").write_text(
            "name,accuracy,graph_breaks\nhealthy,pass,0\n")
    assert main([str(tmp_path / "dataset"), "--expected", str(tmp_path / "expected")]) == 0
    assert capsys.readouterr().out.endswith(
        "graph breaks in the 2 models both sides count: 1 the same, 1 more here (healthy (+1)), 0 fewer here\n")
