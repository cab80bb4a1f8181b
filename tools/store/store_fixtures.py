"""pytest fixtures shared by the store and dashboard tests: one store per test, on SQLite and on a real
PostgreSQL server started on loopback for the session. Import them into a test module by name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.store import postgres_server


@pytest.fixture(scope="session")
def postgres() -> Iterator[postgres_server.PostgresServer]:
    server = postgres_server.start()  # fails (not skips) without PostgreSQL: CI must test both dialects
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a fresh, empty store lives: a SQLite path or a postgresql:// URL."""
    if request.param == "sqlite":
        return str(tmp_path / "parity.db")
    return request.getfixturevalue("postgres").new_database()
