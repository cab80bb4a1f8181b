"""Upstream's two runs of one model, with the flags of the HUD dashboard's CUDA-graphs configuration, read back
through the store's importer of community CSVs.

The dashboard (pytorch's .ci/pytorch/test.sh, test_perf_for_dashboard; shared/reference/community-harness.md 1.5)
runs each suite twice per mode, and its whole-suite parent starts one process per model with `--only NAME`:
  accuracy     --accuracy --no-translation-validation   at upstream's accuracy batch size, which the script picks
                                                        itself (HuggingFace 1, TorchBench 4, TIMM 8)
  performance  --performance --cold-start-latency       at the suite's batch size, with an empty compile cache
both with --inference --bfloat16 or --training --amp, --backend inductor (CUDA graphs on: no --disable-cudagraphs)
and --device, writing <prefix>_<suite>_<dtype>_<mode>_<device>_<target>.csv with the prefix
inductor_with_cudagraphs. --dashboard is not among its flags. Each run here gets an empty compile cache of its own in
TORCHINDUCTOR_CACHE_DIR (--cold-start-latency makes a fresh one only where that is unset: an empty one is the same
cold start), and the hub is offline.
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from parity.v1 import results_pb2 as pb
from suites.common.process_group import Finished
from tools.crosscheck.checkout import SUITES, UpstreamCheckout
from tools.crosscheck.children import log_tail, run_child
from tools.store.hud_interop import InteropError, import_community_csvs

TARGETS = ("accuracy", "performance")
PREFIX = "inductor_with_cudagraphs"
DTYPE = {"inference": "bfloat16", "training": "amp"}
TARGET_FLAGS = {"accuracy": ("--accuracy", "--no-translation-validation"),
                "performance": ("--performance", "--cold-start-latency")}
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
SHIM = Path(__file__).absolute().with_name("upstream_shim.py")
_PREFLIGHT_LIMIT_S = 300.0


@dataclass(frozen=True)
class UpstreamPlan:
    """What every model's upstream runs share."""
    checkout: UpstreamCheckout
    mode: str
    device: str
    timeout_s: float
    offline_table: Path
    torchbench_dir: Path | None = None
    extra_args: tuple[str, ...] = ()  # appended to both runs' flags (--upstream-arg)


@dataclass(frozen=True)
class UpstreamRun:
    target: str
    command: list[str]
    outcome: Finished
    csv: Path
    wrote_row: bool
    problem: str = ""  # why the run gave no figures, when it gave none


@dataclass
class UpstreamModel:
    model: str
    runs: list[UpstreamRun]
    result: pb.ModelResult  # the importer's reading of both rows; a run without a row gets a classified status
    problems: list[str] = field(default_factory=list)

    @property
    def wall_s(self) -> float:
        return sum(run.outcome.wall_s for run in self.runs)


def csv_path(folder: Path, plan: UpstreamPlan, target: str) -> Path:
    origin = SUITES[plan.checkout.suite].origin
    return folder / f"{PREFIX}_{origin}_{DTYPE[plan.mode]}_{plan.mode}_{plan.device}_{target}.csv"


def flags(plan: UpstreamPlan, model: str, target: str, csv: Path) -> list[str]:
    """The suite script's flags for one run: the dashboard's, for one model."""
    return [*TARGET_FLAGS[target], f"--{plan.mode}", f"--{DTYPE[plan.mode]}", "--backend", "inductor",
            "--device", plan.device, "--only", model, "--output", str(csv), *plan.extra_args]


def _through_shim(plan: UpstreamPlan, *script_args: str) -> list[str]:
    return [sys.executable, str(SHIM), "--suite", plan.checkout.suite, "--offline", str(plan.offline_table), "--",
            str(plan.checkout.script), *script_args]


def command(plan: UpstreamPlan, model: str, target: str, csv: Path) -> list[str]:
    return _through_shim(plan, *flags(plan, model, target, csv))


def preflight(plan: UpstreamPlan, folder: Path) -> str:
    """Whether upstream's script starts here at all (its imports: common.py, the suite's libraries, its lists), by
    asking it for --help; "" when it does, else what went wrong. Seconds, not a model's minutes."""
    argv, limit_s = _through_shim(plan, "--help"), min(plan.timeout_s, _PREFLIGHT_LIMIT_S)
    name = plan.checkout.script.name
    with tempfile.TemporaryDirectory(prefix="crosscheck-upstream-preflight-") as work:
        outcome = run_child(argv, cwd=_working_dir(Path(work), plan), env=_environment(Path(work) / "cache"),
                            log=folder / "preflight.log", timeout_s=limit_s)
    if outcome.returncode == 0:
        return ""
    return (f"upstream's {name} does not start here: `{name} --help` {outcome.describe(limit_s)}; its log: "
            f"{outcome.log}\n{log_tail(outcome.log)}")


