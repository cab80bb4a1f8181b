#!/usr/bin/env bash
# Runs suite models on a lent accelerator machine, which has no Bazel and no package registry:
# installs the wheels carried in .whl/ (if any) into /tmp/site, then runs the suite CLI.
#   bash ci/device/run_suite.sh --suite timm --device cuda --backend inductor_cudagraphs --out "$OUT/h200" ...
set -euo pipefail
cd "$(dirname "$0")/../.."
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
export PYTHONUNBUFFERED=1
exec python3 -m suites.run "$@"
