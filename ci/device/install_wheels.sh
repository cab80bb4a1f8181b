# Sourced by the GPU-machine scripts (reference_runs.sh, run_suite.sh): installs the carried wheels into
# /tmp/site and puts it first on PYTHONPATH. `source ci/device/install_wheels.sh torchbench` adds
# .whl/torchbench/*.whl and its fix-ups (torchbench_env.sh); only TorchBench runs get those, since some of
# them (librosa, setuptools<81) would shadow the image's packages for everything else.
_wheels=(.whl/*.whl)
[ "${1:-}" = torchbench ] && _wheels+=(.whl/torchbench/*.whl)
if compgen -G "${_wheels[0]}" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "${_wheels[@]}"
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
  if [ "${1:-}" = torchbench ]; then source ci/device/torchbench_env.sh; fi
fi
unset _wheels
