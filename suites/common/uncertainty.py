"""How sure a timing is: bootstrap intervals over the interleaved per-iteration samples.

The samples come in pairs (eager iteration i ran just before compiled iteration i), so drift in the host or the
device's clocks moves both halves of a pair together. The speedup's interval is a paired percentile bootstrap of
the HUD's own statistic, median(eager) / median(compiled): resampling whole pairs keeps that pairing, and the
statistic stays the one the HUD reports (a Hodges-Lehmann estimate would be a different figure). Percentile rather
than BCa: BCa's jackknife is unreliable for medians of few, tied samples. scipy.stats.bootstrap does the work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

CONFIDENCE = 0.95
RESAMPLES = 2000
METHOD = f"paired percentile bootstrap, {RESAMPLES} resamples (scipy.stats.bootstrap), {CONFIDENCE:.0%}"
SEED = 20261206  # fixed: the same samples always give the same interval


@dataclass(frozen=True)
class Interval:
    point: float
    low: float
    high: float

    @property
    def relative_width(self) -> float:
        """(high - low) / point: the share of the figure the interval spans; inf when the point is 0."""
        return (self.high - self.low) / self.point if self.point > 0 else math.inf


@dataclass(frozen=True)
class TimingIntervals:
    speedup: Interval
    eager_median_s: Interval
    compiled_median_s: Interval


def _ratio_of_medians(eager: np.ndarray, compiled: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.median(eager, axis=axis) / np.median(compiled, axis=axis)


def _median(samples: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.median(samples, axis=axis)


def _bootstrap(data: tuple[np.ndarray, ...], statistic, point: float) -> Interval:  # type: ignore[no-untyped-def]
    if len(data[0]) < 2 or np.ptp(np.concatenate(data)) == 0:  # one sample, or all equal: nothing to resample
        return Interval(point, point, point)
    from scipy import stats  # only where a timing is summarised: it costs every other process its import time

    found = stats.bootstrap(data, statistic, paired=len(data) > 1, vectorized=True, n_resamples=RESAMPLES,
                            confidence_level=CONFIDENCE, method="percentile", rng=np.random.default_rng(SEED))
    low, high = float(found.confidence_interval.low), float(found.confidence_interval.high)
    return Interval(point, min(low, point), max(high, point))


def intervals(eager_s: Sequence[float], compiled_s: Sequence[float]) -> TimingIntervals:
    """Point estimates over every sample, each with its bootstrap interval."""
    if len(eager_s) != len(compiled_s) or not eager_s:
        raise ValueError(f"timing samples must come in pairs: {len(eager_s)} eager, {len(compiled_s)} compiled")
    eager, compiled = np.asarray(eager_s, dtype=float), np.asarray(compiled_s, dtype=float)
    if not (np.all(np.isfinite(eager)) and np.all(np.isfinite(compiled)) and eager.min() > 0 and compiled.min() > 0):
        raise ValueError("timing samples must be finite and positive")
    return TimingIntervals(
        speedup=_bootstrap((eager, compiled), _ratio_of_medians, float(_ratio_of_medians(eager, compiled))),
        eager_median_s=_bootstrap((eager,), _median, float(np.median(eager))),
        compiled_median_s=_bootstrap((compiled,), _median, float(np.median(compiled))))
