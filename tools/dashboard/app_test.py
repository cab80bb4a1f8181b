"""The dashboard's request handling on SQLite and PostgreSQL: hostile query strings give a clear error
and change nothing, the server is read-only, and the static export writes every page."""

from __future__ import annotations

import html
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tools.dashboard import sample_runs
from tools.dashboard.app import Dashboard
from tools.dashboard.pages import PAGES
from tools.dashboard.server import make_server
from parity.v1 import results_pb2 as pb
from tools.store.db import LoadedResult, connect, count_results, ingest
from tools.store.failures import signature
from tools.store.triages import triage_id, triages
from tools.store.store_fixtures import postgres, store_target  # noqa: F401 (fixtures)

HOSTILE = [
    ("model", "a' OR '1'='1"),
    ("model", "a'; DROP TABLE results; --"),
    ("suite", "timm\" UNION SELECT payload FROM results --"),
    ("run", "r-new') OR 1=1 --"),
    ("device", "x" * 5000),
]


@pytest.fixture
def dashboard(store_target: str, tmp_path: Path) -> Dashboard:  # noqa: F811 (fixture use)
    sample_runs.build(store_target, tmp_path)
    return Dashboard(store_target)


@pytest.mark.parametrize("name, value", HOSTILE)
def test_sql_fragments_in_parameters_are_rejected_and_change_nothing(dashboard: Dashboard, name: str,
                                                                    value: str) -> None:
    before = count_results(connect(dashboard.store))
    for page in PAGES:
        response = dashboard.respond(f"/{page.name}", f"{name}={quote(value)}")
        assert response.status == 400, page.name
        assert b"Bad query" in response.body
        assert b"DROP TABLE" not in response.body.split(b'id="error"')[0]  # not echoed into the page unescaped
    db = connect(dashboard.store)
    assert count_results(db) == before
    assert db.query("SELECT COUNT(*) FROM results WHERE run_id = ?", ("r-new",))[0][0] == 8


@pytest.mark.parametrize("query, message", [
    ("colour=red", "unknown query parameter 'colour'"),
    ("model=a&model=b", "given 2 times"),
    ("model=zzz", "no stored result has model 'zzz'; stored values: a, b, c, d, e, f, g"),
    ("base=r-old", "does not apply to this page"),
])
def test_bad_queries_name_the_problem(dashboard: Dashboard, query: str, message: str) -> None:
    response = dashboard.respond("/models", query)
    assert response.status == 400
    assert message in html.unescape(response.body.decode())


def test_unknown_pages_and_static_files_are_404(dashboard: Dashboard) -> None:
    assert dashboard.respond("/../../etc/passwd", "").status == 404
    assert dashboard.respond("/static/../app.py", "").status == 404
    assert dashboard.respond("/static/dashboard.js", "").status == 200


