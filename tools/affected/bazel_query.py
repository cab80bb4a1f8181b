"""Runs `bazel query` for `decision.decide`; every failure becomes a QueryError (which decides FULL)."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from tools.affected.decision import Query, QueryError


def bazel_query(root: Path, bazel: str = "bazel", timeout_s: float = 900) -> Query:
    """A query callable for the workspace at `root`. The timeout covers waiting for another Bazel
    command's server lock (a long CI run) as well as the query itself."""

    def query(expression: str) -> Sequence[str]:
        command = [bazel, "query", "--keep_going", "--output=label", expression]
        try:
            done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=timeout_s)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise QueryError(f"`{bazel} query` could not run: {exc}") from exc
        if done.returncode != 0:
            # With --keep_going, exit code 3 means partial results: still not a set to trust.
            tail = done.stderr.strip().splitlines()[-5:]
            raise QueryError(f"`{bazel} query` exited {done.returncode} for {expression[:300]!r}: {' | '.join(tail)}")
        return done.stdout.splitlines()

    return query
