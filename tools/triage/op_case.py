"""An OpInfo case as a triage target: `python -m tools.triage opinfo-cuda-<op>-<dtype>.opinfo.pb`.

A case is one op already, so its triage differs from a model's only in how it runs again: `python -m opinfo.run` for
its op and dtype alone, in a fresh process, over the samples it ran (`--max-samples`: its sample count) with gradients
as it checked them. Its result is read as a model's (`tools.store.failures.opinfo_as_model_result`): values or
gradients that differ are `fail_accuracy`, compiled code that raised is `fail_to_run`. The bisector, the minifier and
the repro's check then work as for a model; the minifier's process and the repro run under the suite's
high-precision mode (settled.py).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from opinfo.results import read_result
from parity.v1 import opinfo_pb2
from proto.result_files import OPINFO_SUFFIX, text_form
from tools.store.failures import OPINFO_SUITE, opinfo_case_name, opinfo_model

# A case's samples compile one by one; the whole first-sample suite (672 cases) took 122 s on the H200.
CASE_TIMEOUT_S = 600.0
RESULT_SUFFIXES = (OPINFO_SUFFIX, text_form(OPINFO_SUFFIX))


@dataclass(frozen=True)
class OpCaseRequest:
    """The case's run again: its op (OpInfo's full name) and dtype, on its device, over its samples."""

    op: str
    dtype: str
    device: str
    max_samples: int
    gradients: bool
    suite: str = OPINFO_SUITE
    backend: str = "inductor"  # the suite compiles with Inductor alone
    plan: str = "accuracy"     # each sample compiled, run and compared with eager; nothing is timed

    @property
    def model(self) -> str:
        return opinfo_model(self.op, self.dtype)

    def argv(self, out: Path) -> list[str]:
        return [sys.executable, "-m", "opinfo.run", "--device", self.device, "--ops", self.op, "--dtypes", self.dtype,
                "--max-samples", str(self.max_samples), "--gradients", "on" if self.gradients else "off",
                "--run-id", "triage", "--out", str(out)]


def is_case_file(path: Path) -> bool:
    return path.name.endswith(RESULT_SUFFIXES)


def read_case(path: Path) -> tuple[opinfo_pb2.OpInfoResult, OpCaseRequest]:
    """The case at `path` (the OpInfo suite's own reader: its checks, its messages) and its run again."""
    case = read_result(path)
    gradients = bool(case.samples.gradient_checked or case.samples.gradient_eager_rejected or
                     case.failure.message.startswith("in the backward"))
    return case, OpCaseRequest(op=opinfo_case_name(case), dtype=case.dtype, device=case.device,
                               max_samples=max(1, case.samples.total), gradients=gradients)
