"""One triage: reproduce, bisect, minify, verify; the record and the repro written beside the result.

Steps, each in fresh subprocesses and all under one time limit (budget.py):
  reproduce  the model's accuracy check runs again as the result ran it; if it does not fail the same way, the triage
             ends there (OUTCOME_NOT_REPRODUCED): nothing it found would be about this failure.
  bisect     torch's compiler bisector, one model run per test (bisect.py).
  minify     the Dynamo/AOT minifier (minify.py); the repro is stored as <stem>.repro.py beside the result.
  verify     the stored repro runs in a fresh interpreter and must fail as the model did (verify.py); a repro the
             limit cut short is checked too, before the triage gives up.
The limit reached in any step ends the triage with OUTCOME_GAVE_UP and what each step had reached; so does SIGTERM,
a caller's own limit, so that a triage stopped from outside still leaves its record.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

from google.protobuf import text_format

from parity.v1 import results_pb2 as pb
from opinfo.tables import load_expectations
from proto.result_files import REPRO_SUFFIX, TRIAGE_TEXT_SUFFIX, write_atomically
from suites.common.manifest import load_manifest
from suites.common.provenance import base_provenance
from suites.common.result_io import FAILURE_TEXT_CHARS
from tools.store.failures import OPINFO_SUITE, configuration_label
from tools.triage import settled
from tools.triage.bisect import BisectProgress, Culprit, bisect, seed_cache
from tools.triage.budget import Budget, GaveUp
from tools.triage.memo import BisectAnswer, Memo
from tools.triage.minify import Minified, minify, store_repro
from tools.triage.runs import OWNED_VARIABLES, HarnessError, ModelRuns, log
from tools.triage.target import (Target, TriageInputError, described, other_failure_note, read_target,
                                  same_failure)
from tools.triage.verify import verify

DEFAULT_LIMIT_S = 1800.0
Record = pb.TriageRecord


def triage(result_path: Path, limit_s: float = DEFAULT_LIMIT_S, out_dir: Path | None = None,
           work_dir: Path | None = None, inductor_cache: Path | None = None, max_runs: int = 0) -> pb.TriageRecord:
    """Triages the compiled-side failure stored at `result_path` within `limit_s` seconds; writes
    `<stem>.triage.txtpb` (and `<stem>.repro.py` when a repro was made) into `out_dir` (default: beside the result)
    and returns the record. TriageInputError (nothing written) for input it does not triage. `work_dir` keeps the
    triage's working files (every run's log and result, the minifier's folders); by default they go with it. Given
    again after a triage of the same result stopped at its limit, the triage goes on from where that one stopped
    (memo.py). `max_runs` (0: no limit) bounds the model runs as `limit_s` bounds the time.
    `inductor_cache` shares compiled kernels with other runs (default: a fresh cache); compiled graphs are never
    shared (runs.NO_GRAPH_CACHES), and the bisector's runs always start from a fresh folder of their own."""
    start = time.time()
    budget = Budget(limit_s)  # from the start: the limit bounds the whole triage, its own imports included
    target = read_target(result_path)
    inherited = [name for name in OWNED_VARIABLES if name in os.environ]
    if inherited:
        raise TriageInputError(f"unset {', '.join(inherited)}: the triage sets these for the runs that need them, "
                               "and inherited they would steer every run")
    if limit_s <= 0:
        raise TriageInputError(f"--limit-s must be positive, not {limit_s:g}")
    if max_runs < 0:
        raise TriageInputError(f"--max-runs must be 0 (no limit) or positive, not {max_runs}")
    import torch
    import torch._inductor.compiler_bisector  # noqa: F401 (imported before any run sets TORCH_BISECT_*: it reads them once)

    dest = (out_dir or result_path.parent).resolve()
    dest.mkdir(parents=True, exist_ok=True)
    record = _new_record(target, limit_s)
    keep = work_dir is not None
    work = (work_dir or Path(tempfile.mkdtemp(prefix="parity-triage-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    memo = Memo.open(work, target.result.result_id, torch.__version__)
    _absolute_sys_path()
    try:
        cache = inductor_cache.resolve() if inductor_cache is not None else work / "cache"
        with budget.stopped_by_sigterm():
            _run_steps(target, record, budget, work, dest, cache, memo, max_runs)
    finally:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
    record.wall_s = time.time() - start
    for step, seconds in budget.step_wall_s.items():
        record.step_wall_s[step] = seconds
    record.provenance.CopyFrom(_provenance(target, start, record.wall_s))
    write_atomically(dest / f"{target.stem}{TRIAGE_TEXT_SUFFIX}", text_format.MessageToString(record).encode())
    return record


def _run_steps(target: Target, record: pb.TriageRecord, budget: Budget, work: Path, dest: Path, cache: Path,
               memo: Memo, max_runs: int) -> None:
    """Fills `record` step by step; the outcome says how far it got. Never raises for the model's or the compiler's
    behaviour: a harness error is OUTCOME_ERROR with its traceback."""
    runs = ModelRuns(target, work, budget, cache, max_runs=max_runs)
    progress = BisectProgress()
    notes: list[str] = []
    resumed = memo.reproduced()
    try:
        with budget.step("reproduce"):
            first = resumed or runs.run("reproduce")
        memo.keep_reproduced(first)
        if not same_failure(target.result, first):
            record.outcome = Record.OUTCOME_NOT_REPRODUCED
            notes.append(f"reproduce: the model ran again as the result ran it (plan {target.request.plan}) and gave "
                         f"{described(first)}, not {described(target.result)}; nothing was bisected or minified")
            return
        with budget.step("bisect"):
            culprit = _bisect(target, runs, progress, work, notes, memo)
        if culprit is not None:
            _fill_culprit(record, culprit)
        with budget.step("minify"):
            minified = minify(runs, work, budget, record.culprit_backend)
        if minified.script is None:
            notes.append(f"minify: {minified.note}")
        else:
            stored = store_repro(minified.script, dest, target.stem, _header(target, record, minified))
            record.repro_path = stored.name
            record.repro_lines = len(stored.read_text().splitlines())
            record.repro_nodes = minified.nodes
            if minified.note:
                notes.append(f"minify: {minified.note}")
            with budget.step("verify"):  # a partial repro too: larger than it could be, it may still reproduce
                verdict = verify(dest / stored.name, target.status, runs.cache, work, budget, target.model_timeout_s,
                                 settled.command(target.request))
            record.reproduces = Record.REPRODUCES_YES if verdict.reproduces else Record.REPRODUCES_NO
            record.repro_output_tail = verdict.output_tail
            if not verdict.reproduces:
                notes.append(f"verify: the stored repro did not fail as the model did ({verdict.why})")
            if minified.partial:
                raise GaveUp(f"the {budget.limit_s:g} s limit stopped the minifier")
        record.outcome = Record.OUTCOME_DONE
    except GaveUp as stop:
        record.outcome = Record.OUTCOME_GAVE_UP
        notes.insert(0, f"gave up: {stop}; reached: {_reached(record, progress, runs)}")
        partial = progress.partial_culprit()
        if not record.culprit_backend and partial is not None:  # what the bisector had established, if not all
            _fill_culprit(record, partial)
    except Exception as exc:  # noqa: BLE001 (the triage's own failure is a record too, never a lost night)
        record.outcome = Record.OUTCOME_ERROR
        where = traceback.format_exc()[-FAILURE_TEXT_CHARS // 2:]  # the innermost frames
        notes.insert(0, f"the triage failed: {type(exc).__name__}: {exc}\n{where}")
    finally:
        if resumed is not None:
            notes.append(f"resumed from {work}: the reproduce run and {memo.replayed} bisector test(s) were answered "
                         f"from an earlier triage of this result; {runs.count} model run(s) ran in this one")
        record.bisect_runs = progress.runs
        record.error = "\n".join(notes)[:FAILURE_TEXT_CHARS]  # the first line says what ended it


def _bisect(target: Target, runs: ModelRuns, progress: BisectProgress, work: Path, notes: list[str],
            memo: Memo) -> Culprit | None:
    seeded: list[Path] = []

    def test(env: dict[str, str], shared: Path) -> bool:
        if shared not in seeded:  # the kernels the reproduce run compiled, so the bisector's runs need not
            seed_cache(runs.cache, shared)
            seeded.append(shared)
        what = env["TORCH_BISECT_BACKEND"] + (f" {env['TORCH_BISECT_SUBSYSTEM']}" if "TORCH_BISECT_SUBSYSTEM" in env
                                              else "")
        ran = runs.run(f"bisect {what}", env, cache=shared)
        return BisectAnswer(not same_failure(target.result, ran), other_failure_note(what, target.result, ran))

    try:
        culprit = bisect(test, work / "bisect", progress, work / "bisect.log", memo)
    except (GaveUp, HarnessError):
        raise
    except Exception as exc:  # noqa: BLE001 (the bisector's own complaint: a flaky failure, say; minify still runs)
        notes.append(f"bisect: the bisector stopped ({type(exc).__name__}: {exc}) after {progress.describe()}")
        return None
    finally:
        notes.extend(progress.notes)  # the tests that failed another way, those answered from the memo too
    if culprit is None:
        notes.append(f"bisect: every backend passed under the bisector ({progress.describe()}): the failure did not "
                     "recur in its runs, so no culprit is named")
    log(f"bisect: {_culprit_text(culprit)} after {progress.runs} runs")
    return culprit


def _fill_culprit(record: pb.TriageRecord, culprit: Culprit) -> None:
    record.culprit_backend = culprit.backend
    record.culprit_subsystem = culprit.subsystem
    record.bisect_number = culprit.bisect_number
    record.debug_info = culprit.debug_info


def _culprit_text(culprit: Culprit | None) -> str:
    if culprit is None:
        return "no culprit"
    parts = [culprit.backend, culprit.subsystem]
    if culprit.subsystem and culprit.bisect_number >= 0:
        parts.append(f"bisect number {culprit.bisect_number}")
    if culprit.debug_info:
        parts.append(culprit.debug_info)
    return " / ".join(p for p in parts if p)


def _reached(record: pb.TriageRecord, progress: BisectProgress, runs: ModelRuns) -> str:
    reached = [f"{runs.count} model run(s)", f"bisect: {progress.describe()}"]
    if progress.failing_backend and not record.culprit_subsystem:
        reached.append(f"failing backend {progress.failing_backend}")
    if record.repro_path:
        reached.append(f"repro {record.repro_path} ({record.repro_nodes} FX nodes)")
    return "; ".join(reached)


def _new_record(target: Target, limit_s: float) -> pb.TriageRecord:
    result, config = target.result, target.result.config
    return Record(signature=target.signature, result_id=result.result_id, run_id=result.run_id, suite=config.suite,
                  model=config.model, mode=config.mode, backend=config.backend, device=config.device,
                  community_status=result.community_status, bisect_number=-1, limit_s=limit_s)


def _header(target: Target, record: pb.TriageRecord, minified: Minified) -> str:
    partial = "  (partial: the time limit stopped the minifier)" if minified.partial else ""
    culprit = _culprit_text(Culprit(record.culprit_backend, record.culprit_subsystem, record.bisect_number,
                                    record.debug_info)) if record.culprit_backend else "not found"
    return (f"# Minified repro of {configuration_label(target.result.config)}: {target.status}{partial}\n"
            f"# made by Parity's triage (tools/triage) from {target.path.name}; the bisector's culprit: {culprit}\n"
            f"# From a Parity checkout, `python {shlex.join(settled.command(target.request)[1:])} "
            f"{target.stem}{REPRO_SUFFIX}` "
            f"runs it under the accuracy check's settings (deterministic algorithms, no TF32) and exits non-zero while "
            f"the failure is present; `python {target.stem}{REPRO_SUFFIX}` runs it with torch's defaults. Its inputs "
            f"are in {target.stem}.repro.inputs/ beside it when saved; without that folder it runs on random inputs.\n")


def _provenance(target: Target, start: float, wall_s: float) -> pb.Provenance:
    """Where the triage ran, with the manifest its model runs used (the result's own, which may be older, is in the
    result's provenance)."""
    if target.request.suite == OPINFO_SUITE:  # an OpInfo case: the device's expectation table is its manifest
        table = load_expectations(target.request.device)
        version, sha256 = table.version, table.sha256
    else:
        manifest = load_manifest(target.request.suite)
        version, sha256 = manifest.version, manifest.sha256
    prov = base_provenance(target.request.device, version, sha256)
    prov.start_time.FromSeconds(int(start))
    prov.duration.FromMilliseconds(int(wall_s * 1000))
    return prov


def _absolute_sys_path() -> None:
    """'' on sys.path means the current folder; the model processes start in folders of their own, so they get it by
    name (the launcher passes sys.path on as their PYTHONPATH)."""
    sys.path[:] = [p or os.getcwd() for p in sys.path]
