"""The Inductor OpInfo suite in high-precision mode: runs op groups and writes one result per case.

  python -m opinfo.run --device cpu --group norm --out out/opinfo          # one group, fp32 scope
  python -m opinfo.run --device cuda --out out/h200-opinfo                 # every group
  python -m opinfo.run --device cuda --group norm,conv --max-samples 1     # first sample of each case
  python -m opinfo.run --device cpu --ops sin,nn.functional.conv2d --dtypes community

Every (op, variant, dtype) gets an OpInfoResult (.pb + .txtpb) in --out (default: Bazel's
$TEST_UNDECLARED_OUTPUTS_DIR) and a line on stdout; a summary goes to opinfo-summary-<device>-<group>.json.
Exit status 1 when any outcome differs from the device's expectation table (opinfo/expectations/):
an unexpected failure, or an expected failure that now passes (update the table).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proto.codegen import ensure_generated

ensure_generated()

from parity.v1 import opinfo_pb2, results_pb2  # noqa: E402

from compiler.devices.registry import get_device  # noqa: E402
from compiler.fallback.force import forced_fallbacks  # noqa: E402
from compiler.fallback.policy import policy_for  # noqa: E402
from compiler.precision import high_precision  # noqa: E402
from opinfo import results  # noqa: E402
from opinfo.catalog import ALWAYS_ALL_SAMPLES, DTYPE_CHOICES, CatalogError, OpCase, get_group, select_cases  # noqa: E402
from opinfo.run_case import CaseRun, SampleFailure, run_case  # noqa: E402
from opinfo.tables import Expectation, load_expectations, load_tolerances  # noqa: E402
from suites.progress import EtaLine  # noqa: E402

_OUTCOME = {"PASS": opinfo_pb2.OPINFO_OUTCOME_PASS, "FAIL": opinfo_pb2.OPINFO_OUTCOME_FAIL,
            "SKIP": opinfo_pb2.OPINFO_OUTCOME_SKIP, "XFAIL": opinfo_pb2.OPINFO_OUTCOME_XFAIL}
_LOWERING = {"UNSPECIFIED": opinfo_pb2.LOWERING_UNSPECIFIED, "NATIVE": opinfo_pb2.LOWERING_NATIVE,
             "FALLBACK": opinfo_pb2.LOWERING_FALLBACK, "MIXED": opinfo_pb2.LOWERING_MIXED,
             "NOT_COMPILED": opinfo_pb2.LOWERING_NOT_COMPILED}


@dataclass(frozen=True)
class RunOptions:
    device: str
    group: str | None
    dtypes: str = "fp32"
    ops: tuple[str, ...] = ()
    max_samples: int | None = None
    gradients: str = "auto"  # auto: where the community checks them (not on CPU); on; off
    run_id: str = ""


@dataclass
class Summary:
    device: str
    group: str
    ops: set[str] = field(default_factory=set)
    cases: int = 0
    samples: int = 0
    outcomes: collections.Counter[str] = field(default_factory=collections.Counter)
    lowering: collections.Counter[str] = field(default_factory=collections.Counter)
    skips: dict[str, str] = field(default_factory=dict)
    xfails: dict[str, str] = field(default_factory=dict)
    fp64_arbitrated: dict[str, int] = field(default_factory=dict)  # case -> samples that passed only against fp64
    unexpected: list[str] = field(default_factory=list)
    fallback_ops: collections.Counter[str] = field(default_factory=collections.Counter)
    wall_time_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"device": self.device, "group": self.group, "ops": len(self.ops), "cases": self.cases,
                "samples": self.samples, "outcomes": dict(self.outcomes), "lowering": dict(self.lowering),
                "skips": self.skips, "xfails": self.xfails, "fp64_arbitrated": self.fp64_arbitrated,
                "unexpected": self.unexpected,
                "fallback_ops": dict(self.fallback_ops.most_common()), "wall_time_s": round(self.wall_time_s, 1)}


def _decide(run: CaseRun | None, expectation: Expectation) -> tuple[str, str]:
    """(outcome, reason) of a case from its run (None: skipped by the table) and its expectation."""
    if run is None:
        return "SKIP", expectation.reason
    if run.total and run.eager_unsupported == run.total:
        return "SKIP", f"eager rejects all {run.total} samples on this device: nothing in scope to compare"
    if run.failed:
        failure = run.first_failure
        detail = f"{failure.phase}: {failure.exception_type}: {failure.message.splitlines()[0] if failure.message else ''}"
        if expectation.outcome == "XFAIL":
            return "XFAIL", expectation.reason
        return "FAIL", detail[:500]
    return "PASS", ""


def _samples_for(case: OpCase, max_samples: int | None) -> int | None:
    """--max-samples, except for the ops the community always runs with every sample."""
    return None if case.full_name in ALWAYS_ALL_SAMPLES else max_samples


def _this_shard(cases: list[OpCase]) -> list[OpCase]:
    """Every N-th op (with all its dtypes, so shard summaries add up) when sharded (TEST_TOTAL_SHARDS), else all."""
    total = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    if total <= 1:
        return cases
    Path(os.environ["TEST_SHARD_STATUS_FILE"]).touch()
    ops = sorted({case.full_name for case in cases})
    mine = set(ops[int(os.environ["TEST_SHARD_INDEX"])::total])
    return [case for case in cases if case.full_name in mine]


def _gradients(option: str, device: str) -> bool:
    if option not in ("auto", "on", "off"):
        raise ValueError(f"--gradients must be auto, on or off, not {option!r}")
    return option == "on" or (option == "auto" and device != "cpu")


def run_suite(options: RunOptions, out: Path) -> Summary:
    """Runs the selected cases in high-precision mode; writes results into `out`."""
    import torch
    from torch._inductor import config as inductor_config

    adapter = get_device(options.device)
    available = adapter.availability()
    if not available.ok:
        raise RuntimeError(f"device {options.device} is not usable here: {available.reason}")
    if options.dtypes not in DTYPE_CHOICES:
        raise ValueError(f"--dtypes must be one of {', '.join(DTYPE_CHOICES)}, not {options.dtypes!r}")
    info = adapter.info()
    expectations, tolerances = load_expectations(options.device), load_tolerances()
    cases = _this_shard(select_cases(options.group, options.device, DTYPE_CHOICES[options.dtypes], options.ops))
    check_gradients = _gradients(options.gradients, options.device)
    run_id = options.run_id
    prov = results.provenance(options.device, info.name, info.arch, expectations.version, expectations.sha256)
    prov.package_versions["opinfo_tolerances"] = f"{tolerances.version}:{tolerances.sha256[:12]}"
    policy = policy_for(options.device)
    summary = Summary(options.device, (options.group or "all").replace(",", "+"))
    started = time.monotonic()
    eta = EtaLine(len(cases), "[opinfo]")  # a line with the ETA each minute, between the cases' own lines
    # Lowering must run for every sample (fallback detection), so no compiled graph is served from a cache.
    caches_off = {"fx_graph_cache": False, "fx_graph_remote_cache": False}
    with high_precision() as precision, forced_fallbacks(policy), inductor_config.patch(caches_off), \
            torch._functorch.config.patch(enable_autograd_cache=False):
        for number, case in enumerate(cases, 1):
            result = _run_one(case, options, expectations, tolerances, policy, check_gradients, run_id, prov,
                              precision.applied, summary)
            results.write_result(result, out)
            print(f"[{number}/{len(cases)}] {case.full_name} {case.dtype_name}: "
                  f"{opinfo_pb2.OpInfoOutcome.Name(result.outcome).removeprefix('OPINFO_OUTCOME_')}"
                  f" {opinfo_pb2.Lowering.Name(result.lowering).removeprefix('LOWERING_')}"
                  f" ({result.samples.passed}/{result.samples.total} samples, {result.wall_time_s:.1f} s)"
                  f"{' -- ' + result.reason if result.reason else ''}", flush=True)
            if (line := eta.line(number)) is not None:
                print(line, flush=True)
    summary.wall_time_s = time.monotonic() - started
    shard = os.environ.get("TEST_SHARD_INDEX", "")
    out.mkdir(parents=True, exist_ok=True)
    (out / f"opinfo-summary-{options.device}-{summary.group}{'-shard' + shard if shard else ''}.json").write_text(
        json.dumps(summary.as_dict(), indent=2, sort_keys=True) + "\n")
    return summary


def _run_guarded(case: OpCase, options: RunOptions, tol: Any, policy: Any, check_gradients: bool) -> CaseRun:
    """run_case, where an error of the runner itself is that case's failure instead of the end of the suite."""
    try:
        return run_case(case, options.device, tol, policy, check_gradients, _samples_for(case, options.max_samples))
    except Exception as exc:  # noqa: BLE001 (every case gets a classified result)
        return CaseRun(total=1, failed=1, first_failure=SampleFailure("harness", type(exc).__name__, str(exc)[:2000],
                                                                      sample=""))


