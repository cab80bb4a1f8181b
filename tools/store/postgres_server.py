"""A throwaway PostgreSQL server on loopback, for the store's tests (Debian's postgresql package).

initdb into a fresh folder under /tmp, listen on 127.0.0.1 at a free port, trust authentication for
the loopback only. PostgreSQL refuses to run as root, so under root the server runs as the `postgres`
account that Debian's package creates.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

SERVER_USER = "postgres"  # the account Debian's package creates; used only when we are root
DB_USER = "parity"


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries here, or the server did not start."""


def find_bindir() -> Path:
    """$PARITY_PG_BINDIR, else the newest /usr/lib/postgresql/<major>/bin (Debian's layout)."""
    override = os.environ.get("PARITY_PG_BINDIR")
    candidates = [Path(override)] if override else sorted(
        Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
        reverse=True)
    for bindir in candidates:
        if (bindir / "initdb").is_file() and (bindir / "pg_ctl").is_file():
            return bindir
    raise PostgresUnavailable("PostgreSQL server binaries not found (looked in "
                              f"{override or '/usr/lib/postgresql/*/bin'}): install Debian's postgresql package "
                              "(tools/apt-packages.txt; tools/bootstrap.sh installs it) or set PARITY_PG_BINDIR")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class PostgresServer:
    root: Path
    port: int
    bindir: Path
    user: str | None  # the OS account the server runs as (None: ours)
    _databases: itertools.count = field(default_factory=itertools.count)

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{DB_USER}@127.0.0.1:{self.port}/{dbname}"

    def new_database(self) -> str:
        """A fresh, empty database; returns its URL."""
        import psycopg

        name = f"parity_test_{os.getpid()}_{next(self._databases)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')  # name is ours, not input
        return self.url(name)

    def stop(self) -> None:
        self._run([str(self.bindir / "pg_ctl"), "-D", str(self.root / "data"), "-m", "immediate", "-w", "stop"],
                  check=False)
        shutil.rmtree(self.root, ignore_errors=True)

    def _run(self, cmd: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(cmd, capture_output=True, text=True, user=self.user, cwd=self.root, timeout=120)
        if check and done.returncode != 0:
            raise PostgresUnavailable(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
        return done


def start() -> PostgresServer:
    bindir = find_bindir()
    user = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(SERVER_USER)
        except KeyError as exc:
            raise PostgresUnavailable(f"running as root and there is no {SERVER_USER!r} account to run PostgreSQL "
                                      "as: install Debian's postgresql package, which creates it") from exc
        user = SERVER_USER
    root = Path(tempfile.mkdtemp(prefix="parity-pg-", dir="/tmp"))
    if user:
        shutil.chown(root, user)
    server = PostgresServer(root, _free_port(), bindir, user)
    data, log = root / "data", root / "server.log"
    try:
        server._run([str(bindir / "initdb"), "-D", str(data), "-U", DB_USER, "--auth=trust", "-E", "UTF8",
                     "--no-sync", "--locale=C"])
        options = (f"-c listen_addresses=127.0.0.1 -p {server.port} -k {root} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off")
        server._run([str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w", "-t", "60", "start"])
    except (PostgresUnavailable, subprocess.TimeoutExpired) as exc:
        tail = log.read_text()[-2000:] if log.exists() else ""
        server.stop()
        raise PostgresUnavailable(f"PostgreSQL did not start: {exc}\n{tail}") from exc
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", server.port)) == 0:
                return server
        time.sleep(0.1)
    server.stop()
    raise PostgresUnavailable(f"PostgreSQL did not listen on 127.0.0.1:{server.port} within 30 s")
