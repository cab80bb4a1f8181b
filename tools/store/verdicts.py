"""Parity's verdict on a speedup that moved between two runs: a regression, an improvement, or noise.

A model's figures are compared by key (suite, model, mode, dtype, backend, device name, variant), never across
devices. A change is called only when all of these hold:
1. the two runs' speedup intervals (Performance.timing, 95% bootstrap) do not overlap;
2. the change is larger than the model's own noise band: NOISE_MADS robust deviations of its log speedups since
   its last change point, and at least MIN_EFFECT. A model with fewer than MIN_HISTORY runs there has no band of
   its own yet; it gets the HUD's 5% instead. The intervals cover one run's sampling only: on one H200, with the same
   compiled code, device-bound models moved up to 4.4% between runs with intervals apart
   (suites/timm/reference/README.md);
3. the compiled side moved the same way: its median latency intervals do not overlap either. A speedup that moved
   while the compiled latency did not is the eager side moving (a host-bound eager loop, an eager change): that is
   "eager_moved", not the compiler's doing.
Change points over each model's history come from `ruptures` (PELT). The HUD's 5% rule (hud.change) is reported
beside every verdict as the community-compatible column.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from parity.v1 import results_pb2 as pb
from tools.store.db import DTYPE_NAMES, MODE_NAMES, Database, parse_payload
from tools.store.hud import CHANGE_THRESHOLD, NO_ROW
from tools.store.hud import change as hud_change

MIN_EFFECT = 0.03  # below a 3% change no verdict is called, whatever the history: too small to act on
NO_HISTORY_BAND = CHANGE_THRESHOLD  # without a history of its own, a model's band is the HUD's threshold
NOISE_MADS = 3.0   # the noise band: this many robust standard deviations (1.4826 MAD) of the history's log speedups
MIN_HISTORY = 3    # points in the current segment needed before the history widens the band
HOST_BOUND_IDLE_SHARE = 0.5  # an eager iteration whose device idles more than this is host-bound
CHANGE_POINT_PENALTY = 3.0   # PELT's penalty per change point, in log(n) units of the standardised series
KINDS = ("regression", "improvement", "unchanged", "eager_moved", "unknown")


@dataclass(frozen=True)
class Figure:
    """One result's timing as verdicts read it."""
    run_id: str
    commit: str
    start_time: int
    speedup: float         # the HUD's figure
    point: float           # over every sample
    low: float
    high: float
    compiled_low_s: float
    compiled_high_s: float
    samples: int
    idle_share: float      # the eager side's device idle share; -1 when not measured

    @property
    def has_interval(self) -> bool:
        return self.samples > 0 and self.point > 0 and self.low <= self.point <= self.high

    @property
    def host_bound(self) -> bool:
        return self.idle_share > HOST_BOUND_IDLE_SHARE


@dataclass(frozen=True)
class Verdict:
    key: tuple[str, ...]   # suite, model, mode, dtype, backend, device name, variant
    kind: str              # one of KINDS
    hud: str               # the HUD's 5% rule: "regression", "improvement" or ""
    change: float          # new / base - 1 of the speedup over every sample (HUD's figures where there are none)
    band: float            # the noise band the change had to exceed (relative)
    evidence: str          # why, in one line, with the figures
    new: Figure | None = None
    base: Figure | None = None
    change_points: tuple[str, ...] = field(default=())  # run ids where the history shifts
    base_key: tuple[str, ...] = ()  # the configuration compared with, when not `key` (a variant against the base's)

    @property
    def model(self) -> str:
        return self.key[1]


def figure(result: pb.ModelResult) -> Figure | None:
    """The timing of a stored result; None when it measured nothing."""
    perf = result.performance
    if not perf.measured or not perf.speedup > 0 or not math.isfinite(perf.speedup):
        return None
    t = perf.timing
    return Figure(result.run_id, result.provenance.commit, result.provenance.start_time.seconds, perf.speedup,
                  t.speedup.point, t.speedup.low, t.speedup.high, t.compiled_median_s.low, t.compiled_median_s.high,
                  len(t.eager_s), t.eager_device_idle_share if t.idle_share_method.startswith("1 -") else -1.0)


