"""one_device: real wrapper processes holding real flocks on slot files in a scratch directory."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ci.run_under.one_device import EXIT_NO_SLOT, parse_npu_smi, parse_nvidia_smi, visible_value

HERE = Path(__file__).resolve().parent
WRAPPER = [sys.executable, str(HERE / "one_device.py")]

# Prints: visible devices, slot, start, end (wall clock; all children run on this host).
HOLD = ("import os, sys, time; start = time.time(); time.sleep(float(sys.argv[1])); "
        "print(os.environ['CUDA_VISIBLE_DEVICES'], os.environ['PARITY_DEVICE_SLOT'], start, time.time())")


def env(device: str = "cuda", **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("CUDA_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES") and not k.startswith("PARITY_DEVICE")}
    return {**base, "PARITY_DEVICE": device, **extra}


def wrapped(slot_dir: Path, *command: str, slots: int = 2, timeout: float = 30) -> list[str]:
    return [*WRAPPER, "--slots", str(slots), "--slot-dir", str(slot_dir), "--timeout", str(timeout), "--", *command]


def test_two_slots_four_children_never_share_a_slot(tmp_path: Path) -> None:
    children = [subprocess.Popen(wrapped(tmp_path, sys.executable, "-c", HOLD, "1.0"), env=env(),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    runs = []
    for child in children:
        out, err = child.communicate(timeout=60)
        assert child.returncode == 0, err
        visible, slot, start, end = out.split()
        runs.append((visible, int(slot), float(start), float(end)))

    assert sorted(visible for visible, *_ in runs) == ["0", "0", "1", "1"]
    assert all(visible == str(slot) for visible, slot, *_ in runs)
    for slot in (0, 1):
        intervals = sorted((start, end) for _, s, start, end in runs if s == slot)
        assert intervals[0][1] < intervals[1][0], f"slot {slot} was held twice at once: {intervals}"
    starts = sorted(start for *_, start, _ in runs)
    ends = sorted(end for *_, end in runs)
    # The 3rd and 4th child could start only after a holder ended: they waited.
    assert starts[2] > ends[0] and starts[3] > ends[1]


def test_a_killed_holder_frees_its_slot_and_waiters_time_out_clearly(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        wrapped(tmp_path, sys.executable, "-c", "import time; print('holding', flush=True); time.sleep(60)", slots=1),
        env=env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        waiter = subprocess.run(wrapped(tmp_path, "true", slots=1, timeout=0.3), env=env(),
                                capture_output=True, text=True, timeout=30)
        assert waiter.returncode == EXIT_NO_SLOT
        assert "all 1 device slots" in waiter.stderr and "stayed busy for 0.3 s" in waiter.stderr
        assert f"pid {holder.pid}" in waiter.stderr  # exec'd: the test process itself holds the lock
        assert "--local_test_jobs=1" in waiter.stderr
    finally:
        holder.kill()  # SIGKILL: no clean-up code runs; the kernel drops the lock with the process
        holder.wait(timeout=30)
        holder.stdout.close()
    started = time.monotonic()
    after = subprocess.run(wrapped(tmp_path, sys.executable, "-c", HOLD, "0", slots=1, timeout=10), env=env(),
                           capture_output=True, text=True, timeout=30)
    assert after.returncode == 0, after.stderr
    assert after.stdout.split()[:2] == ["0", "0"]
    assert time.monotonic() - started < 5


def test_exit_code_and_npu_variable(tmp_path: Path) -> None:
    code = "import os, sys; print(os.environ['ASCEND_RT_VISIBLE_DEVICES']); sys.exit(3)"
    done = subprocess.run(wrapped(tmp_path, sys.executable, "-c", code, slots=1), env=env("npu"),
                          capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout.strip()) == (3, "0")


def test_slots_index_into_an_already_narrowed_device_list(tmp_path: Path) -> None:
    code = "import os; print(os.environ['CUDA_VISIBLE_DEVICES'])"
    done = subprocess.run(wrapped(tmp_path, sys.executable, "-c", code, slots=2),
                          env=env(CUDA_VISIBLE_DEVICES="4,5"), capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "4", done.stderr
    assert visible_value(1, "4, 5") == "5" and visible_value(1, None) == "1"


def test_cpu_passes_through_without_a_lock(tmp_path: Path) -> None:
    code = "import os; print(os.environ.get('CUDA_VISIBLE_DEVICES', 'unset'))"
    done = subprocess.run(wrapped(tmp_path / "slots", sys.executable, "-c", code), env=env("cpu"),
                          capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "unset" and not (tmp_path / "slots").exists()


@pytest.mark.parametrize(("extra", "message"), [
    ({"PARITY_DEVICE": "tpu"}, "PARITY_DEVICE='tpu' is not one of cpu, cuda, npu"),
    ({"PARITY_DEVICE_SLOTS": "two"}, "PARITY_DEVICE_SLOTS='two' is not a positive integer"),
    ({"PARITY_DEVICE_SLOT_TIMEOUT": "soon"}, "PARITY_DEVICE_SLOT_TIMEOUT='soon' is not a number"),
])
def test_bad_configuration_says_what_to_fix(tmp_path: Path, extra: dict[str, str], message: str) -> None:
    command = [*WRAPPER, "--slot-dir", str(tmp_path), "true"]
    done = subprocess.run(command, env={**env(), **extra}, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and message in done.stderr


def test_shell_shim_runs_the_wrapper(tmp_path: Path) -> None:
    done = subprocess.run([str(HERE / "one_device.sh"), "--slots", "1", "--slot-dir", str(tmp_path),
                           sys.executable, "-c", "import os; print(os.environ['CUDA_VISIBLE_DEVICES'])"],
                          env=env(), capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout.strip()) == (0, "0"), done.stderr


def test_device_counts_from_the_vendor_tools() -> None:
    nvidia = ("GPU 0: NVIDIA H200 (UUID: GPU-0)\n"
              "  MIG 3g.71gb  Device  0: (UUID: MIG-0)\n"
              "GPU 1: NVIDIA H200 (UUID: GPU-1)\n")
    assert parse_nvidia_smi(nvidia) == 2
    assert parse_npu_smi("\tTotal Count                    : 8\n\n\tNPU ID : 0\n") == 8
    assert parse_npu_smi("NPU ID : 0\nNPU ID : 1\n") == 2
    assert parse_nvidia_smi("") == 0
