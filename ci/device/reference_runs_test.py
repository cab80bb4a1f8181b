"""ci/device/reference_runs.sh, run for real by bash in a copy of its folder, with a python3 on PATH that prints
the command it was given instead of running models (this machine has no GPU): the command lines the sections
build, and the packing of $OUT/<section>.tgz even when a section fails."""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

SCRIPTS = ("reference_runs.sh", "install_wheels.sh", "torchbench_env.sh")
STUB = '#!/bin/sh\necho "python3 $* [PARITY_TORCHBENCH_DIR=${PARITY_TORCHBENCH_DIR:-}]"\n'


def run(tmp_path: Path, *args: str, stub: str = STUB, within_s: float = 0,
        **env: str) -> subprocess.CompletedProcess[str]:
    """The section `args` in a copy of the scripts, python3 being `stub`; under `timeout within_s` when given."""
    root, bin_dir, out = tmp_path / "tree", tmp_path / "bin", tmp_path / "out"
    (root / "ci/device").mkdir(parents=True, exist_ok=True)
    for name in SCRIPTS:
        shutil.copy(Path(__file__).parent / name, root / "ci/device" / name)
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "python3").write_text(stub)
    (bin_dir / "python3").chmod(0o755)
    environment = {"PATH": f"{bin_dir}:{os.environ['PATH']}", "OUT": str(out), "PARITY_COMMIT": "abcdef0123", **env}
    outer = ["timeout", f"{within_s:g}"] if within_s else []
    return subprocess.run([*outer, "bash", str(root / "ci/device/reference_runs.sh"), *args], env=environment,
                          capture_output=True, text=True, timeout=60)


def suites_run_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in result.stdout.splitlines() if line.startswith("python3 -m suites.run")]
    assert len(lines) == 1, result.stdout + result.stderr
    return lines[0]


def test_accuracy_section_names_suite_mode_models_and_limits(tmp_path: Path) -> None:
    result = run(tmp_path, "accuracy", "huggingface", "training", "RobertaForCausalLM", "XLNetLMHeadModel",
                 JOBS="5", MODEL_TIMEOUT="540")
    assert result.returncode == 0, result.stderr
    line = suites_run_line(result)
    for part in ("--suite huggingface", "--mode training --plan accuracy", "--jobs 5 --timeout 540",
                 "--model RobertaForCausalLM --model XLNetLMHeadModel", f"--out {tmp_path}/out/accuracy/huggingface-training",
                 "--run-id h200-huggingface-accuracy-", "-abcdef0 "):
        assert part in line
    assert "--shard" not in line and line.endswith("[PARITY_TORCHBENCH_DIR=]")
    with tarfile.open(tmp_path / "out/accuracy.tgz") as packed:
        assert "accuracy" in packed.getnames()


def test_torchbench_gets_its_checkout_and_a_shard(tmp_path: Path) -> None:
    line = suites_run_line(run(tmp_path, "accuracy", "torchbench", "training", SHARD="1/4", RUN_ID="tb-acc",
                               BACKEND="inductor"))
    assert "--shard 1/4" in line and "--run-id tb-acc " in line and "--mode training" in line
    assert "--backend inductor " in line
    assert line.endswith(f"[PARITY_TORCHBENCH_DIR={tmp_path}/tree/.torchbench]")


@pytest.mark.parametrize("section, folder", [(("turns", "timm", "training"), "turns/timm-training"),
                                             (("accuracy", "timm", "training"), "accuracy/timm-training"),
                                             (("llm", "inductor_cudagraphs"), "llm/inductor_cudagraphs")])
def test_a_run_resumes_an_earlier_calls_folder_and_stops_starting_in_time(tmp_path: Path, section: tuple[str, ...],
                                                                          folder: str) -> None:
    """RESUME=DIR: the folder an earlier call brought back (its plan and results) is copied in before the run goes
    on with --resume; START_WITHIN reaches suites.run."""
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "t.plan.pb").write_bytes(b"plan")
    result = run(tmp_path, *section, RESUME=str(earlier), RUN_ID="t", START_WITHIN="300")
    line = suites_run_line(result)
    assert "--start-within 300 --resume --out" in line and "--run-id t " in line and "--model" not in line
    assert (tmp_path / "out" / folder / "t.plan.pb").read_bytes() == b"plan"
    plain = suites_run_line(run(tmp_path, *section, "ghostnet_100"))
    assert "--resume" not in plain and "--start-within" not in plain and "--model ghostnet_100" in plain


