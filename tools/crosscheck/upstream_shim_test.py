"""The shim, for real, with the hub offline: a script that asks timm, torchvision and transformers for pretrained
weights and hub configs, as upstream's suite scripts and TorchBench's models do, gets random weights and Parity's
configs instead of a download error; everything else stays as `python SCRIPT ARG...` would have it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tools.crosscheck import offline
from tools.crosscheck.upstream import OFFLINE_ENV, SHIM

SCRIPT = '''import json, sys
import timm
from timm.models import create_model  # as upstream's timm_models.py binds it
import torchvision.models as models
from transformers import AutoConfig

timm_model = create_model("resnet18", pretrained=True, num_classes=None)
vision = models.resnet18(weights=models.ResNet18_Weights.IMAGENET1K_V1)
legacy = models.resnet18(pretrained=True)
config = AutoConfig.from_pretrained("t5-small")
try:
    AutoConfig.from_pretrained("bert-base-uncased")  # not in the table: transformers' own answer, offline
    unknown = "answered"
except Exception as exc:  # noqa: BLE001
    unknown = type(exc).__name__
print(json.dumps({"argv": sys.argv, "path0": sys.path[0], "name": __name__,
                  "timm_params": sum(p.numel() for p in timm_model.parameters()),
                  "vision_classes": vision.fc.out_features, "legacy_classes": legacy.fc.out_features,
                  "same_create": timm.create_model is create_model,
                  "config": [type(config).__name__, config.d_model, config.num_layers], "unknown": unknown}))
'''


def run_shim(tmp_path: Path, suite: str, *script_args: str,
             script_text: str = SCRIPT) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "upstream" / "suite_script.py"
    script.parent.mkdir()
    script.write_text(script_text)
    table = offline.write_offline_table(tmp_path / "offline.json")
    env = {**os.environ, **OFFLINE_ENV, "HF_HOME": str(tmp_path / "hf-home")}  # an empty hub cache: nothing to find
    return subprocess.run([sys.executable, str(SHIM), "--suite", suite, "--offline", str(table), "--", str(script),
                           *script_args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)


def test_pretrained_requests_get_random_weights_and_the_manifest_configs(tmp_path: Path) -> None:
    done = run_shim(tmp_path, "torchbench", "--only", "x")
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    script = tmp_path / "upstream" / "suite_script.py"
    assert seen["argv"] == [str(script), "--only", "x"] and seen["path0"] == str(script.parent)
    assert seen["name"] == "__main__"
    assert seen["timm_params"] > 1e7 and seen["vision_classes"] == seen["legacy_classes"] == 1000
    assert seen["same_create"]  # timm.create_model and timm.models.create_model: one substituted function
    assert seen["config"] == ["T5Config", 512, 6]  # t5-small's numbers, from Parity's HuggingFace manifest
    assert seen["unknown"] == "OSError"  # offline, a config the table lacks is transformers' own error
    for said in ("offline substitutions armed for timm.models, torchvision.models, transformers",
                 "timm's create_model builds with pretrained=False", "torchvision model builders get weights=None",
                 "AutoConfig.from_pretrained answers"):
        assert said in done.stderr


def test_a_suite_gets_only_its_own_substitutions_and_a_script_that_imports_none_pays_nothing(tmp_path: Path) -> None:
    done = run_shim(tmp_path, "timm", script_text="import sys\nprint(sorted(m for m in sys.modules if m in "
                                                  "('timm', 'torch', 'torchvision', 'transformers')))\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"  # the shim imported none of the libraries itself
    assert "offline substitutions armed for timm.models\n" in done.stderr
