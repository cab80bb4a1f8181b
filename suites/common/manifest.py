"""Suite manifests: the versioned denominator of each suite, read by Starlark and Python alike.

A manifest is `suites/<suite>/manifest.bzl` holding one literal `MANIFEST = {...}`:
  suite, version, accuracy_batch_size, tolerance {mode: tol}, models {name: entry}, and optionally
  training_accuracy_mode "train" (default) | "eval": the module mode of the training accuracy check (upstream
  checks TorchBench training in eval mode, TIMM and HuggingFace in train mode; timing always trains in train mode).
Each entry:
  modes      {mode: {"batch_size": int}}          the modes the model takes part in (community perf batch sizes)
  build      {...}                                suite-specific construction of the full-size model
  smoke      {"batch_size": int, "build": {...}}  the scaled-down CPU variant (same architecture)
  tolerance  {mode: float}                        optional overrides of the suite default; a key "mode@device"
                                                  (e.g. "inference@cpu") holds that device's own (upstream's
                                                  higher_inference_cpu) and wins there over "mode"
  optimizer  "adam" | "sgd" | "none"              optional, default adam (upstream's BENCHMARK_USE_SGD -> sgd,
                                                  CI_SKIP_OPTIMIZER -> none: training without an optimizer step)
  larger_multiplier_for_smaller_tensor  bool      optional
  use_iou_for_bool_masks  bool                    optional; bool outputs (masks) pass at IoU >= 0.99 instead of
                                                  exact equality (upstream's list of that name)
  inductor_config  {key: value}                   optional torch._inductor.config overrides (upstream's per-model ones)
  presubmit  bool                                 optional, default True; False: every target of this model is nightly-only
                                                  (large suites keep CI within budget by picking a presubmit subset)
  presubmit_compile  [mode]                       optional; the modes in which CPU presubmit compiles this model's smoke
                                                  variant with Inductor (others only with aot_eager; nightly compiles all)
  expected   [{device, mode, backend, status, reason}]   optional; "*" matches anything; default "pass"
  skip       [{device, mode, backend, reason}]           optional; combinations not run (status "skipped")
  workload   "forward" | "generation"             optional, default forward (one forward pass or training step);
                                                  generation: inference timed through the model's generate() with
                                                  model.forward compiled (suites/common/generation_run.py)
  accuracy_batch_size  int > 0 | "own"           optional; batch size of an accuracy-only run (default: the suite's);
                                                  "own": the mode's batch size, for models that cannot change it
                                                  (upstream's ALLOW_CUSTOMIZE_BSIZE=False and dont_change_batch_size)
  speedup_target  float > 0                       optional, default 1.0; a measured speedup below it gets a bottleneck
                                                  analysis (suites/common/bottleneck.py)
  inference_grad  bool                            optional, default False; inference runs with autograd on (upstream's
                                                  pick_grad: TorchBench's maml differentiates inside its forward)
  deterministic_algorithms  bool                  optional, default True; False: the accuracy check runs without
                                                  torch.use_deterministic_algorithms (upstream's setup_determinism
                                                  exceptions: models with ops that have no deterministic kernel)
  reduced_precision_reductions  bool              optional, default True; False: the accuracy check turns off cuBLAS's
                                                  fp16/bf16 reduced-precision matmul reductions (upstream: for
                                                  nvidia_deeprecommender)
  only_training  bool                             optional; keeps train mode in the training accuracy check of a suite
                                                  whose training_accuracy_mode is "eval" (upstream's only_training)
  large_model  bool                               optional; the accuracy check is not run: pass_due_to_skip (upstream's
                                                  accuracy.skip.large_models)
  eager_not_deterministic  bool                   optional; training: the two eager runs are not compared, and a compiled
                                                  run that completes is pass_due_to_skip (upstream's list of that name)
  non_deterministic  bool                         optional; pass, eager_two_runs_differ and fail_accuracy become pass
                                                  (upstream's non_deterministic_models)
  device_graphs  bool                             optional, default True; False: compiled without device graphs even by
                                                  a backend that uses them (upstream's disable_cudagraph)
  lists      [str]                                optional; the user's lists the model counts in (denominators of a
                                                  suite whose lists differ from its modes, e.g. torchbench's
                                                  "training", "inference", "graph_mode"); no effect on the run
"""

