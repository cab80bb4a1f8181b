"""HUD v3 export and community CSV import, through the real store and CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parity.v1 import results_pb2 as pb
from tools.store.__main__ import main
from tools.store.hud_interop import InteropError, import_community_csvs, output_name, to_hud_rows

ACCURACY_CSV = """dev,name,batch_size,accuracy,calls_captured,unique_graphs,graph_breaks,unique_graph_breaks
cuda,repvgg_a2,8,pass,170,1,0,0
cuda,beit_base_patch16_224,8,fail_accuracy,300,1,0,0
cuda,ghostnet_100,0,eager_fail_to_run
"""
PERFORMANCE_CSV = """dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,dynamo_peak_mem,graph_breaks
cuda,repvgg_a2,128,2.000000,6.500000,20.000000,1.200000,1.100000,0.900000,0
cuda,beit_base_patch16_224,64,1.500000,9.000000,30.000000,1.000000,2.000000,2.000000,0
cuda,ghostnet_100,0,0.0,0.0
"""
PREFIX = "inductor_with_cudagraphs_timm_models_bfloat16_inference_cuda_h100"


def community_files(tmp_path: Path) -> list[Path]:
    accuracy = tmp_path / f"{PREFIX}_accuracy.csv"
    performance = tmp_path / f"{PREFIX}_performance.csv"
    accuracy.write_text(ACCURACY_CSV)
    performance.write_text(PERFORMANCE_CSV)
    return [accuracy, performance]


def test_import_merges_accuracy_and_performance(tmp_path: Path) -> None:
    results = {r.config.model: r for r in import_community_csvs(community_files(tmp_path), "h100", "NVIDIA H100")}
    assert set(results) == {"repvgg_a2", "beit_base_patch16_224", "ghostnet_100"}
    repvgg = results["repvgg_a2"]
    assert repvgg.community_status == "pass" and repvgg.config.hud_compiler == "cudagraphs"
    assert repvgg.config.suite == "timm" and repvgg.config.mode == pb.MODE_INFERENCE
    assert repvgg.performance.speedup == 2.0 and repvgg.compile_time.compilation_latency_s == 20.0
    # the status comes from the accuracy run, at its own batch size; the timings from the performance run's
    assert (repvgg.config.accuracy_batch_size, repvgg.config.batch_size) == (8, 128)
    assert results["ghostnet_100"].community_status == "eager_fail_to_run"
    assert not results["ghostnet_100"].performance.measured


def test_a_performance_only_result_exports_no_accuracy_row(tmp_path: Path) -> None:
    """Upstream's performance run writes no accuracy row; a performance row alone imports as performance-only, and
    its export (a failure too: zeros, as upstream writes them) has performance rows only."""
    performance = tmp_path / f"{PREFIX}_performance.csv"
    performance.write_text(PERFORMANCE_CSV)
    results = {r.config.model: r for r in import_community_csvs([performance], "h100", "NVIDIA H100")}
    assert all(r.config.performance_only for r in results.values())
    for model, speedup in (("repvgg_a2", 2.0), ("ghostnet_100", 0.0)):
        rows = to_hud_rows(results[model])
        assert len(rows) == 6 and all(r["benchmark"]["extra_info"]["output"].endswith("_performance.csv") for r in rows)
        assert [r["metric"]["benchmark_values"] for r in rows if r["metric"]["name"] == "speedup"] == [[speedup]]
    checked = import_community_csvs(community_files(tmp_path), "h100", "NVIDIA H100")
    assert not any(r.config.performance_only for r in checked)


@pytest.mark.parametrize("name, body, message", [
    ("speedups.csv", PERFORMANCE_CSV, "not an upstream benchmark output name"),
    (f"{PREFIX}_accuracy.csv", "dev,name,batch_size\ncuda,repvgg_a2,8\n", "missing column\\(s\\) \\['accuracy'\\]"),
    (f"{PREFIX}_performance.csv", "dev,name,speedup\ncuda,repvgg_a2,fast\n", "'fast' is not a number"),
])
def test_bad_community_files_are_named(tmp_path: Path, name: str, body: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(body)
    with pytest.raises(InteropError, match=message):
        import_community_csvs([path], "h100", "NVIDIA H100")


def test_hud_rows_follow_the_v3_schema(tmp_path: Path) -> None:
    result = import_community_csvs(community_files(tmp_path), "h100", "NVIDIA H100")[0]
    rows = to_hud_rows(result, repo="parity")
    accuracy, *perf = rows
    assert accuracy["metric"]["extra_info"]["benchmark_values"] == [result.community_status]
    assert accuracy["benchmark"]["extra_info"]["output"].endswith("_accuracy.csv")
    assert {r["metric"]["name"] for r in perf} == {"speedup", "abs_latency", "compilation_latency",
                                                     "compression_ratio", "eager_peak_mem", "dynamo_peak_mem"}
    assert all("_accuracy" not in r["benchmark"]["extra_info"]["output"] for r in perf)
    # each row names the batch size of the run it comes from (repvgg_a2: accuracy at 8, timing at 128)
    assert [r["benchmark"]["extra_info"]["batch_size"] for r in rows[:2]] == ["8", "128"]
    assert rows[0]["model"]["backend"] == "inductor_with_cudagraphs"
    assert rows[0]["model"]["origins"] == ["timm_models"]
    assert output_name(result, "performance") == "inductor_with_cudagraphs_timm_models_bfloat16_inference_cuda_h100_performance.csv"


def test_cli_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "p.db"
    files = [str(p) for p in community_files(tmp_path)]
    assert main(["--db", str(db), "import-community", *files, "--run-id", "h100", "--device-name", "NVIDIA H100"]) == 0
    assert main(["--db", str(db), "summary", "--run-id", "h100"]) == 0
    summary = capsys.readouterr().out
    assert "33%, 1/3" in summary and "2.00x" in summary  # beit fails accuracy, ghostnet failed to run
    out = tmp_path / "rows.json"
    assert main(["--db", str(db), "export-hud", "--run-id", "h100", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 3 + 6 + 6  # an accuracy row each, perf rows for the two measured models
    assert main(["--db", str(db), "export-hud", "--run-id", "nope", "--out", str(out)]) == 2


def to_upstream_json(csv_text: str, mode: str = "inference", dtype: str = "bfloat16") -> str:
    """The JSON lines upstream writes beside a CSV: one record per (row, column but dev/name/batch_size)."""
    import csv
    import io

    lines = []
    for row in csv.DictReader(io.StringIO(csv_text)):
        for column, value in row.items():
            if column in ("dev", "name", "batch_size") or value is None:
                continue
            try:
                metric = {"name": column, "benchmark_values": [float(value)]}
            except ValueError:
                metric = {"name": column, "benchmark_values": [], "extra_info": {"benchmark_values": [value]}}
            lines.append(json.dumps({"benchmark": {"name": "TorchInductor", "mode": mode, "dtype": dtype,
                                                   "extra_info": {"device": "cuda", "batch_size": row["batch_size"]}},
                                     "model": {"name": row["name"], "type": "OSS model",
                                               "backend": "inductor", "origins": ["timm_models"]},
                                     "metric": metric}))
    return "\n".join(lines) + "\n"


def test_json_outputs_import_like_the_csvs(tmp_path: Path) -> None:
    from_csv = {r.config.model: r for r in import_community_csvs(community_files(tmp_path), "h100", "NVIDIA H100")}
    accuracy = tmp_path / f"{PREFIX}_accuracy.json"
    performance = tmp_path / f"{PREFIX}_performance.json"
    accuracy.write_text(to_upstream_json(ACCURACY_CSV))
    performance.write_text(to_upstream_json(PERFORMANCE_CSV))
    from_json = {r.config.model: r for r in import_community_csvs([accuracy, performance], "h100", "NVIDIA H100")}
    assert from_json.keys() == from_csv.keys()
    for model, result in from_csv.items():
        assert from_json[model].community_status == result.community_status
        assert from_json[model].config.accuracy_batch_size == result.config.accuracy_batch_size
        assert from_json[model].performance.speedup == result.performance.speedup
        assert from_json[model].compile_time.compilation_latency_s == result.compile_time.compilation_latency_s
    broken = tmp_path / f"{PREFIX}_performance.json"
    broken.write_text('{"model": {"name": "x"}}\n')
    with pytest.raises(InteropError, match="performance.json:1: not an upstream benchmark JSON record"):
        import_community_csvs([broken], "h100", "NVIDIA H100")


def test_bad_community_file_leaves_the_store_untouched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "p.db"
    files = [str(p) for p in community_files(tmp_path)]
    assert main(["--db", str(db), "import-community", *files, "--run-id", "h100", "--device-name", "NVIDIA H100"]) == 0
    missing_columns = tmp_path / "more" / f"{PREFIX}_performance.csv"
    missing_columns.parent.mkdir()
    missing_columns.write_text("dev,name,batch_size,abs_latency\ncuda,repvgg_a2,8,1.0\n")
    assert main(["--db", str(db), "import-community", str(missing_columns), "--run-id", "h100",
                 "--device-name", "NVIDIA H100"]) == 2
    assert "missing column(s) ['speedup']" in capsys.readouterr().err
    assert main(["--db", str(db), "summary", "--run-id", "h100"]) == 0
    assert "33%, 1/3" in capsys.readouterr().out  # the earlier import, unchanged


def test_a_run_imported_in_halves_is_refused_not_overwritten(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Each file alone makes whole results (a performance row alone counts as a pass): the second half would
    replace the first's statuses or speedups. Re-importing the same files stays idempotent."""
    db, (accuracy, performance) = tmp_path / "p.db", community_files(tmp_path)
    imported = ["import-community", "--run-id", "h100", "--device-name", "NVIDIA H100"]
    assert main(["--db", str(db), *imported, str(accuracy)]) == 0
    assert main(["--db", str(db), *imported, str(accuracy)]) == 0
    assert main(["--db", str(db), *imported, str(performance)]) == 2
    assert "already holds other baseline results for 3 models" in capsys.readouterr().err
    assert main(["--db", str(db), "summary", "--run-id", "h100"]) == 0
    assert "33%, 1/3" in capsys.readouterr().out  # beit is still fail_accuracy


