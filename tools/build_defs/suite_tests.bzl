"""`suite_model_tests`: one py_test per model x mode x backend of a suite manifest.

Target names: <model>_<mode>_<dtype>_<backend> in lower snake case (dtype: amp for training, bf16 for
inference), e.g. //suites/timm:repvgg_a2_inference_bf16_inductor. Every combination is generated;
those the manifest or backend table disallow are `manual` with a reason tag.
"""

load("//ci/rbe:defs.bzl", "device_exec_properties")
load("//compiler:backend_table.bzl", "BACKENDS")
load("//compiler/lowering:defs.bzl", "ALL_FAMILY_LABELS")
load("//tools/build_defs:tags.bzl", "DISABLED_REASON_TAGS", "NIGHTLY", "REQUIRES_TAGS", "SMOKE", "backend_tag", "check_tags", "suite_tag")

DTYPE_OF_MODE = {"training": "amp", "inference": "bf16"}

# Eager fits medium's 300 s; compiling backends need Inductor/AOTAutograd time even for smoke variants: aot_eager's
# AMP training of inception_v3 ran past 270 s and was killed under 4 parallel tests on 2 cores (CI, 2026-12-06).
_SIZE = {"eager": "medium"}

def target_name(model, mode, backend):
    return ("%s_%s_%s_%s" % (model, mode, DTYPE_OF_MODE[mode], backend)).replace(".", "_").replace("-", "_").lower()

def suite_model_tests(manifest, loader, family_deps = None):
    """Generates the model targets of `manifest` (a MANIFEST dict loaded from the suite's manifest.bzl).

    loader: the suite's py_library that builds models (suites/<suite>/loader.py).
    family_deps: {model: [labels]} the op-family lowering libraries each model uses
        (compiler/lowering/defs.bzl family_deps); None: every model depends on every family.
    """
    suite = manifest["suite"]
    if "suites/" + suite != native.package_name():
        fail("%s/manifest.bzl declares suite %r; it must be the folder's name" % (native.package_name(), suite))
    for model in sorted(manifest["models"]):
        entry = manifest["models"][model]
        _check_entry("%s/manifest.bzl: model %r" % (native.package_name(), model), entry)
        for mode in DTYPE_OF_MODE:
            for backend in sorted(BACKENDS):
                spec = BACKENDS[backend]
                tags = [suite_tag(suite), mode, backend_tag(backend)]
                if mode not in entry["modes"]:
                    tags += ["manual", DISABLED_REASON_TAGS["mode"]]
                elif mode not in spec["modes"]:
                    tags += ["manual", DISABLED_REASON_TAGS["backend"]]
                # An Inductor compile costs 20-100 s on 2 CPU cores even for a smoke variant, so presubmit
                # compiles only the models and modes the manifest picks (one per op family; training, which
                # compiles forward and backward, for few); nightly compiles all.
                compiles_kernels = spec["torch_backend"] == "inductor"
                in_presubmit = spec["presubmit"] and entry.get("presubmit", True)
                if not in_presubmit or (compiles_kernels and mode not in entry.get("presubmit_compile", [])):
                    tags.append(NIGHTLY)
                if "cpu" in spec["devices"]:
                    tags.append(SMOKE)
                else:
                    tags += [REQUIRES_TAGS[d] for d in spec["devices"] if d in REQUIRES_TAGS]
                check_tags(tags, BACKENDS.keys(), [suite])
                native.py_test(
                    name = target_name(model, mode, backend),
                    srcs = ["//suites/common:model_test_main.py"],
                    main = "//suites/common:model_test_main.py",
                    args = ["--suite=" + suite, "--model=" + model, "--mode=" + mode, "--backend=" + backend],
                    data = ["manifest.bzl"],
                    deps = [loader, "//suites/common:harness"] + (family_deps[model] if family_deps != None else ALL_FAMILY_LABELS),
                    size = _SIZE.get(backend, "large"),
                    tags = tags,
                    # Remote execution: the worker pool of the device (ci/rbe/pools.bzl).
                    exec_properties = device_exec_properties(spec["devices"]),
                )

# suites/common/manifest.py owns the manifest schema; manifest_test.py validates every suite's manifest with it and
# ci/test.sh runs that before Bazel. The macro re-checks only the fields it reads, so that it never accepts for them
# what Python refuses: an unknown mode would otherwise just give no target, a non-bool presubmit its truth value.
def _check_entry(where, entry):
    """fail()s on modes, presubmit or presubmit_compile values that suites/common/manifest.py refuses."""
    if type(entry) != "dict":
        fail("%s: entry must be a dict" % where)
    modes = entry.get("modes")
    if type(modes) != "dict" or not modes:
        fail("%s: modes must be a non-empty dict over %s" % (where, DTYPE_OF_MODE.keys()))
    for mode, spec in modes.items():
        if mode not in DTYPE_OF_MODE:
            fail("%s: unknown mode %r; modes are %s" % (where, mode, DTYPE_OF_MODE.keys()))
        batch_size = spec.get("batch_size") if type(spec) == "dict" else None
        if type(batch_size) != "int" or batch_size <= 0 or spec.keys() != ["batch_size"]:
            fail("%s: modes[%r] must be {\"batch_size\": a positive integer}, got %r" % (where, mode, spec))
    if type(entry.get("presubmit", True)) != "bool":
        fail("%s: presubmit must be True or False" % where)
    compiled = entry.get("presubmit_compile", [])
    if type(compiled) != "list" or [m for m in compiled if m not in modes]:
        fail("%s: presubmit_compile must list modes of this model (%s)" % (where, sorted(modes.keys())))
