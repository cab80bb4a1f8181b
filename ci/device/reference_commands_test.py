"""The GPU-machine commands written in the READMEs name sections of ci/device/reference_runs.sh that exist,
and suites, modes and models their manifests have. A stale command is found here, not on the lent GPU,
where every call costs scarce device time."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from compiler.backends import get_backend
from suites.common.manifest import load_manifest

SCRIPT = Path("ci/device/reference_runs.sh")
READMES = [Path("README.md"), Path("opinfo/README.md"), *sorted(Path("suites").glob("*/reference/README.md"))]
SUITE_SECTIONS = ("accuracy", "turns", "performance")  # SECTION SUITE MODE ...; accuracy's MODE is optional
MODES = ("training", "inference", "both")


def script_sections() -> set[str]:
    text = SCRIPT.read_text()
    return set(re.findall(r"^  ([a-z][a-z-]*)\)", text[text.index('case "$section" in'):], re.M))


def written_commands() -> list[tuple[str, list[str]]]:
    """(where, arguments after reference_runs.sh) for every command in the READMEs, continuation lines joined;
    "..." (a list cut short in the text) is left out."""
    found = []
    for readme in READMES:
        text = readme.read_text()
        for match in re.finditer(r"reference_runs\.sh ((?:[^#`;|\n\\]|\\\n)*)", text):
            words = [w for w in shlex.split(match.group(1).replace("\\\n", " ")) if w != "..."]
            if words and not words[0].isupper():  # `reference_runs.sh SECTION` in prose names no section
                found.append((f"{readme}:{text.count(chr(10), 0, match.start()) + 1}", words))
    return found


COMMANDS = written_commands()


def test_commands_are_found() -> None:
    # The plans of the three suites at least; a parser that finds nothing would pass everything below.
    assert {where.split(":")[0] for where, _ in COMMANDS} >= {str(p) for p in READMES if "reference" in p.parts}


@pytest.mark.parametrize("where, words", COMMANDS, ids=[where for where, _ in COMMANDS])
def test_command_names_what_exists(where: str, words: list[str]) -> None:
    section, args = words[0], words[1:]
    assert section in script_sections(), f"{where}: no section {section!r} in {SCRIPT}"
    if section in SUITE_SECTIONS:
        suite, mode = args[0], (args[1] if len(args) > 1 else "both")
        manifest = load_manifest(suite)
        assert mode in MODES, f"{where}: mode {mode!r}"
        models = args[2:] if section != "performance" else []
        wanted = MODES[:2] if mode == "both" else (mode,)
        for model in models:
            assert any(m in manifest.model(model).modes for m in wanted), f"{where}: {model} has no {mode} mode"
    elif section == "llm":
        get_backend(args[0])
        manifest = load_manifest("huggingface")
        for model in args[1:]:
            assert manifest.model(model).workload == "generation", f"{where}: {model} is not an LLM entry"
