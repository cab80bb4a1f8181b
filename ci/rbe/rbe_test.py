"""ci/rbe: every device has a worker pool, and generated model targets carry that pool's properties."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from compiler.devices.registry import known_devices
from compiler.starlark_data import load_bzl_literals

REPO = Path(__file__).resolve().parent.parent.parent
POOLS = load_bzl_literals(REPO / "ci/rbe/pools.bzl")["DEVICE_POOLS"]
BACKENDS = load_bzl_literals(REPO / "compiler/backend_table.bzl")["BACKENDS"]


def test_every_device_of_the_registry_and_backend_table_has_a_pool() -> None:
    devices = set(known_devices()) | {d for spec in BACKENDS.values() for d in spec["devices"]}
    assert devices <= set(POOLS), f"no worker pool for {sorted(devices - set(POOLS))}: add them to ci/rbe/pools.bzl"


def test_pools_are_string_properties_and_accelerators_are_distinct() -> None:
    for device, properties in POOLS.items():
        assert all(isinstance(k, str) and isinstance(v, str) and k and v for k, v in properties.items()), device
    assert POOLS["cpu"] == {}  # any worker takes CPU work
    accelerator_pools = [tuple(sorted(p.items())) for d, p in POOLS.items() if d != "cpu"]
    assert all(accelerator_pools) and len(set(accelerator_pools)) == len(accelerator_pools)


def _skip_reason() -> str | None:
    if "TEST_SRCDIR" in os.environ:
        return "runs bazel cquery, and Bazel cannot run inside a Bazel test: covered by plain pytest"
    if shutil.which("bazel") is None:
        return "bazel is not on PATH (tools/bootstrap.sh installs it)"
    return None


def query_exec_properties(target: str) -> str:
    """The attribute as written by the macro (`bazel query` shows a select() unresolved, so the check
    needs no configuration change of the shared Bazel server)."""
    done = subprocess.run(["bazel", "query", target, "--output=build"], cwd=REPO, capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip().startswith("exec_properties")]
    return lines[0] if lines else "exec_properties = {},"


def literal(properties: dict[str, str]) -> str:
    return "{" + ", ".join(f'"{k}": "{v}"' for k, v in properties.items()) + "}"


def test_device_configs_define_the_device_the_select_reads() -> None:
    rc = (REPO / ".bazelrc").read_text().splitlines()
    build = (REPO / "ci/rbe/BUILD").read_text()
    for device in ("cuda", "npu"):
        assert f"build:{device} --define=parity_device={device}" in rc
        assert f'define_values = {{"parity_device": "{device}"}}' in build


@pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))
def test_model_targets_carry_the_pool_of_their_device() -> None:
    cuda_only = next(name for name, spec in BACKENDS.items() if spec["devices"] == ["cuda"])
    model = "//suites/timm:repvgg_a2_inference_bf16_"
    assert query_exec_properties(model + cuda_only) == f"exec_properties = {literal(POOLS['cuda'])},"
    everywhere = next(name for name, spec in BACKENDS.items() if spec["devices"] == ["cpu", "cuda", "npu"])
    assert query_exec_properties(model + everywhere) == (
        f'exec_properties = select({{"//ci/rbe:device_cuda": {literal(POOLS["cuda"])}, '
        f'"//ci/rbe:device_npu": {literal(POOLS["npu"])}, "//conditions:default": {{}}}}),')
