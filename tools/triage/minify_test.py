"""What a triage says when the minifier's dump run left no graph to cut (what the GPU triages at 1a5998d met)."""

from __future__ import annotations

from parity.v1 import results_pb2 as pb
from tools.triage.minify import no_launcher


def test_a_dump_run_whose_own_check_broke_off_is_named_with_its_error() -> None:
    # All three AMP training triages on an H100: the per-graph check passed the forward and backward graphs, then
    # could not run the Adam step's graph (its in-place _foreach_add_ returns None), and the model run ended there.
    broke_off = pb.ModelResult(community_status="fail_to_run", failure=pb.Failure(
        phase=pb.PHASE_COMPILED_RUN, exception_type="TypeError", message="'NoneType' object is not subscriptable"))
    assert no_launcher("fail_accuracy", 4, broke_off) == (
        "the model run with repro_level 4 ended in fail_to_run, not fail_accuracy, and wrote no minifier launcher "
        "(TypeError: 'NoneType' object is not subscriptable), so the minifier had nothing to cut; no repro was made")


def test_a_dump_run_that_failed_as_the_model_did_means_no_single_graph_fails() -> None:
    same = pb.ModelResult(community_status="fail_accuracy")
    assert no_launcher("fail_accuracy", 4, same).startswith("no single compiled graph fails the accuracy check")
    crashed = pb.ModelResult(community_status="crash")
    assert "not in a graph Inductor compiled after AOT Autograd" in no_launcher("crash", 3, crashed)
