"""Deliberately misbehaving models: each proves one failure class is caught and classified.

They run through the real launcher, child process and harness (suites/common/launcher_test.py and
`python -m suites.run --suite selftest --device cpu --backend aot_eager --mode both`).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time

import torch

from suites.common.launcher import PARALLEL_JOBS_ENV
from suites.common.manifest import ModelEntry
from suites.common.workload import Workload


class TinyMlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training and torch.is_grad_enabled():  # upstream runs inference under no_grad
            raise RuntimeError("selftest: inference ran with autograd enabled")
        return self.net(x)


class TanhMlp(TinyMlp):
    """Healthy, with one tanh: the op whose Inductor lowering the triage tests plant a fault in (tools/triage/
    planted_fault.py), so that its compiled result is wrong in a known place while the model itself is sound."""

    def __init__(self) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4))


class RaisesInForward(TinyMlp):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise RuntimeError("selftest: this model always fails in forward")


class DeviceOutOfMemory(TinyMlp):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        raise torch.OutOfMemoryError("selftest: simulated allocator failure")


@torch.library.custom_op("parity_selftest::share_the_device", mutates_args=())
def share_the_device(x: torch.Tensor) -> torch.Tensor:
    """Stands for a compiled kernel's workspace: there is none to spare while other model runs share the device."""
    if int(os.environ.get(PARALLEL_JOBS_ENV, "1")) > 1:
        raise torch.OutOfMemoryError("selftest: out of device memory while other model runs share the device")
    return x.clone()


@share_the_device.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


class OutOfMemoryBesideOthers(TinyMlp):
    """Its compiled graph runs out of device memory whenever other model runs share the device (status OOM), as
    large TIMM training models did side by side on an 80 GB H100; alone it passes."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = super().forward(x)
        return torch.ops.parity_selftest.share_the_device(out) if torch.compiler.is_compiling() else out


class RaisesWhenChecked(TinyMlp):
    """Runs while timed, fails once the accuracy check turns deterministic algorithms on (as a model with an op
    that has no deterministic kernel does): its first eager run fails after the model has run eagerly."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.are_deterministic_algorithms_enabled():
            raise RuntimeError("selftest: this model fails under deterministic algorithms")
        return super().forward(x)


class KilledWhenChecked(TinyMlp):
    """Runs while timed, then its process is killed (as by the kernel's OOM killer) once the accuracy check turns
    deterministic algorithms on: the parent's crash result must keep the timings already measured."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.are_deterministic_algorithms_enabled():
            os.kill(os.getpid(), signal.SIGKILL)
        return super().forward(x)


class DiffersWhenCompiled(TinyMlp):
    """Computes something else under torch.compile: the accuracy check must catch it."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = super().forward(x)
        return out + 1.0 if torch.compiler.is_compiling() else out


class PointwiseChain(torch.nn.Module):
    """Mostly pointwise work on a widened activation: the acceptance model of the bottleneck analysis.

    With gelu forced to an ATen fallback (PARITY_FORCE_FALLBACK=aten.gelu.default), Inductor's compiled run
    spends most of its time in the fallback calls: eight gelus against two small generated kernels (the
    widening product and the mean), so the fallback share stays the largest under a loaded machine.
    """

    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(16, 16)
        self.widen = torch.nn.Parameter(torch.randn(1, 16, 1024))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x).unsqueeze(-1) * self.widen
        for _ in range(8):
            h = torch.nn.functional.gelu(h)
        return h.mean(-1)


class UpdatesItsState(TinyMlp):
    """Like moco, its forward updates the model's own tensors (a queue buffer and a parameter), so every call
    sees what the previous one left: the compiled check must start from the state the eager reference had.
    Like yolov3's grid, a buffer registered as None gets its tensor on the first call."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("queue", torch.zeros(4))
        self.register_buffer("offsets", None)
        self.momentum = torch.nn.Parameter(torch.ones(4), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.offsets is None:
            self.offsets = torch.zeros(4, device=x.device)
        out = super().forward(x) + self.queue * self.momentum + self.offsets
        with torch.no_grad():
            self.queue.add_(1.0)
            self.momentum.mul_(2.0)
        return out


_calls = [0]  # process-wide, so that fresh model copies keep counting


class NotDeterministic(TinyMlp):
    """Each call differs from the last, so the two eager runs cannot agree."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _calls[0] += 1
        return super().forward(x) * float(_calls[0])


def _misbehave_at_load(behaviour: str) -> None:
    if behaviour == "killed":
        os.kill(os.getpid(), signal.SIGKILL)
    elif behaviour == "segfault":
        ctypes.string_at(0)
    elif behaviour == "hang":
        time.sleep(3600)
    elif behaviour == "exits":
        sys.exit(3)
    elif behaviour == "not_implemented":
        raise NotImplementedError("selftest: this model is not implemented for this configuration")


_MODULES = {"raises_in_forward": RaisesInForward, "device_oom": DeviceOutOfMemory,
            "oom_beside_others": OutOfMemoryBesideOthers,
            "raises_when_checked": RaisesWhenChecked, "killed_when_checked": KilledWhenChecked,
            "differs_when_compiled": DiffersWhenCompiled,
            "not_deterministic": NotDeterministic,
            "slow_fallback": PointwiseChain, "updates_its_state": UpdatesItsState, "tanh_mlp": TanhMlp}


def build(entry: ModelEntry, mode: str, device: str, smoke: bool, batch_size: int) -> Workload:
    behaviour = (entry.smoke_build if smoke else entry.build)["behaviour"]
    _misbehave_at_load(behaviour)
    torch.manual_seed(1337)
    model = _MODULES.get(behaviour, TinyMlp)()
    return Workload(model=model.to(device), inputs=(torch.randn(batch_size, 16, device=device),))
