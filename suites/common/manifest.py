"""Suite manifests: the versioned denominator of each suite, read by Starlark and Python alike.

A manifest is `suites/<suite>/manifest.bzl` holding one literal `MANIFEST = {...}`:
  suite, version, accuracy_batch_size int > 0, tolerance {mode: tol}, models {name: entry}, and optionally
  training_accuracy_mode "train" (default) | "eval": the module mode of the training accuracy check (upstream
  checks TorchBench training in eval mode, TIMM and HuggingFace in train mode; timing always trains in train mode).
Each entry:
  modes      {mode: {"batch_size": int > 0}}      the modes the model takes part in (community perf batch sizes)
  build      {...}                                suite-specific construction of the full-size model; its keys are
                                                  the ones the suite's loader reads (SuiteBuild, _SUITE_BUILDS)
  smoke      {"batch_size": int > 0, "build": {...}}  the scaled-down CPU variant (same architecture); batch_size
                                                  0 ("the model's own fixed one") only where the loader honours it
                                                  (TorchBench checkout models)
  tolerance  {mode: float >= 0}                   optional overrides of the suite default; a key "mode@device"
                                                  (e.g. "inference@cpu") holds that device's own (upstream's
                                                  higher_inference_cpu) and wins there over "mode"
  optimizer  "adam" | "sgd" | "none"              optional, default adam (upstream's BENCHMARK_USE_SGD -> sgd,
                                                  CI_SKIP_OPTIMIZER -> none: training without an optimizer step)
  accuracy_optimizer  "adam" | "sgd" | "none"     optional, default: optimizer; that of an accuracy-only run (--plan
                                                  accuracy), as upstream's CI accuracy job, whose statuses the
                                                  community's expected files hold, runs with --ci: CI_USE_SGD -> sgd
  larger_multiplier_for_smaller_tensor  bool      optional
  use_iou_for_bool_masks  bool                    optional; bool outputs (masks) pass at IoU >= 0.99 instead of
                                                  exact equality (upstream's list of that name)
  inductor_config  {key: value}                   optional torch._inductor.config overrides (upstream's per-model ones)
  presubmit  bool                                 optional, default True; False: every target of this model is nightly-only
                                                  (large suites keep CI within budget by picking a presubmit subset)
  presubmit_compile  [mode]                       optional; the modes in which CPU presubmit compiles this model's smoke
                                                  variant with Inductor (others only with aot_eager; nightly compiles all)
  expected   [{device, mode, backend, status, reason}]   optional; "*" matches anything; default "pass"; a rule
                                                  may add "plan": "both" (the accuracy check of a timed run) or
                                                  "accuracy" (an accuracy-only run, as upstream's CI job); default "*"
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
  notes      str                                  optional; free text for readers, no effect on the run

Validation refuses, with file:line of the offending key: any key not listed here (top level, entry, modes, smoke,
and build/smoke.build of the suites in _SUITE_BUILDS), a key given twice in one dict or MANIFEST assigned twice
(compiler/starlark_data.py, as Bazel does), batch sizes that are not positive integers and tolerances that are not
finite and >= 0. Bazel reads the same MANIFEST (tools/build_defs/suite_tests.bzl): manifest_test.py validates every
suite's manifest here, and ci/test.sh runs it before Bazel, so a manifest Python refuses never reaches the macro.
"""

from __future__ import annotations

import fnmatch
import hashlib
import math
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compiler.starlark_data import BzlData, StarlarkDataError, load_bzl_data
from suites.common.status import COMMUNITY_STATUSES

