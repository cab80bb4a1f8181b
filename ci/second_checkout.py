"""Acceptance check and benchmark of the remote cache and the affected-target selection.

  python -m ci.second_checkout                       # cache hits in a clean copy (counts printed)
  python -m ci.second_checkout --fractions           # + share of presubmit targets each change kind reruns
  python -m ci.second_checkout --change harness      # + edit one file, check that exactly its tests rerun

A clean copy of this checkout (the files git lists: tracked and untracked-not-ignored, as in a fresh
clone of the same commit) goes to a scratch folder with its own Bazel output root, so nothing local can
serve it: no disk cache, no action cache. It tests the presubmit set reading only the remote cache
(`--config=remote_cache`, which CI filled with `--config=remote_cache_push`): every cacheable test must
be a remote cache hit. Then:
  --fractions  for each change kind, one representative file is edited and `python -m tools.affected`
               says which tests rerun: the share of the presubmit set and of the whole matrix.
  --change K   edits kind K's file, runs the presubmit set again, and checks that the tests that ran are
               exactly the affected ones (the rest are cached). K=lowering_family picks the op family
               (compiler/lowering/<family>) whose change reruns the fewest model targets, at least one.
               With --no-rerun, Bazel only says which tests are out of date (--check_tests_up_to_date).
Timings printed: the clean copy served from the remote cache (cold Bazel), and a no-op presubmit.
The scratch Bazel server is shut down and the folder removed at the end (--keep keeps them).
Exit code 1 when a check fails, with the targets named.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ci.bazel_summary import RunSummary, Served, summarize
from ci.presubmit import select_targets

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SCRATCH = Path("/tmp/parity-second-checkout")
# Bazel's test tag filter of --config=presubmit decides the presubmit set; these flags read the remote
# cache only. --config=ci keeps the same --test_env as the writer (part of every test's key).
READ_ONLY = ["--config=ci", "--config=presubmit", "--config=remote_cache", "--disk_cache=", "--keep_going"]


@dataclass(frozen=True)
class ChangeKind:
    name: str
    candidates: tuple[str, ...]  # the first existing file (glob patterns allowed) represents the kind
    note: str


CHANGE_KINDS = (
    ChangeKind("docs", ("README.md",), "documentation only"),
    ChangeKind("device_adapter", ("compiler/devices/cuda.py",), "one device adapter"),
    ChangeKind("fallback_policy", ("compiler/inductor_fallbacks.py",), "the Inductor fallback recorder"),
    ChangeKind("harness", ("suites/common/model_run.py",), "the model harness (every model)"),
    ChangeKind("suite_loader", ("suites/timm/loader.py",), "one suite's model loader"),
    ChangeKind("store", ("tools/store/db.py",), "the results store"),
    ChangeKind("device_slots", ("ci/run_under/one_device.py",), "the one-device-per-test wrapper"),
    ChangeKind("global_config", (".bazelrc",), "global build configuration (fails open to FULL)"),
)


LOWERING_FAMILY = "lowering_family"  # --change: the op family whose change reruns the fewest (>0) models


def lowering_kinds(workspace: Path) -> tuple[ChangeKind, ...]:
    """One change kind per op family library (compiler/lowering/<family>/BUILD)."""
    return tuple(ChangeKind(f"lowering/{build.parent.name}", (f"compiler/lowering/{build.parent.name}/*.py",),
                            f"the {build.parent.name} family's lowering overrides")
                 for build in sorted(workspace.glob("compiler/lowering/*/BUILD")))


@dataclass(frozen=True)
class Impact:
    kind: ChangeKind
    path: Path | None
    decision: str
    affected: frozenset[str]  # affected test labels ("//..." alone for FULL)


class CheckFailed(RuntimeError):
    pass


class NothingToShow(RuntimeError):
    """The tree has nothing the asked check could exercise; reported as NOT CHECKED, not as a failure."""


def copy_checkout(src: Path, dest: Path) -> int:
    """Copies the files git lists (tracked + untracked, not ignored) and commits them in a new repository
    there (tools.affected diffs against it). The source repository is only read."""
    listed = subprocess.run(["git", "-C", str(src), "ls-files", "-z", "-co", "--exclude-standard"],
                            capture_output=True, text=True, check=True).stdout.split("\0")
    count = 0
    for rel in filter(None, listed):
        source = src / rel
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the working tree
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
        count += 1
    git = ["git", "-C", str(dest), "-c", "user.name=parity-ci", "-c", "user.email=ci@parity.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "second checkout"], check=True)
    return count


class ScratchBazel:
    """Bazel in the copy, with its own output root: a cold server, empty action cache, no disk cache."""

    def __init__(self, workspace: Path, output_root: Path, bazel: str) -> None:
        self.workspace, self.output_root, self.bazel = workspace, output_root, bazel

    def wrapper(self) -> str:
        """An executable for tools that take a bazel binary (tools.affected --bazel): same output root."""
        path = self.output_root.parent / "bazel.sh"
        if not path.exists():
            path.write_text(f'#!/bin/sh\nexec {" ".join(self.startup())} "$@"\n')
            path.chmod(0o755)
        return str(path)

    def startup(self) -> list[str]:
        return [self.bazel, f"--output_user_root={self.output_root}", "--max_idle_secs=120"]

    def test(self, patterns: list[str], bep: Path, *flags: str) -> tuple[RunSummary, float]:
        targets = bep.with_suffix(".targets")
        targets.write_text("".join(f"{p}\n" for p in patterns))
        command = [*self.startup(), "test", *READ_ONLY, f"--build_event_json_file={bep}",
                   f"--target_pattern_file={targets}", *flags]
        started = time.monotonic()
        code = subprocess.run(command, cwd=self.workspace, capture_output=True, text=True)
        elapsed = time.monotonic() - started
        # --check_tests_up_to_date exits 1 when a test is out of date: the answer, not an error.
        allowed = (0, 1, 3, 4) if "--check_tests_up_to_date" in flags else (0, 3, 4)
        if code.returncode not in allowed or not bep.exists():
            raise CheckFailed(f"bazel test in the copy exited {code.returncode}: {code.stderr.strip()[-1500:]}")
        return summarize(bep), elapsed

    def shutdown(self) -> None:
        subprocess.run([*self.startup(), "shutdown"], cwd=self.workspace, capture_output=True)


def check_all_hits(summary: RunSummary) -> list[str]:
    """Cacheable tests that did not come from the remote cache (should be none)."""
    return [f"{t.label} ({t.served.value}, {t.status})" for t in summary.targets
            if t.cacheable and t.served is not Served.CACHE_HIT]


def representative(workspace: Path, kind: ChangeKind) -> Path | None:
    for pattern in kind.candidates:
        found = sorted(workspace.glob(pattern))
        if found:
            return found[0]
    return None


def edit(path: Path) -> None:
    """A content change that keeps the file valid: a trailing comment in its own syntax."""
    marker = "<!-- second-checkout edit -->" if path.suffix == ".md" else "# second-checkout edit"
    path.write_text(path.read_text() + f"\n{marker}\n")


def revert(workspace: Path, path: Path) -> None:
    subprocess.run(["git", "-C", str(workspace), "checkout", "-q", "--", str(path.relative_to(workspace))],
                   check=True)


def impacts(workspace: Path, bazel: ScratchBazel, kinds: tuple[ChangeKind, ...], python: str) -> list[Impact]:
    """What tools.affected selects when each kind's representative file changes (edited, then reverted)."""
    found = []
    for kind in kinds:
        path = representative(workspace, kind)
        if path is None:
            found.append(Impact(kind, None, "-", frozenset()))
            continue
        edit(path)
        try:
            selection = select_targets(workspace, "HEAD", python, bazel.wrapper())
        finally:
            revert(workspace, path)
        found.append(Impact(kind, path, selection.decision, frozenset(selection.targets)))
    return found


