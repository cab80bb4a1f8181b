#!/usr/bin/env bash
# Bazel's --run_under needs an executable: run one_device.py (standard library only) with the venv's
# Python, found next to this script in the runfiles, or in the source tree when run by hand.
set -euo pipefail
self="${BASH_SOURCE[0]}"
for candidate in \
    "${RUNFILES_DIR:-/nonexistent}/parity/ci/run_under/one_device.py" \
    "${TEST_SRCDIR:-/nonexistent}/parity/ci/run_under/one_device.py" \
    "$self.runfiles/parity/ci/run_under/one_device.py" \
    "$(dirname "$(readlink -f "$self")")/one_device.py"; do
  if [ -f "$candidate" ]; then script="$candidate"; break; fi
done
if [ -z "${script:-}" ]; then
  echo "one_device.sh: one_device.py not found in the runfiles or next to $self" >&2
  exit 2
fi
python="${PARITY_VENV:-/opt/parity/venv}/bin/python"
[ -x "$python" ] || python=python3
exec "$python" "$script" "$@"
