"""Changed paths from git: `base...head`, or `base...` plus the working tree (untracked files included)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tools.affected.decision import BUILD_FILES, Change, FindPackage


class GitError(RuntimeError):
    """A git command failed; the message names the command and git's own words."""


def _git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"`git {' '.join(args)}` could not run: {exc}") from exc
    if done.returncode != 0:
        raise GitError(f"`git {' '.join(args)}` exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout


def repo_root(start: Path) -> Path:
    return Path(_git(start, "rev-parse", "--show-toplevel").strip())


def changed_files(root: Path, base: str, head: str | None = None) -> list[Change]:
    """Paths changed since the merge base of `base` and `head` (or HEAD), up to `head` or the working tree.

    The merge base keeps commits that landed on `base` after the branch point out of the diff. Renames
    are split into delete + add (`--no-renames`), so the old path's deletion is seen.
    """
    since = _git(root, "merge-base", base, head or "HEAD").strip()
    diff = _git(root, "diff", "--name-status", "-z", "--no-renames", since, *([head] if head else []))
    changes = _parse_name_status(diff)
    if head is None:
        # The working tree includes new files that are not added yet; git diff does not list them.
        untracked = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
        changes += [Change(path, added=True) for path in untracked.split("\0") if path]
    return changes


def _parse_name_status(out: str) -> list[Change]:
    """`-z` output is STATUS NUL PATH NUL ...; with --no-renames every entry has exactly one path."""
    fields = out.split("\0")
    if fields and fields[-1] == "":
        fields.pop()
    if len(fields) % 2:
        raise GitError(f"unexpected `git diff --name-status -z` output ({len(fields)} fields): {out[:200]!r}")
    return [Change(path, deleted=status.startswith("D"), added=status.startswith("A"))
            for status, path in zip(fields[::2], fields[1::2])]


def head_matches_checkout(root: Path, head: str) -> bool:
    """bazel query reads the checked-out tree, so a --head other than HEAD would query the wrong graph."""
    return _git(root, "rev-parse", f"{head}^{{commit}}") == _git(root, "rev-parse", "HEAD^{commit}")


def package_finder(root: Path) -> FindPackage:
    """Packages as Bazel sees them in the working tree: the nearest directory above a path with a BUILD file."""

    def find_package(path: str) -> str | None:
        parent = Path(path).parent
        for directory in [parent, *parent.parents]:
            if any((root / directory / name).is_file() for name in BUILD_FILES):
                return "" if str(directory) == "." else directory.as_posix()
        return None

    return find_package
