"""Our accuracy statuses beside the community's expected ones for CUDA (issue #38), every divergence explained or
flagged.

The community's CI checks each accuracy run against a file in pytorch's `benchmarks/dynamo/ci_expected_accuracy/`,
named `<config>_<suite>_<mode>.csv` (columns name, accuracy, graph_breaks), where config is `inductor` for Inductor
(with or without CUDA graphs), `aot_eager` or `dynamo_eager`. Parity never ships those files: give the folder of a
local pytorch checkout, as for the cross-check.

A divergence is explained when our status is the one the manifest expects for that configuration: the expected
rule's reason names the cause (a setup difference of ours, or a failure seen and recorded). Where a triage record of
the same result is among the paths, its culprit is shown too. A divergence that neither explains is `unexplained`,
and the command exits 1.

  python -m tools.store.community_expected RESULT_PATHS... --expected PYTORCH/benchmarks/dynamo/ci_expected_accuracy \
      [--out table.md]
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from parity.v1 import results_pb2 as pb
from suites.common.manifest import Manifest, ManifestError, load_manifest
from tools.store.db import IngestError, load_results
from tools.store.failures import PASSING
from tools.store.names import mode_name

# Our backend -> the config prefix of the community file it compares with.
COMMUNITY_CONFIG = {"inductor": "inductor", "inductor_cudagraphs": "inductor", "aot_eager": "aot_eager",
                    "eager": "dynamo_eager"}


class ExpectedError(ValueError):
    """A community file or folder that cannot be read as upstream writes it."""


@dataclass(frozen=True)
class Row:
    suite: str
    mode: str
    backend: str
    model: str
    ours: str        # "" when we have no result for the community's entry
    community: str   # "" when the community's file has no row for our model
    explanation: str
    in_matrix: bool = True  # our manifest lists the model in this mode
    ours_breaks: int | None = None       # graph breaks in our result
    community_breaks: int | None = None  # the community file's graph_breaks, where it gives one

    @property
    def breaks(self) -> str:
        """"ours (theirs)", a side without a figure as "-"."""
        if self.ours_breaks is None and self.community_breaks is None:
            return ""
        show = (lambda n: "-" if n is None else str(n))
        return f"{show(self.ours_breaks)} ({show(self.community_breaks)})"

    @property
    def verdict(self) -> str:
        if not self.ours:
            return "not run here" if self.in_matrix else "not in our matrix"
        if not self.community:
            return "not in the community's file"
        if self.ours == self.community:
            return "same"
        if self.ours in PASSING and self.community in PASSING:  # the HUD counts both as passing (e.g. one side
            return "both pass"                                  # skipped the comparison)
        return "explained" if self.explanation else "unexplained"


def community_file(folder: Path, suite: str, mode: str, backend: str) -> Path:
    return folder / f"{COMMUNITY_CONFIG.get(backend, 'inductor')}_{suite}_{mode}.csv"


@dataclass(frozen=True)
class Expected:
    status: str
    graph_breaks: int | None  # None where the file has no such column or leaves it empty


def read_expected(path: Path) -> dict[str, Expected]:
    """model -> expected status and graph breaks, from one community file."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as exc:
        raise ExpectedError(f"{path}: {exc.strerror}; give --expected the ci_expected_accuracy folder of a pytorch "
                            "checkout") from exc
    if rows and not {"name", "accuracy"} <= set(rows[0]):
        raise ExpectedError(f"{path}: not a community expectations file (it needs the columns name and accuracy)")
    return {row["name"]: Expected(row["accuracy"], _count(row.get("graph_breaks"), path)) for row in rows}


def _count(cell: str | None, path: Path) -> int | None:
    if not cell:
        return None
    try:
        return int(cell)
    except ValueError:
        raise ExpectedError(f"{path}: graph_breaks {cell!r} is not a count") from None


