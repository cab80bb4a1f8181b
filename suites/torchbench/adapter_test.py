"""The TorchBench adapter against our fixture package: the contract end to end, and every load failure classified."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

from compiler.backends import get_backend
from compiler.devices.registry import get_device
from suites.common.manifest import load_manifest
from suites.common.model_run import ModelRun
from suites.common.request import RunPlan
from suites.torchbench import checkout, loader

FIXTURE = Path(__file__).resolve().parent / "fixture"


@pytest.fixture()
def fixture_checkout(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(checkout.ENV_VAR, str(FIXTURE))
    yield load_manifest("torchbench", path=FIXTURE / "manifest.bzl")
    for name in [m for m in sys.modules if m == "torchbenchmark" or m.startswith("torchbenchmark.")]:
        del sys.modules[name]  # the next test may point elsewhere
    if str(FIXTURE) in sys.path:
        sys.path.remove(str(FIXTURE))


def _run(manifest, model: str, mode: str):
    entry = manifest.model(model)
    run = ModelRun(manifest, entry, mode, get_backend("aot_eager"), get_device("cpu"), True, entry.smoke_batch_size,
                   RunPlan(warmup_iterations=1, repeats=2), loader.build)
    return run.run()


@pytest.mark.parametrize("mode", ["training", "inference"])
def test_contract_model_runs_through_the_harness(fixture_checkout, mode: str) -> None:
    result = _run(fixture_checkout, "tiny_convnet", mode)
    assert result.community_status == "pass", result.failure.message
    assert result.accuracy.checked and result.performance.measured


def test_loader_returns_the_contract_module_and_inputs(fixture_checkout) -> None:
    workload = loader.build(fixture_checkout.model("tiny_convnet"), "training", "cpu", True, 3)
    assert type(workload.model).__name__ == "TinyConvNet"
    assert isinstance(workload.inputs, tuple) and workload.inputs[0].shape == (3, 3, 16, 16)
    assert Path(sys.modules["torchbenchmark"].__file__).resolve().parent == FIXTURE / "torchbenchmark"


def test_model_kwargs_reach_the_model_in_their_mode_only(fixture_checkout) -> None:
    """Upstream passes some models constructor kwargs (vision_maskrcnn trains with box_detections_per_img=4)."""
    entry = fixture_checkout.model("tiny_convnet")
    assert loader.build(entry, "training", "cpu", True, 2).model.head.out_features == 7
    assert loader.build(entry, "inference", "cpu", True, 2).model.head.out_features == 5


@pytest.mark.parametrize(("model", "mode", "reason"), [
    ("inference_only", "training", "does not support test=train"),
    ("needs_absent_package", "inference", "needs the package 'parity_fixture_absent_package'"),
    ("removed_upstream", "training", "is not in the checkout"),
    ("declared_unavailable", "training", "needs a fixture checkpoint"),
])
def test_load_failures_are_model_fail_to_load_with_the_reason(fixture_checkout, model: str, mode: str,
                                                              reason: str) -> None:
    result = _run(fixture_checkout, model, mode)
    assert result.community_status == "model_fail_to_load"
    assert reason in result.failure.message


def test_inference_only_model_still_runs_inference(fixture_checkout) -> None:
    assert _run(fixture_checkout, "inference_only", "inference").community_status == "pass"


def test_no_checkout_is_model_fail_to_load_saying_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(checkout.ENV_VAR, raising=False)
    manifest = load_manifest("torchbench", path=FIXTURE / "manifest.bzl")
    result = _run(manifest, "tiny_convnet", "inference")
    assert result.community_status == "model_fail_to_load"
    assert checkout.ENV_VAR in result.failure.message and "trim_checkout" in result.failure.message


def test_a_folder_that_is_not_a_checkout_is_refused(tmp_path: Path) -> None:
    with pytest.raises(checkout.ModelUnavailable, match="is not a TorchBench checkout"):
        checkout.locate_checkout({checkout.ENV_VAR: str(tmp_path)})


def test_torchvision_architecture_is_built_directly_with_random_weights() -> None:
    manifest = load_manifest("torchbench")
    workload = loader.build(manifest.model("resnet18"), "inference", "cpu", True, 2)
    assert type(workload.model).__name__ == "ResNet" and workload.model.fc.out_features == 10
    assert workload.inputs[0].shape == (2, 3, 64, 64)


def test_qat_model_comes_from_torchvision_quantizable_architecture() -> None:
    manifest = load_manifest("torchbench")
    workload = loader.build(manifest.model("mobilenet_v2_quantized_qat"), "training", "cpu", True, 2)
    assert type(workload.model).__name__ == "QuantizableMobileNetV2"
    fake_quants = [m for m in workload.model.modules() if isinstance(m, torch.ao.quantization.FakeQuantize)]
    assert fake_quants, "QAT preparation attached no fake-quant modules"


@pytest.mark.parametrize(("model", "mode", "autotuned"), [("resnet18", "inference", True),
                                                          ("mobilenet_v2_quantized_qat", "training", False)])
def test_torchvision_builds_set_cudnn_flags_as_torchbench_does(model: str, mode: str, autotuned: bool) -> None:
    saved = torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic
    torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic = False, True
    try:
        loader.build(load_manifest("torchbench").model(model), mode, "cpu", True, 2)
        assert (torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic) == (autotuned, not autotuned)
    finally:
        torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic = saved
