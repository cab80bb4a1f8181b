"""Result files: one ModelResult per file, binary (`.pb`) plus text form (`.txtpb`) for people."""

from __future__ import annotations

import os
from pathlib import Path

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from parity.v1 import results_pb2 as pb


class ResultFileError(ValueError):
    """A result file is unreadable or not a ModelResult."""


def write_result(result: pb.ModelResult, directory: Path, stem: str) -> Path:
    """Writes both forms atomically (write to a temporary name, then rename); returns the .pb path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{stem}.pb"
    for target, payload in ((path, result.SerializeToString()),
                            (directory / f"{stem}.txtpb", text_format.MessageToString(result).encode())):
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_bytes(payload)
        os.replace(tmp, target)
    return path


def read_result(path: Path) -> pb.ModelResult:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ResultFileError(f"cannot read result file {path}: {exc.strerror}") from exc
    result = pb.ModelResult()
    try:
        if path.suffix == ".txtpb":
            text_format.Parse(data.decode(), result)
        else:
            result.ParseFromString(data)
    except (DecodeError, text_format.ParseError, UnicodeDecodeError) as exc:
        raise ResultFileError(f"{path} is not a parity.v1.ModelResult: {exc}") from exc
    if not result.result_id or not result.config.model:
        raise ResultFileError(f"{path} is not a complete parity.v1.ModelResult (no result_id or model)")
    return result
