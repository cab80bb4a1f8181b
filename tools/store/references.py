"""The reference datasets kept in the repository, which the main job (ci/smoke.sh) loads into its store.

A dataset is a folder `suites/<suite>/reference/<name>/` (e.g. the H200 runs in `h200/`) or `opinfo/reference/<name>/`
(OpInfo cases on a GPU and their triages). Investigations
whose runs repeat a configuration on purpose (single vs split process, with and without a setting) live in
`reference/experiments/` and stay out: their figures are documented in the README beside them, not baselines.

A baseline must come from one commit and one manifest version (issue #38): `--check` says, per dataset, which
(commit, manifest version) pairs its results and triage records carry, and exits 1 when any dataset has more than one.

  python -m tools.store.references            # prints the dataset folders, one per line
  python -m tools.store.references --check    # and the pairs of each, with their counts
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXPERIMENTS = "experiments"


def reference_datasets(repo: Path = REPO) -> list[Path]:
    return [p for pattern in ("suites/*/reference/*", "opinfo/reference/*") for p in sorted(repo.glob(pattern))
            if p.is_dir() and p.name != EXPERIMENTS]


def provenances(dataset: Path) -> Counter[tuple[str, str]]:
    """How many of the dataset's files carry each (commit, manifest version); "?" where a file names none."""
    from tools.store.db import load_results  # here: listing the datasets (ci/smoke.sh) needs no generated code

    return Counter((item.result.provenance.commit[:7] or "?", item.result.provenance.manifest_version or "?")
                   for item in load_results([dataset]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.store.references", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 unless every dataset has one commit and one "
                        "manifest version")
    parser.add_argument("--repo", type=Path, default=REPO, help=argparse.SUPPRESS)  # the tests' own tree
    args = parser.parse_args(argv)
    mixed = 0
    for folder in reference_datasets(args.repo):
        name = folder.relative_to(args.repo)
        if not args.check:
            print(name)
            continue
        pairs = provenances(folder)
        mixed += len(pairs) > 1
        listed = ", ".join(f"{commit} manifest {version} ({count})" for (commit, version), count in sorted(pairs.items()))
        print(f"{name}: {'MIXED ' if len(pairs) > 1 else ''}{listed}")
    if mixed:
        print(f"{mixed} dataset(s) mix commits or manifest versions: rerun each as one run (issue #38)",
              file=sys.stderr)
    return 1 if mixed else 0


if __name__ == "__main__":
    sys.exit(main())
