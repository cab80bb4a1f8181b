"""Result files: how a name tells its message (the writers and the store share it), and how they are written."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from google.protobuf import text_format
from google.protobuf.message import Message

OPINFO_SUFFIX = ".opinfo.pb"  # an OpInfoResult
PLAN_SUFFIX = ".plan.pb"      # a RunLedger: what a run planned (suites/common/ledger.py); every other `.pb` is a ModelResult
TRIAGE_SUFFIX = ".triage.pb"  # a TriageRecord (tools/triage), beside the result it triages
REPRO_SUFFIX = ".repro.py"    # the triage's minified repro, beside its record
MODEL_SUFFIX = ".pb"
NOT_MODEL_RESULTS = (OPINFO_SUFFIX, PLAN_SUFFIX, TRIAGE_SUFFIX)


def text_form(suffix: str) -> str:
    """The suffix of a message's text form (`.plan.pb` -> `.plan.txtpb`)."""
    return suffix.removesuffix(".pb") + ".txtpb"


TRIAGE_TEXT_SUFFIX = text_form(TRIAGE_SUFFIX)  # <result stem>.triage.txtpb: what tools/triage writes


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
    """A temporary name, then a rename: a reader, even one in another process, sees the whole file or none. The
    temporary name is unique, so two writers of one path never write into each other's file."""
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(handle, 0o644)  # as an ordinary file, not mkstemp's owner-only mode
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