def compare(results: list[pb.ModelResult], triages: list[pb.TriageRecord], expected_folder: Path) -> list[Row]:
    """One row per model of each (suite, mode, backend) our results cover, and per community entry we did not run."""
    triaged = {t.result_id: t for t in triages}
    groups: dict[tuple[str, str, str], dict[str, pb.ModelResult]] = {}
    for result in results:
        c = result.config
        if c.smoke or result.HasField("generation"):  # not the community's accuracy check: smoke variants, and
            continue                                      # LLM entries timed through generate()
        groups.setdefault((c.suite, mode_name(c.mode), c.backend), {})[c.model] = result
    rows = []
    for (suite, mode, backend), ours in sorted(groups.items()):
        manifest = load_manifest(suite)  # once per group: it is parsed and validated anew at each call
        theirs = read_expected(community_file(expected_folder, suite, mode, backend))
        for model in sorted(ours.keys() | theirs.keys()):
            result = ours.get(model)
            status = result.community_status if result else ""
            expected = theirs.get(model)
            community = expected.status if expected else ""
            why = _explanation(result, manifest, triaged) if result and community and status != community else ""
            entry = manifest.models.get(model)
            rows.append(Row(suite, mode, backend, model, status, community, why,
                            entry is not None and mode in entry.modes,
                            result.dynamo.graph_breaks if result and result.HasField("dynamo") else None,
                            expected.graph_breaks if expected else None))
    return rows


def _explanation(result: pb.ModelResult, manifest: Manifest, triaged: dict[str, pb.TriageRecord]) -> str:
    c = result.config
    parts = []
    try:
        # A split result's status is its accuracy-only run's (the launcher's --split-processes, or --plan accuracy).
        plan = "accuracy" if c.split_processes and not c.performance_only else "both"
        expected, reason = manifest.model(c.model).expected_status(c.device, mode_name(c.mode), c.backend, plan)
    except ManifestError:  # a model the manifest no longer lists
        expected, reason = "", ""
    if expected == result.community_status and reason:
        parts.append(f"manifest: {reason}")
    triage = triaged.get(result.result_id)
    if triage is not None and triage.culprit_backend:
        culprit = " / ".join(p for p in (triage.culprit_backend, triage.culprit_subsystem, triage.debug_info) if p)
        parts.append(f"triage: {culprit}")
    elif triage is not None and triage.outcome == pb.TriageRecord.OUTCOME_NOT_REPRODUCED:
        parts.append("triage: the failure did not recur")
    return "; ".join(parts)


def table(rows: list[Row]) -> str:
    lines = ["| suite | mode | backend | model | Parity | community (CUDA) | verdict | explanation | graph breaks: "
             "Parity (community) |", "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r.suite} | {r.mode} | {r.backend} | {r.model} | {r.ours or '-'} | {r.community or '-'} | "
              f"{r.verdict} | {r.explanation} | {r.breaks} |" for r in rows]
    counts = Counter(r.verdict for r in rows)
    summary = ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))
    return "\n".join(lines) + f"\n\n{summary}\n{_breaks_summary(rows)}"


def _breaks_summary(rows: list[Row]) -> str:
    """How our graph breaks compare with the community's where both sides count them (upstream's CI fails a model
    whose breaks rise above its file's)."""
    # Per row, not per model name: one table may hold a model in more than one (suite, mode, backend).
    diffs = [(r.model, r.ours_breaks - r.community_breaks) for r in rows
             if r.ours_breaks is not None and r.community_breaks is not None]
    if not diffs:
        return ""

    def listed(picked: list[tuple[str, int]]) -> str:
        return f" ({', '.join(f'{m} ({d:+d})' for m, d in sorted(picked))})" if picked else ""

    more = [(m, d) for m, d in diffs if d > 0]
    fewer = [(m, d) for m, d in diffs if d < 0]
    same = len(diffs) - len(more) - len(fewer)
    return (f"graph breaks in the {len(diffs)} models both sides count: {same} the same, "
            f"{len(more)} more here{listed(more)}, {len(fewer)} fewer here{listed(fewer)}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.store.community_expected",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="result files or folders (a reference dataset), and "
                        "triage records")
    parser.add_argument("--expected", type=Path, required=True, help="pytorch's benchmarks/dynamo/ci_expected_accuracy")
    parser.add_argument("--out", type=Path, help="also write the table here (Markdown)")
    args = parser.parse_args(argv)
    try:
        loaded = [item.result for item in load_results(args.paths)]
        rows = compare([r for r in loaded if isinstance(r, pb.ModelResult)],
                       [r for r in loaded if isinstance(r, pb.TriageRecord)], args.expected)
    except (IngestError, ExpectedError, ManifestError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = table(rows)
    print(text, end="")
    if args.out:
        args.out.write_text(text)
    return 1 if any(r.verdict == "unexplained" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
