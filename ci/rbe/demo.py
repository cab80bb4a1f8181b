"""The --config=rbe protocol path on loopback, with Bazel's own remote worker as the REAPI service.

  python -m ci.rbe.demo [--targets LABEL...]

In a clean copy of this checkout (ci/second_checkout.py's copy, with its own Bazel output root):
  1. `bazel test --config=rbe` runs the targets on the worker; every test must be reported as executed
     "remote", and the execution log must show each test action's REAPI platform: OSFamily, the venv path
     (pyvenv) and the lock hash (pylock) from @pypi//:rbe_platform, merged with the target's device pool.
  2. A fresh output root runs them again: every test must be a remote cache hit (the worker's AC/CAS).
  3. A GPU-only model target under --config=cuda: its test action's platform must carry gpu=h200 merged
     with the platform's properties (what a farm routes on; this worker has no GPU, so the test's own
     outcome is not checked).
Prints the timings and the platform of each test action. Exit code 1 when a check fails.
Not shown here: routing between machines (this worker ignores platform properties; a farm matches them).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from ci.bazel_summary import summarize
from ci.rbe.remote_worker import PORT, start, stop
from ci.second_checkout import REPO, ScratchBazel, copy_checkout

# Tests that need no generated protobuf module: proto/codegen.py resolves its own path through the
# runfiles symlinks into the source tree, which a remote worker does not have (see ci/rbe/README.md).
DEFAULT_TARGETS = ["//ci/run_under:one_device_test", "//tools/affected:affected_test", "//ci/rbe:rbe_test",
                   "//ci:cache_server_test"]
GPU_TARGET = "//suites/timm:repvgg_a2_inference_bf16_inductor_cudagraphs"
SCRATCH = Path("/tmp/parity-rbe-demo")


def spawns(execution_log: Path) -> list[dict]:
    """Bazel 4.2.3 writes the JSON execution log as concatenated (pretty-printed) SpawnExec objects."""
    text, decoder, out, position = execution_log.read_text(), json.JSONDecoder(), [], 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return out
        value, position = decoder.raw_decode(text, position)
        out.append(value)


def test_platforms(execution_log: Path) -> dict[str, dict[str, str]]:
    """{test label path: its platform properties} for the TestRunner spawns."""
    found = {}
    for spawn in spawns(execution_log):
        if spawn.get("mnemonic") != "TestRunner":
            continue
        properties = {p["name"]: p["value"] for p in spawn.get("platform", {}).get("properties", [])}
        found[spawn.get("listedOutputs", ["?"])[0].split("/testlogs/")[-1].rsplit("/", 1)[0]] = properties
    return found


def run(bazel: ScratchBazel, targets: list[str], events: Path, name: str,
        flags: tuple[str, ...] = ()) -> tuple[float, Path, Path, str]:
    bep, log = events / f"{name}.bep.json", events / f"{name}.exec.json"
    command = [*bazel.startup(), "test", "--config=rbe", *flags, f"--remote_executor=grpc://127.0.0.1:{PORT}",
               f"--build_event_json_file={bep}", f"--execution_log_json_file={log}", *targets]
    started = time.monotonic()
    done = subprocess.run(command, cwd=bazel.workspace, capture_output=True, text=True)
    elapsed = time.monotonic() - started
    processes = next((line.split("INFO: ", 1)[-1] for line in done.stderr.splitlines() if " processes: " in line), "")
    if done.returncode not in (0, 3):
        raise RuntimeError(f"bazel --config=rbe exited {done.returncode}: {done.stderr.strip()[-1500:]}")
    return elapsed, bep, log, processes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ci.rbe.demo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--targets", nargs="+", default=DEFAULT_TARGETS)
    parser.add_argument("--bazel", default="bazel")
    args = parser.parse_args(argv)
    shutil.rmtree(SCRATCH, ignore_errors=True)
    events = SCRATCH / "events"
    events.mkdir(parents=True)
    problems: list[str] = []
    worker_root = SCRATCH / "worker"
    bazel = ScratchBazel(SCRATCH / "checkout", SCRATCH / "bazel-root-1", args.bazel)
    try:
        copy_checkout(REPO, bazel.workspace)
        print(f"[rbe] {start(worker_root)}")
        first_s, bep, log, processes = run(bazel, args.targets, events, "first")
        summary = summarize(bep)
        print(f"[rbe] first run, cold: {first_s:.1f} s, {processes}")
        for target in summary.targets:
            print(f"[rbe]   {target.label}: {target.status}, strategy {target.strategy!r}")
            if target.strategy != "remote" or target.failed:
                problems.append(f"{target.label}: {target.status} via {target.strategy!r}, expected PASSED via 'remote'")
                log_file = bazel.workspace / ".bazel" / "testlogs" / target.label[2:].replace(":", "/") / "test.log"
                if log_file.exists():
                    print("\n".join(log_file.read_text(errors="replace").splitlines()[-15:]), file=sys.stderr)
        platforms = test_platforms(log)
        for label, properties in sorted(platforms.items()):
            print(f"[rbe]   platform of {label}: {properties}")
            if properties.get("OSFamily") != "linux" or "pyvenv" not in properties or len(properties.get("pylock", "")) != 16:
                problems.append(f"{label}: platform {properties} lacks OSFamily/pyvenv/pylock")
        if len(platforms) != len(summary.targets):
            problems.append(f"{len(platforms)} test actions in the execution log for {len(summary.targets)} tests")
        bazel.shutdown()
        bazel = ScratchBazel(bazel.workspace, SCRATCH / "bazel-root-2", args.bazel)
        second_s, bep, _, processes = run(bazel, args.targets, events, "second")
        print(f"[rbe] second run, fresh output root: {second_s:.1f} s, {processes}")
        for target in summarize(bep).targets:
            if target.strategy != "remote cache hit":
                problems.append(f"{target.label}: second run via {target.strategy!r}, expected 'remote cache hit'")
        # A GPU model's test action: its platform must merge the cuda pool into the platform's properties.
        # (This worker has no GPU and ignores the properties, so the test itself is not expected to pass.)
        _, _, log, _ = run(bazel, [GPU_TARGET], events, "gpu", ("--config=cuda",))
        gpu = test_platforms(log)
        print(f"[rbe] platform of the GPU-only target {GPU_TARGET} under --config=cuda: {gpu}")
        expected = {"OSFamily": "linux", "gpu": "h200"}
        if not gpu or any(expected.items() - props.items() or "pyvenv" not in props for props in gpu.values()):
            problems.append(f"{GPU_TARGET}: platform {gpu} does not merge {expected} with pyvenv/pylock")
    except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
        problems.append(str(exc))
    finally:
        bazel.shutdown()
        print(f"[rbe] {stop(worker_root)}")
        shutil.rmtree(SCRATCH, ignore_errors=True)
    for problem in problems:
        print(f"[rbe] FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
