"""Plain-pytest set-up: generate the protobuf modules that Bazel would generate with its genrule."""

import os

if "TEST_SRCDIR" not in os.environ:  # under Bazel the genrule output is already on sys.path
    from proto.codegen import ensure_generated

    ensure_generated()