def _run_one(case: OpCase, options: RunOptions, expectations: Any, tolerances: Any, policy: Any,
             check_gradients: bool, run_id: str, prov: results_pb2.Provenance, precision: dict[str, Any],
             summary: Summary) -> opinfo_pb2.OpInfoResult:
    expectation = expectations.lookup(case.full_name, case.dtype_name)
    tol = tolerances.lookup(case.full_name, case.name, case.dtype_name)
    run = None if expectation.outcome == "SKIP" else _run_guarded(case, options, tol, policy, check_gradients)
    outcome, reason = _decide(run, expectation)
    expected = expectation.outcome if expectation.outcome != "SKIP" else "SKIP"
    result = opinfo_pb2.OpInfoResult(
        result_id=results.result_id(run_id, options.device, case.name, case.variant, case.dtype_name),
        run_id=run_id, op=case.name, variant=case.variant, dtype=case.dtype_name, device=options.device,
        group=case.group, lowering_family=get_group(case.group).family, outcome=_OUTCOME[outcome],
        expected_outcome=_OUTCOME[expected], reason=reason, high_precision=True,
        atol=tol.atol or 0.0, rtol=tol.rtol or 0.0,
    )
    result.precision_settings.update({k: str(v) for k, v in precision.items()})
    result.provenance.CopyFrom(prov)
    if run is not None:
        result.lowering = _LOWERING[run.lowering]
        result.samples.CopyFrom(opinfo_pb2.OpInfoSampleCounts(
            total=run.total, passed=run.passed, failed=run.failed, eager_unsupported=run.eager_unsupported,
            gradient_checked=run.gradient_checked, inductor_graphs=run.inductor_graphs,
            fp64_arbitrated=run.fp64_arbitrated, gradient_eager_rejected=run.gradient_eager_rejected))
        result.generated_kernels = run.generated_kernels
        result.wall_time_s = run.wall_time_s
        for op, count in sorted(run.fallbacks.items()):
            result.fallback_ops.add(op=op, count=count, reason=policy.reason_for(op))
        if run.first_failure is not None:
            failure = run.first_failure
            result.failure.CopyFrom(results_pb2.Failure(phase=results.phase_enum(failure.phase),
                                                        exception_type=failure.exception_type,
                                                        message=failure.message))
            result.first_failing_sample = failure.sample
        summary.samples += run.total
        if run.fp64_arbitrated:
            summary.fp64_arbitrated[f"{case.full_name} {case.dtype_name}"] = run.fp64_arbitrated
        summary.fallback_ops.update(run.fallbacks)
    _account(summary, case, outcome, expected, reason, run)
    return result