def test_timing_samples_and_the_interval_round_trip_through_the_hud_rows(tmp_path: Path) -> None:
    result = pb.ModelResult(result_id="r", run_id="r", community_status="pass")
    result.config.CopyFrom(pb.RunConfig(suite="timm", model="repvgg_a2", mode=pb.MODE_INFERENCE,
                                        precision=pb.PRECISION_BFLOAT16, hud_compiler="cudagraphs", device="cuda",
                                        batch_size=128))
    result.provenance.device_name = "NVIDIA H100"
    perf = result.performance
    perf.measured, perf.speedup, perf.abs_latency_ms = True, 2.0, 1.0
    perf.timing.eager_s[:] = [2.0e-3, 2.2e-3, 1.9e-3]
    perf.timing.compiled_s[:] = [1.0e-3, 1.1e-3, 0.9e-3]
    perf.timing.speedup.CopyFrom(pb.Interval(point=2.0, low=1.8, high=2.3))
    perf.timing.confidence, perf.timing.method = 0.95, "paired percentile bootstrap"
    rows = to_hud_rows(result)
    assert {r["metric"]["name"] for r in rows} >= {"speedup", "eager_latency_samples_ms", "compiled_latency_samples_ms"}
    path = tmp_path / f"{PREFIX}_performance.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows if r["benchmark"]["extra_info"]["output"].endswith(
        "_performance.csv")))
    back = import_community_csvs([path], "again", "NVIDIA H100")[0].performance.timing
    assert list(back.eager_s) == pytest.approx(list(perf.timing.eager_s))
    assert list(back.compiled_s) == pytest.approx(list(perf.timing.compiled_s))
    assert (back.speedup.point, back.speedup.low, back.speedup.high, back.confidence) == (2.0, 1.8, 2.3, 0.95)
    assert back.method == "paired percentile bootstrap"
