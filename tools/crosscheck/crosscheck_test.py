"""The cross-check command against a tiny fake benchmarks/dynamo checkout, with Parity's side run for real.

The fake suite scripts stand in for upstream's (which the repository never ships): they take upstream's flags,
record how they were started, and write upstream-format CSV rows with known figures, or die without a row. Parity's
side is the real `suites.run` on CPU: TIMM smoke variants with aot_eager (so its figures are not comparable with
the fake's; the pairing and the arithmetic are what is checked).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from suites.common.result_io import read_result, result_files
from tools.crosscheck.__main__ import main

ACCURACY_HEADER = ("dev,name,batch_size,accuracy,calls_captured,unique_graphs,fallbacks_to_eager,graph_breaks,"
                   "unique_graph_breaks,autograd_captures,autograd_compiles,cudagraph_skips,compilation_latency")
PERFORMANCE_HEADER = ("dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,"
                      "dynamo_peak_mem,calls_captured,unique_graphs,fallbacks_to_eager,graph_breaks,"
                      "unique_graph_breaks,autograd_captures,autograd_compiles,cudagraph_skips")
MEASURED = "mobilenetv3_large_100"  # both of its upstream runs write rows
DYING = "repvgg_a2"                 # its accuracy run exits 1 and its performance run is SIGKILLed, both without a row
FIGURES = {
    MEASURED: {
        "accuracy": {"header": ACCURACY_HEADER, "row": f"cpu,{MEASURED},8,pass,186,1,0,0,0,0,0,0,4.550310"},
        "performance": {"header": PERFORMANCE_HEADER,
                        "row": f"cpu,{MEASURED},4,1.250000,2.500000,10.000000,0.800000,1.000000,1.250000,"
                               "186,1,0,2,1,0,0,0"},
    },
    DYING: {"accuracy": "exit 1", "performance": "SIGKILL"},
}
# Upstream's figures for MEASURED, as the rows above give them.
UPSTREAM = {"speedup": 1.25, "abs_latency_ms": 2.5, "compilation_latency_s": 10.0, "compression_ratio": 0.8,
            "eager_peak_gb": 1.0, "compiled_peak_gb": 1.25, "graph_breaks": 2, "batch_size": 4,
            "accuracy_batch_size": 8}

FAKE_SCRIPT = '''"""Stands in for one of upstream's suite scripts: upstream's flags in, upstream-format CSV rows out."""
import argparse, csv, json, os, signal, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
parser = argparse.ArgumentParser()
for flag in ("--accuracy", "--performance", "--inference", "--training", "--bfloat16", "--amp",
             "--cold-start-latency", "--no-translation-validation"):
    parser.add_argument(flag, action="store_true")
for flag in ("--backend", "--only", "--output"):
    parser.add_argument(flag)
parser.add_argument("--device", "--devices", action="append")
args, _ = parser.parse_known_args()
target = "accuracy" if args.accuracy else "performance"
cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR", "")
with open(HERE / "calls.jsonl", "a") as calls:
    calls.write(json.dumps({"script": Path(sys.argv[0]).name, "argv": sys.argv[1:], "cache": cache,
                            "cache_was_empty": not os.path.isdir(cache) or not os.listdir(cache),
                            "hub_offline": os.environ.get("HF_HUB_OFFLINE"), "path0": sys.path[0],
                            "shim_armed": any(type(f).__name__ == "AfterImport" for f in sys.meta_path)}) + "\\n")
plan = json.loads((HERE / "figures.json").read_text())[args.only][target]
if plan == "SIGKILL":
    os.kill(os.getpid(), signal.SIGKILL)
if plan == "exit 1":
    sys.exit(1)
new = not os.path.exists(args.output)
with open(args.output, "a", newline="") as out:
    writer = csv.writer(out, lineterminator="\\n")
    if new:
        writer.writerow(plan["header"].split(","))
    writer.writerow(plan["row"].split(","))
'''


def fake_checkout(root: Path, scripts: tuple[str, ...] = ("timm_models.py", "huggingface.py", "torchbench.py")) -> Path:
    root.mkdir(parents=True)
    (root / "common.py").write_text("# stands in for upstream's common.py, which the fake scripts do not import\n")
    for name in ("timm_models.yaml", "timm_models_list.txt", "huggingface.yaml", "huggingface_models_list.txt",
                 "huggingface_llm_models.py", "torchbench.yaml"):
        (root / name).write_text("# a file upstream's script reads at start; the fakes do not\n")
    for name in scripts:
        (root / name).write_text(FAKE_SCRIPT)
    (root / "figures.json").write_text(json.dumps(FIGURES))
    return root


def args(upstream: Path, out: Path, *models: str) -> list[str]:
    return ["--upstream", str(upstream), "--suite", "timm", "--mode", "inference", "--device", "cpu", "--out", str(out),
            "--parity-backend", "aot_eager", "--parity-arg=--smoke", "--timeout-s", "300",
            *(f"--model={m}" for m in models)]


def test_tables_pair_both_sides_figures_and_name_runs_that_left_no_row(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    upstream, out = fake_checkout(tmp_path / "dynamo"), tmp_path / "out"
    assert main(args(upstream, out, MEASURED, DYING)) == 1  # a run without figures
    printed = capsys.readouterr().out
    report = json.loads((out / "crosscheck.json").read_text())
    measured, dying = report["models"]
    assert (measured["model"], dying["model"]) == (MEASURED, DYING)

    # Upstream's known figures on the left, Parity's own result's on the right, Parity/upstream - 1 beside them.
    parity = read_result(next(p for p in result_files(out / MEASURED / "parity")
                              if not p.stem.endswith((".accuracy", ".performance"))))
    ours = {"speedup": parity.performance.speedup, "abs_latency_ms": parity.performance.abs_latency_ms,
            "compilation_latency_s": parity.compile_time.compilation_latency_s,
            "compression_ratio": parity.memory.compression_ratio, "eager_peak_gb": parity.memory.eager_peak_gb,
            "compiled_peak_gb": parity.memory.compiled_peak_gb, "graph_breaks": parity.dynamo.graph_breaks,
            "batch_size": parity.config.batch_size, "accuracy_batch_size": parity.config.accuracy_batch_size}
    rows = {row["key"]: row for row in measured["rows"]}
    assert rows["status"]["upstream"] == "pass" and rows["status"]["parity"] == parity.community_status == "pass"
    assert rows["status"]["differs"] == "same"
    for key, theirs in UPSTREAM.items():
        assert rows[key]["upstream"] == pytest.approx(theirs), key
        assert rows[key]["parity"] == pytest.approx(ours[key]), key
        expected = (ours[key] / theirs - 1) if theirs else (0.0 if ours[key] == 0 else None)
        assert rows[key]["relative"] == pytest.approx(expected), key
    assert rows["speedup"]["differs"] == f"{ours['speedup'] / 1.25 - 1:+.1%}"
    runs = measured["runs"]
    assert rows["wall_s"]["upstream"] == pytest.approx(sum(run["wall_s"] for run in runs["upstream"]), abs=1e-2)
    assert rows["wall_s"]["parity"] == pytest.approx(runs["parity"]["wall_s"], abs=1e-2)
    assert measured["notes"] == []

    # The dead runs: classified, named with how they ended, and no figures made up for them.
    dead = {row["key"]: row for row in dying["rows"]}
    assert dead["status"]["upstream"] == "crash" and dead["speedup"]["upstream"] is None
    assert dead["speedup"]["parity"] is not None and dead["speedup"]["relative"] is None
    assert [note.splitlines()[0].split(";")[0] for note in dying["notes"]] == [
        "upstream's accuracy run exited with code 1 and wrote no CSV",
        "upstream's performance run killed by SIGKILL (the kernel's OOM killer sends SIGKILL) and wrote no CSV"]

    # Both upstream runs had the dashboard's flags, an empty compile cache of their own, and no hub.
    calls = [json.loads(line) for line in (upstream / "calls.jsonl").read_text().splitlines()]
    assert [(c["argv"][0], c["argv"][c["argv"].index("--only") + 1]) for c in calls] == [
        ("--accuracy", MEASURED), ("--performance", MEASURED), ("--accuracy", DYING), ("--performance", DYING)]
    accuracy, performance = calls[0]["argv"], calls[1]["argv"]
    common = ["--inference", "--bfloat16", "--backend", "inductor", "--device", "cpu", "--only", MEASURED, "--output"]
    assert accuracy[:11] == ["--accuracy", "--no-translation-validation", *common]
    assert performance[:11] == ["--performance", "--cold-start-latency", *common]
    assert accuracy[11].endswith("inductor_with_cudagraphs_timm_models_bfloat16_inference_cpu_accuracy.csv")
    assert performance[11].endswith("inductor_with_cudagraphs_timm_models_bfloat16_inference_cpu_performance.csv")
    assert len({c["cache"] for c in calls}) == 4 and all(c["cache_was_empty"] for c in calls)
    assert all(c["hub_offline"] == "1" and c["shim_armed"] for c in calls)  # the shim ran first
    assert all(c["script"] == "timm_models.py" and c["path0"] == str(upstream.resolve()) for c in calls)

    # The same tables on the terminal and in Markdown.
    markdown = (out / "crosscheck.md").read_text()
    assert f"## {MEASURED}" in markdown and "| speedup (x) | 1.25 |" in markdown
    assert "cross-check summary" in printed and "upstream's performance run killed by SIGKILL" in printed
    assert f"1.25 / {ours['speedup']:.2f} ({rows['speedup']['differs']})" in printed


@pytest.mark.parametrize("layout, message", [
    ("missing", "no such folder"),
    ("empty", "is not a benchmarks/dynamo folder"),
    ("no_script", "lacks timm_models.py"),
    ("dynamobench_copy", "dynamobench copy lacks timm_models.yaml"),
])
def test_a_checkout_that_cannot_work_is_refused_before_anything_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: str, message: str) -> None:
    upstream = tmp_path / "dynamo"
    if layout == "empty":
        upstream.mkdir()
    elif layout == "no_script":
        fake_checkout(upstream, scripts=("huggingface.py", "torchbench.py"))
    elif layout == "dynamobench_copy":
        fake_checkout(upstream)
        (upstream / "timm_models.yaml").unlink()
    assert main(args(upstream, tmp_path / "out", MEASURED)) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_script_that_does_not_start_here_stops_the_command_before_any_model(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    upstream = fake_checkout(tmp_path / "dynamo")
    (upstream / "timm_models.py").write_text("raise ModuleNotFoundError(\"No module named 'pandas'\")\n")
    assert main(args(upstream, tmp_path / "out", MEASURED)) == 2
    err = capsys.readouterr().err
    assert "timm_models.py does not start here: `timm_models.py --help` exited with code 1" in err
    assert "No module named 'pandas'" in err  # the log's tail says why
    assert not (tmp_path / "out" / MEASURED).exists()


def test_a_model_parity_does_not_know_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args(fake_checkout(tmp_path / "dynamo"), tmp_path / "out", "mobilenetv3")) == 2
    assert "unknown model 'mobilenetv3'" in capsys.readouterr().err
    assert not (tmp_path / "dynamo" / "calls.jsonl").exists()


def test_torchbench_needs_a_checkout_for_both_sides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = args(fake_checkout(tmp_path / "dynamo"), tmp_path / "out", "resnet50")
    argv[argv.index("timm")] = "torchbench"
    assert main([*argv, "--torchbench-dir", str(tmp_path / "nowhere")]) == 2
    assert "is not a TorchBench checkout" in capsys.readouterr().err


def test_the_command_line_exits_2_on_a_missing_checkout(tmp_path: Path) -> None:
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    argv = args(tmp_path / "nope", tmp_path / "out", MEASURED)
    done = subprocess.run([sys.executable, "-m", "tools.crosscheck", *argv], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 2 and "no such folder" in done.stderr
