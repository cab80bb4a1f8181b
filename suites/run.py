"""Runs suite models eager vs compiled, one child process per model, without Bazel.

  python -m suites.run --suite timm --device cuda --backend inductor_cudagraphs --mode inference --out out/h200
  python -m suites.run --suite timm --model deit_tiny_patch16_224.fb_in1k --device cpu --smoke --out out/smoke

The community harness's flags work too, as aliases (a command from a community issue runs with the program name
replaced by `python -m suites.run --suite SUITE --out DIR`):

  python -m suites.run --suite timm --out out/x --performance --training --amp --backend inductor --device cuda \
      --only resnet50

  --only NAME -> --model NAME; --training / --inference -> --mode (both given: --mode both); --accuracy /
  --performance -> --plan (both given: --plan both); --amp / --bfloat16 are checked against the mode (Parity's
  dtype is fixed per mode: training runs AMP, inference BF16); --devices -> --device; --disable-cudagraphs is
  checked against the backend (Parity's `inductor` has no CUDA graphs; `inductor_cudagraphs` has them).

Writes <out>/<suite>.<model>.<mode>.<backend>.<device>.<variant>.{pb,txtpb,log} per run and prints
progress and a closing table: on a terminal a live view of the running models (phase, elapsed time) and an ETA,
elsewhere one line per finished model and a line on the running ones every minute (suites/progress.py).
Exits 0 when every run matched its expected status, 1 otherwise (a run that --start-within left unstarted too).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from proto.codegen import ensure_generated  # noqa: E402

ensure_generated()

from compiler.backends import get_backend  # noqa: E402
from compiler.devices.registry import known_devices  # noqa: E402
from parity.v1 import results_pb2 as pb  # noqa: E402
from suites.common import device_busy, ledger  # noqa: E402
from suites.common.launcher import (LaunchOptions, result_id_of, run_model, start_zygote,  # noqa: E402
                                    stop_running_children)
from suites.common.manifest import MODES, OPTIMIZERS, WORKLOADS, Manifest, ManifestError, load_manifest  # noqa: E402
from suites.common import status as statuses  # noqa: E402
from suites.common import cpu_sets  # noqa: E402
from suites.common.cpu_sets import CpuSplit  # noqa: E402
from suites.common.request import MODE_NAMES, PLANS, ModelRequest  # noqa: E402
from suites.common.sampling import DEFAULT_TARGET_REL_WIDTH, DEFAULT_TIME_CAP_S, SamplingPolicy  # noqa: E402
from suites.common.zygote import Zygote, ZygoteError  # noqa: E402
from suites.progress import RunProgress  # noqa: E402

_progress: RunProgress | None = None  # the live view, which a stopped run closes before it exits
_record_stopped_call: Callable[[], object] | None = None  # writes the matrix line of a call that a signal stops
# The community's flag for Parity's dtype of each mode (training AMP, inference BF16), which must agree with the mode.
_DTYPE_FLAG = {"training": "--amp", "inference": "--bfloat16"}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", required=True, help="suite name (a folder under suites/ with manifest.bzl)")
    parser.add_argument("--model", "--only", action="append", default=[],
                        help="model name (repeatable); default: all. --only is the community's spelling")
    parser.add_argument("--mode", choices=(*MODES, "both"), default=None, help="default: inference")
    parser.add_argument("--shard", default="0/1", metavar="I/N",
                        help="run every N-th of the selected models, starting at the I-th (0-based), to split a suite "
                             "over several calls of a time-limited machine")
    parser.add_argument("--workload", choices=WORKLOADS, default=None,
                        help="only entries of this workload: forward (a forward pass or training step) or generation")
    parser.add_argument("--backend", required=True, help="a backend of compiler/backend_table.bzl")
    parser.add_argument("--device", "--devices", required=True, choices=known_devices())
    parser.add_argument("--smoke", action="store_true", help="run the scaled-down CPU variants")
    parser.add_argument("--out", type=Path, required=True, help="folder for result files")
    parser.add_argument("--timeout", type=float, default=2000.0,
                        help="per-model timeout in seconds of the model's own time (its waits for the device's turn "
                             "do not count)")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=0, help="override the manifest's batch size")
    parser.add_argument("--split-processes", action="store_true",
                        help="upstream's layout: accuracy and performance in two processes, two cold compiles")
    parser.add_argument("--plan", choices=PLANS, default=None,
                        help="accuracy check, performance experiment, or both from one cold compile (default)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="models run side by side; when they time, they take turns on the device and only their "
                             "compilation overlaps (suites/common/device_turns.py). One that runs out of device memory "
                             "is run again alone at the end, and that result is kept")
    parser.add_argument("--device-lock", type=Path, default=None,
                        help="the turns' lock file, to share with other runs on this device at the same time (e.g. "
                             "LLM entries beside training models); given, every timed model takes turns, even with "
                             "--jobs 1 (default: one private to this run). Turns cover time, not memory: the models "
                             "of all the runs must fit the device together")
    parser.add_argument("--inductor-cache", type=Path, default=None,
                        help="share this compile cache between models (default: a fresh one each: cold start)")
    parser.add_argument("--fresh-processes", action="store_true",
                        help="start every model child as a new interpreter instead of forking it from one that has "
                             "imported the harness and model library already (saves those imports per model)")
    parser.add_argument("--start-within", type=float, default=None, metavar="S",
                        help="start no model (nor a rerun alone) later than S seconds into this call: on a machine "
                             "that cuts a command at a limit, S = the limit less a model's wall keeps a model from "
                             "being cut part way; the ones left get no result and stay planned for --resume")
    parser.add_argument("--run-id", default="", help="groups results in the store (default: host and time)")
    parser.add_argument("--resume", action="store_true",
                        help="continue run --run-id in --out: run only the planned models that have no final result "
                             "(its plan, <out>/<run id>.plan.pb, says which); the selection flags are the plan's")
    parser.add_argument("--timing-target", type=float, default=DEFAULT_TARGET_REL_WIDTH, metavar="WIDTH",
                        help="after the first --repeats pairs, time further rounds until the speedup's 95%% interval "
                             "spans at most this share of it (default %(default)s) ...")
    parser.add_argument("--timing-cap-s", type=float, default=DEFAULT_TIME_CAP_S, metavar="S",
                        help="... or the timing loop has run this long (default %(default)s; 0: one round only)")
    parser.add_argument("--timing-cpus", type=int, default=None, metavar="N",
                        help="cores kept for the timing loop, which nothing else of the run uses (default: 2 on a "
                             "host of 8 or more, else 1; 0: no split). Not on the CPU device, whose timed work is "
                             "the host's own")
    parser.add_argument("--inductor-config", default="", metavar="JSON",
                        help="Inductor options over the manifest's, e.g. '{\"pattern_matcher\": false}': a compiler "
                             "variant for an A/B comparison; recorded in each result")
    parser.add_argument("--optimizer", choices=OPTIMIZERS, default="",
                        help="the training step's optimizer over the manifest's, on every device (upstream's "
                             "steps none on the CPU): an experiment; recorded in each result")
    community = parser.add_argument_group(
        "the community harness's flags", "aliases, so that a command from a community issue runs unchanged apart from "
        "the program name (--only and --devices are listed above)")
    community.add_argument("--training", action="store_true", help="--mode training (with --inference: both)")
    community.add_argument("--inference", action="store_true", help="--mode inference (with --training: both)")
    community.add_argument("--accuracy", action="store_true", help="--plan accuracy (with --performance: both)")
    community.add_argument("--performance", action="store_true", help="--plan performance (with --accuracy: both)")
    community.add_argument("--amp", action="store_true", help="accepted where training runs: Parity trains in AMP")
    community.add_argument("--bfloat16", action="store_true",
                           help="accepted where inference runs: Parity's inference is BF16")
    community.add_argument("--disable-cudagraphs", action="store_true",
                           help="accepted with a backend without CUDA graphs (inductor; inductor_cudagraphs has them)")
    args = parser.parse_args(argv)
    try:
        _community_aliases(args)
    except ValueError as exc:
        parser.error(str(exc))  # exit 2, before anything runs
    return args


def _community_aliases(args: argparse.Namespace) -> None:
    """Folds the community's flags into Parity's own (and removes them), so that both spellings of a command give
    the same namespace; a flag that contradicts another is a ValueError."""
    args.mode = _either(args.mode, "--mode", {"training": args.training, "inference": args.inference}, "inference")
    args.plan = _either(args.plan, "--plan", {"accuracy": args.accuracy, "performance": args.performance}, "both")
    modes = set(MODES if args.mode == "both" else (args.mode,))
    dtypes = {mode for mode, flag in _DTYPE_FLAG.items() if getattr(args, flag[2:])}
    if dtypes and dtypes != modes:
        flags = " ".join(_DTYPE_FLAG[mode] for mode in sorted(dtypes))
        raise ValueError(f"{flags} does not fit --mode {args.mode}: Parity's dtype is fixed per mode, training runs "
                         "AMP (--amp) and inference BF16 (--bfloat16)")
    if args.disable_cudagraphs:
        try:
            graphs = get_backend(args.backend).device_graphs
        except ValueError:
            graphs = False  # an unknown backend is named by main()
        if graphs:
            raise ValueError(f"--disable-cudagraphs contradicts --backend {args.backend}, which captures device "
                             "graphs; Parity's inductor backend is Inductor without CUDA graphs")
    for alias in ("training", "inference", "accuracy", "performance", "amp", "bfloat16", "disable_cudagraphs"):
        delattr(args, alias)


def _either(value: str | None, flag: str, aliases: dict[str, bool], default: str) -> str:
    """Parity's flag, or what the community's aliases of it say (both of a pair: "both"); they must agree."""
    given = [name for name, on in aliases.items() if on]
    if not given:
        return value or default
    implied = "both" if len(given) == 2 else given[0]
    if value is not None and value != implied:
        raise ValueError(f"{flag} {value} contradicts {' '.join('--' + name for name in given)}")
    return implied


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        manifest = load_manifest(args.suite)
        for name in args.model:
            manifest.model(name)
        backend = get_backend(args.backend)
        _check_parallelism(args)
        if args.resume and not args.run_id:
            raise ValueError("--resume needs the --run-id of the run to continue")
        shard, shards = _shard(args.shard)
        cpus = _cpu_split(args)
        _check_inductor_config(args.inductor_config)
        SamplingPolicy(args.repeats, args.timing_target, args.timing_cap_s)  # a bad target or cap fails here
    except (ManifestError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    run_id = args.run_id or f"{socket.gethostname()}-{time.strftime('%Y%m%dT%H%M%S')}"
    modes = MODES if args.mode == "both" else (args.mode,)
    names = [name for name in args.model or sorted(manifest.models)
             if args.workload in (None, manifest.models[name].workload)][shard::shards]
    requests = [ModelRequest(suite=args.suite, model=name, mode=mode, backend=backend.name, device=args.device,
                             smoke=args.smoke, batch_size=args.batch_size, plan=args.plan, repeats=args.repeats,
                             warmup=args.warmup, run_id=run_id, timing_target=args.timing_target,
                             timing_cap_s=args.timing_cap_s, inductor_config=args.inductor_config,
                             optimizer=args.optimizer)
                for name in names for mode in modes if mode in manifest.models[name].modes]
    turns_dir = tempfile.TemporaryDirectory(prefix="parity-turns-")  # goes with the run
    timed = args.split_processes or args.plan != "accuracy"
    take_turns = timed and (args.jobs > 1 or args.device_lock is not None)
    lock = args.device_lock or Path(turns_dir.name) / "device.lock"
    options = LaunchOptions(timeout_s=args.timeout, inductor_cache=args.inductor_cache,
                            split_processes=args.split_processes, parallel_jobs=args.jobs,
                            device_turns=lock if take_turns else None, cpus=cpus)
    try:
        folder_lock = ledger.claim_folder(args.out, run_id)  # held until the run ends, however it ends
        if args.resume:
            plan = ledger.read_plan(args.out, run_id)
            requests = ledger.unfinished(args.out, plan)
            print(f"[parity] resuming run {run_id}: {len(requests)} of {len(plan.planned)} planned runs have no final "
                  "result", flush=True)
        else:
            ledger.write_plan(args.out, run_id, args.suite, args.device, manifest.version, manifest.sha256, requests,
                              lambda request: result_id_of(request, options))
    except ledger.LedgerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    zygote = None if args.fresh_processes or not requests else _start_zygote(args.suite, args.jobs, cpus)
    options = replace(options, zygote=zygote)
    side_by_side = f", {args.jobs} at a time" if args.jobs > 1 else ""
    side_by_side += f", taking turns on the device ({lock})" if take_turns else ""
    side_by_side += f", timing on cores {cpus.to_env().replace('/', ', the rest on ')}" if cpus else ""
    side_by_side += f", Inductor variant {args.inductor_config}" if args.inductor_config else ""
    side_by_side += f", optimizer {args.optimizer}" if args.optimizer else ""
    print(f"[parity] {args.suite} {manifest.version} ({manifest.sha256[:12]}): {len(requests)} runs, backend "
          f"{backend.name} ({backend.hud_compiler}), device {args.device}{' smoke' if args.smoke else ''}, plan "
          f"{args.plan}{side_by_side}, run {run_id}", flush=True)
    results: list[pb.ModelResult] = [pb.ModelResult()] * len(requests)
    global _progress
    _progress = progress = RunProgress(requests, args.out, args.jobs, live=sys.stdout.isatty())

    def too_late() -> bool:
        return args.start_within is not None and time.monotonic() - started > args.start_within

    def launch(request: ModelRequest) -> pb.ModelResult | None:
        if too_late():
            return None  # no result: the ledger keeps it planned, and --resume runs it
        progress.started(request)  # when a pool thread takes it, not when it is queued
        return run_model(request, args.out, options)

    previous = {stop: signal.signal(stop, _stopped) for stop in (signal.SIGTERM, signal.SIGINT)}
    busy = device_busy.BusySampler(args.device)
    started = time.monotonic()

    first_attempts: list[pb.ModelResult] = []  # of the models run again alone: they took device time too

    def record_call(finished: list[pb.ModelResult]) -> device_busy.MatrixCall:
        runs = finished + first_attempts
        call = device_busy.MatrixCall(len(runs), time.monotonic() - started, sum(r.wall_time_s for r in runs),
                                      busy.share(), len(busy.samples), busy.sampler)
        device_busy.record(args.out, run_id, call)
        return call

    global _record_stopped_call
    _record_stopped_call = lambda: record_call([r for r in results if r.result_id])  # noqa: E731
    try:
        with busy, progress, ThreadPoolExecutor(max_workers=args.jobs) as pool:  # threads only wait on their children
            running = {pool.submit(launch, request): index for index, request in enumerate(requests)}
            for future in as_completed(running):
                index = running[future]
                if (result := future.result()) is None:
                    progress.recount(-1)
                    continue
                results[index] = result
                done = progress.finished(requests[index], result)
                print(f"[{done}/{progress.total}] {_row(result)}", flush=True)
            for index in [i for i, r in enumerate(results) if ran_out_beside_others(r)]:
                if too_late():
                    print(f"[parity] {requests[index].model}: out of device memory beside other model runs, and not "
                          f"run again alone: past --start-within {args.start_within:g} s; its result stays (run it "
                          f"alone: --jobs 1 --model {requests[index].model})", flush=True)
                    continue
                first_attempts.append(results[index])
                results[index] = _again_alone(requests[index], args.out, replace(options, parallel_jobs=1), progress)
    finally:  # main() also runs in-process (tests): give the caller its handlers back
        _progress = _record_stopped_call = None
        for stop, handler in previous.items():
            signal.signal(stop, handler)
        if zygote is not None:
            zygote.close()
        turns_dir.cleanup()
        os.close(folder_lock)  # every result is written: the folder is free for the next run (--resume)
    not_started = [request for request, result in zip(requests, results) if not result.result_id]
    results = [result for result in results if result.result_id]
    print(_table(results))
    print(f"[parity] {record_call(results).describe()}")
    if args.resume and (run := device_busy.totals(args.out, run_id)) is not None:
        print(f"[parity] the whole run so far: {run.describe()}")
    mismatches = [r for r in results if r.status != r.expected_status]
    for r in mismatches:  # the reason is in the result file too, but the console is where a user looks first
        print(f"[parity] {r.config.model} {MODE_NAMES.get(r.config.mode, '')}: {r.community_status}, expected "
              f"{statuses.to_string(r.expected_status)}: {_reason(r)}{checked_elsewhere(r, manifest)}")
    print(f"[parity] {len(results) - len(mismatches)} matched expectations, {len(mismatches)} did not; results in {args.out}")
    if not_started:
        print(f"[parity] {len(not_started)} of {len(requests)} runs not started, past --start-within "
              f"{args.start_within:g} s: {', '.join(r.file_stem() for r in not_started)}; the same command with "
              f"`--resume` (run {run_id}) runs them")
    return 1 if mismatches or not_started else 0


def ran_out_beside_others(result: pb.ModelResult) -> bool:
    """Out of device memory while other model runs shared the device (--jobs > 1): their memory may be what was
    short, not the model's own (on an 80 GB H100, four TIMM training models side by side ran three out)."""
    return result.failure.out_of_memory and result.config.parallel_jobs > 1


