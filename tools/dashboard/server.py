"""The dashboard's local web server: standard library only, GET and HEAD only, loopback by default."""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from tools.dashboard.app import Dashboard


def make_server(dashboard: Dashboard, host: str = "127.0.0.1", port: int = 8765) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        server_version = "parity-dashboard"

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            self._answer(send_body=True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._answer(send_body=False)

        def _answer(self, send_body: bool) -> None:
            url = urlsplit(self.path)
            response = dashboard.respond(url.path, url.query)
            self.send_response(response.status)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")  # a repro script stays text, whatever it holds
            for name, value in response.headers:
                self.send_header(name, value)
            self.end_headers()
            if send_body:
                self.wfile.write(response.body)

        def _refuse(self) -> None:
            body = b"the dashboard is read-only: GET and HEAD only\n"
            self.send_response(405)
            self.send_header("Allow", "GET, HEAD")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_POST = do_PUT = do_DELETE = do_PATCH = _refuse  # noqa: N815

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (http.server's signature)
            sys.stderr.write(f"[dashboard] {self.address_string()} {format % args}\n")

    return ThreadingHTTPServer((host, port), Handler)
