"""The own-process machinery (own_process.py, conftest.py), and the final check on the parent.

- How a child's record becomes the parent's outcome: failures, skips and empty runs are not
  mistaken for passes.
- A test using the `npu` fixture renames PrivateUse1 in its own process only.
- Last of the session: this (collecting) process never renamed PrivateUse1 or enabled anything,
  and every own_process test ran in a distinct child that started with PrivateUse1 unrenamed.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

import pytest
import torch
import torch.nn.attention.flex_attention as api
from torch._higher_order_ops.flex_attention import flex_attention, flex_attention_backward

from flex_attention.autocast_kernels import AUTOCAST_KEY
from flex_attention.device_check import is_privateuse1_validator
from flex_attention.own_process import (
    CHILD_ENV,
    MARKER,
    START_ENV,
    UNRENAMED,
    ChildRun,
    apply_outcome,
    skipped_before_running,
    start_method,
)

_NODE = "flex_attention/x_test.py::test_x"


def _run(*reports: tuple[str, str], returncode: int = 0, nodeid: str = _NODE) -> ChildRun:
    entries = [
        {"when": when, "outcome": outcome, "longrepr": f"{when} {outcome}", "reason": "why"}
        for when, outcome in reports
    ]
    record = {"nodeid": nodeid, "pid": 4242, "privateuse1_at_start": UNRENAMED, "reports": entries}
    return ChildRun(_NODE, returncode, "child output", record)


_PASSED = (("setup", "passed"), ("call", "passed"), ("teardown", "passed"))


def test_a_passing_child_passes() -> None:
    apply_outcome(_run(*_PASSED))


@pytest.mark.parametrize(
    "run",
    [
        _run(("setup", "passed"), ("call", "failed"), ("teardown", "passed"), returncode=1),
        _run(("setup", "failed"), ("teardown", "passed"), returncode=1),
        _run(*_PASSED[:2], ("teardown", "failed"), returncode=1),
        _run(returncode=5),  # collected nothing
        _run(*_PASSED, returncode=1),  # reports fine, exit code not
        _run(*_PASSED, returncode=None),  # killed after the timeout
        _run(*_PASSED, nodeid="flex_attention/x_test.py::test_other"),  # ran another test
        ChildRun(_NODE, -9, "killed", {}),  # crashed before writing a record
    ],
    ids=["call", "setup", "teardown", "nothing", "exit", "timeout", "other-test", "crash"],
)
def test_a_child_that_did_not_pass_fails_the_parent_test(run: ChildRun) -> None:
    with pytest.raises(pytest.fail.Exception) as info:
        apply_outcome(run)
    assert _NODE in str(info.value)


def test_a_skipped_child_skips_the_parent_test() -> None:
    with pytest.raises(pytest.skip.Exception, match="why"):
        apply_outcome(_run(("setup", "skipped"), ("teardown", "passed")))


def test_statically_skipped_tests_start_no_child(request: pytest.FixtureRequest) -> None:
    item = request.node
    assert not skipped_before_running(item)
    item.add_marker(pytest.mark.skipif("sys.platform == 'x'", reason="strings: child decides"))
    assert not skipped_before_running(item)
    item.add_marker(pytest.mark.skipif(False, reason="false"))
    assert not skipped_before_running(item)
    item.add_marker(pytest.mark.skipif(True, reason="true"))
    assert skipped_before_running(item)


def test_start_method_test_choice_then_environment_then_fork_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def item(**kwargs: str) -> SimpleNamespace:  # stands in for a marked pytest item
        mark = getattr(pytest.mark, MARKER)(**kwargs).mark
        return SimpleNamespace(nodeid=_NODE, get_closest_marker=lambda name: mark)

    monkeypatch.delenv(START_ENV, raising=False)
    assert start_method(item()) == "forkserver"  # Linux: the fork server is available
    assert start_method(item(start="spawn")) == "spawn"
    monkeypatch.setenv(START_ENV, "spawn")
    assert start_method(item()) == "spawn"
    monkeypatch.setenv(START_ENV, "forkserver")
    assert start_method(item(start="spawn")) == "spawn"
    with pytest.raises(pytest.UsageError, match="unknown start method"):
        start_method(item(start="fork"))


@pytest.mark.own_process
@pytest.mark.usefixtures("npu")
def test_npu_fixture_renames_only_the_child(request: pytest.FixtureRequest) -> None:
    assert os.environ[CHILD_ENV] == request.node.nodeid
    assert torch._C._get_privateuse1_backend_name() == "npu"
    assert is_privateuse1_validator(api._validate_device)


@pytest.mark.run_last
def test_this_process_never_renamed_privateuse1(
    request: pytest.FixtureRequest, own_process_runs: dict[str, ChildRun]
) -> None:
    assert torch._C._get_privateuse1_backend_name() == UNRENAMED
    if "torch_npu" not in sys.modules:
        assert not hasattr(torch, "npu"), "torch.npu exists: the npu device was set up here"
        assert not is_privateuse1_validator(api._validate_device)
        assert not flex_attention.has_kernel_for_dispatch_key(AUTOCAST_KEY)
        assert not flex_attention_backward.has_kernel_for_dispatch_key(AUTOCAST_KEY)

    expected = {
        item.nodeid
        for item in request.session.items
        if item.get_closest_marker(MARKER) is not None and not skipped_before_running(item)
    }
    assert set(own_process_runs) == expected, "an own_process test did not run in a child"
    pids = [run.pid for run in own_process_runs.values()]
    assert os.getpid() not in pids
    assert len(set(pids)) == len(pids), "two tests shared a child process"
    for nodeid, run in own_process_runs.items():
        assert run.record["nodeid"] == nodeid
        assert run.privateuse1_at_start == UNRENAMED, f"{nodeid} started in a renamed process"