def key_of(result: pb.ModelResult) -> tuple[str, ...]:
    c = result.config
    return (c.suite, c.model, MODE_NAMES.get(c.mode, ""), DTYPE_NAMES.get(c.precision, ""), c.backend,
            result.provenance.device_name or c.device, c.inductor_overrides)


def change_points(values: Sequence[float]) -> list[int]:
    """Indices where a series' level shifts (each the first index of a new segment), by PELT over the log values
    standardised by their robust point-to-point noise. Fewer than 4 points: none."""
    if len(values) < 4 or min(values) <= 0:
        return []
    import numpy as np
    import ruptures

    logs = np.log(np.asarray(values, dtype=float))
    noise = 1.4826 * float(np.median(np.abs(np.diff(logs)))) / math.sqrt(2)
    scale = max(noise, 1e-3)  # a flat history: shifts under 0.1% are not shifts
    found = ruptures.Pelt(model="l2", min_size=2, jump=1).fit((logs / scale).reshape(-1, 1)).predict(
        pen=CHANGE_POINT_PENALTY * math.log(len(values)))
    return [index for index in found if index < len(values)]


def noise_band(history: Sequence[float], shifts: Sequence[int] | None = None) -> tuple[float, str]:
    """(relative band, how it was found) from a model's earlier speedups, since its last change point; `shifts`
    are change_points(history) where the caller has them already."""
    shifts = change_points(history) if shifts is None else shifts
    segment = list(history[shifts[-1]:] if shifts else history)
    if len(segment) < MIN_HISTORY:
        return NO_HISTORY_BAND, (f"band {NO_HISTORY_BAND:.0%}, the HUD's: {len(segment)} run(s) since the last change "
                                 f"point, {MIN_HISTORY} give the model a band of its own")
    logs = [math.log(v) for v in segment]
    centre = statistics.median(logs)
    spread = NOISE_MADS * 1.4826 * statistics.median(abs(v - centre) for v in logs)
    band = max(MIN_EFFECT, math.exp(spread) - 1)
    return band, f"band {band:.1%} from {len(segment)} runs since the last change point"


def decide(key: tuple[str, ...], new: Figure | None, base: Figure | None,
           history: Sequence[Figure] = ()) -> Verdict:
    """The verdict on `new` against `base`; `history` is the base configuration's earlier figures, base last."""
    if new is None or base is None:
        return Verdict(key, "unknown", "", 0.0, 0.0, "no speedup on " + ("both sides" if new is base else
                                                                        "the new side" if new is None else "the base side"),
                       new, base)
    hud = hud_change(new.speedup, base.speedup)
    points = [h.point if h.has_interval else h.speedup for h in history]
    found_shifts = change_points(points)
    shifts = tuple(history[i].run_id for i in found_shifts)
    if not (new.has_interval and base.has_interval):
        rel = new.speedup / base.speedup - 1
        return Verdict(key, "unknown", hud, rel, 0.0, "no timing samples on one side (a result from before "
                       "samples were kept): only the HUD's 5% rule applies", new, base, shifts)
    rel = new.point / base.point - 1
    band, band_why = noise_band(points, found_shifts)
    slower, faster = new.high < base.low, new.low > base.high
    compiled_slower, compiled_faster = new.compiled_low_s > base.compiled_high_s, new.compiled_high_s < base.compiled_low_s
    figures = (f"speedup {base.point:.3f} [{base.low:.3f}, {base.high:.3f}] -> {new.point:.3f} "
               f"[{new.low:.3f}, {new.high:.3f}] ({rel:+.1%}); {band_why}")
    host = " (the eager side is host-bound: its device idles {:.0%})".format(
        max(new.idle_share, base.idle_share)) if new.host_bound or base.host_bound else ""
    if not (slower or faster):
        return Verdict(key, "unchanged", hud, rel, band, f"the intervals overlap: {figures}{host}", new, base, shifts)
    if abs(math.log(new.point / base.point)) <= math.log1p(band):
        return Verdict(key, "unchanged", hud, rel, band, f"within the noise band: {figures}{host}", new, base, shifts)
    if not (compiled_slower if slower else compiled_faster):
        return Verdict(key, "eager_moved", hud, rel, band,
                       f"the compiled latency did not move (its intervals overlap), the eager side did{host}: "
                       f"{figures}", new, base, shifts)
    return Verdict(key, "regression" if slower else "improvement", hud, rel, band,
                   f"intervals apart, beyond the band, compiled latency moved too: {figures}", new, base, shifts)