def _account(summary: Summary, case: OpCase, outcome: str, expected: str, reason: str, run: CaseRun | None) -> None:
    key = f"{case.full_name} {case.dtype_name}"
    summary.ops.add(case.full_name)
    summary.cases += 1
    summary.outcomes[outcome] += 1
    if run is not None and outcome != "SKIP":
        summary.lowering[run.lowering] += 1
    if outcome == "SKIP":
        summary.skips[key] = reason
    if outcome == "XFAIL":
        summary.xfails[key] = reason
    if outcome != expected and not (outcome == "SKIP" and expected == "PASS"):
        summary.unexpected.append(f"{key}: {outcome} (expected {expected}) {reason}".strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default=os.environ.get("PARITY_DEVICE", "cpu"))
    parser.add_argument("--group", default=None, help="op groups of opinfo/groups.bzl, comma-separated (default: all)")
    parser.add_argument("--ops", default="", help="comma-separated OpInfo names (name or name.variant)")
    parser.add_argument("--dtypes", default="fp32", choices=sorted(DTYPE_CHOICES),
                        help="a set (fp32: high-precision scope; community: upstream's six) or one dtype by name")
    parser.add_argument("--max-samples", type=int, default=None,
                        help="samples per case (default: all); the community's always-all-samples ops "
                             "(catalog.ALWAYS_ALL_SAMPLES) run whole")
    parser.add_argument("--gradients", default="auto", choices=("auto", "on", "off"))
    parser.add_argument("--run-id", default="",
                        help="the run's id; without it (a Bazel target) the store's ingest names the run (--run-id), "
                             "as it does a model target's")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    out = args.out or Path(os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR", "out/opinfo"))
    options = RunOptions(device=args.device, group=args.group, dtypes=args.dtypes,
                         ops=tuple(filter(None, args.ops.split(","))), max_samples=args.max_samples,
                         gradients=args.gradients, run_id=args.run_id)
    try:
        summary = run_suite(options, out)
    except CatalogError as exc:  # an unknown group or op: say so, with the names that exist
        print(f"error: {exc}", file=sys.stderr)
        return 2
    counts = summary.as_dict()
    print(f"opinfo {summary.device} {summary.group}: {counts['ops']} ops, {counts['cases']} cases, "
          f"{counts['samples']} samples, outcomes {counts['outcomes']}, lowering {counts['lowering']}, "
          f"{counts['wall_time_s']} s; results in {out}")
    if summary.unexpected:
        print("UNEXPECTED (fix the op, or the expectation table opinfo/expectations/<device>.json):", file=sys.stderr)
        for line in summary.unexpected:
            print(f"  {line}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