MODES = ("training", "inference")
OPTIMIZERS = ("adam", "sgd", "none")
RULE_PLANS = ("*", "both", "accuracy")  # an expectation's run plan: any, the timed run's check, an accuracy-only run
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
    plan: str = "*"  # expectations only: "both" or "accuracy" (the run's --plan) when the status holds for one

    def matches(self, device: str, mode: str, backend: str, plan: str = "both") -> bool:
        return all(fnmatch.fnmatchcase(v, p) for v, p in ((device, self.device), (mode, self.mode), (backend, self.backend),
                                                          (plan, self.plan)))


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
    accuracy_optimizer: str = ""  # "": the optimizer's
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

    def optimizer_for(self, accuracy_only: bool) -> str:
        """The training step's optimizer: an accuracy-only run's is that of upstream's CI accuracy job."""
        return (self.accuracy_optimizer or self.optimizer) if accuracy_only else self.optimizer

    def accuracy_batch_size_for(self, mode: str, suite_default: int) -> int:
        if self.accuracy_batch_size == "own":
            return self.batch_sizes[mode]
        return int(self.accuracy_batch_size) or suite_default

    @property
    def modes(self) -> tuple[str, ...]:
        return tuple(m for m in MODES if m in self.batch_sizes)

    def expected_status(self, device: str, mode: str, backend: str, plan: str = "both") -> tuple[str, str]:
        """(community status string, reason) expected for this combination and run plan (suites.run --plan); "pass"
        unless a rule says otherwise. A run that checks no accuracy (performance) cannot give an accuracy verdict."""
        for rule in self.expected:
            if rule.matches(device, mode, backend, "both" if plan == "performance" else plan):
                if plan == "performance" and rule.status in ACCURACY_VERDICTS:
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


def all_manifest_paths() -> dict[str, Path]:
    """{suite: path} of every suite manifest under suites/ (what CI validates before Bazel reads them)."""
    return {p.parent.name: p for p in sorted(SUITES_DIR.glob("*/manifest.bzl"))}


# Statuses only the accuracy check's comparisons give.
ACCURACY_VERDICTS = ("fail_accuracy", "eager_two_runs_differ")

_TOP_KEYS = {"suite", "version", "accuracy_batch_size", "tolerance", "models", "training_accuracy_mode"}
_REQUIRED_TOP_KEYS = ("suite", "version", "accuracy_batch_size", "tolerance", "models")

# The entry's True/False keys that become ModelEntry fields of the same name, with their defaults.
_ENTRY_FLAGS = {"inference_grad": False, "deterministic_algorithms": True, "reduced_precision_reductions": True,
                "only_training": False,
                "large_model": False, "eager_not_deterministic": False, "non_deterministic": False,
                "device_graphs": True, "use_iou_for_bool_masks": False}
_ENTRY_KEYS = {"modes", "build", "smoke", "tolerance", "optimizer", "accuracy_optimizer", "larger_multiplier_for_smaller_tensor",
               "expected", "skip", "notes", "inductor_config", "presubmit", "presubmit_compile",
               "lists", "workload", "speedup_target", "accuracy_batch_size", *_ENTRY_FLAGS}
_MODE_KEYS = {"batch_size"}
_SMOKE_KEYS = {"batch_size", "build"}


@dataclass(frozen=True)
class SuiteBuild:
    """The keys a suite's loader reads from an entry's `build` and `smoke.build`.

    `build` is the loader's own input (suites/<suite>/loader.py is its only reader), so its schema is per suite
    and lives here beside the loader's name; keep it in step when a loader learns a key. A suite not listed in
    _SUITE_BUILDS (a new one, or a test's) has its build left to its loader, which fails on what it cannot use.
    """

    build_keys: frozenset[str]
    smoke_build_keys: frozenset[str]
    # build.source values whose loader, given batch size 0, builds the model at its own fixed batch size
    # (TorchBench's model contract: batch_size=None); only there may smoke.batch_size be 0.
    own_batch_size_sources: frozenset[str] = frozenset()


_SUITE_BUILDS = {
    # suites/timm/loader.py
    "timm": SuiteBuild(frozenset({"timm_name", "input_size", "loss_scale"}), frozenset({"kwargs", "input_size"})),
    # suites/huggingface/loader.py (config_source: where the config numbers come from, for readers and loader_test)
    "huggingface": SuiteBuild(
        frozenset({"class", "config", "config_source", "seq_len", "labels", "input_ids", "eos_last",
                   "decoder_input_ids", "fp32_only", "generation"}),
        frozenset({"config", "seq_len", "generation"})),
    # suites/torchbench/loader.py, offline.py and trim_checkout.py
    "torchbench": SuiteBuild(
        frozenset({"source", "arch", "folder", "unavailable", "offline", "packages", "model_kwargs"}),
        frozenset({"num_classes", "image_size"}),
        own_batch_size_sources=frozenset({"torchbench"})),
    # suites/selftest/loader.py
    "selftest": SuiteBuild(frozenset({"behaviour"}), frozenset({"behaviour"})),
}


