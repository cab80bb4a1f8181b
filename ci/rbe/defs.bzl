"""`device_exec_properties`: the exec_properties a test target carries so a farm routes it (pools.bzl)."""

load("//ci/rbe:pools.bzl", "DEVICE_POOLS")

def device_exec_properties(devices):
    """Properties for a target that can run on `devices` (device types).

    A target tied to one accelerator (e.g. an inductor_cudagraphs model: cuda only) always asks for that
    pool. A target that runs on whatever device the build selects asks for the pool of the selected one:
    --config=cuda / --config=npu set --define=parity_device=<device> (.bazelrc); cpu is the default.
    """
    for device in devices:
        if device not in DEVICE_POOLS:
            fail("device %r has no worker pool: add it to ci/rbe/pools.bzl" % device)
    accelerators = [d for d in devices if d != "cpu"]
    if len(devices) == 1:
        return DEVICE_POOLS[devices[0]]
    branches = {"//ci/rbe:device_" + d: DEVICE_POOLS[d] for d in accelerators}
    if "cpu" in devices:
        branches["//conditions:default"] = DEVICE_POOLS["cpu"]
    else:
        branches["//conditions:default"] = DEVICE_POOLS[accelerators[0]]
    return select(branches)
