"""One model run as asked for: the arguments shared by the launcher, the child and the test targets."""

from __future__ import annotations

import argparse
import hashlib
from dataclasses import dataclass, fields

from parity.v1 import results_pb2 as pb
from suites.common.manifest import MODES, Manifest

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
                       warmup_iterations=self.warmup, repeats=self.repeats)

    def expected_status(self, manifest: Manifest) -> tuple[str, str]:
        """The manifest's expected (status, reason) for this request's run."""
        return manifest.model(self.model).expected_status(self.device, self.mode, self.backend,
                                                          self.run_plan().check_accuracy)

    def result_id(self) -> str:
        key = "|".join(str(getattr(self, f.name)) for f in fields(self) if f.name not in ("repeats", "warmup"))
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
            split_processes=self.plan != "both", performance_only=not plan.check_accuracy))


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


def request_from_args(args: argparse.Namespace) -> ModelRequest:
    return ModelRequest(**{f.name: getattr(args, f.name) for f in fields(ModelRequest)})

