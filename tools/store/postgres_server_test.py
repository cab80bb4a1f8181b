"""The throwaway PostgreSQL server: it asks for the password it was set up with, and the postmaster holds
none of root's ids, groups included."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from tools.store.postgres_server import DB_USER, PostgresServer
from tools.store.store_fixtures import postgres  # noqa: F401 (fixture)


@pytest.fixture(autouse=True)
def no_ambient_password(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """libpq also takes a password from $PGPASSWORD or ~/.pgpass: neither may stand in for the URL's."""
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))


def with_password(url: str, password: str | None) -> str:
    """The URL with its credentials replaced by DB_USER and `password` (None: no password)."""
    parts = urlsplit(url)
    credentials = DB_USER if password is None else f"{DB_USER}:{password}"
    return urlunsplit(parts._replace(netloc=f"{credentials}@{parts.hostname}:{parts.port}"))


def test_the_servers_url_carries_a_working_password(postgres: PostgresServer) -> None:  # noqa: F811
    url = postgres.new_database()
    assert urlsplit(url).password, url
    with psycopg.connect(url, connect_timeout=10) as conn:
        assert conn.execute("SELECT current_user").fetchone() == (DB_USER,)


@pytest.mark.parametrize("password", ["wrong-password", "", None])
def test_a_wrong_or_missing_password_is_refused(postgres: PostgresServer, password: str | None) -> None:  # noqa: F811
    with pytest.raises(psycopg.OperationalError, match="password authentication failed|no password supplied"):
        psycopg.connect(with_password(postgres.url(), password), connect_timeout=10).close()


def test_the_postmaster_holds_no_root_ids(postgres: PostgresServer) -> None:  # noqa: F811
    pid = int((postgres.root / "data" / "postmaster.pid").read_text().split("\n", 1)[0])
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    for key in ("Uid", "Gid", "Groups"):
        ids = [int(n) for n in status[key].split()]
        assert 0 not in ids, f"postmaster {pid} {key}: {status[key].strip()}"
