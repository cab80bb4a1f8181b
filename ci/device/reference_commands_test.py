"""The commands the READMEs give for the GPU machine (ci/device/reference_runs.sh SECTION ..., suites.run and
ci/device/run_suite.sh) name sections that exist, and suites, modes, models and backends that the manifests and
the backend table have. A stale command is found here, not on the lent GPU, where every call costs scarce
device time."""

from __future__ import annotations

import functools
import re
import shlex
from pathlib import Path

import pytest

from compiler.backends import get_backend
from suites.common.manifest import load_manifest

SCRIPT = Path("ci/device/reference_runs.sh")
READMES = [Path("README.md"), Path("opinfo/README.md"), *sorted(Path("suites").glob("*/reference/README.md")),
           Path("tools/crosscheck/README.md"), Path("tools/triage/README.md"), Path("ci/device/README.md")]
# SECTION SUITE MODE ...; accuracy's MODE is optional
SUITE_SECTIONS = ("accuracy", "turns", "performance", "crosscheck")
MODES = ("training", "inference", "both")
COMMAND = re.compile(r"(reference_runs\.sh|suites\.run|run_suite\.sh) ([^#`;|&)\n]*)")  # a subshell's ) or & ends it


def script_sections() -> set[str]:
    text = SCRIPT.read_text()
    return set(re.findall(r"^  ([a-z][a-z-]*)\)", text[text.index('case "$section" in'):], re.M))


SCRIPT_SECTIONS = script_sections()
manifest_of = functools.cache(load_manifest)  # one parse per suite, not one per command


def one_line_per_command(text: str) -> str:
    """Joins a code block's continuation lines, and an inline code span that the prose wraps."""
    parts = re.split(r"(^```.*?^```)", text, flags=re.M | re.S)
    return "".join(part.replace("\\\n", " ") if part.startswith("```")
                   else re.sub(r"`[^`]+`", lambda span: span.group(0).replace("\n", " "), part) for part in parts)


def written_commands() -> list[tuple[str, str, list[str]]]:
    """(where, program, its words) for every command in the READMEs. Left out: "..." (a list cut short in the
    text) and placeholders ($VAR, <date>, SECTION)."""
    found = []
    for readme in READMES:
        for line in one_line_per_command(readme.read_text()).splitlines():
            for match in COMMAND.finditer(line):
                words = [w for w in shlex.split(match.group(2))
                         if w != "..." and not re.search(r"[$<>]", w) and not w.isupper()]
                if words:
                    found.append((f"{readme}: {match.group(0)[:70]}", match.group(1), words))
    return found


COMMANDS = written_commands()


def flag_values(words: list[str], flag: str) -> list[str]:
    values = [w.split("=", 1)[1] for w in words if w.startswith(flag + "=")]
    return values + [words[i + 1] for i, w in enumerate(words[:-1]) if w == flag]


def check_models(where: str, suite: str, mode: str, models: list[str]) -> None:
    manifest = manifest_of(suite)
    assert mode in MODES, f"{where}: mode {mode!r}"
    wanted = MODES[:2] if mode == "both" else (mode,)
    for model in models:
        assert any(m in manifest.model(model).modes for m in wanted), f"{where}: {model} has no {mode} mode"


def test_commands_are_found() -> None:
    # Every reference README has some; a parser that found nothing would pass everything below.
    assert {where.split(":")[0] for where, _, _ in COMMANDS} >= {str(p) for p in READMES if "reference" in p.parts}


@pytest.mark.parametrize("where, program, words", COMMANDS, ids=[where for where, _, _ in COMMANDS])
def test_command_names_what_exists(where: str, program: str, words: list[str]) -> None:
    if program != "reference_runs.sh":  # suites.run's flags, as far as the text gives them
        for backend in flag_values(words, "--backend"):
            get_backend(backend)
        for suite in flag_values(words, "--suite"):
            check_models(where, suite, (flag_values(words, "--mode") or ["both"])[0], flag_values(words, "--model"))
        return
    section, args = words[0], words[1:]
    assert section in SCRIPT_SECTIONS, f"{where}: no section {section!r} in {SCRIPT}"
    if section in SUITE_SECTIONS and args:  # without args, a command in prose that names the section (SUITE MODE ...)
        mode = args[1] if len(args) > 1 else "both"
        check_models(where, args[0], mode, args[2:] if section != "performance" else [])
    elif section == "llm":
        get_backend(args[0])
        manifest = manifest_of("huggingface")
        for model in args[1:]:
            assert manifest.model(model).workload == "generation", f"{where}: {model} is not an LLM entry"


QUEUE = Path("ci/device/README.md")


def queue_pointers() -> list[tuple[str, str]]:
    """(README, quoted heading) for every place the queue's "commands in" column points at."""
    pointers = []
    for row in re.findall(r"^\|.*\|$", QUEUE.read_text(), re.M):
        cell = row.strip("|").split("|")[-1]
        readme = re.search(r"`([^`]+\.md)`", cell)
        if readme:
            pointers += [(readme.group(1), quoted) for quoted in re.findall(r'"([^"]+)"', cell)]
    return pointers


def test_queue_points_at_what_exists() -> None:
    pointers = queue_pointers()
    assert len({readme for readme, _ in pointers}) >= 3, f"{QUEUE}: its table names fewer READMEs than expected"
    for readme, quoted in pointers:
        assert Path(readme) in READMES, f"{QUEUE}: {readme} is not one of the READMEs checked here"
        assert quoted in Path(readme).read_text(), f"{QUEUE}: {readme} has no {quoted!r}"