@dataclass(frozen=True)
class _At:
    """A value's place in a manifest (its key path under MANIFEST), so that an error names file:line and field."""

    data: BzlData
    keys: tuple[Any, ...] = ("MANIFEST",)

    def at(self, *keys: Any) -> _At:
        return _At(self.data, self.keys + keys)

    def __str__(self) -> str:
        field_path = self.keys[0] + "".join(
            f".{k}" if isinstance(k, str) and k.isidentifier() else f"[{k!r}]" for k in self.keys[1:])
        return f"{self.data.where(*self.keys)}: {field_path}"


def load_manifest(suite: str, path: Path | None = None) -> Manifest:
    """Loads and validates a suite's manifest (the suite's own, or the one at `path`); every problem is reported
    as file:line, the field, what is wrong and what is allowed."""
    path = path or manifest_path(suite)
    if not path.is_file():
        known = sorted(all_manifest_paths())
        raise ManifestError(f"no manifest for suite {suite!r} at {path}; known suites: {', '.join(known)}")
    try:
        bzl = load_bzl_data(path)
    except StarlarkDataError as exc:
        raise ManifestError(str(exc)) from exc
    data = bzl.values.get("MANIFEST")
    _require(isinstance(data, dict), bzl.where("MANIFEST") if "MANIFEST" in bzl.values else path,
             "must define MANIFEST = {...}")
    top = _At(bzl)
    _refuse_unknown_keys(data, _TOP_KEYS, top)
    for key in _REQUIRED_TOP_KEYS:
        _require(key in data, top, f"MANIFEST lacks the key {key!r}")
    _require(data["suite"] == suite, top.at("suite"), f"declares suite {data['suite']!r}, expected {suite!r}")
    _require(_is_positive_int(data["accuracy_batch_size"]), top.at("accuracy_batch_size"),
             f"accuracy_batch_size must be a positive integer, got {data['accuracy_batch_size']!r}")
    tolerance = data["tolerance"]
    _require(isinstance(tolerance, dict) and set(tolerance) == set(MODES), top.at("tolerance"),
             f"tolerance must give exactly {MODES}")
    training_accuracy_mode = data.get("training_accuracy_mode", "train")
    _require(training_accuracy_mode in ("train", "eval"), top.at("training_accuracy_mode"),
             'training_accuracy_mode must be "train" or "eval"')
    _require(isinstance(data["models"], dict) and bool(data["models"]), top.at("models"), "lists no models")
    build_schema = _SUITE_BUILDS.get(suite)
    models = {name: _parse_entry(name, raw, top.at("models", name), build_schema)
              for name, raw in data["models"].items()}
    return Manifest(
        suite=suite,
        version=str(data["version"]),
        sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
        path=path,
        accuracy_batch_size=data["accuracy_batch_size"],
        tolerance=_parse_tolerances(tolerance, top.at("tolerance")),
        models=models,
        training_accuracy_mode=training_accuracy_mode,
    )


