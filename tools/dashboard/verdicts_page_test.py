"""The Verdicts page on SQLite and PostgreSQL: a compiled side 20% slower with tight timing samples is a
regression, an unmoved model is unchanged, the HUD's 5% rule stands beside each, a model filter draws its
history, and an empty store or a run without a base says so instead of failing."""

from __future__ import annotations

import json
import random
import re
from html.parser import HTMLParser

from parity.v1 import results_pb2 as pb
from suites.common import sampling, uncertainty
from tools.dashboard import sample_runs
from tools.dashboard.app import Dashboard
from tools.store.db import LoadedResult, connect, ingest
from tools.store.store_fixtures import postgres, store_target  # noqa: F401 (fixtures)

BASE, NEW = "r-base", "r-slower"
EAGER_S, COMPILED_S = 0.010, 0.005


def timed(run: str, model: str, start: int, compiled_s: float, seed: int) -> pb.ModelResult:
    """A result with 30 interleaved pairs that vary by ±0.5%: intervals far tighter than a 20% change."""
    rng = random.Random(seed)
    eager = [EAGER_S * (1 + rng.uniform(-0.005, 0.005)) for _ in range(30)]
    compiled = [compiled_s * (1 + rng.uniform(-0.005, 0.005)) for _ in range(30)]
    sampled = sampling.Sampled(eager, compiled, uncertainty.intervals(eager, compiled),
                               sampling.SamplingPolicy(30, 0.04, 0.0), 1.0, None)
    result = sample_runs.result(run, model, "pass", start)
    sampled.fill(result.performance.timing)
    result.performance.measured = True
    result.performance.speedup = sampled.intervals.speedup.point
    result.provenance.start_time.seconds = start
    result.provenance.device_name = "x86_64"
    return result


def two_runs(target: str, *extra: pb.ModelResult) -> Dashboard:
    results = [timed(BASE, "slower", 1000, COMPILED_S, 1), timed(BASE, "steady", 1000, COMPILED_S, 2),
               timed(NEW, "slower", 2000, COMPILED_S * 1.2, 3), timed(NEW, "steady", 2000, COMPILED_S, 4), *extra]
    ingest(connect(target), [LoadedResult("verdicts", r) for r in results], source="verdicts")
    return Dashboard(target)


class Rows(HTMLParser):
    """The attributes of every row of the verdicts table."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr" and "data-kind" in dict(attrs):
            self.rows.append(dict(attrs))


def page(dashboard: Dashboard, query: str) -> tuple[str, dict[str, dict[str, str | None]]]:
    response = dashboard.respond("/verdicts", query)
    assert response.status == 200
    body = response.body.decode()
    parser = Rows()
    parser.feed(body)
    return body, {str(row["data-model"]): row for row in parser.rows}


def test_a_slower_compiled_side_is_a_regression_and_a_steady_model_unchanged(store_target: str) -> None:  # noqa: F811
    body, rows = page(two_runs(store_target), f"run={NEW}")
    assert 'data-run="base">r-base<' in body  # the automatic base: the older run on the same device
    assert (rows["slower"]["data-kind"], rows["slower"]["data-hud"]) == ("regression", "regression")
    assert (rows["steady"]["data-kind"], rows["steady"]["data-hud"]) == ("unchanged", "")
    assert '<span data-count="regression">1</span>' in body and '<span data-count="unchanged">1</span>' in body
    assert '<span id="hud-flags">1</span>' in body
    assert "tools/store/verdicts.py" in body and "HUD 5% rule (community-compatible)" in body
    assert 'id="verdict-history"' not in body  # a chart only for one model


def test_filters_narrow_the_verdicts_and_a_model_gets_its_history(store_target: str) -> None:  # noqa: F811
    dashboard = two_runs(store_target)
    body, rows = page(dashboard, f"run={NEW}&model=slower")
    assert list(rows) == ["slower"]
    config = json.loads(re.search(r'<script type="application/json" id="verdict-history-config">(.*?)</script>',
                                  body).group(1))
    assert config["type"] == "line" and config["data"]["labels"] == [BASE, NEW]
    datasets = {d["label"]: d for d in config["data"]["datasets"]}
    assert set(datasets) == {"speedup", "interval low", "interval high", "noise band low", "noise band high"}
    assert datasets["noise band high"]["borderDash"] and datasets["interval low"]["data"][0] < datasets[
        "speedup"]["data"][0] < datasets["interval high"]["data"][0]
    assert '<ul id="change-points">' in body
    _, inference = page(dashboard, f"run={NEW}&model=slower&mode=inference")
    assert list(inference) == ["slower"]


def test_stored_names_are_escaped(store_target: str) -> None:  # noqa: F811
    hostile = '<img src=x onerror="alert(1)">'
    dashboard = two_runs(store_target, timed(BASE, hostile, 1000, COMPILED_S, 5),
                         timed(NEW, hostile, 2000, COMPILED_S, 6))
    body, rows = page(dashboard, f"run={NEW}")
    assert hostile in rows and "<img" not in body


def test_an_empty_store_and_a_run_without_base_say_so(store_target: str) -> None:  # noqa: F811
    connect(store_target).close()  # an empty store, schema only
    body, rows = page(Dashboard(store_target), "")
    assert '<p class="empty">' in body and not rows
    body, rows = page(two_runs(store_target), f"run={BASE}")
    assert '<p class="empty">Run r-base has no base' in body and not rows