def run_model(plan: UpstreamPlan, model: str, folder: Path) -> UpstreamModel:
    """Upstream's accuracy run, then its performance run, one after the other; their rows read back."""
    folder.mkdir(parents=True, exist_ok=True)
    runs = [_run_target(plan, model, target, folder) for target in TARGETS]
    return _read_back(plan, model, runs)


def _run_target(plan: UpstreamPlan, model: str, target: str, folder: Path) -> UpstreamRun:
    csv = csv_path(folder, plan, target)
    for stale in (csv, csv.with_suffix(".json")):  # upstream appends to an existing file
        stale.unlink(missing_ok=True)
    argv = command(plan, model, target, csv)
    with tempfile.TemporaryDirectory(prefix=f"crosscheck-upstream-{target}-") as work:
        outcome = run_child(argv, cwd=_working_dir(Path(work), plan), env=_environment(Path(work) / "cache"),
                            log=folder / f"{target}.log", timeout_s=plan.timeout_s)
    wrote_row, problem = _row_written(csv, model)
    if not wrote_row:
        problem = (f"upstream's {target} run {outcome.describe(plan.timeout_s)}{problem}; its log: {outcome.log}\n"
                   f"{log_tail(outcome.log)}")
    return UpstreamRun(target, argv, outcome, csv, wrote_row, problem)


def _working_dir(work: Path, plan: UpstreamPlan) -> Path:
    """The child's folder. torchbench.py looks for a TorchBench checkout beside the folder it starts in
    (../torchbench among its guesses) and imports it from there, so the checkout is linked in that place."""
    cwd = work / "cwd"
    cwd.mkdir()
    if plan.torchbench_dir is not None:
        (work / "torchbench").symlink_to(plan.torchbench_dir.resolve(), target_is_directory=True)
    return cwd


def _environment(cache: Path) -> dict[str, str]:
    env = dict(os.environ)  # the caller's PYTHONPATH (e.g. carried wheels) included
    env.update(OFFLINE_ENV)
    env.update(TORCHINDUCTOR_CACHE_DIR=str(cache), TRITON_CACHE_DIR=str(cache / "triton"), PYTHONUNBUFFERED="1")
    return env


def _row_written(csv: Path, model: str) -> tuple[bool, str]:
    """Whether the CSV holds the model's row; else what was wrong with it (as a clause)."""
    if not csv.is_file():
        return False, " and wrote no CSV"
    try:
        found = import_community_csvs([csv], "crosscheck", "")
    except InteropError as exc:
        return False, f" and its CSV is unreadable ({exc})"
    if any(result.config.model == model for result in found):
        return True, ""
    return False, f" and wrote no row for {model} in {csv.name}"


def _read_back(plan: UpstreamPlan, model: str, runs: list[UpstreamRun]) -> UpstreamModel:
    written = [run.csv for run in runs if run.wrote_row]
    found = [r for r in import_community_csvs(written, "crosscheck", "") if r.config.model == model] if written else []
    result = found[0] if found else _placeholder(plan, model)
    problems = [run.problem for run in runs if run.problem]
    accuracy = runs[0]
    if not accuracy.wrote_row:
        # Without the accuracy row the importer would derive a status from the speedup: say what happened instead.
        result.community_status = no_row_status(accuracy.outcome)
        result.config.performance_only = False
    return UpstreamModel(model, runs, result, problems)


def no_row_status(outcome: Finished) -> str:
    """A run that wrote no row, as its status: upstream's whole-suite parent writes `timeout` for a child it killed
    at its timeout and nothing for one that crashed, which Parity calls `crash`."""
    if outcome.timed_out:
        return "timeout"
    if outcome.returncode != 0:
        return "crash"
    return "no_row"


def _placeholder(plan: UpstreamPlan, model: str) -> pb.ModelResult:
    result = pb.ModelResult(run_id="crosscheck")
    result.config.suite, result.config.model, result.config.device = plan.checkout.suite, model, plan.device
    result.config.mode = pb.MODE_TRAINING if plan.mode == "training" else pb.MODE_INFERENCE
    return result
