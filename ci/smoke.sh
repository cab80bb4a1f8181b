#!/usr/bin/env bash
# The main job (README): the TIMM smoke matrix on this machine's device (CPU here: scaled-down
# variants, aot_eager and Inductor, training and inference) under Bazel, results into the store
# together with the reference datasets kept in the repository (tools/store/references.py), the HUD summary,
# a static copy of the dashboard (out/dashboard/), and finally the dashboard served on loopback.
# PARITY_NO_SERVE=1 skips serving (CI); PARITY_DASHBOARD_PORT picks the port (default 8765).
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
# Only this invocation's targets: .bazel/testlogs also keeps outputs of targets that earlier runs had.
mapfile -t this_run < <("$venv/bin/python" ci/bazel_summary.py --testlogs .bazel/testlogs out/bep_smoke.json)
"$venv/bin/python" -m tools.store --db out/parity.db ingest "${this_run[@]}" \
  --run-id "$run_id" --commit "$(git rev-parse HEAD 2>/dev/null || true)"
"$venv/bin/python" -m tools.store --db out/parity.db summary --run-id "$run_id"
"$venv/bin/python" ci/bazel_summary.py out/bep_smoke.json

# Reference datasets (e.g. the H200 runs; tools/store/references.py says which): they carry their own run ids,
# so re-ingesting is a no-op.
mapfile -t references < <("$venv/bin/python" -m tools.store.references)
if [ "${#references[@]}" -gt 0 ]; then
  "$venv/bin/python" -m tools.store --db out/parity.db ingest "${references[@]}"
fi
"$venv/bin/python" -m tools.dashboard --db out/parity.db --run "$run_id" export --out out/dashboard
if [ "${PARITY_NO_SERVE:-0}" = 1 ]; then
  echo "[smoke] PARITY_NO_SERVE=1: not serving; the static dashboard is out/dashboard/index.html"
  exit 0
fi
exec "$venv/bin/python" -m tools.dashboard --db out/parity.db --run "$run_id" serve --port "${PARITY_DASHBOARD_PORT:-8765}"