def _again_alone(request: ModelRequest, out: Path, alone: LaunchOptions, progress: RunProgress) -> pb.ModelResult:
    """Runs a model that ran out of memory beside others again, alone; its result is the one kept, and the first
    attempt's logs stay beside it as <stem>[.accuracy|.performance].oom-beside-others.log."""
    stem = request.file_stem()
    for part in ("", ".accuracy", ".performance"):
        log = out / f"{stem}{part}.log"
        if log.exists():
            log.rename(out / f"{stem}{part}.oom-beside-others.log")
    print(f"[parity] {request.model} {request.mode}: out of device memory beside "
          "other model runs; running it again alone", flush=True)
    progress.recount(+1)
    progress.started(request)
    result = run_model(request, out, alone)
    progress.finished(request, result)
    print(f"[alone] {_row(result)}", flush=True)
    return result


def _start_zygote(suite: str, jobs: int, cpus: CpuSplit | None) -> Zygote | None:
    try:
        zygote = start_zygote(suite, jobs, cpus)
    except ZygoteError as exc:
        print(f"[parity] {exc}; every model starts a fresh interpreter instead", file=sys.stderr, flush=True)
        return None
    print(f"[parity] harness and model library imported once, in {zygote.startup_s:.1f} s; "
          "model processes are forked from there", flush=True)
    return zygote


