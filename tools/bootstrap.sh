#!/usr/bin/env bash
# Installs what Parity needs on a fresh Debian machine, and does nothing that is already done:
#   Bazel 4.2.3 (Debian's bazel-bootstrap) and the venv at $PARITY_VENV built from requirements.lock.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${PARITY_VENV:-/opt/parity/venv}"

if ! command -v bazel >/dev/null 2>&1; then
  echo "[bootstrap] installing bazel-bootstrap (Debian)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bazel-bootstrap >/dev/null
fi

stamp="$venv/.parity-lock.sha256"
want=$(sha256sum requirements.lock | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "[bootstrap] building $venv from requirements.lock (torch takes a few minutes the first time)"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r requirements.lock 2>&1 | grep -v "^WARNING: Location" || true
  # pip freeze must equal the lock: Bazel keys tests on the pins, not on the venv's files.
  if ! diff <(grep == requirements.lock | sort -f) <("$venv/bin/pip" freeze --exclude-editable | sort -f) >/dev/null; then
    echo "[bootstrap] $venv does not match requirements.lock:" >&2
    diff <(grep == requirements.lock | sort -f) <("$venv/bin/pip" freeze --exclude-editable | sort -f) >&2 || true
    exit 1
  fi
  echo "$want" > "$stamp"
fi
