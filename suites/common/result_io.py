"""Result files: one ModelResult per file, binary (`.pb`) plus text form (`.txtpb`) for people."""

from __future__ import annotations

from pathlib import Path

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from parity.v1 import results_pb2 as pb
from proto.result_files import NOT_MODEL_RESULTS, text_form, write_message

# How much of a failure's text (message, traceback, log tail) a result keeps: enough for the frame that raised.
FAILURE_TEXT_CHARS = 4000


class ResultFileError(ValueError):
    """A result file is unreadable or not a ModelResult."""


def write_result(result: pb.ModelResult, directory: Path, stem: str) -> Path:
    """Writes `<stem>.pb` and `<stem>.txtpb` atomically; returns the .pb path."""
    return write_message(result, directory, stem)


def result_files(folder: Path) -> list[Path]:
    """The ModelResult files of a folder, each once: the binary where there is one, else the text form (reference
    datasets keep only that). Run plans, OpInfo results and triage records (tools/triage) are not ModelResults."""
    found = {p.with_suffix(""): p for p in folder.glob("*.txtpb")}
    found.update({p.with_suffix(""): p for p in folder.glob("*.pb")})
    others = (*NOT_MODEL_RESULTS, *map(text_form, NOT_MODEL_RESULTS))
    return sorted(p for p in found.values() if not p.name.endswith(others))


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