def _parse_entry(name: str, raw: Any, at: _At, build_schema: SuiteBuild | None) -> ModelEntry:
    _require(isinstance(raw, dict), at, "entry must be a dict")
    _refuse_unknown_keys(raw, _ENTRY_KEYS, at)
    for key in ("modes", "build", "smoke"):
        _require(key in raw, at, f"lacks {key!r}")
    batch_sizes = _parse_modes(raw["modes"], at.at("modes"))
    _require(isinstance(raw["build"], dict), at.at("build"), "build must be a dict")
    smoke_batch_size, smoke_build = _parse_smoke(raw["smoke"], at.at("smoke"), raw["build"], build_schema)
    if build_schema is not None:
        _refuse_unknown_keys(raw["build"], build_schema.build_keys, at.at("build"))
    optimizer = raw.get("optimizer", "adam")
    _require(optimizer in OPTIMIZERS, at.at("optimizer"), f"optimizer must be one of {OPTIMIZERS}")
    accuracy_optimizer = raw.get("accuracy_optimizer", optimizer)
    _require(accuracy_optimizer in OPTIMIZERS, at.at("accuracy_optimizer"),
             f"accuracy_optimizer must be one of {OPTIMIZERS}")
    tolerance = raw.get("tolerance", {})
    _require(isinstance(tolerance, dict), at.at("tolerance"), "tolerance must be a dict {mode: float}")
    for key in tolerance:
        _require(_is_tolerance_key(key), at.at("tolerance", key),
                 f"tolerance keys must be a mode {MODES} or mode@device (e.g. inference@cpu), got {key!r}")
    lists = raw.get("lists", [])
    _require(isinstance(lists, list) and all(isinstance(n, str) and n for n in lists), at.at("lists"),
             "lists must be a list of list names")
    workload = raw.get("workload", "forward")
    _require(workload in WORKLOADS, at.at("workload"), f"workload must be one of {WORKLOADS}")
    _require(workload == "forward" or set(batch_sizes) == {"inference"}, at.at("workload"),
             "a generation workload is inference-only")
    speedup_target = raw.get("speedup_target", 1.0)
    _require(_is_number(speedup_target) and speedup_target > 0, at.at("speedup_target"),
             "speedup_target must be a number > 0")
    accuracy_batch_size = raw.get("accuracy_batch_size", 0)  # 0: absent, the suite's
    if "accuracy_batch_size" in raw:
        _require(accuracy_batch_size == "own" or _is_positive_int(accuracy_batch_size), at.at("accuracy_batch_size"),
                 'accuracy_batch_size must be a positive int or "own"')
    for flag, default in {"presubmit": True, **_ENTRY_FLAGS}.items():
        _require(isinstance(raw.get(flag, default), bool), at.at(flag), f"{flag} must be True or False")
    compiled_modes = raw.get("presubmit_compile", [])
    _require(isinstance(compiled_modes, list) and set(compiled_modes) <= set(batch_sizes), at.at("presubmit_compile"),
             f"presubmit_compile must list modes of this model ({sorted(batch_sizes)})")
    return ModelEntry(
        name=name,
        batch_sizes=batch_sizes,
        build=dict(raw["build"]),
        smoke_batch_size=smoke_batch_size,
        smoke_build=smoke_build,
        tolerance=_parse_tolerances(tolerance, at.at("tolerance")),
        optimizer=optimizer,
        accuracy_optimizer=accuracy_optimizer,
        larger_multiplier_for_smaller_tensor=bool(raw.get("larger_multiplier_for_smaller_tensor", False)),
        inductor_config=dict(raw.get("inductor_config", {})),
        expected=tuple(_parse_rule(r, at.at("expected", i), with_status=True)
                       for i, r in enumerate(raw.get("expected", []))),
        skip=tuple(_parse_rule(r, at.at("skip", i), with_status=False) for i, r in enumerate(raw.get("skip", []))),
        workload=workload,
        speedup_target=float(speedup_target),
        accuracy_batch_size=accuracy_batch_size,
        **{flag: raw.get(flag, default) for flag, default in _ENTRY_FLAGS.items()},
    )


def _parse_modes(modes: Any, at: _At) -> dict[str, int]:
    """{mode: batch size} of `modes` = {mode: {"batch_size": int > 0}}."""
    _require(isinstance(modes, dict) and bool(modes), at, f"modes must be a non-empty dict over {MODES}")
    batch_sizes = {}
    for mode, spec in modes.items():
        _require(mode in MODES, at.at(mode), f"unknown mode {mode!r}; modes are {', '.join(MODES)}")
        _require(isinstance(spec, dict), at.at(mode), 'each mode must be {"batch_size": int}')
        _refuse_unknown_keys(spec, _MODE_KEYS, at.at(mode))
        batch_size = spec.get("batch_size")
        _require(_is_positive_int(batch_size), at.at(mode, "batch_size"),
                 f"batch_size must be a positive integer, got {batch_size!r}")
        batch_sizes[mode] = batch_size
    return batch_sizes


