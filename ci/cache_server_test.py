"""ci.cache_server: a real nginx on loopback ports, spoken to over HTTP as Bazel does (GET/HEAD/PUT)."""

from __future__ import annotations

import hashlib
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from ci.cache_server import CacheServer, CacheServerError, main, nginx_conf, running_pid, start, stop


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request(url: str, method: str = "GET", data: bytes | None = None) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method), timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, b""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[CacheServer]:
    server = CacheServer(tmp_path / "store", tmp_path / "state", free_port(), free_port())
    start(server)
    try:
        yield server
    finally:
        stop(server)


def test_write_port_stores_in_the_disk_cache_layout_and_read_port_serves(server: CacheServer) -> None:
    blob = b"an action output"
    digest = hashlib.sha256(blob).hexdigest()
    assert request(f"{server.read_url}/cas/{digest}")[0] == 404  # a miss, as Bazel expects it
    assert request(f"{server.write_url}/cas/{digest}", "PUT", blob)[0] in (201, 204)
    assert (server.store / "cas" / digest[:2] / digest).read_bytes() == blob  # Bazel's --disk_cache layout
    assert request(f"{server.read_url}/cas/{digest}") == (200, blob)
    assert request(f"{server.read_url}/cas/{digest}", "HEAD")[0] == 200


def test_read_port_refuses_writes_and_odd_paths(server: CacheServer) -> None:
    digest = hashlib.sha256(b"x").hexdigest()
    assert request(f"{server.read_url}/ac/{digest}", "PUT", b"x")[0] == 403
    assert not (server.store / "ac" / digest[:2] / digest).exists()
    assert request(f"{server.write_url}/ac/{digest}", "DELETE")[0] == 403
    for path in ("/ac/not-a-digest", "/etc/passwd", f"/other/{digest}"):
        assert request(server.write_url + path, "PUT", b"x")[0] in (403, 404, 405), path
    assert sorted(p.name for p in server.store.rglob("*") if p.is_file()) == []


def test_disk_cache_entries_are_served(server: CacheServer) -> None:
    digest = hashlib.sha256(b"written by bazel --disk_cache").hexdigest()
    (server.store / "ac" / digest[:2]).mkdir(parents=True)
    (server.store / "ac" / digest[:2] / digest).write_bytes(b"result")
    assert request(f"{server.read_url}/ac/{digest}") == (200, b"result")


def test_start_is_idempotent_and_stop_ends_the_server(server: CacheServer) -> None:
    pid = running_pid(server)
    assert pid is not None
    assert "already running" in start(server)
    assert running_pid(server) == pid
    assert "stopped" in stop(server)
    assert running_pid(server) is None
    with pytest.raises(OSError):
        urllib.request.urlopen(f"{server.read_url}/ac/{64 * '0'}", timeout=2)


def test_a_taken_port_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = CacheServer(tmp_path / "store", tmp_path / "state", port, free_port())
        with pytest.raises(CacheServerError, match="--read-port"):
            start(server)
    assert main(["stop", "--state", str(tmp_path / "state")]) == 0  # nothing running: says so, no error


def test_conf_listens_on_loopback_only(tmp_path: Path) -> None:
    conf = nginx_conf(CacheServer(tmp_path / "s", tmp_path / "t", 1, 2), "nobody")
    listens = [line.strip() for line in conf.splitlines() if line.strip().startswith("listen")]
    assert listens == ["listen 127.0.0.1:1;", "listen 127.0.0.1:2;"]
