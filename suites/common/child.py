"""The child process of one model run: `python -m suites.common.child <request> --out DIR`.

It always writes a classified result for the request, even for bad input or harness errors; a child
that dies before writing one is classified by its parent (suites/common/launcher.py).
"""

from __future__ import annotations

import argparse
import faulthandler
import functools
import os
import sys
import time
from pathlib import Path

from compiler.backends import get_backend
from compiler.devices.registry import get_device
from parity.v1 import results_pb2 as pb
from proto.result_files import write_atomically
from suites.common import cpu_sets, loaders, parent_death
from suites.common import status as statuses
from suites.common.device_turns import DeviceTurns
from suites.common.manifest import Manifest, load_manifest
from suites.common.model_run import ModelRun, traceback_tail
from suites.common.provenance import base_provenance, device_line
from suites.common.request import ModelRequest, add_request_arguments, request_from_args
from suites.common.result_io import FAILURE_TEXT_CHARS, write_result


def run_request(request: ModelRequest, trace_prefix: Path | None = None,
                timed_checkpoint: Path | None = None) -> pb.ModelResult:
    """Runs the request in this process and returns its classified result (never raises).

    `trace_prefix` (<out>/<stem>) names the profiler traces of a bottleneck analysis; None writes none.
    `timed_checkpoint` receives the result as it stands once timing is done, before the accuracy work
    (the launcher's scratch file: it keeps the timings of a child that then dies or hangs); None writes none.
    """
    start = time.time()
    result = pb.ModelResult()
    manifest = None
    device_info = None
    try:
        manifest = load_manifest(request.suite)
        entry = manifest.model(request.model)
        backend = get_backend(request.backend)
        if request.device == "npu":  # registers FlexAttention's enablement with the npu adapter's prepare()
            import flex_attention.npu  # noqa: F401 (imported for its registration)
        device = get_device(request.device)
        expected, _ = request.expected_status(manifest)
        result.expected_status = statuses.to_enum(expected)
        reason = backend.unsupported_reason(request.device, request.mode) or \
            entry.skip_reason(request.device, request.mode, request.backend)
        availability = device.availability()
        if reason:
            result.community_status = "skipped"
            result.expected_status = pb.STATUS_SKIPPED  # a skip with a reason is the expected outcome
            result.failure.message = reason
        elif not availability.ok:
            result.community_status = "infra_error"
            result.failure.message = availability.reason
        else:
            device_info = device.info()
            print(device_line(device_info.name, device_info.arch), flush=True)
            plan = request.run_plan()
            loader_module = loaders.loader_module(request.suite)
            turns = DeviceTurns.from_env()  # set when models run side by side take turns on the device
            after_timing = functools.partial(_save, timed_checkpoint) if timed_checkpoint else None
            if entry.workload == "generation":  # LLM entries: timed through generate()
                from suites.common.generation_run import GenerationRun

                run = GenerationRun(manifest, entry, backend, device, request.smoke, plan,
                                    loader_module.build_generation, turns, after_timing)
            else:
                run = ModelRun(manifest, entry, request.mode, backend, device, request.smoke,
                               request.resolved_batch_size(manifest), plan, loader_module.build,
                               trace_prefix, turns, after_timing)
            result = run.run()
            result.expected_status = statuses.to_enum(expected)
    except Exception as exc:  # noqa: BLE001 (bad input and harness errors become infra_error results)
        result.community_status = "infra_error"
        result.failure.exception_type = type(exc).__name__
        result.failure.message = str(exc)[:FAILURE_TEXT_CHARS]
        result.failure.log_tail = traceback_tail(exc)
    result.status = statuses.to_enum(result.community_status)
    result.wall_time_s = time.time() - start
    prov = base_provenance(request.device, manifest.version if manifest else "", manifest.sha256 if manifest else "")
    if device_info is not None:
        prov.device_name, prov.device_arch = device_info.name, device_info.arch
    prov.start_time.FromSeconds(int(start))
    prov.duration.FromMilliseconds(int(result.wall_time_s * 1000))
    result.provenance.CopyFrom(prov)
    _fill_config(result, request, manifest)
    return result


def _save(path: Path, result: pb.ModelResult) -> None:
    write_atomically(path, result.SerializeToString())  # the parent may read it at any moment


def _fill_config(result: pb.ModelResult, request: ModelRequest, manifest: Manifest | None) -> None:
    try:
        request.fill_config(result, manifest)
    except Exception:  # noqa: BLE001 (unknown suite, model or backend: keep the request's own words)
        result.result_id, result.run_id = request.result_id(), request.run_id
        result.config.CopyFrom(pb.RunConfig(suite=request.suite, model=request.model, backend=request.backend,
                                            device=request.device, smoke=request.smoke))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    add_request_arguments(parser)
    parser.add_argument("--out", required=True, type=Path, help="directory for the result files")
    parser.add_argument("--stem", required=True, help="result file name without extension")
    parser.add_argument("--timed-checkpoint", type=Path, help="where to save the timings before the accuracy work")
    args = parser.parse_args(argv)
    # A crash in native code (a compiler, a kernel launch) leaves its Python stack in the log, whose tail the
    # launcher puts into the crash result.
    faulthandler.enable()
    parent_death.from_environment()
    cpus = cpu_sets.from_environment()
    if cpus is not None:  # everything but the timing loop runs off the timing cores, compile workers included
        cpu_sets.move_process(cpus.other)
    request = request_from_args(args)
    result = run_request(request, args.out / args.stem, args.timed_checkpoint)
    write_result(result, args.out, args.stem)
    print(f"[child] {request.model} {request.mode} {request.backend}: {result.community_status}", flush=True)
    return 0


def exit_now(code: int) -> None:
    """Ends the process without interpreter teardown (compile worker pool, device context, graph pools): the
    result is already on disk, the teardown only costs wall time, and the launcher reaps the process group."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    exit_now(main())
