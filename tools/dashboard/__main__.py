"""The Parity dashboard over a results store (read-only).

  python -m tools.dashboard serve  --db out/parity.db [--port 8765] [--host 127.0.0.1] [--run RUN_ID]
  python -m tools.dashboard export --db out/parity.db --out out/dashboard [--run RUN_ID]

--db is a SQLite file or a postgresql:// URL ($PARITY_DB sets the default). --run picks the run the
pages show when the URL names none (default: the newest). `export` writes the same pages as static
HTML for CI artifacts.

The failures page shows each failure signature's stored triage (tools/store/triages.py): the culprit, the outcome,
whether the repro reproduces, and a link to the repro script. The server answers /repro/<triage id>.py with the
script as text/plain (404 with the reason where there is none); `export` writes the scripts to repro/<id>.py.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from proto.codegen import ensure_generated

ensure_generated()

from tools.dashboard.app import Dashboard, missing_chart_library  # noqa: E402
from tools.dashboard.server import make_server  # noqa: E402
from tools.store.db import StoreError, display_name  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.dashboard", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    def common(target: argparse.ArgumentParser, top: bool) -> None:
        # Accepted before or after the command; the command's copy wins when both are given.
        target.add_argument("--db", default=os.environ.get("PARITY_DB", "out/parity.db") if top else argparse.SUPPRESS,
                            help="SQLite file or postgresql:// URL (default $PARITY_DB or out/parity.db)")
        target.add_argument("--run", default="" if top else argparse.SUPPRESS,
                            help="run shown by default (default: the newest)")

    common(parser, top=True)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the dashboard until interrupted")
    common(serve, top=False)
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    serve.add_argument("--port", type=int, default=8765)
    export = sub.add_parser("export", help="write the pages as static HTML")
    common(export, top=False)
    export.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    dashboard = Dashboard(args.db, args.run)
    try:
        dashboard.open().close()  # fail now, with the store's own message, rather than on every request
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.command == "export":
        try:
            written = dashboard.export(args.out)
        except FileNotFoundError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {len(written)} pages to {args.out}/ (open {args.out / 'index.html'})")
        return 0
    if missing_chart_library():
        print(f"warning: {missing_chart_library()}", file=sys.stderr)
    try:
        server = make_server(dashboard, args.host, args.port)
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port} ({exc}); pick another --port", file=sys.stderr)
        return 2
    print(f"[dashboard] serving {display_name(args.db)} read-only at http://{args.host}:{server.server_address[1]}/ "
          "(Ctrl-C stops it)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