from __future__ import annotations

import fnmatch
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler.starlark_data import StarlarkDataError, load_bzl_literals
from suites.common.status import COMMUNITY_STATUSES

MODES = ("training", "inference")
OPTIMIZERS = ("adam", "sgd", "none")
WORKLOADS = ("forward", "generation")
SUITES_DIR = Path(__file__).resolve().parent.parent


class ManifestError(ValueError):
    """A manifest is missing, malformed, or asked for something it does not hold."""


@dataclass(frozen=True)
class Rule:
    """An expectation or skip for the (device, mode, backend) combinations its patterns match."""

    device: str
    mode: str
    backend: str
    reason: str
    status: str = ""

    def matches(self, device: str, mode: str, backend: str) -> bool:
        return all(fnmatch.fnmatchcase(v, p) for v, p in ((device, self.device), (mode, self.mode), (backend, self.backend)))


@dataclass(frozen=True)
class ModelEntry:
    name: str
    batch_sizes: dict[str, int]
    build: dict[str, Any]
    smoke_batch_size: int
    smoke_build: dict[str, Any]
    tolerance: dict[str, float]
    optimizer: str
    larger_multiplier_for_smaller_tensor: bool
    inductor_config: dict[str, Any] = field(default_factory=dict)
    expected: tuple[Rule, ...] = ()
    skip: tuple[Rule, ...] = ()
    workload: str = "forward"
    speedup_target: float = 1.0
    accuracy_batch_size: int | str = 0  # 0: the suite's; "own": the mode's batch size
    inference_grad: bool = False
    deterministic_algorithms: bool = True
    reduced_precision_reductions: bool = True
    only_training: bool = False
    large_model: bool = False
    eager_not_deterministic: bool = False
    non_deterministic: bool = False
    device_graphs: bool = True
    use_iou_for_bool_masks: bool = False

    def accuracy_skipped(self, mode: str) -> bool:
        """Upstream does not compare this model's results in `mode`: a run that completes is pass_due_to_skip."""
        return self.large_model or (mode == "training" and self.eager_not_deterministic)

    def accuracy_batch_size_for(self, mode: str, suite_default: int) -> int:
        if self.accuracy_batch_size == "own":
            return self.batch_sizes[mode]
        return int(self.accuracy_batch_size) or suite_default

    @property
    def modes(self) -> tuple[str, ...]:
        return tuple(m for m in MODES if m in self.batch_sizes)

    def expected_status(self, device: str, mode: str, backend: str, checks_accuracy: bool = True) -> tuple[str, str]:
        """(community status string, reason) expected for this combination; "pass" unless a rule says otherwise.
        A run that checks no accuracy (--plan performance) cannot give an accuracy check's verdict."""
        for rule in self.expected:
            if rule.matches(device, mode, backend):
                if not checks_accuracy and rule.status in ACCURACY_VERDICTS:
                    return "pass", f"a performance-only run checks no accuracy (where checked: {rule.status}, {rule.reason})"
                return rule.status, rule.reason
        if self.accuracy_skipped(mode):
            return "pass_due_to_skip", "upstream does not compare its results (large_model, eager_not_deterministic)"
        return "pass", ""

    def skip_reason(self, device: str, mode: str, backend: str) -> str | None:
        if mode not in self.batch_sizes:
            return f"{self.name} does not take part in {mode} (manifest modes: {', '.join(self.modes)})"
        for rule in self.skip:
            if rule.matches(device, mode, backend):
                return rule.reason
        return None


