"""The closed tag vocabulary of Parity targets. suite_tests.bzl fails on any tag not listed here."""

# Bazel's own tags that we use.
BAZEL_TAGS = ["manual", "exclusive", "external"]

# What a target needs to run: CI filters on these (--test_tag_filters), never on hand-kept lists.
REQUIRES_TAGS = {
    "cuda": "requires-cuda",
    "npu": "requires-npu",
}

# Runs on CPU with the scaled-down smoke variant (seconds each); every CPU-capable model target has it.
SMOKE = "smoke"

# Presubmit skips these (nightly runs everything): e.g. eager-vs-eager model targets.
NIGHTLY = "nightly"

# Tests that start a real PostgreSQL server: it refuses to run as root, and the sandbox's user namespace
# maps no other account to switch to, so these run unsandboxed (Bazel's own execution tag).
NO_SANDBOX = "no-sandbox"

# Why a generated target is `manual` (it stays in the graph so `bazel query` sees the whole matrix).
DISABLED_REASON_TAGS = {
    "mode": "disabled-mode-not-in-manifest",
    "backend": "disabled-backend-mode-unsupported",
}

MODE_TAGS = ["training", "inference"]

def suite_tag(suite):
    return "suite-" + suite

def backend_tag(backend):
    return "backend-" + backend

def check_tags(tags, known_backends, known_suites):
    """fail()s on a tag outside the vocabulary, naming the file to extend."""
    allowed = BAZEL_TAGS + REQUIRES_TAGS.values() + [SMOKE, NIGHTLY, NO_SANDBOX] + DISABLED_REASON_TAGS.values() + MODE_TAGS
    allowed += [backend_tag(b) for b in known_backends] + [suite_tag(s) for s in known_suites]
    for tag in tags:
        if tag not in allowed:
            fail("unknown tag %r: add it to tools/build_defs/tags.bzl (the one tag vocabulary) first" % tag)