def _parse_smoke(smoke: Any, at: _At, build: dict[str, Any],
                 build_schema: SuiteBuild | None) -> tuple[int, dict[str, Any]]:
    """(batch size, build) of `smoke` = {"batch_size": int > 0, "build": {...}}."""
    _require(isinstance(smoke, dict) and "batch_size" in smoke and "build" in smoke, at,
             "smoke must be {'batch_size': int, 'build': {...}}")
    _refuse_unknown_keys(smoke, _SMOKE_KEYS, at)
    batch_size = smoke["batch_size"]
    # 0 is "the model's own fixed batch size", meaningful only to a loader that honours it (SuiteBuild).
    own_allowed = build_schema is not None and build.get("source") in build_schema.own_batch_size_sources
    if own_allowed:
        _require(_is_positive_int(batch_size) or (_is_int(batch_size) and batch_size == 0), at.at("batch_size"),
                 f"batch_size must be a positive integer, or 0 for the model's own, got {batch_size!r}")
    else:
        _require(_is_positive_int(batch_size), at.at("batch_size"),
                 f"batch_size must be a positive integer, got {batch_size!r}")
    _require(isinstance(smoke["build"], dict), at.at("build"), "smoke build must be a dict")
    if build_schema is not None:
        _refuse_unknown_keys(smoke["build"], build_schema.smoke_build_keys, at.at("build"))
    return batch_size, dict(smoke["build"])


def _parse_tolerances(tolerance: dict[str, Any], at: _At) -> dict[str, float]:
    """{key: tolerance}; a tolerance is a relative error bound, so it must be a finite number >= 0."""
    for key, value in tolerance.items():
        _require(_is_number(value) and math.isfinite(value) and value >= 0, at.at(key),
                 f"tolerance {key!r} must be a finite number >= 0, got {value!r}")
    return {key: float(value) for key, value in tolerance.items()}


def _parse_rule(raw: Any, at: _At, *, with_status: bool) -> Rule:
    keys = {"device", "mode", "backend", "reason"} | ({"status"} if with_status else set())
    optional = {"plan"} if with_status else set()
    _require(isinstance(raw, dict) and keys <= set(raw) <= keys | optional, at,
             f"each rule needs exactly the keys {sorted(keys)}" + (f", and may have {sorted(optional)}" if optional else ""))
    plan = raw.get("plan", "*")
    _require(plan in RULE_PLANS, at.at("plan"), f"plan must be one of {RULE_PLANS}, got {plan!r}")
    _require(isinstance(raw["reason"], str) and bool(raw["reason"].strip()), at.at("reason"),
             "every rule needs a non-empty reason")
    if with_status:
        _require(raw["status"] in COMMUNITY_STATUSES, at.at("status"),
                 f"status {raw['status']!r} is not a known status ({', '.join(COMMUNITY_STATUSES)})")
    return Rule(device=raw["device"], mode=raw["mode"], backend=raw["backend"], reason=raw["reason"],
                status=raw.get("status", ""), plan=plan)


def _refuse_unknown_keys(raw: dict[str, Any], allowed: Collection[str], at: _At) -> None:
    """Fails at the first key of `raw` not in `allowed`: a misspelt key would otherwise be ignored silently."""
    unknown = [key for key in raw if key not in allowed]
    if unknown:
        others = f" (also unknown: {', '.join(map(repr, unknown[1:]))})" if len(unknown) > 1 else ""
        raise ManifestError(
            f"{at.at(unknown[0])}: unknown key {unknown[0]!r}{others}; allowed keys here: {', '.join(sorted(allowed))}. "
            "Fix the spelling, or add a new field to the schema in suites/common/manifest.py")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_positive_int(value: Any) -> bool:
    return _is_int(value) and value > 0


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_tolerance_key(key: Any) -> bool:
    if not isinstance(key, str):
        return False
    mode, at, device = key.partition("@")
    return mode in MODES and (not at or bool(device))


def _require(condition: bool, where: object, message: str) -> None:
    if not condition:
        raise ManifestError(f"{where}: {message}")