def _stopped(signum: int, _frame: object) -> None:
    """SIGTERM (e.g. an outer `timeout`) or Ctrl-C: no model process may outlive the run on the device. Results
    already written stay; each model that was running gets a `timeout` result that says the run was stopped."""
    why = signal.Signals(signum).name
    if _progress is not None:  # a live view hides the cursor until it stops
        _progress.stop()
    killed = stop_running_children(why)
    if _record_stopped_call is not None:  # the matrix line of this call, with the models it finished
        _record_stopped_call()
    print(f"[parity] stopped by {why}: killed {killed} running model process(es), each with a timeout result "
          "that says so; finished results are in place", file=sys.stderr, flush=True)
    os._exit(128 + signum)


def _cpu_split(args: argparse.Namespace) -> CpuSplit | None:
    """Timing cores apart from the rest, on an accelerator; None on the CPU device or with --timing-cpus 0."""
    if args.device == "cpu" or args.timing_cpus == 0:
        return None
    found = cpu_sets.split(timing_cores=args.timing_cpus)
    return found if found.isolated else None


def _check_inductor_config(text: str) -> None:
    import torch._inductor.config as inductor_config

    overrides = ModelRequest("", "", "inference", "", "", inductor_config=text).inductor_overrides()
    unknown = sorted(name for name in overrides if not hasattr(inductor_config, name.split(".")[0]))
    if unknown:
        raise ValueError(f"--inductor-config names options torch._inductor.config does not have: {', '.join(unknown)}")


