"""Affected test targets of a change (presubmit): prints FULL, SKIP or IMPACTED with its reason.

  python -m tools.affected --base origin/main                 # merge base .. working tree
  python -m tools.affected --base origin/main --head HEAD     # merge base .. HEAD (must be checked out)
  python -m tools.affected --base origin/main --format=json

Text output: the first line is `<DECISION>: <reason>`; for IMPACTED the test labels follow, one per line.
Any error (git, bazel, unparsable output) gives FULL with the error as the reason, and exit code 0:
the caller then runs everything. Exit code 2 means bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from tools.affected.bazel_query import bazel_query
from tools.affected.decision import Decision, Kind, decide
from tools.affected.git_diff import GitError, changed_files, head_matches_checkout, package_finder, repo_root


def compute(repo: Path, base: str, head: str | None, bazel: str) -> Decision:
    """The decision for the repository at `repo`; never raises (fail open)."""
    try:
        root = repo_root(repo)
        if head is not None and not head_matches_checkout(root, head):
            return Decision(Kind.FULL, f"--head {head} is not the checked-out commit and bazel query reads the "
                            f"working tree: check out {head} first, or leave --head out")
        changes = changed_files(root, base, head)
        return decide(changes, package_finder(root), bazel_query(root, bazel))
    except GitError as exc:
        return Decision(Kind.FULL, f"git failed, so the change set is unknown: {exc}")
    except Exception as exc:  # noqa: BLE001 (fail open on anything unforeseen, and say what it was)
        return Decision(Kind.FULL, f"unexpected error {type(exc).__name__}: {exc}")


def render(decision: Decision, fmt: str) -> str:
    if fmt == "json":
        return json.dumps({"decision": decision.kind.value, "reason": decision.reason,
                           "tests": list(decision.tests)}, indent=2)
    return "\n".join([f"{decision.kind.value}: {decision.reason}", *decision.tests])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.affected", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True, help="revision the change is compared with (its merge base)")
    parser.add_argument("--head", default=None, help="revision of the change (default: the working tree)")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    # `bazel run` starts in the runfiles tree and names the workspace in BUILD_WORKSPACE_DIRECTORY.
    default_repo = Path(os.environ.get("BUILD_WORKSPACE_DIRECTORY") or Path.cwd())
    parser.add_argument("--repo", type=Path, default=default_repo, help="any path inside the repository")
    parser.add_argument("--bazel", default="bazel", help="bazel binary")
    args = parser.parse_args(argv)
    print(render(compute(args.repo, args.base, args.head, args.bazel), args.format))
    return 0


if __name__ == "__main__":
    sys.exit(main())
