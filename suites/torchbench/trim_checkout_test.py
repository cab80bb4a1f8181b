"""The trimmed checkout holds the contract's package files, the wanted model folders and their in-folder data."""

from __future__ import annotations

from pathlib import Path

import pytest

from suites.torchbench import trim_checkout


def _fake_checkout(root: Path) -> Path:
    files = ["torchbenchmark/__init__.py", "torchbenchmark/tasks.py", "torchbenchmark/data/index.yaml",
             "torchbenchmark/util/model.py", "torchbenchmark/_components/__init__.py", "utils/__init__.py",
             "userbenchmark/dynamo/dynamobench/huggingface_models_list.txt",
             "userbenchmark/dynamo/dynamobench/timm_models_list.txt",
             "torchbenchmark/models/__init__.py", "torchbenchmark/canary_models/__init__.py",
             "torchbenchmark/e2e_models/__init__.py", "torchbenchmark/models/drq/__init__.py",
             "torchbenchmark/models/drq/__pycache__/x.pyc", "torchbenchmark/models/unwanted/__init__.py"]
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# fixture\n")
    return root


def test_trim_copies_framework_wanted_models_and_data(tmp_path: Path) -> None:
    source = _fake_checkout(tmp_path / "src")
    dest = tmp_path / "trimmed"
    missing = trim_checkout.trim(source, dest, {"drq": "models", "gone_upstream": "models"})
    assert missing == ["gone_upstream"]
    assert (dest / "torchbenchmark/util/model.py").is_file() and (dest / "utils/__init__.py").is_file()
    assert (dest / "userbenchmark/dynamo/dynamobench/timm_models_list.txt").is_file()
    assert (dest / "torchbenchmark/models/drq/obs.pkl").is_file()
    assert not (dest / "torchbenchmark/models/drq/__pycache__").exists()
    assert not (dest / "torchbenchmark/models/unwanted").exists()


def test_trim_copies_the_fambench_source_where_fambench_dlrm_imports_it(tmp_path: Path) -> None:
    source = _fake_checkout(tmp_path / "src")
    (source / "torchbenchmark/canary_models/fambench_dlrm").mkdir(parents=True)
    (source / "torchbenchmark/canary_models/fambench_dlrm/__init__.py").write_text("# fixture\n")
    fambench = tmp_path / "FAMBench"
    for rel in ("LICENSE", "benchmarks/dlrm/ootb/dlrm_data_pytorch.py", "benchmarks/dlrm/ootb/optim/rwsadagrad.py",
                "benchmarks/dlrm/ootb/kaggle_dac_loss_accuracy_plots.png", "benchmarks/rnnt/ootb/train.py"):
        (fambench / rel).parent.mkdir(parents=True, exist_ok=True)
        (fambench / rel).write_text("# fixture\n")
    models = {"fambench_dlrm": "canary_models"}
    assert trim_checkout.trim(source, tmp_path / "plain", models) == []
    assert not (tmp_path / "plain/submodules").exists()  # the source's submodule is not initialised

    dest = tmp_path / "trimmed"
    assert trim_checkout.trim(source, dest, models, fambench) == []
    ootb = dest / "submodules/FAMBench/benchmarks/dlrm/ootb"  # REPO_PATH/submodules/FAMBench/... in the model
    assert sorted(str(p.relative_to(dest)) for p in dest.joinpath("submodules").rglob("*") if p.is_file()) == [
        "submodules/FAMBench/LICENSE", f"{ootb.relative_to(dest)}/dlrm_data_pytorch.py",
        f"{ootb.relative_to(dest)}/optim/rwsadagrad.py"]

    with pytest.raises(SystemExit, match="not a FAMBench tree"):
        trim_checkout.trim(source, tmp_path / "other", models, tmp_path / "nowhere")
    (source / "submodules").mkdir()
    fambench.rename(source / "submodules/FAMBench")  # an initialised submodule is the default
    trim_checkout.trim(source, tmp_path / "from_submodule", models)
    assert (tmp_path / "from_submodule/submodules/FAMBench/benchmarks/dlrm/ootb/optim/rwsadagrad.py").is_file()


def test_trim_refuses_a_non_checkout_and_an_existing_destination(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="is not a TorchBench checkout"):
        trim_checkout.trim(tmp_path, tmp_path / "out", {})
    source = _fake_checkout(tmp_path / "src")
    (tmp_path / "exists").mkdir()
    with pytest.raises(SystemExit, match="exists"):
        trim_checkout.trim(source, tmp_path / "exists", {})


def test_wanted_models_are_the_checkout_models_that_can_run() -> None:
    wanted = trim_checkout.wanted_models()
    assert wanted["hf_Albert"] == "models" and wanted["fambench_dlrm"] == "canary_models"
    assert wanted["resnet18"] == "models"  # Parity builds it from torchvision; upstream's torchbench.py imports it
    assert wanted["mobilenet_v2_quantized_qat"] == "models"
    for gone in ("attention_is_all_you_need_pytorch", "detectron2_maskrcnn", "DALLE2_pytorch", "fambench_xlmr"):
        assert gone not in wanted
    assert "maml" in wanted  # its inference mode runs
