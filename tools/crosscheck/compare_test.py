"""Pairing, relative differences and the three renderings of a comparison, on results built here."""

from __future__ import annotations

import json

import pytest

from parity.v1 import results_pb2 as pb
from tools.crosscheck import compare


def result(status: str, speedup: float = 0.0, graph_breaks: int = 0, batch: int = 0) -> pb.ModelResult:
    r = pb.ModelResult(community_status=status)
    r.performance.measured = speedup > 0
    r.performance.speedup, r.performance.abs_latency_ms = speedup, 2.0 * speedup
    r.dynamo.graph_breaks = graph_breaks
    r.config.batch_size = batch
    return r


@pytest.mark.parametrize("upstream, parity, expected", [
    (2.0, 2.5, 0.25), (2.0, 1.0, -0.5), (0.0, 0.0, 0.0), (0.0, 1.0, None), (None, 1.0, None), (1.0, None, None)])
def test_relative_is_parity_over_upstream_minus_one(upstream: float | None, parity: float | None,
                                                    expected: float | None) -> None:
    assert compare.relative(upstream, parity) == (pytest.approx(expected) if expected is not None else None)


def test_rows_pair_the_same_figure_of_both_sides() -> None:
    c = compare.compare("m", result("pass", 2.0, graph_breaks=0, batch=8), 50.0,
                        result("fail_accuracy", 2.2, graph_breaks=0, batch=8), 20.0)
    assert c.row("status").differs == "differs"
    assert (c.row("speedup").upstream, c.row("speedup").parity, c.row("speedup").differs) == (2.0, 2.2, "+10.0%")
    assert c.row("abs_latency_ms").relative == pytest.approx(0.1)
    assert c.row("graph_breaks").differs == "+0.0%"  # none on either side: the same
    assert c.row("accuracy_batch_size").upstream is None  # no accuracy row: no batch size, not a zero
    assert c.row("wall_s").relative == pytest.approx(-0.6)


def test_a_side_without_figures_shows_none_and_no_difference() -> None:
    c = compare.compare("m", result("crash"), 10.0, None, 30.0, ["upstream's performance run killed by SIGKILL"])
    assert c.row("status").parity == "no_result"
    assert [compare.fmt(c.row("speedup").upstream), c.row("speedup").differs] == ["-", "-"]
    text = compare.markdown([c], {"suite": "timm", "mode": "inference", "device": "cuda", "run_id": "r"})
    assert "| m | crash / no_result (differs) | - / - (-) |" in text
    assert "- upstream's performance run killed by SIGKILL" in text
    rows = json.loads(compare.as_json([c], {"suite": "timm"}, {"m": {"parity": {}}}))["models"][0]["rows"]
    assert rows[1] == {"key": "speedup", "label": "speedup (x)", "upstream": None, "parity": None, "relative": None,
                       "digits": 2, "differs": "-"}
