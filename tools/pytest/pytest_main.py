"""Bazel entry point for `pytest_test`: runs pytest over the given files inside the test sandbox."""

import os
import sys

import pytest


class _ShardPlugin:
    """Keeps every N-th collected item when Bazel shards the target (TEST_TOTAL_SHARDS > 1)."""

    def __init__(self, index: int, total: int) -> None:
        self.index = index
        self.total = total

    def pytest_collection_modifyitems(self, config, items):  # noqa: ANN001 (pytest hook signature)
        items[:] = [item for i, item in enumerate(items) if i % self.total == self.index]


def main() -> int:
    args = ["-p", "no:cacheprovider", "-q", "-c", "pytest.ini", "--rootdir", "."]
    if "XML_OUTPUT_FILE" in os.environ:
        args.append("--junitxml=" + os.environ["XML_OUTPUT_FILE"])
    plugins = []
    total = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    if total > 1:
        plugins.append(_ShardPlugin(int(os.environ["TEST_SHARD_INDEX"]), total))
        open(os.environ["TEST_SHARD_STATUS_FILE"], "a").close()
    return int(pytest.main(args + sys.argv[1:], plugins=plugins))


if __name__ == "__main__":
    sys.exit(main())
