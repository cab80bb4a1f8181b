#!/usr/bin/env bash
# The main job (README): the TIMM smoke matrix on this machine's device (CPU here: scaled-down
# variants, aot_eager and Inductor, training and inference) under Bazel, results into the store,
# then the HUD summary. Quick when installed and cached.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh
venv="${PARITY_VENV:-/opt/parity/venv}"
mkdir -p out
status=0
bazel test //suites/timm/... --config=ci --config=presubmit --build_event_json_file=out/bep_smoke.json || status=$?
if [ "$status" != 0 ] && [ "$status" != 3 ]; then
  echo "[smoke] bazel failed with exit code $status" >&2
  exit "$status"
fi
run_id="smoke-$(git rev-parse --short HEAD 2>/dev/null || echo local)"
"$venv/bin/python" -m tools.store --db out/parity.db ingest .bazel/testlogs/suites/timm \
  --run-id "$run_id" --commit "$(git rev-parse HEAD 2>/dev/null || true)"
"$venv/bin/python" -m tools.store --db out/parity.db summary --run-id "$run_id"
"$venv/bin/python" ci/bazel_summary.py out/bep_smoke.json
