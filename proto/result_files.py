"""Result files: how a name tells its message (the writers and the store share it), and how they are written."""

from __future__ import annotations

import os
from pathlib import Path

from google.protobuf import text_format
from google.protobuf.message import Message

OPINFO_SUFFIX = ".opinfo.pb"  # an OpInfoResult; every other `.pb` is a ModelResult
MODEL_SUFFIX = ".pb"


def write_message(message: Message, directory: Path, stem: str, suffix: str = MODEL_SUFFIX) -> Path:
    """Writes `<stem><suffix>` and its text copy (`.txtpb` in place of `.pb`), each atomically (a temporary
    name, then a rename), so a reader never sees half a file; returns the binary file's path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{stem}{suffix}"
    text_path = directory / f"{stem}{suffix.removesuffix('.pb')}.txtpb"
    write_atomically(path, message.SerializeToString())
    write_atomically(text_path, text_format.MessageToString(message).encode())
    return path


def write_atomically(path: Path, payload: bytes) -> None:
    """A temporary name, then a rename: a reader, even one in another process, sees the whole file or none."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(payload)
    os.replace(tmp, path)
