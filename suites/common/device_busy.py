"""How busy the device was while a run ran, and how much its model runs overlapped (issue #38: a matrix run side by
side must keep the device busy, and say how busy).

On CUDA, `nvidia-smi --query-gpu=utilization.gpu` gives, per sample period, the percent of the period in which one or
more kernels ran; the run's busy share is the mean of those samples over its wall time. Other devices have no sampler
here (on an NPU, npu-smi's AI Core usage would be the figure): their share is None, and the summary says so.

Each `suites.run` invocation appends one line to `<out>/<run id>.matrix.jsonl`: its wall time, the sum of its model
runs' walls, and the busy share. A run resumed over several calls has a line per call; `totals` adds them up.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

MATRIX_SUFFIX = ".matrix.jsonl"
SAMPLE_MS = 1000


@dataclass(frozen=True)
class MatrixCall:
    """One invocation of a run: its wall, its model runs' walls added up, and the device's busy share (0-1)."""
    runs: int
    wall_s: float
    model_walls_s: float
    busy_share: float | None  # None: no sampler for this device, or no sample came
    busy_samples: int
    sampler: str  # what measured it, or why nothing did

    def describe(self) -> str:
        overlap = f"{self.model_walls_s / self.wall_s:.2f}x" if self.wall_s > 0 else "-"
        busy = (f"device busy {self.busy_share:.0%} ({self.busy_samples} samples of {self.sampler})"
                if self.busy_share is not None else f"device busy not measured ({self.sampler})")
        return (f"matrix wall {self.wall_s:.0f} s for {self.runs} model runs whose walls add up to "
                f"{self.model_walls_s:.0f} s ({overlap}); {busy}")


def parse_utilization(line: str) -> float | None:
    """One `nvidia-smi --format=csv,noheader,nounits` line of utilization.gpu as a share; None for anything else."""
    try:
        percent = float(line.strip())
    except ValueError:
        return None
    return percent / 100 if 0 <= percent <= 100 else None


class BusySampler:
    """Samples the device's utilization in the background for as long as the `with` block runs."""

    def __init__(self, device: str) -> None:
        self.samples: list[float] = []
        self.why_not = ""
        self._proc: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None
        smi = shutil.which("nvidia-smi")
        if device != "cuda":
            self.why_not = f"no sampler for the {device} device"
        elif smi is None:
            self.why_not = "nvidia-smi is not on PATH"
        else:
            self._argv = [smi, "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits",
                          f"--loop-ms={SAMPLE_MS}", f"--id={_visible_gpu()}"]

    @property
    def sampler(self) -> str:
        return self.why_not or f"nvidia-smi utilization.gpu every {SAMPLE_MS} ms"

    def __enter__(self) -> BusySampler:
        if not self.why_not:
            self._proc = subprocess.Popen(self._argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            self._reader = threading.Thread(target=self._read, daemon=True)
            self._reader.start()
        return self

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            share = parse_utilization(line)
            if share is not None:
                self.samples.append(share)

    def __exit__(self, *_: object) -> None:
        if self._proc is not None:
            self._proc.terminate()
            self._proc.wait()
        if self._reader is not None:
            self._reader.join(timeout=5)

    def share(self) -> float | None:
        return sum(self.samples) / len(self.samples) if self.samples else None


def _visible_gpu() -> str:
    """The GPU this process sees as cuda:0, in nvidia-smi's numbering (an index or a UUID)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return visible or "0"


def record(out_dir: Path, run_id: str, call: MatrixCall) -> None:
    with open(out_dir / f"{run_id}{MATRIX_SUFFIX}", "a") as f:
        f.write(json.dumps({**asdict(call), "ended": time.strftime("%Y-%m-%dT%H:%M:%S%z")}) + "\n")


def totals(out_dir: Path, run_id: str) -> MatrixCall | None:
    """A run's calls added up (the busy share weighted by each call's samples); None before its first call ended."""
    path = out_dir / f"{run_id}{MATRIX_SUFFIX}"
    if not path.is_file():
        return None
    calls = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    samples = sum(c["busy_samples"] for c in calls)
    measured = [c for c in calls if c["busy_share"] is not None]
    share = sum(c["busy_share"] * c["busy_samples"] for c in measured) / samples if measured and samples else None
    return MatrixCall(sum(c["runs"] for c in calls), sum(c["wall_s"] for c in calls),
                      sum(c["model_walls_s"] for c in calls), share, samples,
                      "; ".join(sorted({c["sampler"] for c in calls})))
