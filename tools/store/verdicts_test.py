"""Parity's verdicts (tools/store/verdicts.py) on synthetic timings with a known answer, through a real store."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from parity.v1 import results_pb2 as pb
from suites.common import sampling, uncertainty
from suites.common.result_io import write_result
from tools.store.__main__ import main
from tools.store.db import connect, ingest, load_results, stored_results
from tools.store.store_fixtures import postgres, store_target  # noqa: F401 (fixtures)
from tools.store.verdicts import MIN_EFFECT, NO_HISTORY_BAND, change_points, compare_runs, decide, figure, key_of, noise_band


def timed(run_id: str, model: str, eager_ms: float, compiled_ms: float, noise: float = 0.01, seed: int = 0,
          start: int = 1_000, n: int = 60, variant: str = "") -> pb.ModelResult:
    """A result whose samples are lognormal around the given medians, summarised by the harness's own code."""
    rng = np.random.default_rng(seed)
    eager = list(rng.lognormal(np.log(eager_ms / 1e3), noise, n))
    compiled = list(rng.lognormal(np.log(compiled_ms / 1e3), noise, n))
    found = sampling.Sampled(eager, compiled, uncertainty.intervals(eager, compiled), sampling.SamplingPolicy(30, 0.04, 0),
                             1.0, None)
    result = pb.ModelResult(result_id=f"{run_id}-{model}", run_id=run_id, community_status="pass")
    result.config.CopyFrom(pb.RunConfig(suite="timm", model=model, mode=pb.MODE_INFERENCE,
                                        precision=pb.PRECISION_BFLOAT16, backend="inductor_cudagraphs",
                                        hud_compiler="cudagraphs", device="cuda", inductor_overrides=variant))
    result.provenance.device_name, result.provenance.commit = "NVIDIA H100", run_id
    result.provenance.start_time.FromSeconds(start)
    perf = result.performance
    perf.measured = True
    first_eager, first_compiled = found.first_round()
    perf.speedup = float(np.median(first_eager) / np.median(first_compiled))
    found.fill(perf.timing)
    return result


def verdict_of(new: pb.ModelResult, base: pb.ModelResult, *history: pb.ModelResult):  # type: ignore[no-untyped-def]
    return decide(key_of(new), figure(new), figure(base), [figure(h) for h in (*history, base)])


def test_the_same_distribution_twice_is_unchanged() -> None:
    verdict = verdict_of(timed("b", "m", 2.0, 1.0, seed=2), timed("a", "m", 2.0, 1.0, seed=1))
    assert verdict.kind == "unchanged" and verdict.hud == ""


def test_a_compiled_side_ten_percent_slower_is_a_regression_on_both_rules() -> None:
    verdict = verdict_of(timed("b", "m", 2.0, 1.1, seed=2), timed("a", "m", 2.0, 1.0, seed=1))
    assert (verdict.kind, verdict.hud) == ("regression", "regression")
    assert verdict.change == pytest.approx(1 / 1.1 - 1, abs=0.01)
    assert "compiled latency moved too" in verdict.evidence


def test_a_faster_eager_side_alone_is_not_the_compilers_regression() -> None:
    # Host-bound eager runs 20% faster in the new run; the compiled side did not move. The HUD cries regression.
    verdict = verdict_of(timed("b", "m", 1.6, 1.0, seed=2), timed("a", "m", 2.0, 1.0, seed=1))
    assert (verdict.kind, verdict.hud) == ("eager_moved", "regression")


def test_a_change_smaller_than_the_minimum_effect_is_unchanged_even_when_significant() -> None:
    verdict = verdict_of(timed("b", "m", 2.0, 1.02, noise=0.001, seed=2), timed("a", "m", 2.0, 1.0, noise=0.001, seed=1))
    assert verdict.new.high < verdict.base.low and verdict.kind == "unchanged" and verdict.band == NO_HISTORY_BAND


