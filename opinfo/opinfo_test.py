"""The OpInfo runner: its data tables, the grouping of op_db, the decisions, and a real run of a few ops."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from opinfo import summaries, table
from opinfo.catalog import ALWAYS_ALL_SAMPLES, CatalogError, get_group, group_of, groups, op_db, select_cases
from opinfo.results import read_result
from opinfo.run import RunOptions, _decide, _samples_for, main, run_suite
from opinfo.run_case import CaseRun, SampleFailure, _clone_tensor, _compare, _fp64_agrees, _output_depends_on_data
from opinfo.tables import PASS, Expectation, TableError, Tolerance, load_expectations, load_tolerances


def test_checked_in_tables_are_valid() -> None:
    for device in ("cpu", "cuda", "npu"):
        assert load_expectations(device).device == device
    tolerances = load_tolerances()
    assert tolerances.lookup("sin", "sin", "float32") == Tolerance(1.5e-5, 1.3e-5)
    assert not tolerances.lookup("empty", "empty", "float32").compare_values


def test_xfail_inside_the_fp32_scope_is_rejected(tmp_path: Path) -> None:
    def write(entries: list[dict]) -> None:
        (tmp_path / "cpu.json").write_text(json.dumps({"version": "1", "device": "cpu", "entries": entries}))

    write([{"op": "sin", "dtypes": ["float32"], "outcome": "XFAIL", "reason": "r"}])
    with pytest.raises(TableError, match="XFAIL covers the supported scope"):
        load_expectations("cpu", tmp_path)
    write([{"op": "sin", "dtypes": ["float16"], "outcome": "SKIP", "reason": ""}])
    with pytest.raises(TableError, match="needs a \"reason\""):
        load_expectations("cpu", tmp_path)
    write([{"op": "sin", "dtypes": ["float16"], "outcome": "XFAIL", "reason": "fp16 rounding, see #1"}])
    table_ = load_expectations("cpu", tmp_path)
    assert table_.lookup("sin", "float16") == Expectation("XFAIL", "fp16 rounding, see #1")
    assert table_.lookup("sin", "float32") is PASS
    with pytest.raises(TableError, match="no expectation table for device 'tpu'"):
        load_expectations("tpu", tmp_path)


def test_ops_the_community_always_runs_whole_exist_and_keep_every_sample() -> None:
    cases = {case.full_name: case for case in select_cases(None, "cpu", (torch.float32,))}
    assert ALWAYS_ALL_SAMPLES <= set(cases), sorted(ALWAYS_ALL_SAMPLES - set(cases))
    assert _samples_for(cases["sum"], 1) is None
    assert _samples_for(cases["sin"], 1) == 1


def test_entries_for_every_device_come_from_any_json(tmp_path: Path) -> None:
    def write(device: str, entries: list[dict]) -> None:
        (tmp_path / f"{device}.json").write_text(json.dumps({"version": "1", "device": device, "entries": entries}))

    write("any", [{"op": "resize_", "dtypes": ["*"], "outcome": "SKIP", "reason": "Dynamo does not trace it"}])
    write("cpu", [{"op": "sin", "dtypes": ["float16"], "outcome": "SKIP", "reason": "not in scope"}])
    cpu = load_expectations("cpu", tmp_path)
    assert cpu.lookup("resize_", "float32") == Expectation("SKIP", "Dynamo does not trace it")
    assert cpu.lookup("sin", "float16").reason == "not in scope"
    assert cpu.sha256 != load_expectations("any", tmp_path).sha256  # provenance covers both files
    write("cpu", [{"op": "resize_", "dtypes": ["*"], "outcome": "SKIP", "reason": "twice"}])
    with pytest.raises(TableError, match="is also in"):
        load_expectations("cpu", tmp_path)


def test_every_op_has_one_group_and_groups_name_real_families() -> None:
    from compiler.lowering.registry import FAMILY_NAMES

    assert all(g.family in FAMILY_NAMES for g in groups())
    assigned = {op.name: group_of(op.name, type(op).__name__) for op in op_db()}
    assert assigned["nn.functional.conv2d"] == "conv"
    assert assigned["nn.functional.layer_norm"] == "norm"
    assert assigned["sin"] == "pointwise"
    assert assigned["linalg.svd"] == "linalg"
    assert assigned["sum"] == "reduction"
    with pytest.raises(CatalogError, match="unknown op group 'nope'"):
        get_group("nope")
    with pytest.raises(CatalogError, match="no OpInfo named"):
        select_cases(None, "cpu", (torch.float32,), ("not_an_op",))


def test_decisions() -> None:
    failing = CaseRun(total=2, passed=1, failed=1,
                      first_failure=SampleFailure("accuracy_check", "AssertionError", "Tensor-likes differ", "s"))
    assert _decide(failing, PASS)[0] == "FAIL"
    assert _decide(failing, Expectation("XFAIL", "known")) == ("XFAIL", "known")
    assert _decide(CaseRun(total=2, passed=2), Expectation("XFAIL", "known")) == ("PASS", "")
    assert _decide(None, Expectation("SKIP", "why")) == ("SKIP", "why")
    assert _decide(CaseRun(total=3, eager_unsupported=3), PASS)[0] == "SKIP"
    assert CaseRun(inductor_graphs=1).lowering == "NATIVE"
    assert CaseRun(total=1, passed=1).lowering == "NOT_COMPILED"
    assert CaseRun(total=1, failed=1).lowering == "UNSPECIFIED"


def test_only_data_dependent_outputs_may_skip_inductor() -> None:
    """The community's nopython rule, decided by a FakeTensor run of the sample; everything else must compile
    fullgraph and reach Inductor."""
    x = torch.tensor([0.0, 1.0, 2.0])
    assert _output_depends_on_data(torch.nonzero, ((x,), {}))
    assert _output_depends_on_data(lambda t: t.item(), ((x[:1],), {}))
    assert not _output_depends_on_data(torch.sin, ((x,), {}))


def test_comparison_catches_differences() -> None:
    a = torch.ones(4)
    _compare(a, a + 1e-6, Tolerance(1.5e-5, 1.3e-5), values=True)
    with pytest.raises(AssertionError):
        _compare(a, a + 1e-3, Tolerance(1.5e-5, 1.3e-5), values=True)
    with pytest.raises(AssertionError, match="compiled"):
        _compare(torch.ones(3), torch.ones(4), Tolerance(None, None), values=False)


def test_real_run_classifies_native_and_fallback(tmp_path: Path) -> None:
    """sin lowers natively; sort has no Inductor lowering on CPU and runs as an ATen fallback kernel."""
    summary = run_suite(RunOptions(device="cpu", group=None, ops=("sin", "sort"), max_samples=1, run_id="t"),
                        tmp_path)
    assert summary.unexpected == [] and summary.outcomes == {"PASS": 2}
    by_op = {r.op: r for r in map(read_result, tmp_path.glob("*.pb"))}
    assert by_op["sin"].lowering == 1 and not by_op["sin"].fallback_ops  # LOWERING_NATIVE
    assert by_op["sort"].lowering in (2, 3)  # FALLBACK or MIXED
    assert any(f.op.startswith("aten.sort") for f in by_op["sort"].fallback_ops)
    assert by_op["sin"].precision_settings["cudnn.allow_tf32"] == "False"
    assert by_op["sin"].provenance.manifest_sha256 == load_expectations("cpu").sha256


def test_eager_backward_that_raises_puts_the_gradient_out_of_scope(tmp_path: Path) -> None:
    """linalg.eig's first sample: eager's own backward rejects the loss (eigenvector phase), so only the
    forward is compared, and the rejection is counted."""
    summary = run_suite(RunOptions(device="cpu", group=None, ops=("linalg.eig",), max_samples=1, gradients="on",
                                   run_id="t"), tmp_path)
    assert summary.outcomes == {"PASS": 1}
    (result,) = map(read_result, tmp_path.glob("*.pb"))
    assert result.samples.gradient_eager_rejected == 1 and result.samples.gradient_checked == 0


def test_fp64_reference_judges_a_difference_from_eager() -> None:
    """Beyond the tolerance from eager: passes only when compiled is no farther from fp64 than eager is."""
    x = torch.linspace(-3, 3, 64)
    exact = torch.sin(x.double()).float()
    noisy = exact + 1e-3 * torch.randn(64, generator=torch.Generator().manual_seed(0))
    tol = Tolerance(1.5e-5, 1.3e-5)
    def agrees(eager: torch.Tensor, compiled: torch.Tensor) -> bool:
        return _fp64_agrees(torch.sin, ([x], {}), 0, torch.float32, tol, False, (eager, [x]), (compiled, [x]))

    assert agrees(noisy, exact)      # eager was the loose one
    assert not agrees(exact, noisy)  # compiled drifted from fp64


def test_shards_split_ops_and_merge_into_one_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two shards of a run split its ops (all dtypes of an op in one shard); the merge adds them up and refuses
    an incomplete set."""
    ops = ("sin", "cos", "abs")
    whole = run_suite(RunOptions(device="cpu", group=None, ops=ops, dtypes="community", max_samples=1, run_id="w"),
                      tmp_path / "whole")
    monkeypatch.setenv("TEST_TOTAL_SHARDS", "2")
    monkeypatch.setenv("TEST_SHARD_STATUS_FILE", str(tmp_path / "status"))
    sharded = tmp_path / "sharded"
    with pytest.raises(summaries.MergeError, match="shard"):
        summaries.merge(sharded, 2)
    for index in ("0", "1"):
        monkeypatch.setenv("TEST_SHARD_INDEX", index)
        run_suite(RunOptions(device="cpu", group=None, ops=ops, dtypes="community", max_samples=1, run_id="s"), sharded)
        if index == "0":
            with pytest.raises(summaries.MergeError, match="no summary from shard"):
                summaries.merge(sharded, 2)
    merged = summaries.merge(sharded, 2)
    assert whole.cases > len(ops)  # several dtypes per op, so a per-case split would have split ops
    assert (merged["ops"], merged["cases"], merged["samples"]) == (len(ops), whole.cases, whole.samples)
    assert merged["outcomes"] == dict(whole.outcomes) and merged["unexpected"] == []


