"""Starlark side of the op families: model targets depend on the family libraries their op sets use."""

load("//compiler/lowering:families.bzl", "FAMILIES")

def family_label(family):
    return "//compiler/lowering/" + family

ALL_FAMILY_LABELS = [family_label(family) for family in FAMILIES]

def family_deps(opsets, manifest):
    """{model: [family library labels]} for every model of `manifest` (a suite's MANIFEST).

    opsets: the suite's OPSETS (suites/<suite>/opsets.bzl, written by tools/opsets). A model without a
    stored op set depends on every family: an unknown op set must never rerun too little.
    """
    deps = {}
    for model in manifest["models"]:
        entry = opsets["models"].get(model)
        deps[model] = [family_label(f) for f in entry["families"]] if entry else ALL_FAMILY_LABELS
    return deps