def test_with_a_steady_history_the_band_narrows_to_the_minimum_effect() -> None:
    history = [timed(f"h{i}", "m", 2.0, 1.0, noise=0.001, seed=20 + i) for i in range(4)]
    base, new = timed("a", "m", 2.0, 1.0, noise=0.001, seed=1), timed("b", "m", 2.0, 1.04, noise=0.001, seed=2)
    assert verdict_of(new, base).kind == "unchanged"  # 4% is within the HUD's 5%
    narrowed = verdict_of(new, base, *history)
    assert narrowed.band == MIN_EFFECT and narrowed.kind == "regression"


def test_a_noisy_history_widens_the_band_and_swallows_a_change_within_it() -> None:
    history = [timed(f"h{i}", "m", 2.0 * s, 1.0, seed=10 + i) for i, s in enumerate((1.0, 1.12, 0.9, 1.1, 0.88))]
    base, new = timed("a", "m", 2.0, 1.0, seed=1), timed("b", "m", 2.0, 1.08, seed=2)
    assert verdict_of(new, base).kind == "regression"  # no history: intervals alone decide
    with_history = verdict_of(new, base, *history)
    assert with_history.kind == "unchanged" and with_history.band > 0.08 and "within the noise band" in with_history.evidence


def test_change_points_find_a_step_and_nothing_in_flat_noise() -> None:
    rng = np.random.default_rng(5)
    flat = list(2.0 * rng.lognormal(0, 0.01, 12))
    step = flat[:6] + [v * 1.2 for v in flat[6:]]
    assert change_points(flat) == []
    assert change_points(step) == [6]
    band, why = noise_band(step)  # only the segment after the step counts
    assert band < 0.05 and "6 runs since the last change point" in why  # the 20% step is not noise


def test_results_without_samples_get_only_the_hud_rule() -> None:
    old = pb.ModelResult(run_id="old")
    old.performance.measured, old.performance.speedup = True, 2.0
    verdict = decide(("k",), figure(timed("b", "m", 2.0, 1.5)), figure(old))
    assert (verdict.kind, verdict.hud) == ("unknown", "regression") and "HUD's 5% rule" in verdict.evidence


def test_samples_round_trip_through_the_store_and_runs_compare_there(tmp_path: Path, store_target: str) -> None:
    runs = {"a1": [timed("a1", "steady", 2.0, 1.0, seed=1, start=10), timed("a1", "slowed", 3.0, 1.0, seed=3, start=10)],
            "b": [timed("b", "steady", 2.0, 1.0, seed=2, start=20),
                  timed("b", "slowed", 3.0, 1.2, seed=4, start=20, variant='{"layout_optimization": false}')]}
    for run_id, results in runs.items():
        for result in results:
            write_result(result, tmp_path / run_id, result.config.model)
    db = connect(store_target)
    ingest(db, load_results([tmp_path / "a1", tmp_path / "b"]))
    stored = {r.config.model: r for r in stored_results(db, "b")}
    assert list(stored["slowed"].performance.timing.compiled_s) == list(runs["b"][1].performance.timing.compiled_s)
    verdicts = {v.model: v for v in compare_runs(db, "b", "a1")}
    assert verdicts["steady"].kind == "unchanged"
    assert verdicts["slowed"].kind == "regression"  # the variant is compared with the base's own configuration
    db.close()


def test_the_cli_prints_both_rules(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for run_id, compiled in (("a1", 1.0), ("a2", 1.25)):
        write_result(timed(run_id, "m", 2.0, compiled, seed=len(run_id) + int(compiled * 10)), tmp_path / run_id, "m")
    db = tmp_path / "parity.db"
    assert main(["--db", str(db), "ingest", str(tmp_path / "a1"), str(tmp_path / "a2")]) == 0
    assert main(["--db", str(db), "verdicts", "--run-id", "a2", "--base", "a1"]) == 0
    out = capsys.readouterr().out
    assert "HUD 5% rule" in out and "regression" in out and "1 models: HUD's 5% rule flags 1; Parity: 1 regression" in out
