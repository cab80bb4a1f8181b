#!/usr/bin/env bash
# Installs what Parity needs on a fresh Debian machine, and does nothing that is already done:
#   the Debian packages of tools/apt-packages.txt (Bazel 4.2.3 is bazel-bootstrap) and the venv at $PARITY_VENV built from requirements.lock.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${PARITY_VENV:-/opt/parity/venv}"

# Debian packages: tools/apt-packages.txt lists them; only the missing ones are installed.
mapfile -t wanted < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' tools/apt-packages.txt | awk '{print $1}')
missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "[bootstrap] installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
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

# The dashboard's browser library (Chart.js) from npm, pinned by tools/dashboard/package-lock.json, into
# the git-ignored tools/dashboard/node_modules. node/npm come from Debian when absent (a NodeSource
# nodejs already brings npm, and Debian's npm package would conflict with it, so this is not in apt-packages.txt).
dash=tools/dashboard
want_js=$(sha256sum "$dash/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$dash/node_modules/.parity-lock.sha256" 2>/dev/null)" != "$want_js" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "[bootstrap] installing nodejs and npm (Debian) for the dashboard's Chart.js"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  fi
  echo "[bootstrap] npm ci in $dash (Chart.js)"
  (cd "$dash" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want_js" > "$dash/node_modules/.parity-lock.sha256"
fi
