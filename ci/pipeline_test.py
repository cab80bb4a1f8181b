"""The pipeline's decisions: retry policy, failure signatures, BEP summary, nightly report, presubmit
selection (fail open), and the second-checkout helpers. Bazel runs themselves are checked by
ci/second_checkout.py and ci/retry_simulation.py in .ci/run (Bazel cannot run inside a Bazel test)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ci.bazel_summary import Served, summarize
from ci.bazel_summary import label_dir
from ci.nightly import TargetRecord, archive_attempt, read_result, render_report
from ci.presubmit import bazel_command, select_targets
from ci.retry_policy import FailureFacts, Kind, classify, exit_code_from_test_xml, signature
from ci.second_checkout import copy_checkout, edit, presubmit_excluded_tags, revert

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("facts", "kind"), [
    (FailureFacts("PASSED", True, "pass", 0), Kind.PASSED),
    (FailureFacts("FLAKY", False, None, None), Kind.PASSED),
    (FailureFacts("FAILED", True, "fail_accuracy", 1), Kind.MODEL),
    (FailureFacts("FAILED", True, "eager_two_runs_differ", 1), Kind.MODEL),
    (FailureFacts("FAILED", True, "crash", 1), Kind.MODEL),  # classified by the harness: a model outcome
    (FailureFacts("FAILED", True, "timeout", 1), Kind.MODEL),
    (FailureFacts("FAILED", True, "infra_error", 1), Kind.INFRA),
    (FailureFacts("FAILED", True, None, 75), Kind.INFRA),
    (FailureFacts("FAILED", False, None, 75), Kind.INFRA),
    (FailureFacts("FAILED", True, None, None), Kind.INFRA),  # a model target that left no result
    (FailureFacts("TIMEOUT", True, None, None), Kind.INFRA),
    (FailureFacts("REMOTE_FAILURE", False, None, None), Kind.INFRA),
    (FailureFacts("FAILED", False, None, 1), Kind.TEST),  # a unit test failed
    (FailureFacts("TIMEOUT", False, None, None), Kind.TEST),
    (FailureFacts("FAILED_TO_BUILD", True, None, None), Kind.TEST),
])
def test_only_infrastructure_failures_are_retried(facts: FailureFacts, kind: Kind) -> None:
    verdict = classify(facts)
    assert verdict.kind is kind, verdict.reason
    assert verdict.retry == (kind is Kind.INFRA)


def test_exit_code_comes_from_bazels_generated_test_xml() -> None:
    xml = '<testcase name="x"><error message="exited with error code 75"></error></testcase>'
    assert exit_code_from_test_xml(xml) == 75
    assert exit_code_from_test_xml('<testsuite name="pytest" errors="0" failures="1">') is None


def test_signatures_group_the_same_bug_across_models() -> None:
    a = signature("fail_to_run", "RuntimeError", "shape [8, 3, 224] at 0x7f00ab in /tmp/x/y.py line 12\nmore")
    b = signature("fail_to_run", "RuntimeError", "shape [16, 3, 96] at 0x55aa01 in /home/z/y.py line 40")
    assert a == b == "fail_to_run | RuntimeError | shape [N, N, N] at 0x? in /…/y.py line N"
    assert signature("fail_accuracy", "", "") == "fail_accuracy"
    assert signature("crash", "", "SIGSEGV") != signature("crash", "", "SIGKILL")


def bep_line(event: dict) -> str:
    return json.dumps(event)


def test_bep_summary_tells_executed_cached_and_failed(tmp_path: Path) -> None:
    events = [
        {"id": {"targetCompleted": {"label": "//a:m"}}, "completed": {"tag": ["suite-timm", "smoke"]}},
        {"id": {"testResult": {"label": "//a:m", "attempt": 1}}, "testResult": {"executionInfo": {"strategy": "linux-sandbox"}}},
        {"id": {"testSummary": {"label": "//a:m"}}, "testSummary": {"overallStatus": "FAILED"}},
        {"id": {"testResult": {"label": "//a:hit"}}, "testResult": {"executionInfo": {"strategy": "remote cache hit"}}},
        {"id": {"testSummary": {"label": "//a:hit"}}, "testSummary": {"overallStatus": "PASSED"}},
        {"id": {"testResult": {"label": "//a:local"}}, "testResult": {"cachedLocally": True}},
        {"id": {"testSummary": {"label": "//a:local"}}, "testSummary": {"overallStatus": "PASSED"}},
        {"id": {"targetCompleted": {"label": "//a:perf"}}, "completed": {"tag": ["external"]}},
        {"id": {"testSummary": {"label": "//a:perf"}}, "testSummary": {"overallStatus": "NO_STATUS"}},
    ]
    bep = tmp_path / "bep.json"
    bep.write_text("\n".join(map(bep_line, events)) + "\n")
    summary = summarize(bep)
    served = {t.label: t.served for t in summary.targets}
    assert served == {"//a:m": Served.EXECUTED, "//a:hit": Served.CACHE_HIT, "//a:local": Served.LOCAL,
                      "//a:perf": Served.NOT_RUN}
    assert [t.label for t in summary.failed] == ["//a:m"]
    assert summary.targets[2].tags == ("suite-timm", "smoke") and not summary.targets[3].cacheable
    assert summary.lines()[-1] == "2 passed, 1 failed, 1 skipped"
    bep.write_text("not json\n")
    with pytest.raises(ValueError, match="bep.json:1"):
        summarize(bep)


def record(label: str, kind: Kind, sig: str = "", attempts: int = 1) -> TargetRecord:
    status = "PASSED" if kind is Kind.PASSED else "FAILED"
    return TargetRecord(label, status, attempts, kind.value, "why", "", sig, f"attempt-{attempts}/{label}")


def test_report_groups_failures_and_compares_with_the_previous_night() -> None:
    before = [record("//s:a", Kind.PASSED), record("//s:b", Kind.MODEL, "fail_accuracy"), record("//s:c", Kind.PASSED)]
    now = [record("//s:a", Kind.MODEL, "fail_to_run | RuntimeError | x"), record("//s:b", Kind.PASSED),
           record("//s:c", Kind.MODEL, "fail_to_run | RuntimeError | x"), record("//s:d", Kind.PASSED, attempts=2)]
    report = render_report("nightly-2026-12-02-cpu", now, ("2026-12-01", before), "HUD TABLE", 90.0)
    assert "4 test targets in 1.5 min: 2 passed, 2 failed; 1 retried" in report
    assert "### 2 × `fail_to_run | RuntimeError | x`" in report
    assert "- REGRESSION `//s:a`" in report and "- REGRESSION `//s:c`" in report
    assert "- fixed `//s:b`" in report and "1 new targets" in report and "HUD TABLE" in report
    first = render_report("nightly-x", now, None, "", 1.0)
    assert "No earlier nightly" in first and "REGRESSION" not in first


def test_archive_copies_logs_and_reads_the_result(tmp_path: Path) -> None:
    from proto.codegen import ensure_generated

    ensure_generated()
    from parity.v1 import results_pb2 as pb

    testlogs = tmp_path / "testlogs"
    target = testlogs / "suites/timm/m_inference_bf16_inductor"
    (target / "test.outputs").mkdir(parents=True)
    (target / "test.log").write_text("log")
    result = pb.ModelResult(community_status="fail_accuracy")
    result.failure.message = "off by one"
    with zipfile.ZipFile(target / "test.outputs" / "outputs.zip", "w") as zipped:
        zipped.writestr("m.pb", result.SerializeToString())
    bep = tmp_path / "bep.json"
    bep.write_text(bep_line({"id": {"testSummary": {"label": "//suites/timm:m_inference_bf16_inductor"}},
                             "testSummary": {"overallStatus": "FAILED"}}))
    archive_attempt(summarize(bep), testlogs, tmp_path / "night")
    kept = tmp_path / "night" / label_dir("//suites/timm:m_inference_bf16_inductor")
    assert (kept / "test.log").read_text() == "log"
    facts = read_result(kept)
    assert facts is not None and (facts.status, facts.message) == ("fail_accuracy", "off by one")
    assert read_result(tmp_path) is None


def test_presubmit_fails_open_when_the_affected_tool_cannot_answer(tmp_path: Path) -> None:
    broken = select_targets(tmp_path, "HEAD", str(tmp_path / "no-python"))
    assert broken.decision == "FULL" and broken.targets == ("//...",) and "could not run" in broken.reason
    unreadable = select_targets(tmp_path, "HEAD", "true")  # exits 0, prints nothing
    assert unreadable.decision == "FULL" and "no readable answer" in unreadable.reason


def test_presubmit_command_reads_or_writes_the_cache(tmp_path: Path) -> None:
    command = bazel_command("bazel", tmp_path / "t.txt", tmp_path / "b.json", "read", False, ["--x"])
    assert command[:4] == ["bazel", "test", "--config=ci", "--config=presubmit"]
    assert "--config=remote_cache" in command and "--disk_cache=" in command and "--keep_going" in command
    assert "--config=remote_cache_push" in bazel_command("bazel", tmp_path, tmp_path, "write", True, [])


def test_bazelrc_configs_the_pipeline_relies_on() -> None:
    rc = (REPO / ".bazelrc").read_text()
    assert presubmit_excluded_tags(REPO / ".bazelrc") == ["requires-cuda", "requires-npu", "nightly", "manual"]
    for line in ("build:remote_cache --noremote_upload_local_results", "build:remote_cache_push --remote_upload_local_results",
                 "build:remote_cache --remote_cache=http://127.0.0.1:18080",
                 "build:remote_cache_push --remote_cache=http://127.0.0.1:18081",
                 "build:rbe --extra_execution_platforms=@pypi//:rbe_platform"):
        assert line in rc.splitlines(), line


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True, env=env)


def test_second_checkout_copies_what_git_lists_and_edits_reversibly(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / ".gitignore").write_text("ignored.txt\n")
    for name in ("pkg/a.py", "ignored.txt", "gone.py", "README.md"):
        (src / name).write_text("x = 1\n")
    git(src, "init", "-q")
    git(src, "add", "pkg/a.py", ".gitignore", "gone.py", "README.md")
    git(src, "commit", "-qm", "base")
    (src / "gone.py").unlink()
    (src / "new.py").write_text("y = 2\n")  # untracked, not ignored: part of the change under test
    dest = tmp_path / "copy"
    assert copy_checkout(src, dest) == 4  # gone.py is deleted in the working tree
    copied = [p.relative_to(dest) for p in dest.rglob("*") if p.is_file()]
    assert sorted(p.as_posix() for p in copied if ".git" not in p.parts) == [".gitignore", "README.md", "new.py",
                                                                             "pkg/a.py"]
    edit(dest / "pkg/a.py")
    edit(dest / "README.md")
    assert (dest / "pkg/a.py").read_text().endswith("# second-checkout edit\n")
    assert "<!--" in (dest / "README.md").read_text()
    compile((dest / "pkg/a.py").read_text(), "a.py", "exec")
    revert(dest, dest / "pkg/a.py")
    assert (dest / "pkg/a.py").read_text() == "x = 1\n"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
