"""`pytest_test`: one pytest file set as a Bazel test, so each test body runs under both runners."""

def pytest_test(name, srcs, deps = [], data = [], args = [], **kwargs):
    """A py_test whose main runs pytest over `srcs` (honours sharding and XML_OUTPUT_FILE)."""
    native.py_test(
        name = name,
        srcs = srcs + ["//tools/pytest:pytest_main.py"],
        main = "//tools/pytest:pytest_main.py",
        args = ["$(location %s)" % src for src in srcs] + args,
        data = data + ["//:pytest.ini"],
        deps = deps + ["@pypi//pytest"],
        **kwargs
    )
