"""Plain-pytest set-up: generate the protobuf modules that Bazel would generate with its genrule."""

import os
import warnings

if "TEST_SRCDIR" not in os.environ:  # under Bazel the genrule output is already on sys.path
    from proto.codegen import ensure_generated

    try:
        ensure_generated()
    except RuntimeError as exc:
        # Tests that do not read results (e.g. flex_attention on a GPU machine) still run; the others
        # fail on `import parity.v1...` with this warning above them.
        warnings.warn(f"parity.v1 protobuf modules unavailable: {exc}", stacklevel=1)
