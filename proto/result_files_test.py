"""Result files are written atomically under unique temporary names: writers of one path never collide."""

from __future__ import annotations

import threading
from pathlib import Path

from proto.result_files import write_atomically


def test_concurrent_writers_of_one_path_leave_one_whole_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "r.pb"
    payloads = [bytes([n]) * 200_000 for n in range(8)]
    start, errors = threading.Barrier(len(payloads)), []

    def write(payload: bytes) -> None:
        start.wait()
        try:
            for _ in range(20):
                write_atomically(target, payload)
        except OSError as exc:  # a shared temporary name: one writer renames the other's file away
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(p,)) for p in payloads]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert target.read_bytes() in payloads
    assert [p.name for p in tmp_path.iterdir()] == ["r.pb"]
