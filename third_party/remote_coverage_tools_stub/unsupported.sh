#!/bin/sh
echo "bazel coverage is not supported offline: run pytest-cov outside Bazel instead" >&2
exit 1
