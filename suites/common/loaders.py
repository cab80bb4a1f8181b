"""The one place that finds a suite's model loader by name: common code and tools reach suites only through here,
as device code is reached through the device registry (ci/layering_test.py holds everyone else to it)."""

from __future__ import annotations

import importlib
from types import ModuleType


def module_name(suite: str) -> str:
    return f"suites.{suite}.loader"


def loader_module(suite: str) -> ModuleType:
    """suites/<suite>/loader.py, which builds the suite's models (build, and build_generation where it has LLMs)."""
    return importlib.import_module(module_name(suite))
