"""The timing loop: interleaved eager/compiled samples, in rounds, until the speedup is known well enough.

The first round is the community's (RunConfig.repeats pairs, 30 by default): the HUD's figures come from it
alone. Later rounds run only while the speedup's interval is wider than the target, and stop at the time cap.
The loop runs on the timing cores (suites/common/cpu_sets.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from parity.v1 import results_pb2 as pb
from suites.common import cpu_sets, uncertainty

DEFAULT_TARGET_REL_WIDTH = 0.04  # a 95% interval spanning at most 4% of the speedup: a 5% change stands out
DEFAULT_TIME_CAP_S = 30.0        # per model; host-bound eager models rarely get narrower than this buys
MAX_PAIRS = 2000                 # keeps a result's samples small whatever the cap


@dataclass(frozen=True)
class SamplingPolicy:
    round_pairs: int = 30
    target_rel_width: float = DEFAULT_TARGET_REL_WIDTH
    time_cap_s: float = DEFAULT_TIME_CAP_S

    def __post_init__(self) -> None:
        if self.round_pairs < 1:
            raise ValueError(f"timing needs at least one pair a round, not {self.round_pairs}")
        if not self.target_rel_width >= 0 or not self.time_cap_s >= 0:
            raise ValueError(f"the timing target ({self.target_rel_width}) and cap ({self.time_cap_s} s) must be "
                             "numbers >= 0 (0 s: one round only)")


@dataclass(frozen=True)
class Sampled:
    eager_s: list[float]
    compiled_s: list[float]
    intervals: uncertainty.TimingIntervals
    policy: SamplingPolicy
    timing_s: float
    cpus: cpu_sets.CpuSplit | None

    @property
    def target_met(self) -> bool:
        return self.intervals.speedup.relative_width <= self.policy.target_rel_width

    def first_round(self) -> tuple[list[float], list[float]]:
        """The community's samples: the HUD's median speedup reads these alone."""
        n = self.policy.round_pairs
        return self.eager_s[:n], self.compiled_s[:n]

    def fill(self, timing: pb.Timing) -> None:
        timing.eager_s[:] = self.eager_s
        timing.compiled_s[:] = self.compiled_s
        for field in ("speedup", "eager_median_s", "compiled_median_s"):
            found: uncertainty.Interval = getattr(self.intervals, field)
            getattr(timing, field).CopyFrom(pb.Interval(point=found.point, low=found.low, high=found.high))
        timing.confidence, timing.method = uncertainty.CONFIDENCE, uncertainty.METHOD
        timing.target_rel_width, timing.time_cap_s = self.policy.target_rel_width, self.policy.time_cap_s
        timing.reached_rel_width = self.intervals.speedup.relative_width
        timing.target_met = self.target_met
        timing.timing_s = self.timing_s
        if self.cpus is not None:
            timing.timing_cpus[:] = sorted(self.cpus.timing)
            timing.other_cpus[:] = sorted(self.cpus.other)
            timing.cpus_isolated = self.cpus.isolated


def sample(eager: Callable[[], float], compiled: Callable[[], float], policy: SamplingPolicy,
           cpus: cpu_sets.CpuSplit | None) -> Sampled:
    """Interleaved pairs (eager just before compiled) in rounds, on the timing cores."""
    eager_s: list[float] = []
    compiled_s: list[float] = []
    start = time.perf_counter()
    with cpu_sets.on_timing_cores(cpus):
        while True:
            for _ in range(policy.round_pairs):
                eager_s.append(eager())
                compiled_s.append(compiled())
            found = uncertainty.intervals(eager_s, compiled_s)
            if (found.speedup.relative_width <= policy.target_rel_width
                    or time.perf_counter() - start >= policy.time_cap_s or len(eager_s) >= MAX_PAIRS):
                break
    return Sampled(eager_s, compiled_s, found, policy, time.perf_counter() - start, cpus)
