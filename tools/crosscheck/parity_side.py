"""Parity's own run of the same model: `python -m suites.run` as a child, in upstream's two-process layout.

--split-processes checks accuracy in one process at upstream's accuracy batch size and times in another at the
suite's batch size, each with its own empty compile cache, so both statuses and figures compare with upstream's
(README.md, "Methodology"). The merged result is read with the harness's reader.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from parity.v1 import results_pb2 as pb
from suites.common.process_group import Finished
from suites.common.result_io import ResultFileError, read_result, result_files
from tools.crosscheck.children import log_tail, run_child

# The folder that holds the `suites` package (not resolved: under Bazel it is the runfiles tree).
ROOT = Path(__file__).absolute().parent.parent.parent
_PART_STEMS = (".accuracy", ".performance")  # the split run's two halves, beside the merged result
# suites.run itself starts its model processes, each with its own timeout: the invocation gets both and some room.
_INVOCATION_ROOM_S = 180.0


@dataclass(frozen=True)
class ParityPlan:
    suite: str
    mode: str
    device: str
    backend: str
    timeout_s: float
    run_id: str
    torchbench_dir: Path | None = None
    extra_args: tuple[str, ...] = ()  # passed to suites.run as they are (--parity-arg)

    @property
    def invocation_timeout_s(self) -> float:
        return 2 * self.timeout_s + _INVOCATION_ROOM_S


@dataclass
class ParityModel:
    model: str
    command: list[str]
    outcome: Finished
    result: pb.ModelResult | None
    problems: list[str] = field(default_factory=list)

    @property
    def wall_s(self) -> float:
        return self.outcome.wall_s


def command(plan: ParityPlan, model: str, out: Path) -> list[str]:
    return [sys.executable, "-m", "suites.run", "--suite", plan.suite, "--model", model, "--mode", plan.mode,
            "--backend", plan.backend, "--device", plan.device, "--split-processes", "--timeout", f"{plan.timeout_s:g}",
            "--run-id", plan.run_id, "--out", str(out), *plan.extra_args]


def run_model(plan: ParityPlan, model: str, folder: Path) -> ParityModel:
    folder.mkdir(parents=True, exist_ok=True)
    for stale in [*folder.glob("*.pb"), *folder.glob("*.txtpb")]:  # an earlier cross-check's result (and plan)
        stale.unlink()                                                # must not stand in for a missing one
    argv = command(plan, model, folder)
    with tempfile.TemporaryDirectory(prefix="crosscheck-parity-") as cache:
        outcome = run_child(argv, cwd=ROOT, env=_environment(plan, Path(cache)), log=folder / "suites.run.log",
                            timeout_s=plan.invocation_timeout_s)
    result, problem = _merged_result(folder, model)
    problems = []
    if result is None:
        problems.append(f"Parity's suites.run {outcome.describe(plan.invocation_timeout_s)} {problem}; its log: "
                        f"{outcome.log}\n{log_tail(outcome.log)}")
    return ParityModel(model, argv, outcome, result, problems)


def _environment(plan: ParityPlan, cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    # The harness as this process imports it (under Bazel: the runfiles), first.
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *(p for p in sys.path if p)])
    # suites.run gives each model process an empty cache of its own; this one keeps the parent's imports cold too.
    env.update(TORCHINDUCTOR_CACHE_DIR=str(cache), TRITON_CACHE_DIR=str(cache / "triton"), PYTHONUNBUFFERED="1")
    if plan.torchbench_dir is not None:
        env["PARITY_TORCHBENCH_DIR"] = str(plan.torchbench_dir.resolve())
    return env


def _merged_result(folder: Path, model: str) -> tuple[pb.ModelResult | None, str]:
    """The run's merged result for the model (not its accuracy or performance half); else why there is none."""
    for path in result_files(folder):
        if path.stem.endswith(_PART_STEMS):
            continue
        try:
            result = read_result(path)
        except ResultFileError as exc:
            return None, f"and its result is unreadable ({exc})"
        if result.config.model == model:
            return result, ""
    return None, f"and wrote no result for {model} into {folder}"
