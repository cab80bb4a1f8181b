"""`venv_pypi`: our offline stand-in for rules_python's pip repositories.

The virtual environment is built from `requirements.lock` by tools/bootstrap.sh at a fixed absolute
path (the interpreter path is part of every py_test cache key, so developers and CI must share it).
This rule checks the venv against the lock and exposes:
  @pypi//:runtime_toolchain   the venv's interpreter as the Python toolchain
  @pypi//<package>            one py_library per lock line, depending on its requirements
  @pypi//:protoc              protoc from grpcio-tools (version-matched to the protobuf runtime)
  @pypi//:rbe_platform        the execution platform of --config=rbe (ci/rbe/README.md)
"""

# Runs inside the venv: prints {dist: {version, requires}} for every installed distribution.
_LIST_DISTRIBUTIONS = """
import json, re, importlib.metadata as md
def norm(name):
    return re.sub(r"[-_.]+", "_", name).lower()
dists = {}
for dist in md.distributions():
    requires = set()
    for req in dist.requires or []:
        if "extra ==" not in req:
            requires.add(norm(re.split(r"[ ;<>=!~\\[(]", req.strip(), 1)[0]))
    dists[norm(dist.metadata["Name"])] = {"version": dist.version, "requires": sorted(requires)}
print(json.dumps(dists))
"""

_ROOT_BUILD = """
load("@bazel_tools//tools/python:toolchain.bzl", "py_runtime_pair")

py_runtime(
    name = "runtime",
    interpreter_path = "{python}",
    python_version = "PY3",
    # The default stub shebang needs `python` on PATH, which strict action env does not have.
    stub_shebang = "#!{python}",
)

py_runtime_pair(name = "runtime_pair", py3_runtime = ":runtime")

toolchain(
    name = "runtime_toolchain",
    toolchain = ":runtime_pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)

sh_binary(
    name = "protoc",
    srcs = ["protoc.sh"],
    data = ["//grpcio_tools", "//protobuf"],
    visibility = ["//visibility:public"],
)
"""

# Remote execution: a worker must have this interpreter path and these pins (the venv's files are in no
# action key), so both are platform properties that workers advertise and the farm matches.
_RBE_PLATFORM = """
platform(
    name = "rbe_platform",
    constraint_values = ["@platforms//os:linux", "@platforms//cpu:x86_64"],
    exec_properties = {{"OSFamily": "linux", "pyvenv": "{venv}", "pylock": "{lock_sha}"}},
    visibility = ["//visibility:public"],
)
"""

_PACKAGE_BUILD = """
py_library(
    name = "{name}",
    data = ["pin.txt"],
    deps = {deps},
    visibility = ["//visibility:public"],
)
"""

def _normalize(name):
    return name.lower().replace("-", "_").replace(".", "_")

def _parse_lock(text):
    pins = {}
    for raw in text.splitlines():
        line = raw.split("#")[0].strip()
        if not line or line.startswith("-"):
            continue
        if "==" not in line:
            fail("requirements.lock: every line must be name==version, got: " + raw)
        name, version = line.split("==", 1)
        pins[_normalize(name.split("[")[0].strip())] = version.strip()
    return pins

def _venv_pypi_impl(rctx):
    venv = rctx.os.environ.get("PARITY_VENV", rctx.attr.venv)
    python = venv + "/bin/python"
    # PARITY_LOCK (set by --config=npu) names another lock of the main repository, e.g. requirements-npu.lock.
    lock = Label("@//:" + rctx.os.environ["PARITY_LOCK"]) if rctx.os.environ.get("PARITY_LOCK") else rctx.attr.lock
    pins = _parse_lock(rctx.read(lock))
    listed = rctx.execute([python, "-c", _LIST_DISTRIBUTIONS], quiet = True)
    if listed.return_code != 0:
        fail("cannot run %s: create the venv with tools/bootstrap.sh first.\n%s" % (python, listed.stderr))
    dists = json.decode(listed.stdout)
    mismatches = []
    for name, version in pins.items():
        have = dists.get(name, {}).get("version")
        if have != version:
            mismatches.append("%s: lock %s, venv %s" % (name, version, have))
    if mismatches:
        fail("venv %s does not match requirements.lock; rerun tools/bootstrap.sh:\n  %s" % (venv, "\n  ".join(mismatches)))
    for required in ["grpcio_tools", "protobuf"]:
        if required not in pins:
            fail("requirements.lock must pin %s (protoc comes from it)" % required)

    rctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % rctx.name)
    lock_sha = rctx.execute(["sha256sum", str(rctx.path(lock))]).stdout.split(" ")[0][:16]
    rctx.file("BUILD", _ROOT_BUILD.format(python = python) + _RBE_PLATFORM.format(venv = venv, lock_sha = lock_sha))
    rctx.file("protoc.sh", "#!/bin/sh\nexec %s -m grpc_tools.protoc \"$@\"\n" % python, executable = True)
    for name, version in pins.items():
        deps = ["//%s" % dep for dep in dists[name]["requires"] if dep in pins and dep != name]
        rctx.file(name + "/pin.txt", "%s==%s\n" % (name, version))
        rctx.file(name + "/BUILD", _PACKAGE_BUILD.format(name = name, deps = repr(deps)))

venv_pypi = repository_rule(
    implementation = _venv_pypi_impl,
    attrs = {
        "venv": attr.string(mandatory = True, doc = "absolute path of the venv built from the lock"),
        "lock": attr.label(mandatory = True, allow_single_file = True),
    },
    environ = ["PARITY_VENV", "PARITY_LOCK"],
)
