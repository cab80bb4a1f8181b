"""The dashboard driven in a real headless Chromium (Debian's package): the summary's numbers against
the store, the filters, the failure view and its triages (the repro script served as text), charts drawn by
Chart.js, and the static export."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from parity.v1 import opinfo_pb2
from tools.dashboard import sample_runs
from tools.dashboard.app import Dashboard
from tools.dashboard.browser import Browser
from tools.dashboard.pages import COMPILE_PHASES, PAGES
from tools.dashboard.server import make_server
from tools.store.db import connect
from tools.store.failures import opinfo_as_model_result, signature
from tools.store.hud import summarize
from tools.store.triages import triage_for
from tools.store.store_fixtures import postgres  # noqa: F401 (fixture)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    scratch = tmp_path_factory.mktemp("store")
    target = (str(scratch / "parity.db") if request.param == "sqlite"
              else request.getfixturevalue("postgres").new_database())
    sample_runs.build(target, scratch)
    return target


@pytest.fixture(scope="module")
def site(store: str) -> Iterator[str]:
    server = make_server(Dashboard(store), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as chromium:
        yield chromium


def cells(browser: Browser, selector: str) -> list[dict[str, str]]:
    return browser.evaluate(f"Array.from(document.querySelectorAll({selector!r})).map("
                            "td => Object.assign({text: td.innerText}, td.dataset))")


def test_summary_numbers_match_the_store(site: str, store: str, browser: Browser) -> None:
    browser.goto(f"{site}/?run={sample_runs.NEW}")
    assert browser.page_errors() == []
    assert browser.evaluate("document.querySelector('[data-run=base]').innerText") == sample_runs.OLD
    expected = {(r.suite, r.compiler, r.mode): r for r in summarize(connect(store), sample_runs.NEW)}
    shown = cells(browser, "td[data-metric]")
    assert len(shown) == 4 * len(expected) == 8  # four metrics x (inference, training)
    for cell in shown:
        row = expected[(cell["suite"], cell["compiler"], cell["mode"])]
        if cell["metric"] == "pass_rate":
            assert (int(cell["passed"]), int(cell["total"])) == (row.passed, row.total)
            assert cell["text"].startswith(f"{round(row.pass_rate * 100)}%, {row.passed}/{row.total}")
        value = {"pass_rate": row.pass_rate, "geomean": row.geomean_speedup, "compile": row.mean_compile_s,
                 "compression": row.mean_compression}[cell["metric"]]
        assert math.isclose(float(cell["value"]), value, abs_tol=1e-6)
    inference = expected[("timm", "default", "inference")]
    assert (inference.passed, inference.total) == (4, 7)  # c, d fail to run; e timed out
    assert math.isclose(inference.geomean_speedup, (1.8 * 1.0 * 1.4 * 1.3) ** 0.25)
    # new vs base: the base (r-old) geomean is shown after the arrow, and the >5% gain is marked
    geomean = next(c for c in shown if c["metric"] == "geomean" and c["mode"] == "inference")
    assert "→ 1.26x" in geomean["text"]
    assert browser.evaluate("document.querySelector('td[data-metric=geomean][data-mode=inference]')"
                            ".classList.contains('improvement')")
    assert "pass_rate" in browser.evaluate("document.querySelector('td.below-threshold').dataset.metric")


def test_manifest_change_is_not_compared_silently(site: str, browser: Browser) -> None:
    browser.goto(f"{site}/?run={sample_runs.NEXT_MANIFEST}")
    banner = browser.evaluate("document.getElementById('manifest-mismatch').innerText")
    assert "manifest version 1.0" in banner and "2.0" in banner
    assert browser.evaluate("document.querySelectorAll('td.regression, td.improvement').length") == 0


def test_filters_narrow_the_model_table(site: str, store: str, browser: Browser) -> None:
    browser.goto(f"{site}/models?run={sample_runs.NEW}")
    db = connect(store)
    assert browser.evaluate("document.querySelectorAll('#models tbody tr').length") == \
        db.query("SELECT COUNT(*) FROM results WHERE run_id = ?", (sample_runs.NEW,))[0][0]
    browser.act_and_wait("document.querySelector('select[name=model]').value = 'a';"
                         "document.getElementById('filters').submit()")
    query = parse_qs(urlsplit(browser.evaluate("location.href")).query)
    assert query["model"] == ["a"] and query["run"] == [sample_runs.NEW]
    models = browser.evaluate("Array.from(document.querySelectorAll('#models tbody tr')).map(r => r.dataset.model)")
    assert models == ["a", "a"]  # inference and training
    browser.act_and_wait("document.querySelector('select[name=mode]').value = 'training';"
                         "document.getElementById('filters').submit()")
    assert browser.evaluate("document.querySelectorAll('#models tbody tr').length") == 1
    # Following a navigation link keeps the filters.
    browser.act_and_wait("Array.from(document.querySelectorAll('nav a')).find(a => a.innerText === 'History').click()")
    assert parse_qs(urlsplit(browser.evaluate("location.href")).query)["mode"] == ["training"]
    # A device filter: the community H100 baseline and our CPU runs are separate values.
    browser.goto(f"{site}/models?run={sample_runs.BASELINE}&device=NVIDIA%20H100")
    assert browser.evaluate("document.querySelectorAll('#models tbody tr').length") == 3


def test_failure_view_groups_by_signature_with_logs(site: str, browser: Browser) -> None:
    browser.goto(f"{site}/failures?run={sample_runs.NEW}")
    groups = browser.evaluate("Array.from(document.querySelectorAll('.failure-group')).map("
                              "g => [g.dataset.signature, Number(g.dataset.count)])")
    assert groups[0] == ["fail_to_run · compiled_run · RuntimeError · shape mismatch at dim N of tensor <addr>", 2]
    assert ["compile timeout · compile · killed after N s · timm/e inference inductor cpu", 1] in groups
    # The newest OpInfo run's failing cases beside the run's own: the unexpected FAIL and the expected one (XFAIL).
    assert ["fail_accuracy · accuracy_check · Tensor-likes are not close! · opinfo/nn.functional.group_norm float32 "
            "inductor cpu", 1] in groups
    assert browser.evaluate("document.getElementById('opinfo-run').innerText") == sample_runs.OPINFO
    assert browser.evaluate("document.getElementById('failure-count').innerText") == "5"
    browser.evaluate("document.querySelector('.failure-group table[id^=failures] details').open = true")
    log = browser.evaluate("document.querySelector('.failure-group table[id^=failures] details pre').innerText")
    assert "Traceback" in log
    risks = {row[0]: row[1] for row in browser.evaluate(
        "Array.from(document.querySelectorAll('#risks tbody tr')).map(r => [r.dataset.model, r.cells[3].innerText])")}
    assert "unexpected recompilation" in risks["f"]
    assert "compile-cache miss" in risks["g"]
    assert "compile timeout" in risks["e"] and "unexpected status" in risks["e"]


def test_a_failure_group_links_its_triage_and_the_repro_is_served_as_text(site: str, store: str,
                                                                         browser: Browser) -> None:
    browser.goto(f"{site}/failures?run={sample_runs.NEW}")
    assert browser.page_errors() == []
    triaged = signature(next(r for r in sample_runs.sample_results()
                             if r.run_id == sample_runs.NEW and r.config.model == sample_runs.TRIAGED_MODEL)).label
    stored = triage_for(connect(store), triaged)
    assert stored is not None
    groups = browser.evaluate("Array.from(document.querySelectorAll('.failure-group')).map(g => [g.dataset.signature, "
                              "g.dataset.triage || '', g.querySelector('[data-untriaged]') !== null])")
    timeout = "compile timeout · compile · killed after N s · timm/e inference inductor cpu"  # not triaged
    case = next(r for r in sample_runs.opinfo_results() if r.outcome == opinfo_pb2.OPINFO_OUTCOME_FAIL)
    case_triage = triage_for(connect(store), signature(opinfo_as_model_result(case)).label)
    assert case_triage is not None and case_triage.record.model == "nn.functional.group_norm float32"
    assert groups[:2] == [[triaged, stored.triage_id, False], [timeout, "", True]]
    assert [case_triage.signature, case_triage.triage_id, False] in groups[2:]  # an OpInfo case's, shown alike
    facts = browser.evaluate(f"Object.fromEntries(Array.from(document.querySelectorAll('#triage-{stored.triage_id} "
                             "td[data-field]')).map(td => [td.dataset.field, td.innerText]))")
    assert facts["culprit"] == "inductor / lowerings / bisect number 7"
    assert facts["debug-info"] == sample_runs.DEBUG_INFO  # its markup shown as text, not parsed
    assert facts["reproduces"] == "yes" and facts["repro"] == "c.repro.py (4 lines, 3 nodes)"
    assert browser.evaluate("document.querySelectorAll('.triage b, .triage script').length") == 0
    assert browser.evaluate("document.getElementById('triaged-count').innerText") == "2"  # the run's, the case's
    browser.act_and_wait("document.querySelector('.triage a[data-repro]').click()")
    assert urlsplit(browser.evaluate("location.href")).path == f"/repro/{stored.triage_id}.py"
    assert browser.evaluate("document.contentType") == "text/plain"
    assert browser.evaluate("document.body.innerText") == sample_runs.REPRO_SCRIPT
    assert browser.evaluate("document.querySelectorAll('script').length") == 0 and browser.page_errors() == []


def test_every_page_renders_its_charts_without_script_errors(site: str, browser: Browser) -> None:
    for page in PAGES:
        browser.goto(f"{site}/{'' if page.name == 'summary' else page.name}?run={sample_runs.NEW}")
        assert browser.page_errors() == [], page.name
        canvases = browser.evaluate("document.querySelectorAll('canvas[data-chart]').length")
        drawn = browser.evaluate("document.querySelectorAll('canvas[data-rendered=true]').length")
        assert drawn == canvases, page.name
    browser.goto(f"{site}/compile?run={sample_runs.NEW}")
    # The phases stack as exclusive times, then the latency no timer covers ("other").
    assert browser.evaluate("Chart.getChart('compile-phases').data.datasets.map(d => d.label)") == [
        *(title for _, title in COMPILE_PHASES), "other (not in a timer)"]
    browser.goto(f"{site}/breaks?run={sample_runs.NEW}")
    reasons = browser.evaluate("Array.from(document.querySelectorAll('#break-reasons td.reason')).map(t => t.innerText)")
    assert reasons == ["call_function builtin print", "data-dependent branching"]
    assert browser.evaluate("document.querySelector('#fallback-ops td.op').innerText") == "aten.sort.stable"


def test_baseline_and_device_are_side_by_side(site: str, browser: Browser) -> None:
    browser.goto(f"{site}/compare?run={sample_runs.NEW}&base={sample_runs.BASELINE}")
    headers = browser.evaluate("Array.from(document.querySelectorAll('#compare th')).map(t => t.innerText)")
    assert "NVIDIA H100: speedup" in headers and "x86_64: speedup" in headers
    datasets = browser.evaluate("Chart.getChart('compare-speedup').data.datasets.map(d => d.label)")
    assert datasets == [f"NVIDIA H100 ({sample_runs.BASELINE})", f"x86_64 ({sample_runs.NEW})"]
    row = browser.evaluate("Array.from(document.querySelector('#compare tr[data-model=a]').cells).map(c => c.innerText)")
    assert row[4] == "2.50x" and row[9] == "1.80x"  # H100's own speedup, then ours: never pooled
    # b's status comes from a check at another batch size than the baseline's: said in its cell and above
    apart = browser.evaluate("Array.from(document.querySelectorAll('#compare [data-apart]'))"
                             ".map(s => s.closest('tr').dataset.model + ': ' + s.innerText)")
    assert apart == ["b: (checked at batch 128, baseline at 8)"]
    assert browser.evaluate("document.querySelector('[data-apart-count]').dataset.apartCount") == "1"


def test_verdicts_page_draws_one_models_history(site: str, browser: Browser) -> None:
    browser.goto(f"{site}/verdicts?run={sample_runs.NEW}&model=a&mode=inference")
    assert browser.page_errors() == []
    assert browser.evaluate("Chart.getChart('verdict-history').data.datasets.length") == 5
    rows = browser.evaluate("Array.from(document.querySelectorAll('#verdicts tbody tr')).map("
                            "r => [r.dataset.model, r.dataset.kind, r.dataset.hud])")
    assert rows == [["a", "unknown", "improvement"]]  # the sample runs kept no timing samples: the HUD's rule only


def test_static_export_matches_the_served_pages(store: str, tmp_path: Path, browser: Browser) -> None:
    Dashboard(store, default_run=sample_runs.NEW).export(tmp_path / "site")
    browser.goto((tmp_path / "site" / "index.html").as_uri())
    assert browser.page_errors() == []
    shown = cells(browser, "td[data-metric=geomean]")
    expected = {r.mode: r.geomean_speedup for r in summarize(connect(store), sample_runs.NEW)}
    assert {c["mode"]: round(float(c["value"]), 6) for c in shown} == {k: round(v, 6) for k, v in expected.items()}
    browser.goto((tmp_path / "site" / "history.html").as_uri())
    assert browser.evaluate("document.body.dataset.chartsRendered") == "2"
    browser.goto((tmp_path / "site" / "failures.html").as_uri())
    href = browser.evaluate("document.querySelector('.triage a[data-repro]').href")
    assert href.startswith((tmp_path / "site" / "repro").as_uri())  # beside the pages, not the server's /repro/
    assert Path(urlsplit(href).path).read_text() == sample_runs.REPRO_SCRIPT


def test_opinfo_page_counts_outcomes_per_group(site: str, browser: Browser) -> None:
    browser.goto(f"{site}/opinfo")
    assert browser.page_errors() == []
    assert browser.evaluate("document.querySelector('[data-run=opinfo]').innerText") == sample_runs.OPINFO
    norm = browser.evaluate("Object.fromEntries(Array.from(document.querySelectorAll("
                            "'#opinfo-groups tr[data-group=norm] td[data-outcome]')).map(t => [t.dataset.outcome, "
                            "Number(t.innerText)]))")
    assert norm == {"pass": 1, "fail": 1, "xfail": 0, "skip": 0}
    problems = browser.evaluate("Array.from(document.querySelectorAll('#opinfo-problems tr[data-op]')).map("
                                "r => r.dataset.op)")
    assert sorted(problems) == ["nn.functional.group_norm", "sort"]


def test_bottleneck_page_names_the_cause_and_tracks_it_across_runs(site: str, browser: Browser) -> None:
    browser.goto(f"{site}/bottlenecks?run={sample_runs.NEW}")
    assert browser.page_errors() == []
    assert browser.evaluate("document.getElementById('bottleneck-count').innerText") == "1"
    compiled = browser.evaluate("Array.from(document.querySelector("
                                "'#bottlenecks tr[data-model=b][data-run-kind=compiled]').cells).map(c => c.innerText)")
    assert compiled[5:7] == ["22%", "67%"]  # generated kernels, ATen fallback: 1 ms and 3 ms of 4.5 ms
    assert compiled[-1] == "67% of compiled time in 1 fallback op: aten.sort.stable"
    problem = browser.evaluate("Array.from(document.querySelector('#problems tr[data-signature]').cells)"
                               ".map(c => c.innerText)")
    assert problem[0] == "b" and problem[5:] == [sample_runs.NEW, sample_runs.NEXT_MANIFEST, "2"]
    assert problem[4] == "56% of compiled time in 1 fallback op: aten.sort.stable"  # the newest sighting
    browser.goto(f"{site}/models?run={sample_runs.NEW}")
    causes = browser.evaluate("Array.from(document.querySelectorAll('#models tr[data-model=b] td[data-cause]'))"
                              ".map(t => t.innerText)")
    assert causes == ["67% of compiled time in 1 fallback op: aten.sort.stable"]
