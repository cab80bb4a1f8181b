"""`opinfo_group_tests`: the Bazel targets of the OpInfo suite, one per op group x device (opinfo/groups.bzl).

  //opinfo:group_<name>_<device>        every sample of every fp32 case of the group (nightly on CPU;
                                        needs the device elsewhere); sharded on CPU
  //opinfo:group_<name>_cpu_smoke       the first sample of each case, for presubmit (groups marked
                                        `presubmit` in groups.bzl)
Each target depends on the compiler/lowering/<family> library its group exercises, so a change to that
family reruns exactly the groups that use it.
"""

load("//compiler/lowering:defs.bzl", "family_label")
load("//opinfo:groups.bzl", "DEVICES", "GROUPS")
load("//tools/build_defs:tags.bzl", "NIGHTLY", "REQUIRES_TAGS", "SMOKE")

# A full CPU group runs thousands of static-shape compiles on 2 cores: split it over shards.
CPU_SHARDS = 4

def _group_test(name, group, device, extra_args, tags, **kwargs):
    native.py_test(
        name = name,
        srcs = ["run.py"],
        main = "run.py",
        args = ["--device", device, "--group", group["name"]] + extra_args,
        deps = [":runner", family_label(group["family"])],
        tags = tags,
        **kwargs
    )

def opinfo_group_tests():
    for group in GROUPS:
        for device in DEVICES:
            if device not in ["cpu"] + REQUIRES_TAGS.keys():
                fail("opinfo/groups.bzl DEVICES names %r, which has no requires-* tag in tools/build_defs/tags.bzl" % device)
            requires = [REQUIRES_TAGS[device]] if device in REQUIRES_TAGS else []
            _group_test(
                name = "group_%s_%s" % (group["name"], device),
                group = group,
                device = device,
                extra_args = [],
                tags = requires + ([NIGHTLY] if device == "cpu" else []),
                size = "enormous",
                shard_count = CPU_SHARDS if device == "cpu" else 1,
            )
        if group["presubmit"]:
            _group_test(
                name = "group_%s_cpu_smoke" % group["name"],
                group = group,
                device = "cpu",
                extra_args = ["--max-samples", "1"],
                tags = [SMOKE],
                size = "large",
            )
