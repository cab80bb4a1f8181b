"""A throwaway PostgreSQL server on loopback, for the store's tests (Debian's postgresql package).

initdb into a fresh folder under /tmp, listen on 127.0.0.1 at a free port, and accept only TCP from the
loopback with a random password (SCRAM) that the server's URLs carry: any local account can reach the
port, so trust would hand every one of them the database. PostgreSQL refuses to run as root, so under
root the server runs as the `postgres` account that Debian's package creates, with that account's group
and none of root's.
"""

from __future__ import annotations

import itertools
import os
import pwd
import re
import secrets
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
    password: str  # DB_USER's, set by initdb; every URL carries it
    _databases: itertools.count = field(default_factory=itertools.count)

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{DB_USER}:{self.password}@127.0.0.1:{self.port}/{dbname}"

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
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=self.root, timeout=120,
                              **_drop_privileges(self.user))
        if check and done.returncode != 0:
            raise PostgresUnavailable(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
        return done


def _drop_privileges(user: str | None) -> dict[str, object]:
    """subprocess.run arguments that run as `user` with its primary group and no supplementary groups.

    user= alone only switches the uid: the child (and the postmaster it leaves behind) would keep root's
    gid and groups, and with them root-group access to files. subprocess sets groups, then gid, then uid.
    """
    if user is None:
        return {}
    return {"user": user, "group": pwd.getpwnam(user).pw_gid, "extra_groups": []}


def _auth_method(bindir: Path) -> str:
    """scram-sha-256 where the server has it (PostgreSQL 10 and later), else md5."""
    done = subprocess.run([str(bindir / "initdb"), "--version"], capture_output=True, text=True, timeout=30)
    major = re.search(r"\)\s*(\d+)", done.stdout)  # "initdb (PostgreSQL) 15.18 (Debian ...)"
    return "scram-sha-256" if major is None or int(major.group(1)) >= 10 else "md5"


def _write_hba(data: Path, method: str) -> None:
    """Only TCP from 127.0.0.1, only with the password: no Unix-socket or IPv6 lines to forget about."""
    (data / "pg_hba.conf").write_text(f"# written by tools/store/postgres_server.py\n"
                                      f"host all all 127.0.0.1/32 {method}\n")


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
    # Hex: no character that a URL's userinfo would need to escape.
    server = PostgresServer(root, _free_port(), bindir, user, secrets.token_hex(16))
    data, log, pwfile = root / "data", root / "server.log", root / "pwfile"
    method = _auth_method(bindir)
    try:
        # initdb reads the password from a file (never argv, which other accounts can see); 0600 and
        # owned by the server's account, removed as soon as initdb is done.
        pwfile.touch(mode=0o600)
        pwfile.write_text(server.password + "\n")
        if user:
            shutil.chown(pwfile, user)
        server._run([str(bindir / "initdb"), "-D", str(data), "-U", DB_USER, f"--auth={method}",
                     f"--pwfile={pwfile}", "-E", "UTF8", "--no-sync", "--locale=C"])
        pwfile.unlink()
        _write_hba(data, method)
        if user:
            shutil.chown(data / "pg_hba.conf", user)
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
