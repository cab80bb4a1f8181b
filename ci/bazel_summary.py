"""Summarises a Bazel run from its build event file (--build_event_json_file).

Prints what ran, what was served from cache and what failed, then one closing line
'N passed, N failed, N skipped' (CI readers look for it; Bazel's own summary is not in that form).
Exit code: 0 when nothing failed.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

PASSING = {"PASSED", "FLAKY"}
NOT_RUN = {"NO_STATUS", "INCOMPLETE"}


def main(bep_path: str) -> int:
    summaries: dict[str, str] = {}
    cached: Counter[str] = Counter()
    for line in Path(bep_path).read_text().splitlines():
        event = json.loads(line)
        ident = event.get("id", {})
        if "testSummary" in ident:
            summaries[ident["testSummary"]["label"]] = event.get("testSummary", {}).get("overallStatus", "NO_STATUS")
        elif "testResult" in ident and event.get("testResult", {}).get("cachedLocally"):
            cached[ident["testResult"]["label"]] += 1
        elif "testResult" in ident and "remote cache hit" in json.dumps(event.get("testResult", {})).lower():
            cached[ident["testResult"]["label"]] += 1
    statuses = Counter(summaries.values())
    failed = sorted(label for label, status in summaries.items() if status not in PASSING | NOT_RUN)
    passed = sum(statuses[s] for s in PASSING)
    skipped = sum(statuses[s] for s in NOT_RUN)
    print(f"[bazel] {len(summaries)} test targets: {dict(statuses)}; {len(cached)} served from cache")
    for label in failed:
        print(f"[bazel] FAILED {label} ({summaries[label]})")
    print(f"{passed} passed, {len(failed)} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
