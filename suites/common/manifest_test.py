"""Manifests: the real TIMM one is complete and consistent; malformed ones fail with clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from suites.common.manifest import ManifestError, load_manifest

TIMM_MODELS = {
    "adv_inception_v3", "beit_base_patch16_224", "convnextv2_nano.fcmae_ft_in22k_in1k",
    "deit_base_distilled_patch16_224", "deit_tiny_patch16_224.fb_in1k", "dm_nfnet_f0", "ghostnet_100", "inception_v3",
    "mobilenetv2_100", "mobilenetv3_large_100", "mobilevit_s", "nfnet_l0", "repvgg_a2", "swin_base_patch4_window7_224",
    "tf_efficientnet_b0", "visformer_small", "vit_base_patch14_dinov2.lvd142m", "vit_base_patch16_siglip_256",
}


def test_timm_manifest_is_the_community_denominator() -> None:
    manifest = load_manifest("timm")
    assert set(manifest.models) == TIMM_MODELS
    assert all(e.modes == ("training", "inference") for e in manifest.models.values())
    assert manifest.accuracy_batch_size == 8
    assert manifest.model("ghostnet_100").batch_sizes == {"training": 512, "inference": 512}
    assert manifest.model("beit_base_patch16_224").batch_sizes["inference"] == 64
    assert manifest.tolerance_for(manifest.model("beit_base_patch16_224"), "training", "cuda") == 0.16
    assert manifest.tolerance_for(manifest.model("repvgg_a2"), "inference", "cuda") == 1e-3
    assert len(manifest.sha256) == 64


def test_timm_input_sizes_match_timms_pretrained_configs() -> None:
    timm = pytest.importorskip("timm")
    for name, entry in load_manifest("timm").models.items():
        cfg = timm.models.get_pretrained_cfg(entry.build["timm_name"]).to_dict()
        assert entry.build["input_size"]["training"] == list(cfg["input_size"]), name
        assert entry.build["input_size"]["inference"] == list(cfg.get("test_input_size") or cfg["input_size"]), name


def test_unknown_model_names_close_matches() -> None:
    with pytest.raises(ManifestError, match="unknown model 'deit_tiny'.*did you mean deit_tiny_patch16_224.fb_in1k"):
        load_manifest("timm").model("deit_tiny")


def test_unknown_suite_lists_known_ones() -> None:
    with pytest.raises(ManifestError, match="no manifest for suite 'nope'.*known suites: .*timm"):
        load_manifest("nope")


GOOD_ENTRY = '{"modes": {"inference": {"batch_size": 2}}, "build": {}, "smoke": {"batch_size": 1, "build": {}}}'


@pytest.mark.parametrize("body, message", [
    ("MANIFEST = [", "not valid Starlark"),
    ("import os", "only `NAME = <literal>` assignments"),
    ("MANIFEST = {'suite': 'x'}", "lacks the key 'version'"),
    ("MANIFEST = {'suite': 'x', 'version': '1', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1}, "
     "'models': {'m': {'modes': {'inference': {'batch_size': 0}}, 'build': {}, 'smoke': {}}}}", "batch_size must be a positive"),
    ("MANIFEST = {'suite': 'x', 'version': '1', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1}, "
     "'models': {'m': " + GOOD_ENTRY[:-1] + ", 'expected': [{'device': '*', 'mode': '*', 'backend': '*', "
     "'status': 'passed', 'reason': 'r'}]}}}", "status 'passed' is not a known status"),
    ("MANIFEST = {'suite': 'x', 'version': '1', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1}, "
     "'models': {'m': " + GOOD_ENTRY[:-1] + ", 'colour': 'red'}}}", "unknown keys \\['colour'\\]"),
    ("MANIFEST = {'suite': 'x', 'version': '1', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1}, "
     "'models': {'m': " + GOOD_ENTRY[:-1] + ", 'skip': [{'device': 'cpu', 'mode': '*', 'backend': '*', 'reason': ' '}]}}}",
     "non-empty reason"),
    ("MANIFEST = {'suite': 'x', 'version': '1', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1}, "
     "'models': {'m': " + GOOD_ENTRY[:-1] + ", 'presubmit_compile': ['training']}}}",
     "presubmit_compile must list modes of this model"),
    ("MANIFEST = {'suite': 'x', 'version': '1', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1}, "
     "'models': {'m': " + GOOD_ENTRY[:-1] + ", 'speedup_target': 0}}}", "speedup_target must be a number > 0"),
    ("MANIFEST = {'suite': 'x', 'version': '1', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1}, "
     "'models': {'m': " + GOOD_ENTRY[:-1] + ", 'speedup_target': '1.2'}}}", "speedup_target must be a number > 0"),
    ("MANIFEST = {'suite': 'x', 'version': '1', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1}, "
     "'models': {'m': " + GOOD_ENTRY[:-1] + ", 'accuracy_batch_size': 'mine'}}}", "accuracy_batch_size must be"),
    ("MANIFEST = {'suite': 'x', 'version': '1', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1}, "
     "'models': {'m': " + GOOD_ENTRY[:-1] + ", 'inference_grad': 'yes'}}}", "inference_grad must be True or False"),
    ("MANIFEST = {'suite': 'x', 'version': '1', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1}, "
     "'models': {'m': " + GOOD_ENTRY[:-1] + ", 'tolerance': {'inference@': 0.1}}}}", "tolerance keys must be a mode"),
    ("MANIFEST = {'suite': 'x', 'version': '1', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1}, "
     "'models': {'m': " + GOOD_ENTRY[:-1] + ", 'tolerance': {'eval@cpu': 0.1}}}}", "tolerance keys must be a mode"),
    ("MANIFEST = {'suite': 'x', 'version': '1', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1}, "
     "'models': {'m': " + GOOD_ENTRY[:-1] + ", 'deterministic_algorithms': 0}}}",
     "deterministic_algorithms must be True or False"),
    ("MANIFEST = {'suite': 'x', 'version': '1', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1}, "
     "'training_accuracy_mode': 'test', 'models': {'m': " + GOOD_ENTRY + "}}", 'training_accuracy_mode must be "train" or "eval"'),
])
def test_malformed_manifests_name_the_problem(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "manifest.bzl"
    path.write_text(body)
    with pytest.raises(ManifestError, match=message):
        load_manifest("x", path)


def test_expectations_and_skips_match_by_pattern(tmp_path: Path) -> None:
    path = tmp_path / "manifest.bzl"
    path.write_text(
        "MANIFEST = {'suite': 'x', 'version': '2', 'accuracy_batch_size': 8, 'tolerance': {'training': 1, 'inference': 1},"
        "'models': {'m': " + GOOD_ENTRY[:-1] + ", 'expected': [{'device': 'cuda', 'mode': '*', 'backend': 'inductor*', "
        "'status': 'fail_accuracy', 'reason': 'known bug'}], 'skip': [{'device': 'npu', 'mode': '*', 'backend': '*', "
        "'reason': 'needs CANN 8'}]}}}")
    entry = load_manifest("x", path).model("m")
    assert entry.expected_status("cuda", "inference", "inductor_cudagraphs") == ("fail_accuracy", "known bug")
    assert entry.expected_status("cpu", "inference", "inductor") == ("pass", "")
    status, reason = entry.expected_status("cuda", "inference", "inductor_cudagraphs", checks_accuracy=False)
    assert status == "pass" and "performance-only" in reason and "known bug" in reason
    assert entry.skip_reason("npu", "inference", "eager") == "needs CANN 8"
    assert "does not take part in training" in entry.skip_reason("cpu", "training", "eager")
    assert entry.skip_reason("cpu", "inference", "eager") is None


def test_inference_grad_follows_upstreams_pick_grad() -> None:
    """Only TorchBench's maml keeps autograd on in inference (it differentiates inside its forward)."""
    manifest = load_manifest("torchbench")
    assert [name for name, entry in manifest.models.items() if entry.inference_grad] == ["maml"]


