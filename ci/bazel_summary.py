"""Summarises a Bazel test run from its build event file (--build_event_json_file).

  python ci/bazel_summary.py out/bep.json
  python ci/bazel_summary.py --testlogs .bazel/testlogs out/bep.json   (the testlog folders of this run's tests)

Prints what ran, what was served from a cache (Bazel's own action cache, or a disk/remote cache hit) and
what failed, then one closing line 'N passed, N failed, N skipped' (CI readers look for it; Bazel's own
summary is not in that form). Exit code: 0 when nothing failed. Also imported by ci/presubmit.py and
ci/nightly.py, which need the per-target facts.
"""

from __future__ import annotations

import enum
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

PASSING = frozenset({"PASSED", "FLAKY"})
NOT_RUN = frozenset({"NO_STATUS", "INCOMPLETE"})


class Served(enum.Enum):
    """Where a test's result came from (its last attempt)."""

    EXECUTED = "executed"  # ran here (or on a remote executor)
    LOCAL = "cached locally"  # Bazel's in-process action cache: an unchanged test in this output base
    CACHE_HIT = "cache hit"  # a --disk_cache or --remote_cache entry (Bazel 4.2.3 calls both "remote cache hit")
    NOT_RUN = "not run"  # filtered, skipped after a build failure, or interrupted


@dataclass(frozen=True)
class TargetOutcome:
    label: str
    status: str  # Bazel's overall status: PASSED, FAILED, FLAKY, TIMEOUT, NO_STATUS, ...
    served: Served
    strategy: str  # the spawn strategy Bazel reported ("linux-sandbox", "remote", "remote cache hit", ...)
    attempts: int
    tags: tuple[str, ...] = ()

    @property
    def cacheable(self) -> bool:
        return not {"external", "no-cache", "no-remote-cache", "no-remote"} & set(self.tags)

    @property
    def failed(self) -> bool:
        return self.status not in PASSING | NOT_RUN


@dataclass(frozen=True)
class RunSummary:
    targets: tuple[TargetOutcome, ...]

    def count(self, served: Served) -> int:
        return sum(1 for t in self.targets if t.served is served)

    @property
    def failed(self) -> tuple[TargetOutcome, ...]:
        return tuple(t for t in self.targets if t.failed)

    def lines(self) -> list[str]:
        statuses = Counter(t.status for t in self.targets)
        passed = sum(statuses[s] for s in PASSING)
        skipped = sum(statuses[s] for s in NOT_RUN)
        out = [f"[bazel] {len(self.targets)} test targets: {dict(sorted(statuses.items()))}",
               f"[bazel] served: {self.count(Served.EXECUTED)} executed, {self.count(Served.CACHE_HIT)} cache hits "
               f"(disk or remote), {self.count(Served.LOCAL)} cached locally, {self.count(Served.NOT_RUN)} not run"]
        out += [f"[bazel] FAILED {t.label} ({t.status}, {t.attempts} attempt(s), {t.strategy or 'no strategy'})"
                for t in sorted(self.failed, key=lambda t: t.label)]
        out.append(f"{passed} passed, {len(self.failed)} failed, {skipped} skipped")
        return out


def summarize(bep_path: Path) -> RunSummary:
    """Reads a BEP JSON file; raises ValueError naming the line when it is not BEP JSON."""
    statuses: dict[str, str] = {}
    last_result: dict[str, dict] = {}
    attempts: Counter[str] = Counter()
    tags: dict[str, tuple[str, ...]] = {}
    for number, line in enumerate(Path(bep_path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{bep_path}:{number}: not a build event (JSON): {exc}") from exc
        ident = event.get("id", {})
        if "testSummary" in ident:
            statuses[ident["testSummary"]["label"]] = event.get("testSummary", {}).get("overallStatus", "NO_STATUS")
        elif "targetCompleted" in ident:
            tags[ident["targetCompleted"]["label"]] = tuple(event.get("completed", {}).get("tag", []))
        elif "testResult" in ident:
            label = ident["testResult"]["label"]
            attempts[label] += 1
            last_result[label] = event.get("testResult", {})
    targets = []
    for label, status in sorted(statuses.items()):
        result = last_result.get(label, {})
        strategy = result.get("executionInfo", {}).get("strategy", "")
        targets.append(TargetOutcome(label, status, _served(status, result, strategy), strategy, attempts[label],
                                     tags.get(label, ())))
    return RunSummary(tuple(targets))


def _served(status: str, result: dict, strategy: str) -> Served:
    if not result or status in NOT_RUN:
        return Served.NOT_RUN
    if result.get("cachedLocally"):
        return Served.LOCAL
    if "cache hit" in strategy:
        return Served.CACHE_HIT
    return Served.EXECUTED


def label_dir(label: str) -> Path:
    """//a/b:c -> a/b/c, Bazel's testlogs layout."""
    package, _, name = label.removeprefix("//").partition(":")
    return Path(package) / name


def main(argv: list[str]) -> int:
    testlogs = None
    if len(argv) == 3 and argv[0] == "--testlogs":
        testlogs, argv = Path(argv[1]), argv[2:]
    if len(argv) != 1:
        print("usage: python ci/bazel_summary.py [--testlogs DIR] BEP_JSON_FILE", file=sys.stderr)
        return 2
    try:
        summary = summarize(Path(argv[0]))
    except (OSError, ValueError) as exc:
        print(f"bazel_summary: {exc}", file=sys.stderr)
        return 2
    if testlogs is not None:  # only this run's tests: the folder also holds earlier runs' outputs
        print("\n".join(str(testlogs / label_dir(t.label)) for t in summary.targets
                        if (testlogs / label_dir(t.label)).is_dir()))
        return 0
    print("\n".join(summary.lines()))
    return 1 if summary.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
