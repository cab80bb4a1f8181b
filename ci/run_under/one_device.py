"""`--run_under` wrapper: one accelerator per test on a multi-device host.

  one_device.py [--slots N] [--slot-dir DIR] [--timeout S] TEST_COMMAND [ARGS...]

Takes an exclusive flock on one of N slot files, sets CUDA_VISIBLE_DEVICES (PARITY_DEVICE=cuda) or
ASCEND_RT_VISIBLE_DEVICES (PARITY_DEVICE=npu) to that slot, and execs the test command. The exec'd
test inherits the locked descriptor, so the slot is held exactly as long as the test process lives;
when it exits or is killed, the kernel releases the lock. With PARITY_DEVICE=cpu (or unset) there is
no device to share and the command is exec'd directly.

Environment (flags win): PARITY_DEVICE_SLOTS (default: `nvidia-smi -L` / `npu-smi info -l`, else 1),
PARITY_DEVICE_SLOT_DIR (default /tmp/parity-device-slots), PARITY_DEVICE_SLOT_TIMEOUT (seconds, default
3600). Exit code 75 when no slot came free in time.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

VISIBLE_VAR = {"cuda": "CUDA_VISIBLE_DEVICES", "npu": "ASCEND_RT_VISIBLE_DEVICES"}
DEFAULT_SLOT_DIR = "/tmp/parity-device-slots"
DEFAULT_TIMEOUT_S = 3600.0
EXIT_NO_SLOT = 75  # EX_TEMPFAIL: the host was busy, the test never ran
POLL_S = 0.05


class SlotError(RuntimeError):
    """Bad configuration; the message says what to change."""


class SlotTimeout(SlotError):
    """No slot came free in time."""


@dataclass(frozen=True)
class SlotCount:
    count: int
    reason: str  # where the count came from, for the log line


def parse_nvidia_smi(output: str) -> int:
    # One "GPU i: ..." line per device; MIG instances are indented lines below their GPU.
    return sum(1 for line in output.splitlines() if line.startswith("GPU "))


def parse_npu_smi(output: str) -> int:
    total = re.search(r"Total Count\s*:\s*(\d+)", output)
    if total:
        return int(total.group(1))
    return len(re.findall(r"NPU ID\s*:", output))


def detect_slots(device: str, env: dict[str, str]) -> SlotCount:
    """PARITY_DEVICE_SLOTS, else the device tool's count, else 1 (one test at a time is always safe)."""
    if env.get("PARITY_DEVICE_SLOTS"):
        raw = env["PARITY_DEVICE_SLOTS"]
        if not raw.isdigit() or int(raw) < 1:
            raise SlotError(f"PARITY_DEVICE_SLOTS={raw!r} is not a positive integer: set it to the device count")
        return SlotCount(int(raw), "PARITY_DEVICE_SLOTS")
    tool, parse = {"cuda": (["nvidia-smi", "-L"], parse_nvidia_smi),
                   "npu": (["npu-smi", "info", "-l"], parse_npu_smi)}[device]
    try:
        done = subprocess.run(tool, capture_output=True, text=True, timeout=30)
        count = parse(done.stdout) if done.returncode == 0 else 0
    except (OSError, subprocess.TimeoutExpired):
        count = 0
    if count < 1:
        return SlotCount(1, f"`{' '.join(tool)}` found no devices; using 1 slot (set PARITY_DEVICE_SLOTS)")
    return SlotCount(count, f"`{' '.join(tool)}`")


def visible_value(slot: int, inherited: str | None) -> str:
    """The slot's device. If the variable already narrows the host (e.g. "4,5"), slot i is its i-th entry."""
    if inherited:
        entries = [e.strip() for e in inherited.split(",") if e.strip()]
        if slot >= len(entries):
            raise SlotError(f"slot {slot} is beyond the {len(entries)} devices already visible ({inherited!r}): "
                            f"set PARITY_DEVICE_SLOTS to at most {len(entries)}")
        return entries[slot]
    return str(slot)


def acquire(slot_dir: Path, count: int, timeout_s: float) -> tuple[int, int]:
    """(slot, fd) with an exclusive flock held on fd; polls until `timeout_s`, then raises SlotError."""
    slot_dir.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + timeout_s
    while True:
        for slot in range(count):
            fd = os.open(slot_dir / f"slot-{slot}.lock", os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            # Who holds it, for the message another waiter prints when it times out.
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
            return slot, fd
        if time.monotonic() >= deadline:
            raise SlotTimeout(f"all {count} device slots in {slot_dir} stayed busy for {timeout_s:g} s "
                            f"({_holders(slot_dir, count)}). Run fewer tests at once (--local_test_jobs="
                            f"{count}), raise PARITY_DEVICE_SLOT_TIMEOUT, or end the processes named here")
        time.sleep(POLL_S)


def _holders(slot_dir: Path, count: int) -> str:
    def holder(slot: int) -> str:
        try:
            return (slot_dir / f"slot-{slot}.lock").read_text().strip() or "unknown"
        except OSError:
            return "unreadable"

    return ", ".join(f"slot {slot}: {holder(slot)}" for slot in range(count))


def _timeout_from(env: dict[str, str]) -> float:
    raw = env.get("PARITY_DEVICE_SLOT_TIMEOUT") or str(DEFAULT_TIMEOUT_S)
    try:
        return float(raw)
    except ValueError:
        raise SlotError(f"PARITY_DEVICE_SLOT_TIMEOUT={raw!r} is not a number of seconds") from None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="one_device", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slots", type=int, default=None, help="device count (overrides detection)")
    parser.add_argument("--slot-dir", type=Path, default=None)
    parser.add_argument("--timeout", type=float, default=None, help="seconds to wait for a free slot")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no test command given (Bazel appends it when this is --run_under)")

    env = dict(os.environ)
    device = env.get("PARITY_DEVICE", "cpu") or "cpu"
    try:
        if device == "cpu":
            os.execvp(command[0], command)  # nothing to share out
        if device not in VISIBLE_VAR:
            raise SlotError(f"PARITY_DEVICE={device!r} is not one of cpu, cuda, npu")
        if args.slots is not None:
            env["PARITY_DEVICE_SLOTS"] = str(args.slots)
        slots = detect_slots(device, env)
        slot_dir = args.slot_dir or Path(env.get("PARITY_DEVICE_SLOT_DIR") or DEFAULT_SLOT_DIR)
        timeout_s = args.timeout if args.timeout is not None else _timeout_from(env)
        slot, fd = acquire(slot_dir, slots.count, timeout_s)
        var = VISIBLE_VAR[device]
        env[var] = visible_value(slot, env.get(var))
        env["PARITY_DEVICE_SLOT"] = str(slot)
    except SlotError as exc:
        print(f"one_device: {exc}", file=sys.stderr)
        return EXIT_NO_SLOT if isinstance(exc, SlotTimeout) else 2
    except OSError as exc:  # exec of the cpu pass-through, or the slot directory
        print(f"one_device: {exc}", file=sys.stderr)
        return 127
    print(f"one_device: slot {slot}/{slots.count} ({slots.reason}), {var}={env[var]}", file=sys.stderr)
    os.set_inheritable(fd, True)  # the test process keeps the lock; it goes when the test's process goes
    try:
        os.execvpe(command[0], command, env)
    except OSError as exc:
        print(f"one_device: cannot run {command[0]!r}: {exc}", file=sys.stderr)
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