@dataclass(frozen=True)
class Manifest:
    suite: str
    version: str
    sha256: str
    path: Path
    accuracy_batch_size: int
    tolerance: dict[str, float]
    models: dict[str, ModelEntry] = field(repr=False)
    training_accuracy_mode: str = "train"

    def accuracy_in_train_mode(self, entry: ModelEntry, mode: str) -> bool:
        """Whether the accuracy check of `mode` runs the module in train mode (upstream's use_eval_mode)."""
        return mode == "training" and (self.training_accuracy_mode == "train" or entry.only_training)

    def model(self, name: str) -> ModelEntry:
        if name not in self.models:
            close = [m for m in self.models if name.lower() in m.lower()]
            hint = f"; did you mean {', '.join(close)}?" if close else f"; {len(self.models)} models are listed in {self.path}"
            raise ManifestError(f"unknown model {name!r} in suite {self.suite}{hint}")
        return self.models[name]

    def tolerance_for(self, entry: ModelEntry, mode: str, device_type: str) -> float:
        own = entry.tolerance.get(f"{mode}@{device_type}", entry.tolerance.get(mode))
        return self.tolerance[mode] if own is None else own


def manifest_path(suite: str) -> Path:
    return SUITES_DIR / suite / "manifest.bzl"


def load_manifest(suite: str, path: Path | None = None) -> Manifest:
    """Loads and validates a suite's manifest; every problem is reported with the file and the entry."""
    path = path or manifest_path(suite)
    if not path.is_file():
        known = sorted(p.parent.name for p in SUITES_DIR.glob("*/manifest.bzl"))
        raise ManifestError(f"no manifest for suite {suite!r} at {path}; known suites: {', '.join(known)}")
    try:
        data = load_bzl_literals(path).get("MANIFEST")
    except StarlarkDataError as exc:
        raise ManifestError(str(exc)) from exc
    where = str(path)
    _require(isinstance(data, dict), where, "must define MANIFEST = {...}")
    for key in ("suite", "version", "accuracy_batch_size", "tolerance", "models"):
        _require(key in data, where, f"MANIFEST lacks the key {key!r}")
    _require(data["suite"] == suite, where, f"declares suite {data['suite']!r}, expected {suite!r}")
    _require(set(data["tolerance"]) == set(MODES), where, f"tolerance must give {MODES}")
    training_accuracy_mode = data.get("training_accuracy_mode", "train")
    _require(training_accuracy_mode in ("train", "eval"), where, 'training_accuracy_mode must be "train" or "eval"')
    models = {name: _parse_entry(name, raw, f"{where}: model {name!r}") for name, raw in data["models"].items()}
    _require(bool(models), where, "lists no models")
    return Manifest(
        suite=suite,
        version=str(data["version"]),
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        path=path,
        accuracy_batch_size=int(data["accuracy_batch_size"]),
        tolerance={m: float(t) for m, t in data["tolerance"].items()},
        models=models,
        training_accuracy_mode=training_accuracy_mode,
    )


# Statuses only the accuracy check's comparisons give.
ACCURACY_VERDICTS = ("fail_accuracy", "eager_two_runs_differ")

# The entry's True/False keys that become ModelEntry fields of the same name, with their defaults.
_ENTRY_FLAGS = {"inference_grad": False, "deterministic_algorithms": True, "reduced_precision_reductions": True,
                "only_training": False,
                "large_model": False, "eager_not_deterministic": False, "non_deterministic": False,
                "device_graphs": True, "use_iou_for_bool_masks": False}
_ENTRY_KEYS = {"modes", "build", "smoke", "tolerance", "optimizer", "larger_multiplier_for_smaller_tensor",
               "expected", "skip", "notes", "inductor_config", "presubmit", "presubmit_compile",
               "lists", "workload", "speedup_target", "accuracy_batch_size", *_ENTRY_FLAGS}


