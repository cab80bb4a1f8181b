"""tools.affected: the pure decision (with a stand-in query), git in a scratch repository, and the real
`bazel query` on this workspace (plain pytest only: Bazel cannot run inside a Bazel test)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from tools.affected.__main__ import compute, main
from tools.affected.bazel_query import bazel_query
from tools.affected.decision import Change, Kind, QueryError, decide, file_label, parse_labels
from tools.affected.git_diff import changed_files, package_finder

REPO = Path(__file__).resolve().parent.parent.parent


class Graph:
    """A stand-in for `bazel query` over a small declared graph; records the expressions it was asked."""

    def __init__(self, declared: dict[str, list[str]], tests: list[str]) -> None:
        self.declared = declared  # package pattern `//pkg` -> its declared targets
        self.tests = tests
        self.asked: list[str] = []

    def __call__(self, expression: str) -> Sequence[str]:
        self.asked.append(expression)
        if expression.startswith("tests("):
            return self.tests
        return [t for part in expression.split(" + ") for t in self.declared[part.removesuffix(":*")]]


def packages(*names: str):
    known = set(names)

    def find(path: str) -> str | None:
        parent = Path(path).parent
        for directory in [parent, *parent.parents]:
            name = "" if str(directory) == "." else directory.as_posix()
            if name in known:
                return name
        return None

    return find


def never(expression: str) -> Sequence[str]:
    raise AssertionError(f"query must not be asked here, was asked {expression!r}")


@pytest.mark.parametrize("path", [
    "WORKSPACE", "MODULE.bazel", ".bazelrc", ".bazelversion", ".bazelignore", "requirements.lock",
    "requirements.in", "requirements-npu.lock", "requirements-npu.in", "tools/pytest/defs.bzl", "suites/timm/manifest.bzl", "compiler/backend_table.bzl",
    "third_party/rules_cc_stub/BUILD",
])
def test_global_configuration_forces_full(path: str) -> None:
    decision = decide([Change("compiler/backends.py"), Change(path)], packages("", "compiler"), never)
    assert decision.kind is Kind.FULL
    assert path in decision.reason


def test_nothing_or_only_docs_skips() -> None:
    assert decide([], packages(""), never).kind is Kind.SKIP
    docs = decide([Change("README.md"), Change("flex_attention/README.md", deleted=True)], packages(""), never)
    assert docs.kind is Kind.SKIP and "documentation" in docs.reason


def test_deleted_source_forces_full() -> None:
    decision = decide([Change("compiler/backends.py", deleted=True)], packages("", "compiler"), never)
    assert decision.kind is Kind.FULL and "deleted" in decision.reason


def test_new_build_file_forces_full() -> None:
    decision = decide([Change("compiler/lowering/BUILD", added=True)], packages("", "compiler"), never)
    assert decision.kind is Kind.FULL and "package boundaries" in decision.reason


def test_file_label_uses_the_nearest_package() -> None:
    find = packages("", "compiler", "suites/timm")
    assert file_label(find("compiler/devices/cuda.py"), "compiler/devices/cuda.py") == "//compiler:devices/cuda.py"
    assert file_label(find("suites/timm/loader.py"), "suites/timm/loader.py") == "//suites/timm:loader.py"
    assert file_label(find("conftest.py"), "conftest.py") == "//:conftest.py"


def test_changed_sources_query_rdeps_of_their_labels() -> None:
    graph = Graph({"//compiler": ["//compiler:backends.py", "//compiler:BUILD"]}, ["//compiler:compiler_test"])
    decision = decide([Change("compiler/backends.py"), Change("README.md")], packages("", "compiler"), graph)
    assert decision.kind is Kind.IMPACTED
    assert decision.tests == ("//compiler:compiler_test",)
    assert graph.asked == ["//compiler:*", 'tests(rdeps(//..., set("//compiler:backends.py")))']


def test_changed_build_file_takes_all_targets_of_its_package() -> None:
    graph = Graph({"//tools/store": ["//tools/store:db.py"]}, ["//ci:layering_test", "//tools/store:store_test"])
    decision = decide([Change("tools/store/BUILD"), Change("tools/store/db.py")],
                      packages("", "tools/store"), graph)
    assert decision.kind is Kind.IMPACTED
    assert graph.asked[-1] == 'tests(rdeps(//..., set("//tools/store:db.py" "//tools/store:all")))'


def test_files_no_build_file_declares_are_not_queried() -> None:
    graph = Graph({"//ci": ["//ci:layering_test.py"]}, [])
    decision = decide([Change("ci/smoke.sh")], packages("", "ci"), graph)
    assert decision.kind is Kind.IMPACTED and decision.tests == ()
    assert "none of them a Bazel input" in decision.reason
    assert graph.asked == ["//ci:*"]  # `set(//ci:smoke.sh)` would be a query error


@pytest.mark.parametrize("output", [["//a:b", "Loading: 3 packages"], ["not a label"]])
def test_unparsable_query_output_forces_full(output: list[str]) -> None:
    decision = decide([Change("a/b.py")], packages("", "a"), lambda expression: output)
    assert decision.kind is Kind.FULL and "unparsable" in decision.reason


def test_query_failure_forces_full_with_its_message() -> None:
    def failing(expression: str) -> Sequence[str]:
        raise QueryError("`bazel query` exited 7: server crashed")

    decision = decide([Change("a/b.py")], packages("", "a"), failing)
    assert decision.kind is Kind.FULL and "server crashed" in decision.reason


def test_bzlmod_labels_are_normalised() -> None:
    assert parse_labels(["@@//a:b", "@//c:d", "//e:f", ""]) == ("//a:b", "//c:d", "//e:f")


# --- git, in a scratch repository (real git, no Bazel) ---

def git(root: Path, *args: str) -> str:
    env = {**os.environ, "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          check=True, capture_output=True, text=True, env=env).stdout


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not on PATH")
    git(tmp_path, "init", "-q", "-b", "main")
    for path, text in {"BUILD": "", "README.md": "x", "a/BUILD": "", "a/b/c.py": "x", "a/old.py": "x"}.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


def test_git_lists_modified_deleted_and_untracked_files(scratch: Path) -> None:
    (scratch / "a/b/c.py").write_text("y")
    (scratch / "a/old.py").unlink()
    (scratch / "a/new.py").write_text("z")
    changes = {c.path: c for c in changed_files(scratch, "HEAD")}
    assert changes == {"a/b/c.py": Change("a/b/c.py"), "a/old.py": Change("a/old.py", deleted=True),
                       "a/new.py": Change("a/new.py", added=True)}
    assert package_finder(scratch)("a/b/c.py") == "a"
    assert package_finder(scratch)("README.md") == ""


def test_git_diff_between_commits_uses_the_merge_base(scratch: Path) -> None:
    git(scratch, "checkout", "-q", "-b", "topic")
    (scratch / "a/b/c.py").write_text("topic")
    git(scratch, "commit", "-qam", "topic")
    git(scratch, "checkout", "-q", "main")
    (scratch / "README.md").write_text("landed on main later")
    git(scratch, "commit", "-qam", "main moved")
    git(scratch, "checkout", "-q", "topic")
    assert [c.path for c in changed_files(scratch, "main", "HEAD")] == ["a/b/c.py"]


def test_cli_skips_docs_and_fails_open_on_git_errors(scratch: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (scratch / "README.md").write_text("docs only")
    assert compute(scratch, "HEAD", None, bazel="bazel-is-not-called").kind is Kind.SKIP
    (scratch / "WORKSPACE").write_text("")
    assert compute(scratch, "HEAD", None, bazel="bazel-is-not-called").kind is Kind.FULL
    assert main(["--repo", str(scratch), "--base", "no-such-rev", "--format=json"]) == 0
    out = capsys.readouterr().out
    assert '"decision": "FULL"' in out and "no-such-rev" in out


def test_cli_fails_open_when_bazel_is_missing(scratch: Path) -> None:
    (scratch / "a/b/c.py").write_text("y")
    decision = compute(scratch, "HEAD", None, bazel=str(scratch / "no-bazel-here"))
    assert decision.kind is Kind.FULL and "could not run" in decision.reason


# --- the real `bazel query` on this workspace ---

def _skip_reason() -> str | None:
    if "TEST_SRCDIR" in os.environ:
        return "runs bazel query, and Bazel cannot run inside a Bazel test's sandbox: covered by plain pytest"
    if shutil.which("bazel") is None:
        return "bazel is not on PATH (tools/bootstrap.sh installs it)"
    return None


needs_bazel = pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))


@needs_bazel
def test_real_query_for_a_compiler_change() -> None:
    decision = decide([Change("compiler/inductor_fallbacks.py")], package_finder(REPO), bazel_query(REPO))
    assert decision.kind is Kind.IMPACTED, decision.reason
    assert "//compiler:compiler_test" in decision.tests
    assert any(t.startswith("//suites/timm:") for t in decision.tests)
    # Not reached from the compiler layer. (//tools/store:store_test is: it depends on
    # //suites/common:harness, which depends on //compiler:inductor_fallbacks.)
    assert "//tools/affected:affected_test" not in decision.tests
    assert "//flex_attention:flex_attention_test" not in decision.tests


@needs_bazel
def test_real_query_for_a_build_file_and_an_undeclared_file() -> None:
    decision = decide([Change("tools/affected/BUILD"), Change("ci/smoke.sh")], package_finder(REPO),
                      bazel_query(REPO))
    assert decision.kind is Kind.IMPACTED, decision.reason
    assert decision.tests == ("//tools/affected:affected_test", "//tools/affected:family_benchmark_test")
