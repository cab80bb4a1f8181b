"""What upstream's scripts need to run without a network, prepared on Parity's side and handed to the shim.

Upstream builds TIMM models with pretrained weights and TorchBench's torchvision models with ImageNet weights, and
huggingface.py asks the hub for five configs when it is imported (its extra models). The GPU machine reaches no
hub, so the shim (upstream_shim.py) builds models with random weights, as Parity does, and answers those config
requests from Parity's HuggingFace manifest, which holds the hub configs' numbers. The table goes to the shim as a
JSON file, so that the shim imports nothing of Parity's into upstream's process.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from suites.common.manifest import load_manifest

# The hub ids huggingface.py asks AutoConfig for at import, and the manifest entries that hold their numbers.
HUB_CONFIG_ENTRIES = {
    "allenai/longformer-base-4096": "AllenaiLongformerBase",
    "t5-small": "T5Small",
    "distilgpt2": "DistillGPT2",
    "google/fnet-base": "GoogleFnet",
    "YituTech/conv-bert-base": "YituTechConvBert",
}
# Offline substitutions of Parity's TorchBench adapter (the manifest's build.offline) that the shim does not make:
# upstream loads such a model as its checkout has it, which needs a network or data Parity generates.
_UNSUPPORTED_TORCHBENCH = {"data", "hf_config"}


def hub_configs() -> dict[str, dict[str, Any]]:
    """{hub id: {"model_class": transformers class whose config_class to build, "config": its values}}."""
    manifest = load_manifest("huggingface")
    table = {}
    for hub_id, name in HUB_CONFIG_ENTRIES.items():
        build = manifest.model(name).build
        table[hub_id] = {"model_class": build["class"], "config": build["config"], "from": f"{manifest.path} {name}"}
    return table


def write_offline_table(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hub_configs": hub_configs()}, indent=1, sort_keys=True))
    return path


def upstream_offline_gap(suite: str, model: str) -> str:
    """Why upstream cannot load this model offline through the shim, or "" when it can."""
    if suite != "torchbench":
        return ""
    needs = set(load_manifest(suite).model(model).build.get("offline", ())) & _UNSUPPORTED_TORCHBENCH
    if not needs:
        return ""
    return (f"Parity loads {model} with its {', '.join(sorted(needs))} substitution (suites/torchbench/offline.py), "
            "which the cross-check's shim does not make for upstream: upstream's run may fail to load it offline")
