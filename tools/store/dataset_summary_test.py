"""The dataset summary's figures: the HUD's pass rate and geomean, the geomean's bootstrap interval over the passing
models' timed pairs, and the run's matrix line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from parity.v1 import results_pb2 as pb
from suites.common.device_busy import MatrixCall, record
from suites.common.result_io import read_result, result_files, write_result
from tools.store.dataset_summary import geomean_interval, main, summarize_dataset

SAMPLED = Path("suites/timm/reference/experiments/verdicts-h200-cb6f7b2/a1")  # real results that keep their pairs


def _pairs(speedup: float, seed: int, n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    compiled = 0.001 * (1 + 0.05 * rng.random(n))
    return compiled * speedup * (1 + 0.05 * (rng.random(n) - 0.5)), compiled


def test_geomean_interval_brackets_the_geomean_of_each_models_ratio_of_medians() -> None:
    models = [_pairs(2.0, 1), _pairs(0.5, 2), _pairs(4.0, 3)]
    spread = geomean_interval(models)
    by_hand = np.exp(np.mean([np.log(np.median(e) / np.median(c)) for e, c in models]))
    assert spread.point == pytest.approx(by_hand)
    assert spread.low < spread.point < spread.high and spread.high - spread.low < 0.1 * spread.point
    noisier = geomean_interval([_pairs(2.0, 1, n=6), _pairs(0.5, 2, n=6), _pairs(4.0, 3, n=6)])
    assert noisier.high - noisier.low > spread.high - spread.low  # fewer pairs, a wider interval


def test_summary_gives_pass_rate_geomean_interval_and_matrix_line(tmp_path: Path) -> None:
    template = read_result(result_files(SAMPLED)[0])
    assert template.performance.timing.eager_s, "the template must keep its timed pairs"

    def result(model: str, status: str, pairs: tuple[np.ndarray, np.ndarray] | None) -> None:
        written = pb.ModelResult()
        written.CopyFrom(template)
        written.result_id, written.config.model, written.community_status = model, model, status
        del written.performance.timing.eager_s[:], written.performance.timing.compiled_s[:]
        if pairs is not None:
            written.performance.timing.eager_s.extend(pairs[0])
            written.performance.timing.compiled_s.extend(pairs[1])
        write_result(written, tmp_path, model)

    a, b = _pairs(2.0, 1), _pairs(3.0, 2)
    result("a", "pass", a)
    result("b", "pass", b)
    result("c", "pass", None)  # passes, keeps no samples: in the HUD's figures, not in the interval
    result("d", "fail_accuracy", _pairs(9.0, 3))  # fails: in neither
    result("e", "skipped", None)  # upstream writes no row: not counted
    record(tmp_path, "r1", MatrixCall(4, 100.0, 250.0, 0.4, 100, "nvidia-smi"))
    lines = summarize_dataset(tmp_path)
    assert "pass 75%, 3/4" in lines[0]
    assert "2 of 3 passing models keep their samples" in lines[0]
    low, high = (float(x) for x in lines[0].split("95% interval ")[1].split("x")[0].split("-"))
    assert low < geomean_interval([a, b]).point < high and low < np.sqrt(6.0) * 1.01 and high > np.sqrt(6.0) * 0.99
    assert lines[1].startswith("run r1: matrix wall 100 s for 4 model runs") and "device busy 40%" in lines[1]


def test_a_path_that_is_not_a_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nowhere")]) == 2
    assert "is not a folder" in capsys.readouterr().err