def figures_by_key(db: Database, run_id: str) -> dict[tuple[str, ...], Figure | None]:
    rows = db.query(f"SELECT payload FROM results WHERE run_id = ? AND community_status NOT IN {NO_ROW} "
                    "ORDER BY suite, model, mode, result_id", (run_id,))
    found: dict[tuple[str, ...], Figure | None] = {}
    for (payload,) in rows:
        result = parse_payload(payload)
        current = figure(result)
        if found.get(key_of(result)) is None:  # a model once per run: the first result that measured it
            found[key_of(result)] = current
    return found


def history_of(db: Database, key: tuple[str, ...], until: int) -> list[Figure]:
    """The key's figures from every run that started no later than `until`, oldest first."""
    suite, model, mode = key[0], key[1], key[2]
    rows = db.query("SELECT payload FROM results WHERE suite = ? AND model = ? AND mode = ? AND start_time <= ? "
                    "ORDER BY start_time, run_id", (suite, model, mode, until))
    found = []
    for (payload,) in rows:
        result = parse_payload(payload)
        current = figure(result)
        if current is not None and key_of(result) == key:
            found.append(current)
    return found


def compare_runs(db: Database, new_run: str, base_run: str) -> list[Verdict]:
    """A verdict for every model key of `new_run`. The base is `base_run`'s figure of the same model on the same
    device; a variant (RunConfig.inductor_overrides) is compared with the base run's configuration of the model."""
    new, base = figures_by_key(db, new_run), figures_by_key(db, base_run)
    verdicts = []
    for key, figure_new in sorted(new.items()):
        base_key = key if key in base else next((k for k in base if k[:-1] == key[:-1]), key)
        figure_base = base.get(base_key)
        until = figure_base.start_time if figure_base is not None else 0
        history = history_of(db, base_key, until) if figure_base is not None else []
        verdicts.append(replace(decide(key, figure_new, figure_base, history),
                                base_key=base_key if base_key != key else ()))
    return verdicts


def render(verdicts: Sequence[Verdict]) -> str:
    """A plain table: Parity's verdict beside the HUD's 5% column, with the evidence."""
    lines = [f"{'model':38s} {'mode':9s} {'device':14s} {'HUD 5% rule':12s} {'Parity':12s} {'change':>8s}  evidence"]
    for v in verdicts:
        shifts = f"; change points at {', '.join(v.change_points)}" if v.change_points else ""
        lines.append(f"{v.model[:38]:38s} {v.key[2]:9s} {v.key[5][:14]:14s} {v.hud or '-':12s} {v.kind:12s} "
                     f"{v.change:+8.1%}  {v.evidence}{shifts}")
    counts = {kind: sum(v.kind == kind for v in verdicts) for kind in KINDS}
    hud_flags = sum(bool(v.hud) for v in verdicts)
    lines.append(f"{len(verdicts)} models: HUD's 5% rule flags {hud_flags}; Parity: "
                 + ", ".join(f"{n} {kind}" for kind, n in counts.items() if n))
    return "\n".join(lines)
