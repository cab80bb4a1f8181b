#!/usr/bin/env bash
# A reference dataset comes from one commit and one manifest (issue #38), but its runs take a dozen GPU calls over
# several sessions while main moves on. This puts COMMIT's tree in .pinned/ (git-ignored) with what its GPU calls
# carry: .gen generated from its own protos, and this checkout's .whl/ and .torchbench/ (make those first:
# ci/device/fetch_wheels.sh and suites/torchbench/trim_checkout.py). Carry `.pinned` alone (about 35 MB) and run from
# it; reference_runs.sh takes the commit from .pinned/COMMIT:
#   ci/device/pin_tree.sh 1a2b3c4        # here
#   cd .pinned && bash ci/device/reference_runs.sh accuracy torchbench training   # on the GPU machine
# Run the suites' code of the pinned commit only: a fix made since then goes into the next pin, and the whole
# dataset runs again.
set -euo pipefail
cd "$(dirname "$0")/../.."
pin=${1:?usage: ci/device/pin_tree.sh COMMIT (the commit every run of the dataset is to come from)}
commit=$(git rev-parse --verify --quiet "$pin^{commit}") ||
  { echo "pin_tree.sh: $pin is not a commit of this checkout" >&2; exit 2; }
for needed in .whl/torchbench .torchbench; do
  [[ -d $needed ]] || { echo "pin_tree.sh: $needed is missing: run ci/device/fetch_wheels.sh and" \
    "suites/torchbench/trim_checkout.py first" >&2; exit 2; }
done
python="${PARITY_VENV:-/opt/parity/venv}/bin/python"  # protoc comes from grpcio-tools, which the project's venv has
rm -rf .pinned.new && mkdir .pinned.new
git archive "$commit" | tar -x -C .pinned.new
cp -r .whl .torchbench .pinned.new/
(cd .pinned.new && "$python" -c 'from proto.codegen import ensure_generated; ensure_generated()')
echo "${commit:0:7}" >.pinned.new/COMMIT
rm -rf .pinned && mv .pinned.new .pinned  # a pin is whole or absent: never half of one tree and half of another
echo "pinned ${commit:0:7} in .pinned ($(du -sh .pinned | cut -f1)): carry [\".pinned\"], cd .pinned on the GPU machine"