def _parse_entry(name: str, raw: Any, where: str) -> ModelEntry:
    _require(isinstance(raw, dict), where, "entry must be a dict")
    unknown = set(raw) - _ENTRY_KEYS
    _require(not unknown, where, f"unknown keys {sorted(unknown)}; allowed: {sorted(_ENTRY_KEYS)}")
    for key in ("modes", "build", "smoke"):
        _require(key in raw, where, f"lacks {key!r}")
    modes = raw["modes"]
    _require(isinstance(modes, dict) and modes and set(modes) <= set(MODES), where, f"modes must be a dict over {MODES}")
    batch_sizes = {}
    for mode, spec in modes.items():
        bs = spec.get("batch_size") if isinstance(spec, dict) else None
        _require(isinstance(bs, int) and bs > 0, where, f"modes.{mode}.batch_size must be a positive int")
        batch_sizes[mode] = bs
    smoke = raw["smoke"]
    _require(isinstance(smoke, dict) and isinstance(smoke.get("batch_size"), int) and "build" in smoke, where,
             "smoke must be {'batch_size': int, 'build': {...}}")
    optimizer = raw.get("optimizer", "adam")
    _require(optimizer in OPTIMIZERS, where, f"optimizer must be one of {OPTIMIZERS}")
    tolerance = raw.get("tolerance", {})
    _require(all(_is_tolerance_key(key) for key in tolerance), where,
             f"tolerance keys must be a mode {MODES} or mode@device (e.g. inference@cpu)")
    lists = raw.get("lists", [])
    _require(isinstance(lists, list) and all(isinstance(n, str) and n for n in lists), where,
             "lists must be a list of list names")
    workload = raw.get("workload", "forward")
    _require(workload in WORKLOADS, where, f"workload must be one of {WORKLOADS}")
    _require(workload == "forward" or set(batch_sizes) == {"inference"}, where, "a generation workload is inference-only")
    speedup_target = raw.get("speedup_target", 1.0)
    _require(isinstance(speedup_target, (int, float)) and not isinstance(speedup_target, bool) and speedup_target > 0,
             where, "speedup_target must be a number > 0")
    accuracy_batch_size = raw.get("accuracy_batch_size", 0)  # 0: absent, the suite's
    if "accuracy_batch_size" in raw:
        _require(accuracy_batch_size == "own" or (isinstance(accuracy_batch_size, int) and accuracy_batch_size > 0
                                                  and not isinstance(accuracy_batch_size, bool)),
                 where, 'accuracy_batch_size must be a positive int or "own"')
    for flag, default in {"presubmit": True, **_ENTRY_FLAGS}.items():
        _require(isinstance(raw.get(flag, default), bool), where, f"{flag} must be True or False")
    compiled_modes = raw.get("presubmit_compile", [])
    _require(isinstance(compiled_modes, list) and set(compiled_modes) <= set(batch_sizes), where,
             f"presubmit_compile must list modes of this model ({sorted(batch_sizes)})")
    return ModelEntry(
        name=name,
        batch_sizes=batch_sizes,
        build=dict(raw["build"]),
        smoke_batch_size=smoke["batch_size"],
        smoke_build=dict(smoke["build"]),
        tolerance={m: float(t) for m, t in tolerance.items()},
        optimizer=optimizer,
        larger_multiplier_for_smaller_tensor=bool(raw.get("larger_multiplier_for_smaller_tensor", False)),
        inductor_config=dict(raw.get("inductor_config", {})),
        expected=tuple(_parse_rule(r, f"{where} expected", with_status=True) for r in raw.get("expected", [])),
        skip=tuple(_parse_rule(r, f"{where} skip", with_status=False) for r in raw.get("skip", [])),
        workload=workload,
        speedup_target=float(speedup_target),
        accuracy_batch_size=accuracy_batch_size,
        **{flag: raw.get(flag, default) for flag, default in _ENTRY_FLAGS.items()},
    )


def _parse_rule(raw: Any, where: str, *, with_status: bool) -> Rule:
    keys = {"device", "mode", "backend", "reason"} | ({"status"} if with_status else set())
    _require(isinstance(raw, dict) and set(raw) == keys, where, f"each rule needs exactly the keys {sorted(keys)}")
    _require(bool(raw["reason"].strip()), where, "every rule needs a non-empty reason")
    if with_status:
        _require(raw["status"] in COMMUNITY_STATUSES, where,
                 f"status {raw['status']!r} is not a known status ({', '.join(COMMUNITY_STATUSES)})")
    return Rule(device=raw["device"], mode=raw["mode"], backend=raw["backend"], reason=raw["reason"],
                status=raw.get("status", ""))


def _is_tolerance_key(key: str) -> bool:
    mode, at, device = key.partition("@")
    return mode in MODES and (not at or bool(device))


def _require(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise ManifestError(f"{where}: {message}")