@pytest.fixture
def served(dashboard: Dashboard) -> Iterator[str]:
    server = make_server(dashboard, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_server_is_read_only(served: str, dashboard: Dashboard) -> None:
    for method in ("POST", "PUT", "DELETE"):
        request = urllib.request.Request(f"{served}/models", data=b"x", method=method)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 405
    with urllib.request.urlopen(f"{served}/models?run=r-new&mode=training", timeout=10) as page:
        assert page.status == 200 and b'data-model="a"' in page.read()
    assert count_results(connect(dashboard.store)) == 17


def test_static_export_writes_every_page(dashboard: Dashboard, tmp_path: Path) -> None:
    written = dashboard.export(tmp_path / "site")
    assert {p.name for p in written} == {"index.html", *(f"{p.name}.html" for p in PAGES[1:])}
    index = (tmp_path / "site" / "index.html").read_text()
    assert 'href="models.html"' in index and 'src="static/chart.umd.js"' in index
    assert (tmp_path / "site" / "static" / "chart.umd.js").stat().st_size > 100_000


def test_the_repro_route_serves_stored_scripts_as_text_and_says_why_when_it_cannot(dashboard: Dashboard) -> None:
    db = connect(dashboard.store)
    stored = next(t for t in triages(db) if t.repro_name)  # the run's; the OpInfo case's made none
    response = dashboard.respond(f"/repro/{stored.triage_id}.py", "")
    assert (response.status, response.content_type) == (200, "text/plain; charset=utf-8")
    assert response.body.decode() == sample_runs.REPRO_SCRIPT  # served as it is: text/plain is never parsed
    assert ("Content-Disposition", 'inline; filename="c.repro.py"') in response.headers
    for path, message in ((f"/repro/{'0' * 16}.py", "no stored triage has id 0000000000000000"),
                          ("/repro/../../etc/passwd", "repro scripts are at /repro/<triage id>.py"),
                          (f"/repro/{stored.triage_id}.py.html", "repro scripts are at")):
        response = dashboard.respond(path, "")
        assert response.status == 404 and message in response.body.decode(), path
    # A triage that made no repro (it errored): the route says so instead of serving nothing.
    failed = next(r for r in sample_runs.sample_results() if r.run_id == "r-new" and r.config.model == "e")
    record = pb.TriageRecord(signature=signature(failed).label, result_id=failed.result_id, model="e",
                             outcome=pb.TriageRecord.OUTCOME_ERROR, error="tools.triage exited 1")
    ingest(db, [LoadedResult("no repro", record)])
    response = dashboard.respond(f"/repro/{triage_id(record.signature)}.py", "")
    assert response.status == 404
    assert "made no repro script (outcome error: tools.triage exited 1)" in response.body.decode()
    page = dashboard.respond("/failures", "run=r-new").body.decode()
    assert page.count('class="triage"') == 3 and "none made" in page and "data-untriaged" not in page  # with the case's
    assert "&lt;b&gt;buf0&lt;/b&gt;" in page and "<b>buf0" not in page  # the debug info, escaped


def test_served_responses_are_never_sniffed(served: str, dashboard: Dashboard) -> None:
    stored = next(t for t in triages(connect(dashboard.store)) if t.repro_name)
    with urllib.request.urlopen(f"{served}/repro/{stored.triage_id}.py", timeout=10) as script:
        assert script.headers["Content-Type"] == "text/plain; charset=utf-8"
        assert script.headers["X-Content-Type-Options"] == "nosniff"
        assert script.read().decode() == sample_runs.REPRO_SCRIPT
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{served}/repro/{'f' * 16}.py", timeout=10)
    assert missing.value.code == 404 and b"no stored triage" in missing.value.read()


def test_missing_store_is_a_clear_error(tmp_path: Path) -> None:
    for path in ("/", f"/repro/{'0' * 16}.py"):
        response = Dashboard(str(tmp_path / "none.db")).respond(path, "")
        assert response.status == 503 and b"does not exist: ingest results into it first" in response.body


def test_cli_takes_options_before_or_after_the_command(dashboard: Dashboard, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from tools.dashboard.__main__ import main

    assert main(["export", "--db", dashboard.store, "--out", str(tmp_path / "a"), "--run", "r-old"]) == 0
    assert main(["--db", dashboard.store, "--run", "r-new", "export", "--out", str(tmp_path / "b")]) == 0
    assert 'data-run="new">r-old' in (tmp_path / "a" / "index.html").read_text()
    assert 'data-run="new">r-new' in (tmp_path / "b" / "index.html").read_text()
    assert main(["export", "--db", str(tmp_path / "none.db"), "--out", str(tmp_path / "c")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_the_run_choice_says_what_an_empty_run_shows(dashboard: Dashboard) -> None:
    """Pages of one run show the newest when none is chosen, so their empty choice says "(newest)", not
    "(any)"; the history page spans runs and keeps "(any)"."""
    models = dashboard.respond("/models", "run=").body.decode()
    assert '<select name="run"><option value="">(newest)</option>' in models
    assert '<select name="model"><option value="">(any)</option>' in models
    assert '<select name="run"><option value="">(any)</option>' in dashboard.respond("/history", "").body.decode()


def test_the_baseline_keeps_its_rows_under_a_device_or_backend_filter(dashboard: Dashboard) -> None:
    """Filters on the device run's backend, device and versions would empty the baseline, another device's run
    under upstream's backend names; rows pair by the HUD's compiler name instead."""
    page = html.unescape(dashboard.respond(
        "/compare", f"run={sample_runs.NEW}&base={sample_runs.BASELINE}&backend=inductor&device=x86_64").body.decode())
    assert "NVIDIA H100: speedup" in page and "2.50x" in page  # model a's H100 speedup


def test_a_performance_only_status_says_it_was_not_checked(dashboard: Dashboard, store_target: str) -> None:  # noqa: F811
    """--plan performance checked no accuracy: its "pass" says only that the model ran, and the table says so."""
    timed = sample_runs.result("r-timed", "a", "pass", start=900, speedup=1.5)
    timed.config.performance_only = True
    checked = sample_runs.result("r-timed", "b", "pass", start=900, speedup=1.2)
    ingest(connect(store_target), [LoadedResult("timed", timed), LoadedResult("timed", checked)])
    page = dashboard.respond("/models", "run=r-timed").body.decode()
    assert 'data-status>pass (not checked)</td>' in page
    assert page.count("(not checked)") == 1  # model b's check passed
