"""The TorchBench manifest is the user's denominator, and its classifications are consistent."""

from __future__ import annotations

import torchvision

from compiler.starlark_data import load_bzl_literals
from suites.common.manifest import load_manifest, manifest_path

TRAINING = set("""alexnet resnet18 resnet50 resnext50_32x4d densenet121 vgg16 mobilenet_v2 mobilenet_v3_large
mobilenet_v2_quantized_qat resnet50_quantized_qat mnasnet1_0 shufflenet_v2_x1_0 squeezenet1_1 pytorch_unet
vision_maskrcnn yolov3 detectron2_fasterrcnn_r_101_c4 detectron2_fasterrcnn_r_101_dc5 detectron2_fasterrcnn_r_101_fpn
detectron2_fasterrcnn_r_50_c4 detectron2_fasterrcnn_r_50_dc5 detectron2_fasterrcnn_r_50_fpn detectron2_fcos_r_50_fpn
detectron2_maskrcnn detectron2_maskrcnn_r_101_c4 detectron2_maskrcnn_r_101_fpn detectron2_maskrcnn_r_50_c4
detectron2_maskrcnn_r_50_fpn Background_Matting Super_SloMo dcgan pytorch_stargan pytorch_CycleGAN_and_pix2pix
DALLE2_pytorch LearningToPaint attention_is_all_you_need_pytorch BERT_pytorch fastNLP_Bert speech_transformer tacotron2
tts_angular demucs dlrm fambench_dlrm nvidia_deeprecommender fambench_xlmr maml maml_omniglot soft_actor_critic drq moco
opacus_cifar10 pytorch_struct pplbench_beanmachine pyhpc_equation_of_state pyhpc_isoneutral_mixing
pyhpc_turbulent_kinetic_energy""".split())
INFERENCE = set("""BERT_pytorch Background_Matting LearningToPaint alexnet dcgan demucs densenet121 dlrm drq fastNLP_Bert
maml maml_omniglot mnasnet1_0 mobilenet_v2 mobilenet_v3_large moco nvidia_deeprecommender opacus_cifar10
pyhpc_equation_of_state pyhpc_isoneutral_mixing pytorch_stargan pytorch_unet resnet18 resnet50 resnext50_32x4d
shufflenet_v2_x1_0 soft_actor_critic speech_transformer squeezenet1_1 vgg16 yolov3""".split())
GRAPH_MODE = set("""BERT_pytorch dcgan hf_Albert LearningToPaint mobilenet_v2 phlippe_densenet phlippe_resnet
shufflenet_v2_x1_0 timm_regnet timm_vovnet""".split())


def _raw_models() -> dict:
    return load_bzl_literals(manifest_path("torchbench"))["MANIFEST"]["models"]


def test_lists_are_the_users_denominators() -> None:
    raw = _raw_models()
    assert len(TRAINING) == 57 and len(INFERENCE) == 31 and len(GRAPH_MODE) == 10
    for name, members in (("training", TRAINING), ("inference", INFERENCE), ("graph_mode", GRAPH_MODE)):
        assert {m for m, e in raw.items() if name in e["lists"]} == members, name
    assert set(raw) == TRAINING | INFERENCE | GRAPH_MODE


def test_every_listed_mode_has_a_target() -> None:
    manifest = load_manifest("torchbench")
    for name, entry in _raw_models().items():
        modes = set(manifest.model(name).modes)
        assert ("training" in entry["lists"]) <= ("training" in modes), name
        assert ("inference" in entry["lists"]) <= ("inference" in modes), name


def test_unavailable_modes_and_expectations_agree() -> None:
    manifest = load_manifest("torchbench")
    for name, raw in _raw_models().items():
        entry = manifest.model(name)
        for mode, reason in raw["build"].get("unavailable", {}).items():
            for device in ("cpu", "cuda", "npu"):
                assert entry.expected_status(device, mode, "inductor") == ("model_fail_to_load", reason), (name, mode)
        declared = {r.mode for r in entry.expected if r.device == "*" and r.status == "model_fail_to_load"}
        assert declared == set(raw["build"].get("unavailable", {})), name


def test_counts_of_classified_non_results() -> None:
    raw = _raw_models()
    unavailable = {mode: sum(1 for e in raw.values() if mode in e["build"].get("unavailable", {}) and mode in e["lists"])
                   for mode in ("training", "inference")}
    assert unavailable == {"training": 21, "inference": 1}  # 36 of 57 and 30 of 31 can produce a result


def test_torchvision_sources_name_real_builders() -> None:
    for name, raw in _raw_models().items():
        build = raw["build"]
        if build["source"] == "torchvision":
            assert callable(getattr(torchvision.models, build["arch"])), name
        elif build["source"] == "torchvision_qat":
            assert callable(getattr(torchvision.models.quantization, build["arch"])), name
        else:
            assert build["source"] == "torchbench" and build["folder"] in ("models", "canary_models"), name


def test_model_kwargs_name_modes_of_the_entry() -> None:
    """build.model_kwargs: {mode: {kwarg: value}}, for modes the model takes part in (the loader passes them as is)."""
    for name, raw in _raw_models().items():
        per_mode = raw["build"].get("model_kwargs", {})
        assert isinstance(per_mode, dict) and set(per_mode) <= set(raw["modes"]), name
        assert all(isinstance(kwargs, dict) and kwargs for kwargs in per_mode.values()), name