def test_torchbench_wheels_go_to_a_folder_of_their_own(tmp_path: Path) -> None:
    """A TorchBench run and another one beside it in the same call (DEVICE_LOCK) must not share a pip target: the
    TorchBench wheels would shadow the other run's packages, and two installs into one folder race."""
    wheels = tmp_path / "tree/.whl"
    (wheels / "torchbench").mkdir(parents=True)
    (wheels / "expecttest-0.3.0-py3-none-any.whl").touch()
    (wheels / "torchbench/librosa-0.10.2-py3-none-any.whl").touch()
    targets = {}
    for suite in ("torchbench", "huggingface"):
        pip = [line for line in run(tmp_path, "turns", suite, "inference").stdout.splitlines() if "pip install" in line]
        assert len(pip) == 1
        targets[suite] = pip[0]
    assert "--target /tmp/site-torchbench " in targets["torchbench"] and "librosa" in targets["torchbench"]
    assert "--target /tmp/site " in targets["huggingface"] and "librosa" not in targets["huggingface"]


def test_checks_label_hf_bert_with_the_run_id(tmp_path: Path) -> None:
    """Its results' ids derive from the run id, so the default one would let a later run replace them in the store."""
    stub = '#!/bin/sh\ncase "$*" in *opinfo.hf_bert*) echo "hf_bert run id ${PARITY_RUN_ID:-}";; esac\n'
    result = run(tmp_path, "checks", stub=stub, RUN_ID="h100-checks-x")
    assert "hf_bert run id h100-checks-x" in (tmp_path / "out/checks/hf_bert.log").read_text(), result.stderr
    run(tmp_path, "checks", stub=stub)
    assert "hf_bert run id h200-checks-" in (tmp_path / "out/checks/hf_bert.log").read_text()


def test_crosscheck_runs_upstream_from_the_carried_copy_beside_parity(tmp_path: Path) -> None:
    result = run(tmp_path, "crosscheck", "huggingface", "inference", "BertForMaskedLM", "T5ForConditionalGeneration",
                 MODEL_TIMEOUT="240")
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("python3 -m tools.crosscheck")]
    assert len(lines) == 1, result.stdout
    for part in (f"--upstream {tmp_path}/tree/.dynamobench --suite huggingface --mode inference --device cuda",
                 "--timeout-s 240", "--run-id crosscheck-huggingface-inference-", "-abcdef0 ",
                 f"--out {tmp_path}/out/crosscheck/huggingface-inference",
                 "--model BertForMaskedLM --model T5ForConditionalGeneration"):
        assert part in lines[0]
    assert lines[0].endswith("[PARITY_TORCHBENCH_DIR=]")


def test_crosscheck_of_torchbench_gets_the_checkout(tmp_path: Path) -> None:
    result = run(tmp_path, "crosscheck", "torchbench", "inference", "resnet50")
    line = next(line for line in result.stdout.splitlines() if line.startswith("python3 -m tools.crosscheck"))
    assert "--suite torchbench" in line and line.endswith(f"[PARITY_TORCHBENCH_DIR={tmp_path}/tree/.torchbench]")


def test_triage_runs_side_by_side_and_resumes_from_carried_work(tmp_path: Path) -> None:
    """Each result's triage keeps its work under $OUT (packed without the bisector's kernel folders), and a work
    folder carried back from an earlier call is where its triage goes on."""
    stem = "torchbench.maml_omniglot.training.inductor_cudagraphs.cuda.full"
    carried = tmp_path / "carried"
    (carried / stem / "bisect").mkdir(parents=True)
    (carried / stem / "memo.json").write_text("{}")
    (carried / stem / "bisect" / "kernel.so").write_text("large")
    result = run(tmp_path, "triage", "torchbench", f"ref/{stem}.txtpb", "ref/other.pb", TRIAGE_WORK=str(carried),
                 LIMIT_S="300")
    assert result.returncode == 0, result.stderr
    out = tmp_path / "out/triage"
    line = (out / f"{stem}.log").read_text()
    assert line.startswith(f"python3 -m tools.triage ref/{stem}.txtpb --limit-s 300 --out {out} "
                           f"--keep-work {out}/work/{stem} --inductor-cache /tmp/triage-cache/{stem}")
    assert line.rstrip().endswith(f"[PARITY_TORCHBENCH_DIR={tmp_path}/tree/.torchbench]")
    assert "--keep-work " + str(out / "work/other") in (out / "other.log").read_text()
    assert (out / f"work/{stem}/memo.json").is_file()
    with tarfile.open(tmp_path / "out/triage.tgz") as packed:
        names = packed.getnames()
    assert f"triage/work/{stem}/memo.json" in names and not any("/bisect" in n for n in names)