def fraction_table(workspace: Path, found: list[Impact], every: set[str], presubmit_set: set[str]) -> list[str]:
    lines = [f"{len(presubmit_set)} presubmit tests of {len(every)} test targets in the matrix",
             f"{'change kind':<20} {'decision':<9} {'presubmit rerun':>16} {'matrix rerun':>13}  file"]
    for impact in found:
        if impact.path is None:
            lines.append(f"{impact.kind.name:<20} {'-':<9} {'-':>16} {'-':>13}  (no such file in this tree)")
            continue
        full = impact.affected == frozenset({"//..."})
        pre = len(presubmit_set) if full else len(presubmit_set & impact.affected)
        matrix = len(every) if full else len(every & impact.affected)
        lines.append(f"{impact.kind.name:<20} {impact.decision:<9} {pre:>5}/{len(presubmit_set):<4} "
                     f"{pre / max(1, len(presubmit_set)):5.0%} {matrix / max(1, len(every)):>12.0%}  "
                     f"{impact.path.relative_to(workspace)}")
    return lines


def query_tests(bazel: ScratchBazel, expression: str) -> set[str]:
    done = subprocess.run([*bazel.startup(), "query", expression, "--output=label"], cwd=bazel.workspace,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise CheckFailed(f"bazel query {expression!r} failed: {done.stderr.strip()[-800:]}")
    return set(done.stdout.split())


def presubmit_excluded_tags(bazelrc: Path) -> list[str]:
    """The tags --config=presubmit filters out, read from .bazelrc (the one place that says)."""
    for line in bazelrc.read_text().splitlines():
        if line.startswith("test:presubmit --test_tag_filters="):
            return [tag[1:] for tag in line.split("=", 1)[1].split(",") if tag.startswith("-")]
    raise CheckFailed(f"{bazelrc} has no `test:presubmit --test_tag_filters=` line")


def matrix_sets(bazel: ScratchBazel) -> tuple[set[str], set[str]]:
    """(every test target, the presubmit set), from the graph, without running anything."""
    every = query_tests(bazel, "tests(//...)")
    excluded = "|".join(re.escape(t) for t in presubmit_excluded_tags(bazel.workspace / ".bazelrc"))
    presubmit = every - query_tests(bazel, f'attr(tags, "\\b({excluded})\\b", tests(//...))')
    return every, presubmit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ci.second_checkout", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scratch", type=Path, default=DEFAULT_SCRATCH)
    parser.add_argument("--fractions", action="store_true")
    parser.add_argument("--change", choices=[k.name for k in CHANGE_KINDS] + [LOWERING_FAMILY], default=None)
    parser.add_argument("--no-rerun", action="store_true",
                        help="with --change: ask Bazel which tests are out of date (--check_tests_up_to_date) "
                             "instead of rerunning them (CI: a family's models take minutes to rerun)")
    parser.add_argument("--targets", nargs="+", default=["//..."],
                        help="patterns to test (default //...: the presubmit set that CI's test run filled)")
    parser.add_argument("--keep", action="store_true", help="keep the copy and its Bazel server")
    parser.add_argument("--bazel", default="bazel")
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args(argv)

    if args.scratch.exists():
        shutil.rmtree(args.scratch)
    workspace = args.scratch / "checkout"
    bazel = ScratchBazel(workspace, args.scratch / "bazel-root", args.bazel)
    out = args.scratch / "events"
    out.mkdir(parents=True)
    problems: list[str] = []
    try:
        files = copy_checkout(REPO, workspace)
        print(f"[second-checkout] {files} files copied to {workspace}; Bazel output root {bazel.output_root}")
        # A new developer's first step (README): tools/bootstrap.sh. Here it only adds what lives in the
        # checkout (the dashboard's node_modules, npm ci from the lock); the venv is shared and already built.
        subprocess.run(["bash", "tools/bootstrap.sh"], cwd=workspace, check=True, stdout=subprocess.DEVNULL)
        first, cold_s = bazel.test(args.targets, out / "cold.json")
        missed = check_all_hits(first)
        print(f"[second-checkout] clean copy, cold Bazel, remote cache only: {len(first.targets)} presubmit tests in "
              f"{cold_s:.1f} s: {first.count(Served.CACHE_HIT)} remote cache hits, {first.count(Served.EXECUTED)} "
              f"executed, {first.count(Served.LOCAL)} cached locally, "
              f"{sum(1 for t in first.targets if not t.cacheable)} uncacheable by tag")
        if missed:
            problems.append(f"{len(missed)} unchanged cacheable tests were not remote cache hits: {', '.join(missed)}")
        started = time.monotonic()
        noop = select_targets(workspace, "HEAD", args.python, bazel.wrapper())
        print(f"[second-checkout] no-op presubmit (no change): {noop.decision} in {time.monotonic() - started:.1f} s")
        _, warm_s = bazel.test(args.targets, out / "warm.json")
        print(f"[second-checkout] the same presubmit set again, warm Bazel, nothing changed: {warm_s:.1f} s")
        tested = {t.label for t in first.targets}
        found: list[Impact] = []
        if args.fractions or args.change == LOWERING_FAMILY:
            every, presubmit_set = matrix_sets(bazel)
            kinds = CHANGE_KINDS + lowering_kinds(workspace) if args.fractions else lowering_kinds(workspace)
            found = impacts(workspace, bazel, kinds, args.python)
            if args.fractions:
                print("[second-checkout] share of targets each change kind reruns (tools.affected):")
                print("\n".join(fraction_table(workspace, found, every, presubmit_set)))
        if args.change:
            try:
                kind = pick_change(workspace, args.change, found, tested)
            except NothingToShow as exc:
                print(f"[second-checkout] NOT CHECKED: --change {args.change}: {exc}")
            else:
                problems += rerun_check(workspace, bazel, out, kind, tested, args.python, args.targets,
                                        args.no_rerun)
    except (CheckFailed, subprocess.CalledProcessError, OSError) as exc:
        problems.append(str(exc))
    finally:
        if not args.keep:
            bazel.shutdown()
            shutil.rmtree(args.scratch, ignore_errors=True)
    for problem in problems:
        print(f"[second-checkout] FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


def pick_change(workspace: Path, name: str, found: list[Impact], tested: set[str]) -> ChangeKind:
    """The named kind; for lowering_family, the family whose change reruns the fewest tested model
    targets (at least one), so the check shows "only its models" at the lowest cost."""
    if name != LOWERING_FAMILY:
        return next(k for k in CHANGE_KINDS if k.name == name)
    models = [(len(tested & i.affected), i.kind) for i in found
              if i.kind.name.startswith("lowering/") and i.path is not None
              and any(t.startswith("//suites/") for t in tested & i.affected)]
    if not models:
        raise NothingToShow("no lowering family affects any tested model target (model targets do not depend on "
                            "compiler/lowering/<family> libraries yet)")
    return min(models, key=lambda pair: pair[0])[1]


def rerun_check(workspace: Path, bazel: ScratchBazel, out: Path, kind: ChangeKind, presubmit_set: set[str],
                python: str, targets: list[str], no_rerun: bool = False) -> list[str]:
    path = representative(workspace, kind)
    if path is None:
        return [f"change kind {kind.name}: none of {kind.candidates} exists in this tree"]
    edit(path)
    selection = select_targets(workspace, "HEAD", python, bazel.wrapper())
    # Of the tests this check covers, those the change affects (FULL: all of them).
    expected = presubmit_set & set(selection.targets) if selection.targets != ("//...",) else presubmit_set
    if no_rerun:  # Bazel says which tests are out of date (NO_STATUS) without running them
        after, after_s = bazel.test(targets, out / "changed.json", "--check_tests_up_to_date")
        ran = {t.label for t in after.targets if t.status == "NO_STATUS"}
    else:
        after, after_s = bazel.test(targets, out / "changed.json")
        ran = {t.label for t in after.targets if t.served is Served.EXECUTED}
    print(f"[second-checkout] after editing {path.relative_to(workspace)} ({kind.note}): {selection.decision}, "
          f"{len(expected)} of {len(presubmit_set)} tested targets affected; Bazel "
          f"{'would rerun (out of date)' if no_rerun else 'reran'} {len(ran)} "
          f"({sum(1 for t in ran if t.startswith('//suites/'))} model targets), the other "
          f"{len(after.targets) - len(ran)} were cached, in {after_s:.1f} s")
    problems = []
    uncacheable = {t.label for t in after.targets if not t.cacheable}
    if ran - uncacheable != expected - uncacheable:
        problems.append(f"rerun set differs from the affected set: ran but not affected "
                        f"{sorted(ran - expected - uncacheable)}, affected but not run {sorted(expected - ran)}")
    failed = [t.label for t in after.failed]
    if failed:
        problems.append(f"tests failed after a comment-only edit of {path.name}: {failed}")
    return problems


if __name__ == "__main__":
    sys.exit(main())
