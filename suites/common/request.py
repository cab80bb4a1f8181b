"""One model run as asked for: the arguments shared by the launcher, the child and the test targets."""

from __future__ import annotations

import argparse
import hashlib
import json
from dataclasses import dataclass, fields

from parity.v1 import results_pb2 as pb
from suites.common.manifest import MODES, OPTIMIZERS, Manifest
from suites.common.sampling import DEFAULT_TARGET_REL_WIDTH, DEFAULT_TIME_CAP_S, SamplingPolicy

PRECISION_OF_MODE = {"training": pb.PRECISION_AMP, "inference": pb.PRECISION_BFLOAT16}
MODE_ENUMS = {"training": pb.MODE_TRAINING, "inference": pb.MODE_INFERENCE}
MODE_NAMES = {enum: name for name, enum in MODE_ENUMS.items()}
PLANS = ("both", "accuracy", "performance")


@dataclass(frozen=True)
class RunPlan:
    """How much of the experiment one process runs; the defaults are the community's."""

    check_accuracy: bool = True
    measure_performance: bool = True
    accuracy_iterations: int = 2
    warmup_iterations: int = 5
    repeats: int = 30
    timing_target: float = DEFAULT_TARGET_REL_WIDTH  # more rounds of `repeats` pairs until the interval is this narrow
    timing_cap_s: float = 0.0  # ... or the timing loop has run this long (0: the community's one round)
    inductor_overrides: tuple[tuple[str, object], ...] = ()  # over the manifest's options: a compiler variant
    optimizer: str = ""  # over the manifest's choice for the plan: a triage's rerun steps what its result stepped

    @property
    def sampling(self) -> SamplingPolicy:
        return SamplingPolicy(self.repeats, self.timing_target, self.timing_cap_s)


@dataclass(frozen=True)
class ModelRequest:
    suite: str
    model: str
    mode: str
    backend: str
    device: str
    smoke: bool = False
    batch_size: int = 0      # 0: the manifest's (perf batch size, or the smoke one)
    plan: str = "both"       # both | accuracy | performance
    repeats: int = 30
    warmup: int = 5
    run_id: str = ""
    timing_target: float = DEFAULT_TARGET_REL_WIDTH
    timing_cap_s: float = DEFAULT_TIME_CAP_S
    # Inductor options over the manifest's, as JSON (e.g. '{"pattern_matcher": false}'): a compiler variant, for an
    # A/B comparison. Part of the result's identity; the result records it (RunConfig.inductor_overrides).
    inductor_config: str = ""
    # The training step's optimizer, over the manifest's choice for the plan ("": that choice). A triage reruns an
    # accuracy check alone, which would otherwise step upstream's CI optimizer where the result stepped another.
    optimizer: str = ""

    def resolved_batch_size(self, manifest: Manifest) -> int:
        if self.batch_size:
            return self.batch_size
        entry = manifest.model(self.model)
        if self.smoke:
            return entry.smoke_batch_size
        if self.plan == "accuracy":  # upstream's accuracy batch size, used only when accuracy runs alone
            return entry.accuracy_batch_size_for(self.mode, manifest.accuracy_batch_size)
        return entry.batch_sizes[self.mode]

    def run_plan(self) -> RunPlan:
        return RunPlan(check_accuracy=self.plan in ("both", "accuracy"),
                       measure_performance=self.plan in ("both", "performance"),
                       warmup_iterations=self.warmup, repeats=self.repeats, timing_target=self.timing_target,
                       # A smoke variant's timing proves the path works, it is no benchmark: one round, no more.
                       timing_cap_s=0.0 if self.smoke else self.timing_cap_s,
                       inductor_overrides=tuple(self.inductor_overrides().items()), optimizer=self.optimizer)

    def inductor_overrides(self) -> dict[str, object]:
        """The Inductor options this request sets over the manifest's; a clear error for malformed JSON."""
        if not self.inductor_config:
            return {}
        try:
            found = json.loads(self.inductor_config)
        except json.JSONDecodeError as exc:
            raise ValueError(f"--inductor-config must be a JSON object, e.g. '{{\"pattern_matcher\": false}}': "
                             f"{exc}") from None
        if not isinstance(found, dict):
            raise ValueError(f"--inductor-config must be a JSON object of option: value, not {self.inductor_config!r}")
        return found

    def expected_status(self, manifest: Manifest) -> tuple[str, str]:
        """The manifest's expected (status, reason) for this request's run."""
        return manifest.model(self.model).expected_status(self.device, self.mode, self.backend, self.plan)

    def result_id(self) -> str:
        # How long it timed does not change what ran; a compiler variant does (and is left out when unset, so that
        # the ids of results from before the option existed stay as they were).
        untimed = ("repeats", "warmup", "timing_target", "timing_cap_s") + (() if self.inductor_config else
                                                                            ("inductor_config",)) + (
            () if self.optimizer else ("optimizer",))
        key = "|".join(str(getattr(self, f.name)) for f in fields(self) if f.name not in untimed)
        return hashlib.sha256(key.encode()).hexdigest()[:32]

    def file_stem(self) -> str:
        variant = "smoke" if self.smoke else "full"
        return f"{self.suite}.{self.model}.{self.mode}.{self.backend}.{self.device}.{variant}".replace("/", "_")

    def to_args(self) -> list[str]:
        args = [f"--{f.name.replace('_', '-')}={getattr(self, f.name)}" for f in fields(self) if f.name != "smoke"]
        return args + (["--smoke"] if self.smoke else [])

    def fill_config(self, result: pb.ModelResult, manifest: Manifest | None) -> None:
        """Fills result_id, run_id and config (timeout and cache state are the launcher's to add)."""
        from compiler.backends import get_backend

        if manifest is None:
            raise ValueError("no manifest")
        precision = PRECISION_OF_MODE[self.mode]
        plan = self.run_plan()
        result.result_id = self.result_id()
        result.run_id = self.run_id
        result.config.CopyFrom(pb.RunConfig(
            suite=self.suite, model=self.model, mode=MODE_ENUMS[self.mode],
            precision=precision, backend=self.backend, hud_compiler=get_backend(self.backend).hud_compiler,
            device=self.device, batch_size=self.resolved_batch_size(manifest), smoke=self.smoke,
            repeats=self.repeats if plan.measure_performance else 0,
            warmup_iterations=self.warmup if plan.measure_performance else 0,
            accuracy_iterations=plan.accuracy_iterations if plan.check_accuracy else 0,
            accuracy_batch_size=self.resolved_batch_size(manifest) if plan.check_accuracy else 0,
            split_processes=self.plan != "both", performance_only=not plan.check_accuracy,
            inductor_overrides=self.inductor_config,
            optimizer=result.config.optimizer))  # the run's own record (ModelRun): "" when it never got that far


def add_request_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--suite", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--mode", required=True, choices=MODES)
    parser.add_argument("--backend", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--batch-size", type=int, default=0)
    parser.add_argument("--plan", choices=PLANS, default="both")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--run-id", default="")
    parser.add_argument("--timing-target", type=float, default=DEFAULT_TARGET_REL_WIDTH)
    parser.add_argument("--timing-cap-s", type=float, default=DEFAULT_TIME_CAP_S)
    parser.add_argument("--inductor-config", default="")
    parser.add_argument("--optimizer", choices=("", *OPTIMIZERS), default="")


def request_from_args(args: argparse.Namespace) -> ModelRequest:
    return ModelRequest(**{f.name: getattr(args, f.name) for f in fields(ModelRequest)})