def test_an_outer_timeout_reaches_each_triage_and_its_record_is_packed(tmp_path: Path) -> None:
    # A triage writes its record when SIGTERM ends it (tools.triage), which takes it a moment: the section must wait
    # for that before it packs. (GNU timeout signals the whole process group, the triages too.)
    stub = ('#!/bin/bash\n[ "$2" = tools.triage ] || exit 0\n'  # the section's other python3 calls
            'record="${@: -3:1}.record"; trap \'sleep 1; echo gave up > "$record"; exit 0\' TERM\nsleep 30 & wait\n')
    result = run(tmp_path, "triage", "torchbench", "ref/a.txtpb", "ref/b.txtpb", stub=stub, within_s=3)
    assert result.returncode == 124, result.stderr  # timeout's own code: the section was stopped, not finished
    with tarfile.open(tmp_path / "out/triage.tgz") as packed:
        names = packed.getnames()
    for stem in ("a", "b"):
        assert (tmp_path / f"out/triage/work/{stem}.record").read_text() == "gave up\n"
        assert f"triage/work/{stem}.record" in names


def test_an_outer_timeout_lets_the_suite_write_its_stopped_results_before_the_pack(tmp_path: Path) -> None:
    # suites.run, stopped by SIGTERM, writes a timeout result for each model it kills. Packing at once lost them (the
    # H100 call of 2026-12-07 came back without the results of the four models it stopped).
    stub = ('#!/bin/bash\n[ "$2" = suites.run ] || exit 0\n'
            'out="${@: -3:1}"; mkdir -p "$out"; trap \'sleep 1; echo timeout > "$out/m.txtpb"; exit 1\' TERM\n'
            'sleep 30 & wait\n')
    result = run(tmp_path, "turns", "timm", "training", "a", stub=stub, within_s=3)
    assert result.returncode == 124, result.stderr
    assert "[reference_runs] turns done" not in result.stdout  # stopped, not finished
    with tarfile.open(tmp_path / "out/turns.tgz") as packed:
        assert "turns/timm-training/m.txtpb" in packed.getnames()


def test_an_opinfo_case_runs_alone_for_its_triage(tmp_path: Path) -> None:
    result = run(tmp_path, "opinfo-case", "torch.ops.aten._efficient_attention_forward", "float32")
    assert result.returncode == 0, result.stderr
    line = (tmp_path / "out/opinfo-case/run.log").read_text()
    assert line.startswith("python3 -m opinfo.run --device cuda --ops torch.ops.aten._efficient_attention_forward "
                           "--dtypes float32 --run-id opinfo-case-") and f"--out {tmp_path}/out/opinfo-case" in line


@pytest.mark.parametrize("args, message", [
    (("accuracy",), "accuracy SUITE [MODE [MODEL...]]"),
    (("triage", "torchbench"), "triage SUITE RESULT...: name at least one result file"),
    (("opinfo-case", "sort"), "opinfo-case OP DTYPE"),
    (("crosscheck", "timm", "inference"), "crosscheck SUITE MODE MODEL...: name at least one model"),
    (("no-such-section",), "unknown section no-such-section"),
])
def test_bad_arguments_say_what_is_wanted_and_still_pack(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    result = run(tmp_path, *args)
    assert result.returncode != 0 and message in result.stderr
    assert (tmp_path / f"out/{args[0]}.tgz").is_file()


def test_a_pinned_tree_labels_its_results_with_its_own_commit(tmp_path: Path) -> None:
    """A tree made by pin_tree.sh names its commit in COMMIT; a PARITY_COMMIT that says otherwise is refused."""
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree/COMMIT").write_text("1234567\n")
    line = suites_run_line(run(tmp_path, "accuracy", "timm", "inference", PARITY_COMMIT=""))
    assert "-1234567 " in line
    refused = run(tmp_path, "accuracy", "timm", "inference")
    assert refused.returncode == 2 and "pinned at 1234567: unset it" in refused.stderr