def _shard(text: str) -> tuple[int, int]:
    try:
        index, total = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard must be I/N with whole numbers, e.g. 0/4, not {text!r}") from None
    if not 0 <= index < total:
        raise ValueError(f"--shard {text}: I must be at least 0 and below N")
    return index, total


def _check_parallelism(args: argparse.Namespace) -> None:
    if args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1, not {args.jobs}")
    if args.start_within is not None and args.start_within < 0:
        raise ValueError(f"--start-within must be 0 or more seconds, not {args.start_within:g}")
    if args.split_processes and args.plan != "both":
        raise ValueError("--split-processes already runs accuracy and performance separately; drop --plan")


def _reason(r: pb.ModelResult) -> str:
    """The failure's first line, else the accuracy detail's last (where the failing check is named)."""
    lines = r.failure.message.strip().splitlines()[:1] or r.accuracy.detail.strip().splitlines()[-1:]
    return (lines or ["no failure recorded"])[0][:160]


def checked_elsewhere(r: pb.ModelResult, manifest: Manifest) -> str:
    """A note when the check ran at another batch size than upstream's accuracy run, whose statuses the
    manifest's expectations are: at another size, a status need not agree with them."""
    checked = r.config.accuracy_batch_size
    try:
        upstream = manifest.model(r.config.model).accuracy_batch_size_for(MODE_NAMES[r.config.mode],
                                                                         manifest.accuracy_batch_size)
    except (ManifestError, KeyError):  # an unknown model or mode was named on its own line already
        return ""
    if not checked or checked == upstream:
        return ""
    return f" (checked at batch {checked}; upstream's statuses are at batch {upstream}, which --plan accuracy uses)"


def _row(r: pb.ModelResult) -> str:
    mode = MODE_NAMES.get(r.config.mode, "")
    perf = f"{r.performance.speedup:5.2f}x" if r.performance.measured else "    - "
    return (f"{r.config.model:38s} {mode:9s} {r.community_status:22s} {perf} "
            f"compile {r.compile_time.compilation_latency_s:7.1f}s  mem {r.memory.compression_ratio:4.2f}  "
            f"wall {r.wall_time_s:6.1f}s")


def _table(results: list[pb.ModelResult]) -> str:
    header = f"{'model':38s} {'mode':9s} {'status':22s} {'speedup':>6s} {'compile latency':>16s} {'compression':>10s} {'wall':>10s}"
    return "\n".join([header, *(_row(r) for r in results)])


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