def test_training_accuracy_mode_follows_upstreams_use_eval_mode() -> None:
    """TorchBench checks training in eval mode but for its only_training models; TIMM keeps train mode."""
    torchbench = load_manifest("torchbench")
    assert not torchbench.accuracy_in_train_mode(torchbench.model("resnet50"), "training")
    assert torchbench.accuracy_in_train_mode(torchbench.model("demucs"), "training")
    assert not torchbench.accuracy_in_train_mode(torchbench.model("demucs"), "inference")
    timm = load_manifest("timm")
    assert timm.accuracy_in_train_mode(timm.model("deit_tiny_patch16_224.fb_in1k"), "training")
    assert not torchbench.model("vgg16").deterministic_algorithms and torchbench.model("resnet50").deterministic_algorithms


def test_a_model_can_opt_out_of_device_graphs() -> None:
    """TorchBench's tts_angular is compiled without CUDA graphs even by inductor_cudagraphs (upstream's
    disable_cudagraph); ModelRun compiles with the backend it keeps."""
    from compiler.backends import get_backend
    from compiler.devices.registry import get_device
    from suites.common.model_run import ModelRun
    from suites.common.request import RunPlan

    manifest = load_manifest("torchbench")
    backend = get_backend("inductor_cudagraphs")
    runs = {name: ModelRun(manifest, manifest.model(name), "training", backend, get_device("cpu"), smoke=True,
                           batch_size=1, plan=RunPlan(), loader=lambda *_: None)
            for name in ("tts_angular", "resnet18")}
    assert not runs["tts_angular"].backend.device_graphs and runs["resnet18"].backend.device_graphs
    assert runs["tts_angular"].backend.compile_options(None)["triton.cudagraphs"] is False


def test_speedup_target_defaults_to_one() -> None:
    assert load_manifest("timm").model("deit_tiny_patch16_224.fb_in1k").speedup_target == 1.0
    assert load_manifest("selftest").model("slow_fallback").speedup_target == 1000.0


def test_accuracy_only_runs_keep_a_fixed_batch_size() -> None:
    """Upstream's accuracy batch size (TorchBench 4), except for models that cannot change theirs."""
    from suites.common.request import ModelRequest

    manifest = load_manifest("torchbench")
    def batch(model: str, mode: str) -> int:
        return ModelRequest(suite="torchbench", model=model, mode=mode, backend="inductor", device="cuda",
                            plan="accuracy").resolved_batch_size(manifest)

    assert batch("resnet18", "inference") == 4
    assert batch("speech_transformer", "training") == manifest.model("speech_transformer").batch_sizes["training"]
    assert batch("pytorch_unet", "training") == 2
