#!/usr/bin/env bash
# Puts the wheels the TorchBench models need beyond the GPU image into .whl/torchbench/, which the TorchBench calls
# carry (ci/device/install_wheels.sh installs them there). Run it here, where PyPI is reachable; the GPU machine has
# no registry. The pins and hashes: torchbench-wheels.txt (downloaded as built for CPython 3.12 on manylinux x86_64,
# the GPU image's) and torchbench-sdists.txt (no wheel on PyPI: built here; pure Python). Without them, the models
# that need them end in model_fail_to_load (ModelUnavailable) and name the missing package.
# It also puts expecttest, at requirements.lock's pin, into .whl/ itself: the OpInfo suite (`opinfo`, `opinfo-case`)
# imports torch's OpInfo database, which needs it, and the GPU image lacks it.
set -euo pipefail
cd "$(dirname "$0")/../.."
python="${PARITY_VENV:-/opt/parity/venv}/bin/python"
dest=.whl/torchbench
mkdir -p "$dest"
platforms=(--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64)
"$python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
  "${platforms[@]}" --require-hashes -r ci/device/torchbench-wheels.txt -d "$dest"
"$python" -m pip wheel -q --disable-pip-version-check --no-deps --require-hashes -r ci/device/torchbench-sdists.txt \
  -w "$dest"
"$python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
  "$(grep '^expecttest==' requirements.lock)" -d .whl
echo "[fetch_wheels] $(find "$dest" -name '*.whl' | wc -l) wheels in $dest ($(du -sh "$dest" | cut -f1))"
