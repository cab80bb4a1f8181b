"""Manifests: the real TIMM one is complete and consistent; malformed ones fail with clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.starlark_data import StarlarkDataError, load_bzl_data, load_bzl_literals
from suites.common.manifest import ManifestError, all_manifest_paths, load_manifest, manifest_path

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
     "'models': {'m': " + GOOD_ENTRY[:-1] + ", 'colour': 'red'}}}", "unknown key 'colour'"),
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
    status, reason = entry.expected_status("cuda", "inference", "inductor_cudagraphs", plan="performance")
    assert status == "pass" and "performance-only" in reason and "known bug" in reason
    assert entry.skip_reason("npu", "inference", "eager") == "needs CANN 8"
    assert "does not take part in training" in entry.skip_reason("cpu", "training", "eager")
    assert entry.skip_reason("cpu", "inference", "eager") is None


def test_an_expectation_can_hold_for_one_run_plan() -> None:
    """resnet50's AMP training fails the timed run's check (Adam, batch 32) and passes accuracy-only (SGD, batch 4)."""
    resnet50 = load_manifest("torchbench").model("resnet50")
    assert resnet50.expected_status("cuda", "training", "inductor_cudagraphs")[0] == "fail_accuracy"
    assert resnet50.expected_status("cuda", "training", "inductor_cudagraphs", plan="accuracy") == ("pass", "")


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


def test_accuracy_only_runs_step_the_optimizer_of_upstreams_ci_accuracy_job() -> None:
    """The community's expected statuses come from `--ci` runs, which step CI_USE_SGD models with SGD; the dashboard's
    runs (and ours that time) step them with Adam."""
    torchbench, timm = load_manifest("torchbench"), load_manifest("timm")
    resnet50 = torchbench.model("resnet50")
    assert (resnet50.optimizer_for(accuracy_only=False), resnet50.optimizer_for(accuracy_only=True)) == ("adam", "sgd")
    assert timm.model("inception_v3").optimizer_for(accuracy_only=True) == "sgd"
    for model, kind in (("resnet18", "sgd"), ("Super_SloMo", "adam")):  # BENCHMARK_USE_SGD, and neither list
        entry = torchbench.model(model)
        assert entry.optimizer_for(accuracy_only=False) == entry.optimizer_for(accuracy_only=True) == kind


# Every suite's manifest passes the Python validator. ci/test.sh runs this file before Bazel, so a manifest that
# Python refuses fails CI before the Starlark macro (tools/build_defs/suite_tests.bzl) reads it.
REAL_MANIFESTS = {**{suite: (suite, path) for suite, path in all_manifest_paths().items()},
                  "torchbench_fixture": ("torchbench", manifest_path("torchbench").parent / "fixture" / "manifest.bzl")}


def test_every_suite_manifest_is_found() -> None:
    assert {"timm", "huggingface", "torchbench", "selftest"} <= set(all_manifest_paths())


@pytest.mark.parametrize("name", sorted(REAL_MANIFESTS))
def test_every_suite_manifest_validates(name: str) -> None:
    suite, path = REAL_MANIFESTS[name]
    assert load_manifest(suite, path).models


# A well-formed manifest, one field a line, so that each defect below sits on a known line.
LINED = """MANIFEST = {
    "suite": "x",
    "version": "1",
    "accuracy_batch_size": 8,
    "tolerance": {"training": 0.01, "inference": 0.001},
    "models": {
        "m": {
            "modes": {"inference": {"batch_size": 2}},
            "build": {},
            "smoke": {"batch_size": 1, "build": {}},
        },
    },
}
"""
MODEL_END = "        },\n    },\n}\n"  # lines 11-13: the end of model m, of models, of MANIFEST


def _lined(line: int, text: str) -> str:
    """LINED with its line `line` (1-based) replaced by `text`."""
    lines = LINED.splitlines(keepends=True)
    lines[line - 1] = text + "\n"
    return "".join(lines)


def _refusal(tmp_path: Path, body: str, suite: str = "x") -> tuple[Path, str]:
    path = tmp_path / "manifest.bzl"
    path.write_text(body.replace('"suite": "x"', f'"suite": "{suite}"'))
    with pytest.raises(ManifestError) as refused:
        load_manifest(suite, path)
    return path, str(refused.value)


def test_the_lined_manifest_is_valid(tmp_path: Path) -> None:
    path = tmp_path / "manifest.bzl"
    path.write_text(LINED)
    assert load_manifest("x", path).model("m").smoke_batch_size == 1


@pytest.mark.parametrize("body, line, names", [
    # The same model twice: Python kept the last silently, Bazel refuses.
    (LINED.replace(MODEL_END, '        },\n        "m": {"modes": {}, "build": {}, "smoke": {}},\n    },\n}\n'),
     12, ["duplicate key 'm'", "MANIFEST['models']", "first at line 7"]),
    # Any dict literal: build, a mode's spec, the suite tolerance.
    (_lined(9, '            "build": {"a": 1, "a": 2},'), 9, ["duplicate key 'a'", "['build']"]),
    (_lined(8, '            "modes": {"inference": {"batch_size": 2, "batch_size": 4}},'), 8,
     ["duplicate key 'batch_size'"]),
    (_lined(5, '    "tolerance": {"training": 0.01, "inference": 0.001,\n    "training": 0.1},'), 6,
     ["duplicate key 'training'", "first at line 5"]),
    # MANIFEST assigned twice.
    (LINED + "MANIFEST = {}\n", 14, ["MANIFEST is assigned a second time", "first at line 1"]),
])
def test_duplicates_are_refused_at_the_second_occurrence(tmp_path: Path, body: str, line: int, names: list[str]) -> None:
    path, message = _refusal(tmp_path, body)
    assert message.startswith(f"{path}:{line}: "), message
    for name in names:
        assert name in message, message


def test_a_duplicate_key_inside_a_list_is_refused_with_its_place(tmp_path: Path) -> None:
    path = tmp_path / "t.bzl"
    path.write_text('RULES = [\n    {"device": "cpu"},\n    {"device": "cpu", "device": "cuda"},\n]\n')
    with pytest.raises(StarlarkDataError, match=rf"^{path}:3: duplicate key 'device' in RULES\[1\]"):
        load_bzl_literals(path)


def test_bzl_data_knows_the_line_of_every_key(tmp_path: Path) -> None:
    path = tmp_path / "manifest.bzl"
    path.write_text(LINED)
    data = load_bzl_data(path)
    assert data.line_of("MANIFEST", "models", "m", "smoke", "batch_size") == 10
    assert data.line_of("MANIFEST", "models", "m", "build", "absent") == 9  # the nearest enclosing key
    assert data.where("MANIFEST", "tolerance") == f"{path}:5"


@pytest.mark.parametrize("line, text, names", [
    # Batch sizes: positive integers (smoke's 0 and negatives were accepted; True passed as an int).
    (10, '            "smoke": {"batch_size": 0, "build": {}},', ["models.m.smoke.batch_size", "positive integer", "got 0"]),
    (10, '            "smoke": {"batch_size": -2, "build": {}},', ["models.m.smoke.batch_size", "got -2"]),
    (10, '            "smoke": {"batch_size": 1.5, "build": {}},', ["models.m.smoke.batch_size", "got 1.5"]),
    (8, '            "modes": {"inference": {"batch_size": -3}},', ["models.m.modes.inference.batch_size", "got -3"]),
    (8, '            "modes": {"inference": {"batch_size": True}},', ["models.m.modes.inference.batch_size", "got True"]),
    (4, '    "accuracy_batch_size": 0,', ["MANIFEST.accuracy_batch_size", "positive integer"]),
    # Tolerances: finite and non-negative (1e999 reads as inf).
    (5, '    "tolerance": {"training": -0.01, "inference": 0.001},', ["tolerance.training", "finite number >= 0", "-0.01"]),
    (5, '    "tolerance": {"training": 1e999, "inference": 0.001},', ["tolerance.training", "inf"]),
    (9, '            "build": {}, "tolerance": {"inference@cpu": -1},', ["models.m.tolerance['inference@cpu']", ">= 0"]),
    (9, '            "build": {}, "tolerance": {"inference": "0.1"},', ["models.m.tolerance.inference", "finite number"]),
    (9, '            "build": {}, "accuracy_optimizer": "SGD",', ["models.m.accuracy_optimizer", "adam"]),
    (9, '            "build": {}, "expected": [{"device": "*", "mode": "*", "backend": "*", "plan": "timed", '
        '"status": "crash", "reason": "r"}],', ["models.m.expected[0].plan", "'timed'"]),
])
def test_bad_values_are_refused_with_file_line_and_field(tmp_path: Path, line: int, text: str, names: list[str]) -> None:
    path, message = _refusal(tmp_path, _lined(line, text))
    assert message.startswith(f"{path}:{line}: "), message
    for name in names:
        assert name in message, message


@pytest.mark.parametrize("line, text, key, allowed", [
    (4, '    "accuracy_batch_size": 8, "colour": "red",', "colour", "accuracy_batch_size, models, suite, tolerance"),
    (9, '            "build": {}, "optimiser": "sgd",', "optimiser", "optimizer"),
    (8, '            "modes": {"inference": {"batch_size": 2, "batchsize": 4}},', "batchsize", "batch_size"),
    (10, '            "smoke": {"batch_size": 1, "build": {}, "kwargs": {}},', "kwargs", "batch_size, build"),
])
def test_unknown_keys_are_refused_with_file_line_and_the_allowed_ones(tmp_path: Path, line: int, text: str, key: str,
                                                                      allowed: str) -> None:
    path, message = _refusal(tmp_path, _lined(line, text))
    assert message.startswith(f"{path}:{line}: "), message
    assert f"unknown key {key!r}" in message and allowed in message, message


def test_an_unknown_mode_is_refused_with_its_line(tmp_path: Path) -> None:
    path, message = _refusal(tmp_path, _lined(8, '            "modes": {"inference": {"batch_size": 2},\n'
                                                 '                      "eval": {"batch_size": 2}},'))
    assert message.startswith(f"{path}:9: ") and "unknown mode 'eval'" in message and "training, inference" in message


@pytest.mark.parametrize("suite, line, text, key", [
    ("timm", 9, '            "build": {"timm_name": "t", "input_size": {}, "loss_scal": 2.0},', "loss_scal"),
    ("timm", 10, '            "smoke": {"batch_size": 1, "build": {"kwarg": {}}},', "kwarg"),
    ("selftest", 9, '            "build": {"behavior": "healthy"},', "behavior"),
    ("torchbench", 9, '            "build": {"source": "torchbench", "folder": "models", "model_kwarg": {}},',
     "model_kwarg"),
    ("huggingface", 9, '            "build": {"class": "BertForMaskedLM", "seqlen": 8},', "seqlen"),
])
def test_build_keys_are_those_the_suites_loader_reads(tmp_path: Path, suite: str, line: int, text: str, key: str) -> None:
    path, message = _refusal(tmp_path, _lined(line, text), suite=suite)
    assert message.startswith(f"{path}:{line}: ") and f"unknown key {key!r}" in message, message
    assert "allowed keys here: " in message, message


def test_smoke_batch_size_zero_only_where_the_loader_uses_the_models_own(tmp_path: Path) -> None:
    """TorchBench checkout models take batch size 0 as "the model's own fixed one" (10 real entries); elsewhere
    0 would build an empty batch."""
    own = _lined(9, '            "build": {"source": "torchbench", "folder": "models"},').replace(
        '"smoke": {"batch_size": 1', '"smoke": {"batch_size": 0')
    path = tmp_path / "manifest.bzl"
    path.write_text(own.replace('"suite": "x"', '"suite": "torchbench"'))
    assert load_manifest("torchbench", path).model("m").smoke_batch_size == 0
    torchvision = own.replace('"source": "torchbench", "folder": "models"', '"source": "torchvision", "arch": "resnet18"')
    path, message = _refusal(tmp_path, torchvision, suite="torchbench")
    assert message.startswith(f"{path}:10: "), message
    assert "smoke.batch_size: batch_size must be a positive integer, got 0" in message, message
    path, message = _refusal(tmp_path, own.replace('"batch_size": 0', '"batch_size": -1'), suite="torchbench")
    assert message.startswith(f"{path}:10: ") and "or 0 for the model's own" in message, message
