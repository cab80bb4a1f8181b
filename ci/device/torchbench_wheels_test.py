"""Every package a TorchBench model's build names (the manifest's `build.packages`) is pinned, with its hash, in the
wheel lists that ci/device/fetch_wheels.sh fetches for the GPU machine: a model whose package is missing there ends in
model_fail_to_load (speech_transformer and tacotron2 did, in a triage call at 0128799)."""

from __future__ import annotations

import re
from pathlib import Path

from suites.common.manifest import load_manifest

LISTS = [Path("ci/device/torchbench-wheels.txt"), Path("ci/device/torchbench-sdists.txt")]
PIN = re.compile(r"^([A-Za-z0-9._-]+)==(\S+) --hash=sha256:[0-9a-f]{64}$")


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()  # PEP 503: an import name like kaldi_io is distribution kaldi-io


def pinned() -> dict[str, str]:
    pins = {}
    for path in LISTS:
        for line in path.read_text().splitlines():
            if line and not line.startswith("#"):
                found = PIN.match(line)
                assert found, f"{path}: {line!r} is not NAME==VERSION --hash=sha256:HEX"
                pins[normalized(found.group(1))] = found.group(2)
    return pins


def test_every_package_a_model_needs_is_pinned() -> None:
    pins = pinned()
    needed = {normalized(package): entry.name for entry in load_manifest("torchbench").models.values()
              for package in entry.build.get("packages", ())}
    assert needed, "the manifest names no packages: this test would check nothing"
    missing = {package: model for package, model in needed.items() if package not in pins}
    assert not missing, f"packages models need but no list pins (package: model): {missing}"
    # What the offline notes found the models also need: librosa 0.9.2 exactly, soxr beside it, setuptools<81.
    assert pins["librosa"] == "0.9.2" and "soxr" in pins and int(pins["setuptools"].split(".")[0]) < 81
