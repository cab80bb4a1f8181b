"""pytest wiring for flex_attention's tests (plain pytest and Bazel alike).

- `@pytest.mark.own_process`: the test runs in a process of its own, which starts with nothing
  renamed or registered (see own_process.py). Every test that renames PrivateUse1 carries it;
  the collecting process never runs those bodies.
- `npu` fixture: initialises the `npu` device inside that process.
- `@pytest.mark.run_last`: runs after every other test of the session (the parent's final check).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from flex_attention.own_process import (
    CHILD_ENV,
    MARKER,
    RECORD_ENV,
    ChildRecorder,
    ChildRun,
    OwnProcessRunner,
    apply_outcome,
    is_child_for,
    skipped_before_running,
)

_RUNNER = pytest.StashKey[OwnProcessRunner]()
_RECORDER = pytest.StashKey[ChildRecorder]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(start=None): runs in a process of its own (every test that renames "
        "PrivateUse1); start='spawn' asks for a new interpreter rather than a fork",
    )
    config.addinivalue_line("markers", "run_last: runs after every other test of the session")
    nodeid = os.environ.get(CHILD_ENV)
    if nodeid is None:
        config.stash[_RUNNER] = OwnProcessRunner(config)
    elif RECORD_ENV in os.environ:
        config.stash[_RECORDER] = ChildRecorder(nodeid, os.environ[RECORD_ENV])


def pytest_unconfigure(config: pytest.Config) -> None:
    if _RUNNER in config.stash:
        config.stash[_RUNNER].close()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("run_last") is not None)  # stable


def pytest_collection_finish(session: pytest.Session) -> None:
    if _RUNNER not in session.config.stash or session.config.option.collectonly:
        return
    for item in session.items:
        if item.get_closest_marker(MARKER) is not None and not skipped_before_running(item):
            session.config.stash[_RUNNER].start(item)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if is_child_for(item.nodeid) and _RECORDER in item.config.stash:
        item.config.stash[_RECORDER].test_starting()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    if is_child_for(item.nodeid) and _RECORDER in item.config.stash:
        item.config.stash[_RECORDER].add(outcome.get_result())


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if pyfuncitem.get_closest_marker(MARKER) is None or is_child_for(pyfuncitem.nodeid):
        return None  # an ordinary test, or the child: run the body here
    apply_outcome(pyfuncitem.config.stash[_RUNNER].result(pyfuncitem))
    return True  # the body ran in the child


@pytest.fixture
def npu(request: pytest.FixtureRequest) -> Any:
    """The `npu` device (simulated unless torch_npu is installed), set up in this test's process."""
    if request.node.get_closest_marker(MARKER) is None:
        raise pytest.UsageError(f"{request.node.nodeid} uses `npu` but is not marked {MARKER}")
    if not is_child_for(request.node.nodeid):
        return None  # the collecting process: the body runs in a child, never here
    from flex_attention.simulated_npu import init_npu_device

    return init_npu_device()


@pytest.fixture
def own_process_runs(request: pytest.FixtureRequest) -> dict[str, ChildRun]:
    """The children this session's parent process has waited for, by node id."""
    return request.config.stash[_RUNNER].runs

