"""Merges the run summaries of a sharded OpInfo run into one, refusing an incomplete set.

  python -m opinfo.summaries DIR --shards 14 --note "H200, fp32, first sample" --out opinfo/reference/X.json

Each shard of `opinfo.run` (TEST_TOTAL_SHARDS / TEST_SHARD_INDEX) writes
opinfo-summary-<device>-<group>-shard<i>.json when it finishes. A shard that crashed or ran out of time
writes none; the merge then names the missing shards and writes nothing, so a partial run never passes
for a full one.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path
from typing import Any

_SHARD = re.compile(r"opinfo-summary-(?P<device>[^-]+)-(?P<group>.+)-shard(?P<index>\d+)\.json$")
_COUNTERS = ("outcomes", "lowering", "fallback_ops")
_MAPPINGS = ("skips", "xfails", "fp64_arbitrated")


class MergeError(Exception):
    pass


def merge(folder: Path, shards: int) -> dict[str, Any]:
    """One summary from the `shards` shard summaries in `folder` (shards run in parallel: wall time is the slowest)."""
    found: dict[int, dict[str, Any]] = {}
    for path in sorted(folder.glob("opinfo-summary-*-shard*.json")):
        match = _SHARD.search(path.name)
        if match:
            found[int(match["index"])] = json.loads(path.read_text())
    missing = sorted(set(range(shards)) - set(found))
    if missing:
        raise MergeError(f"no summary from shard(s) {', '.join(map(str, missing))} of {shards} in {folder}: "
                         "those shards did not finish; read their logs, rerun them, then merge")
    extra = sorted(set(found) - set(range(shards)))
    if extra:
        raise MergeError(f"summaries from shard(s) {extra} beyond --shards {shards} in {folder}")
    parts = [found[i] for i in range(shards)]
    if len({(p["device"], p["group"]) for p in parts}) != 1:
        raise MergeError(f"the shard summaries in {folder} come from different devices or groups")
    merged: dict[str, Any] = {"device": parts[0]["device"], "group": parts[0]["group"], "shards": shards,
                              "wall_time_s": max(p["wall_time_s"] for p in parts), "unexpected": []}
    for key in ("ops", "cases", "samples"):
        merged[key] = sum(p[key] for p in parts)  # shards split cases; an op is in one shard per dtype
    for key in _COUNTERS:
        total: collections.Counter[str] = collections.Counter()
        for p in parts:
            total.update(p[key])
        merged[key] = dict(total.most_common()) if key == "fallback_ops" else dict(sorted(total.items()))
    for key in _MAPPINGS:
        merged[key] = {case: value for p in parts for case, value in p.get(key, {}).items()}
    merged["unexpected"] = sorted(line for p in parts for line in p["unexpected"])
    return merged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="the run's --out folder")
    parser.add_argument("--shards", type=int, required=True, help="how many shards the run had")
    parser.add_argument("--note", default="", help="where and how it ran, kept in the summary")
    parser.add_argument("--out", type=Path, required=True, help="the merged summary (e.g. opinfo/reference/<name>.json)")
    args = parser.parse_args(argv)
    try:
        merged = merge(args.folder, args.shards)
    except (MergeError, OSError, ValueError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.note:
        merged["note"] = args.note
    args.out.write_text(json.dumps(merged, indent=2, sort_keys=True) + "\n")
    print(f"{args.out}: {merged['ops']} ops, {merged['cases']} cases, outcomes {merged['outcomes']}, "
          f"unexpected {len(merged['unexpected'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
