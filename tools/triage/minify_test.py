"""The minify step's decisions: where it cuts (after AOT Autograd, or after Dynamo), and what a triage says when the
dump run left no graph to cut (what the GPU triages met)."""

from __future__ import annotations

from pathlib import Path

from parity.v1 import results_pb2 as pb
from tools.triage.dynamo_check import TOLERANCE_VARIABLE
from tools.triage.minify import dump_env, no_launcher, repro_after


def test_a_dump_run_whose_own_check_broke_off_is_named_with_its_error() -> None:
    # All three AMP training triages on an H100: the per-graph check passed the forward and backward graphs, then
    # could not run the Adam step's graph (its in-place _foreach_add_ returns None), and the model run ended there.
    broke_off = pb.ModelResult(community_status="fail_to_run", failure=pb.Failure(
        phase=pb.PHASE_COMPILED_RUN, exception_type="TypeError", message="'NoneType' object is not subscriptable"))
    assert no_launcher("fail_accuracy", 4, "aot", broke_off) == (
        "the model run with repro_after aot, repro_level 4 ended in fail_to_run, not fail_accuracy, and wrote no "
        "minifier launcher (TypeError: 'NoneType' object is not subscriptable), so the minifier had nothing to cut; "
        "no repro was made")


def test_a_dump_run_that_failed_as_the_model_did_means_no_single_graph_fails() -> None:
    same = pb.ModelResult(community_status="fail_accuracy")
    assert no_launcher("fail_accuracy", 4, "dynamo", same).startswith(
        "no single compiled graph fails the accuracy check on its own (repro_after dynamo")
    crashed = pb.ModelResult(community_status="crash")
    assert "not in one graph the minifier sees" in no_launcher("crash", 3, "aot", crashed)


def test_a_culprit_before_inductor_is_cut_after_dynamo() -> None:
    assert repro_after("fail_accuracy", "aot_eager_decomp_partition") == "dynamo"
    assert repro_after("fail_accuracy", "aot_eager") == "dynamo"
    assert repro_after("fail_accuracy", "inductor") == repro_after("fail_accuracy", "") == "aot"
    assert repro_after("fail_to_run", "aot_eager_decomp_partition") == "dynamo"  # raised while AOT traced
    assert repro_after("fail_to_run", "inductor") == "aot"
    assert repro_after("crash", "aot_eager_decomp_partition") == "aot"  # no per-graph comparison to hide it


def test_a_cut_after_dynamo_compiles_with_the_culprit_backend() -> None:
    after_dynamo = dump_env("fail_accuracy", "aot_eager_decomp_partition", Path("debug"))
    assert after_dynamo["TORCHDYNAMO_REPRO_AFTER"] == "dynamo" and after_dynamo["TORCHDYNAMO_REPRO_LEVEL"] == "4"
    assert after_dynamo["TORCH_BISECT_BACKEND"] == "aot_eager_decomp_partition"
    after_aot = dump_env("crash", "aot_eager_decomp_partition", Path("debug"))
    assert after_aot["TORCHDYNAMO_REPRO_LEVEL"] == "3" and "TORCH_BISECT_BACKEND" not in after_aot  # Inductor's own


def test_the_dump_run_judges_at_the_models_tolerance() -> None:
    assert dump_env("fail_accuracy", "inductor", Path("debug"), 1e-4)[TOLERANCE_VARIABLE] == "0.0001"
    assert TOLERANCE_VARIABLE not in dump_env("fail_accuracy", "inductor", Path("debug"))  # none recorded: torch's
