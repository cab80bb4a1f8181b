#!/usr/bin/env bash
# Runs suite models on a lent accelerator machine, which has no Bazel and no package registry:
# installs the carried wheels (ci/device/install_wheels.sh) into /tmp/site-SUITE, then runs the suite CLI.
#   bash ci/device/run_suite.sh --suite timm --device cuda --backend inductor_cudagraphs --out "$OUT/h200" ...
set -euo pipefail
cd "$(dirname "$0")/../.."
suite=""
for ((i = 1; i <= $#; i++)); do  # --suite NAME or --suite=NAME: TorchBench runs get its extra wheels
  arg=${!i}
  if [ "$arg" = --suite ] && [ $i -lt $# ]; then j=$((i + 1)); suite=${!j}; fi
  case "$arg" in --suite=*) suite=${arg#--suite=} ;; esac
done
source ci/device/install_wheels.sh "$suite"
export PYTHONUNBUFFERED=1
exec python3 -m suites.run "$@"
