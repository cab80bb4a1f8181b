#!/usr/bin/env bash
# The test command (README): installs what is missing, then runs every presubmit test under Bazel
# (unit tests, fault injection, FlexAttention, and the TIMM smoke targets with aot_eager and Inductor),
# then the unit-test files once more under plain pytest. Quick when installed and cached.
# PARITY_REMOTE_CACHE=read|write|off (default off): also use the remote cache of .bazelrc (write = CI only;
# .ci/run starts the loopback server, ci/cache_server.py).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/bootstrap.sh
venv="${PARITY_VENV:-/opt/parity/venv}"
mkdir -p out
start=$(date +%s)

echo "[test] plain pytest over the library test files (same files Bazel runs)"
"$venv/bin/python" -m pytest -q compiler tools ci suites/run_test.py suites/table_test.py suites/common/manifest_test.py suites/common/settings_test.py flex_attention

case "${PARITY_REMOTE_CACHE:-off}" in
  read) cache_flags=(--config=remote_cache) ;;
  write) cache_flags=(--config=remote_cache_push) ;;
  off) cache_flags=() ;;
  *) echo "[test] PARITY_REMOTE_CACHE=${PARITY_REMOTE_CACHE} must be read, write or off" >&2; exit 2 ;;
esac
echo "[test] bazel test //... (presubmit set, disk cache /var/cache/parity/bazel-disk, remote cache ${PARITY_REMOTE_CACHE:-off})"
status=0
bazel test //... --config=ci --config=presubmit ${cache_flags[@]+"${cache_flags[@]}"} --build_event_json_file=out/bep.json || status=$?
# 3: some test failed; 4: no test targets (both are reported below); anything else is a build error.
if [ "$status" != 0 ] && [ "$status" != 3 ] && [ "$status" != 4 ]; then
  echo "[test] bazel failed with exit code $status (build or configuration error)" >&2
  exit "$status"
fi
echo "[test] done in $(( $(date +%s) - start )) s"
"$venv/bin/python" ci/bazel_summary.py out/bep.json
