"""No reader crashes on what the store holds: generated results, hostile figures, enum values and names among
them, go through ingest (which refuses what it must, naming file and field), the HUD summary, every dashboard
page, the static export and export-hud, on SQLite and on the real PostgreSQL. A store written before validation
may already hold such values, so they are also written past ingest's checks and read back."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parity.v1 import results_pb2 as pb
from suites.common.result_io import write_result
from tools.dashboard.app import Dashboard
from tools.dashboard.pages import PAGES
from tools.store.__main__ import main
from tools.store.db import _UPSERT, IngestError, LoadedResult, _row, connect, ingest, load_results
from tools.store.failures import signature
from tools.store.triages import TRIAGE_UPSERT, Repro, triage_id, triage_row
from tools.store.store_fixtures import postgres, store_target  # noqa: F401 (fixtures)

figures = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -1.0, 1.5, 1e308]))
enums = st.one_of(st.integers(0, 3), st.integers(4, 2**31 - 1))
names = st.one_of(st.sampled_from(["resnet", "<!--", "</script><b>x", "a'; DROP TABLE results; --", "ü" * 3]),
                  st.text(min_size=1, max_size=40))


@st.composite
def results(draw: st.DrawFn) -> pb.ModelResult:
    model = draw(names)
    result = pb.ModelResult(result_id=f"id-{abs(hash(model))}-{draw(st.integers(0, 9))}", run_id="gen",
                            community_status=draw(st.sampled_from(["pass", "fail_accuracy", "timeout", "weird"])),
                            status=draw(enums), expected_status=draw(enums))
    result.config.CopyFrom(pb.RunConfig(suite="timm", model=model, mode=draw(st.sampled_from([1, 2, 99])),
                                        precision=draw(st.sampled_from([1, 2, 77])), backend="inductor",
                                        hud_compiler="cudagraphs", device="cuda"))
    result.provenance.device_name = draw(names)
    result.provenance.start_time.FromSeconds(draw(st.integers(0, 2**31)))
    perf = result.performance
    perf.measured, perf.speedup, perf.abs_latency_ms = True, draw(figures), draw(figures)
    perf.timing.eager_s[:] = draw(st.lists(figures, max_size=4))
    perf.timing.compiled_s[:] = draw(st.lists(figures, max_size=4))
    perf.timing.speedup.CopyFrom(pb.Interval(point=draw(figures), low=draw(figures), high=draw(figures)))
    result.compile_time.compilation_latency_s = draw(figures)
    result.memory.compression_ratio = draw(figures)
    result.failure.phase = draw(enums)
    return result


def _read_everything(target: str, out: Path) -> None:
    assert main(["--db", target, "summary", "--run-id", "gen"]) in (0, 2)
    dashboard = Dashboard(target, "gen")
    for page in PAGES:
        response = dashboard.respond(f"/{page.name}", "")
        assert response.status == 200, (page.name, response.body[:300])
        for script in response.body.split(b'<script type="application/json"')[1:]:  # valid JSON, and closed
            payload = script.split(b">", 1)[1].split(b"</script>", 1)[0]
            json.loads(payload, parse_constant=_no_constant)
            assert b"<!--" not in payload
    dashboard.export(out / "site")
    hud = out / "hud.jsonl"
    if main(["--db", target, "export-hud", "--run-id", "gen", "--out", str(hud)]) == 0:
        for line in hud.read_text().splitlines():
            json.loads(line, parse_constant=_no_constant)


def _no_constant(name: str) -> None:
    raise AssertionError(f"{name} in JSON output")


@settings(max_examples=15, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(batch=st.lists(results(), min_size=1, max_size=4, unique_by=lambda r: r.result_id))
def test_readers_survive_whatever_the_store_holds(store_target: str, tmp_path_factory: pytest.TempPathFactory,
                                                  batch: list[pb.ModelResult]) -> None:
    tmp = tmp_path_factory.mktemp("gen")
    target = store_target if not store_target.endswith(".db") else str(tmp / "parity.db")
    for result in batch:
        write_result(result, tmp / "in", f"r{batch.index(result)}")
    db = connect(target)
    try:
        ingest(db, load_results([tmp / "in"]))
    except IngestError as exc:  # refused whole: it names the file and the field
        assert "/in/r" in str(exc) and "nothing was stored" in str(exc)
    # What an older store may hold: the same results written past ingest's checks.
    try:
        with db.transaction():
            db.executemany(_UPSERT, [_row(LoadedResult("gen", result)) for result in batch])
    except sqlite3.IntegrityError:  # SQLite keeps NaN as NULL, which its NOT NULL columns refuse: no store holds it
        pass
    db.close()
    _read_everything(target, tmp)


@pytest.mark.parametrize("field, value, named", [
    ("speedup", -1.0, "performance.speedup is -1.0"), ("speedup", math.inf, "performance.speedup is inf"),
    ("speedup", math.nan, "performance.speedup is nan"), ("mode", 99, "config.mode is 99"),
    ("status", 78, "status is 78"), ("model", "m" * 300, "config.model has 300 characters")])
def test_ingest_refuses_a_bad_value_naming_file_and_field(tmp_path: Path, field: str, value: object,
                                                         named: str) -> None:
    result = pb.ModelResult(result_id="r", run_id="gen", community_status="pass")
    result.config.CopyFrom(pb.RunConfig(suite="timm", model="m", mode=pb.MODE_INFERENCE,
                                        precision=pb.PRECISION_BFLOAT16))
    target = {"speedup": result.performance, "mode": result.config, "model": result.config}.get(field, result)
    setattr(target, field, value)
    write_result(result, tmp_path / "in", "bad")
    db = connect(tmp_path / "parity.db")
    with pytest.raises(IngestError, match=f"bad.pb: .*{named}"):
        ingest(db, load_results([tmp_path / "in"]))
    assert db.query("SELECT COUNT(*) FROM results")[0][0] == 0


def test_readers_survive_odd_triages(store_target: str, tmp_path: Path) -> None:  # noqa: F811 (fixture use)
    """Triages written past ingest's checks (values from a newer schema, figures that are not finite, markup in
    every string): the failures page, the export and the repro route still answer."""
    failing = pb.ModelResult(result_id="odd", run_id="gen", community_status="fail_to_run")
    failing.config.CopyFrom(pb.RunConfig(suite="timm", model="</script><b>m", mode=1, precision=2, backend="inductor"))
    failing.failure.exception_type, failing.failure.message = "<!--", "</pre><script>x()</script> at 0x7f"
    record = pb.TriageRecord(signature=signature(failing).label, result_id="odd", model="<i>m", outcome=99,
                             reproduces=77, culprit_subsystem="</td>", bisect_number=-5, debug_info="<!-- x",
                             wall_s=math.nan, limit_s=math.inf, repro_path="a.py", error="</table>")
    db = connect(store_target)
    ingest(db, [LoadedResult("odd", failing)])
    with db.transaction():
        db.execute(TRIAGE_UPSERT, triage_row(record, Repro("</script>.py", "<html><script>x()</script>"), 0))
    db.close()
    _read_everything(store_target, tmp_path)
    dashboard = Dashboard(store_target, "gen")
    page = dashboard.respond("/failures", "").body.decode()
    assert "Triage: unknown (99)" in page and "<!-- x" not in page and "</script><b>" not in page
    served = dashboard.respond(f"/repro/{triage_id(record.signature)}.py", "")
    assert served.status == 200 and served.content_type.startswith("text/plain")
    assert ("Content-Disposition", 'inline; filename="__script_.py"') in served.headers