def test_generated_table_is_up_to_date() -> None:
    assert table.main(["--check"]) == 0, "run: python -m opinfo.table"


def test_an_empty_view_with_large_strides_is_cloned() -> None:
    """Dynamo's clone_input sizes the copy from the strides, which comes out negative here (linalg.pinv.singular
    has such samples); the run must not stop on it."""
    view = torch.randn(300, requires_grad=True).as_strided((0, 5), (60, 1))
    copy = _clone_tensor(view)
    assert copy.shape == (0, 5) and copy.requires_grad and copy.is_leaf


def test_a_runner_error_fails_that_case_and_the_suite_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import opinfo.run

    real = opinfo.run.run_case

    def breaks_on_sin(case, *args, **kwargs):  # noqa: ANN001,ANN002,ANN003,ANN202 (fault injection)
        if case.name == "sin":
            raise RuntimeError("the runner broke on this case")
        return real(case, *args, **kwargs)

    monkeypatch.setattr(opinfo.run, "run_case", breaks_on_sin)
    summary = run_suite(RunOptions(device="cpu", group=None, ops=("sin", "cos"), max_samples=1, run_id="h"), tmp_path)
    by_op = {r.op: r for r in map(read_result, tmp_path.glob("*.pb"))}
    assert summary.outcomes == {"PASS": 1, "FAIL": 1}
    assert by_op["cos"].outcome == 1  # OPINFO_OUTCOME_PASS
    assert "the runner broke on this case" in by_op["sin"].reason


def test_an_unknown_group_or_op_is_named_and_nothing_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--group", "nosuch", "--out", str(tmp_path / "g")]) == 2
    assert "unknown op group 'nosuch'; groups (opinfo/groups.bzl): attention" in capsys.readouterr().err
    assert main(["--ops", "nosuchop", "--out", str(tmp_path / "o")]) == 2
    assert "no OpInfo named ['nosuchop']" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
