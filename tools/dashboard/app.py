"""The dashboard as a function from (path, query string) to a response, shared by the local web
server and the static export. Read-only: the store is opened read-only for every request."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlencode

from tools.dashboard import filters as filter_rules
from tools.dashboard import pages, queries
from tools.store.db import Database, StoreError, connect
from tools.store.triages import triage_by_id, triages

PACKAGE = Path(__file__).resolve().parent
CHART_JS = Path("node_modules/chart.js/dist/chart.umd.js")  # installed by tools/bootstrap.sh (npm ci)
STATIC_FILES = {"dashboard.js": "text/javascript", "dashboard.css": "text/css", "chart.umd.js": "text/javascript"}
MAX_QUERY_LENGTH = 4000
REPRO_PATH = re.compile(r"([0-9a-f]{16})\.py")  # /repro/<triage id>.py (tools/store/triages.py: triage_id)
TEXT = "text/plain; charset=utf-8"


@dataclass(frozen=True)
class Response:
    status: int
    content_type: str
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()  # beyond Content-Type and Content-Length


def static_path(name: str) -> Path:
    """Where a static file lives: ours beside this module, Chart.js in the npm folder."""
    if name == "chart.umd.js":
        return PACKAGE / CHART_JS
    return PACKAGE / "static" / name


def missing_chart_library() -> str:
    path = static_path("chart.umd.js")
    return "" if path.is_file() else (f"{path} is missing: run tools/bootstrap.sh, which runs `npm ci` in "
                                      "tools/dashboard (charts are drawn with Chart.js)")


@dataclass(frozen=True)
class Dashboard:
    store: str           # SQLite path or postgresql:// URL
    default_run: str = ""  # the run shown when the URL names none (e.g. the one ci/smoke.sh just made)

    def open(self) -> Database:
        return connect(self.store, read_only=True)

    def respond(self, path: str, query: str) -> Response:
        if path.startswith("/static/"):
            return self._static(path.removeprefix("/static/"))
        if path.startswith("/repro/"):
            return self._repro(path.removeprefix("/repro/"))
        name = "summary" if path in ("/", "/index.html") else path.strip("/").removesuffix(".html")
        page = pages.PAGES_BY_NAME.get(name)
        if page is None:
            return Response(404, "text/plain; charset=utf-8",
                            f"no page {path[:100]!r}; pages: {', '.join(p.name for p in pages.PAGES)}".encode())
        try:
            db = self.open()
        except StoreError as exc:
            return Response(503, "text/plain; charset=utf-8", f"store unavailable: {exc}".encode())
        try:
            return self._page(db, page, query)
        finally:
            db.close()

    def _page(self, db: Database, page: pages.Page, query: str) -> Response:
        options = filter_rules.options(db)
        default_run = queries.default_run(db, self.default_run)
        try:
            if len(query) > MAX_QUERY_LENGTH:
                raise filter_rules.FilterError(f"query string of {len(query)} characters; the limit is "
                                               f"{MAX_QUERY_LENGTH}")
            parsed = parse_qs(query, keep_blank_values=True, strict_parsing=False, max_num_fields=50)
            chosen = filter_rules.parse(parsed, options, page.extra_params)
        except (filter_rules.FilterError, ValueError) as exc:
            ctx = self._context(db, filter_rules.Filters(), options, default_run, static_export=False)
            return Response(400, "text/html; charset=utf-8", pages.error_page(ctx, f"Bad query: {exc}").encode())
        ctx = self._context(db, chosen, options, default_run, static_export=False)
        return Response(200, "text/html; charset=utf-8", pages.render(ctx, page).encode())

    @staticmethod
    def _context(db: Database, chosen: filter_rules.Filters, options: dict[str, list[str]], default_run: str,
                 static_export: bool) -> pages.Context:
        def link(page: str, params: dict[str, str]) -> str:
            if static_export:
                return "index.html" if page == "summary" else f"{page}.html"
            target = "/" if page == "summary" else f"/{page}"
            return f"{target}?{urlencode(params)}" if params else target

        return pages.Context(db, chosen, options, link, "static/" if static_export else "/static/", static_export,
                             default_run)

    def _repro(self, name: str) -> Response:
        """A triage's repro script, as plain text (never rendered: the server also sends nosniff)."""
        found = REPRO_PATH.fullmatch(name)
        if found is None:
            return Response(404, TEXT, f"no repro {name[:100]!r}: repro scripts are at /repro/<triage id>.py, "
                                       "linked from the failures page".encode())
        try:
            db = self.open()
        except StoreError as exc:
            return Response(503, TEXT, f"store unavailable: {exc}".encode())
        try:
            triage = triage_by_id(db, found.group(1))
        finally:
            db.close()
        if triage is None:
            return Response(404, TEXT, f"no stored triage has id {found.group(1)}: the failures page links the "
                                       "repro of every stored triage".encode())
        if not triage.repro_name:
            why = f": {triage.record.error}" if triage.record.error else ""
            return Response(404, TEXT, f"the triage of {triage.signature!r} made no repro script (outcome "
                                       f"{triage.outcome}{why})".encode())
        filename = re.sub(r"[^\w.-]", "_", triage.repro_name)
        return Response(200, TEXT, triage.repro_script.encode(),
                        (("Content-Disposition", f'inline; filename="{filename}"'),))

    def _static(self, name: str) -> Response:
        if name not in STATIC_FILES:
            return Response(404, "text/plain; charset=utf-8", f"no static file {name[:100]!r}".encode())
        path = static_path(name)
        if not path.is_file():
            return Response(404, "text/plain; charset=utf-8", missing_chart_library().encode())
        return Response(200, STATIC_FILES[name], path.read_bytes())

    def export(self, out: Path) -> list[Path]:
        """Writes every page with its default filters, plus the static files, for CI artifacts."""
        problem = missing_chart_library()
        if problem:
            raise FileNotFoundError(problem)
        (out / "static").mkdir(parents=True, exist_ok=True)
        written = []
        for name in STATIC_FILES:
            shutil.copyfile(static_path(name), out / "static" / name)
        db = self.open()
        try:
            ctx = self._context(db, filter_rules.Filters(), filter_rules.options(db),
                                queries.default_run(db, self.default_run), static_export=True)
            for page in pages.PAGES:
                target = out / ("index.html" if page.name == "summary" else f"{page.name}.html")
                target.write_text(pages.render(ctx, page))
                written.append(target)
            for stored in triages(db):  # the failures page links them as repro/<id>.py
                triage = triage_by_id(db, stored.triage_id) if stored.repro_name else None
                if triage is not None:
                    (out / "repro").mkdir(exist_ok=True)
                    (out / "repro" / f"{triage.triage_id}.py").write_text(triage.repro_script)
        finally:
            db.close()
        return written
