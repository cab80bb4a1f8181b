# Sourced by the GPU-machine scripts (reference_runs.sh, run_suite.sh): installs the carried wheels into
# /tmp/site and puts it first on PYTHONPATH. `source ci/device/install_wheels.sh torchbench` adds
# .whl/torchbench/*.whl and its fix-ups (torchbench_env.sh); only TorchBench runs get those, since some of them
# (librosa, setuptools<81) would shadow the image's packages for everything else. A named set goes to a folder of
# its own, /tmp/site-NAME: a TorchBench run and another started beside it in the same call (DEVICE_LOCK) then
# neither see each other's packages nor race in pip.
# Either folder may be empty or absent; each wheel found counts (a glob that matches nothing is dropped).
# Source it in the calling shell itself: `source ... | tail` runs it in a subshell, and its PYTHONPATH is lost.
_site=/tmp/site${1:+-$1}
_wheels=()
for _pattern in .whl/*.whl ${1:+.whl/$1/*.whl}; do
  if compgen -G "$_pattern" >/dev/null; then _wheels+=($_pattern); fi
done
if [ ${#_wheels[@]} -gt 0 ]; then
  echo "[install_wheels] installing ${#_wheels[@]} carried wheels into $_site"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$_site" "${_wheels[@]}"
  export PYTHONPATH=$_site${PYTHONPATH:+:$PYTHONPATH}
  if [ "${1:-}" = torchbench ]; then source ci/device/torchbench_env.sh "$_site"; fi
else
  echo "[install_wheels] no wheels carried in .whl/${1:+ or .whl/$1/}" >&2
fi
unset _site _wheels _pattern
