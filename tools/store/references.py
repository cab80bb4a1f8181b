"""The reference datasets kept in the repository, which the main job (ci/smoke.sh) loads into its store.

A dataset is a folder `suites/<suite>/reference/<name>/` (e.g. the H200 runs in `h200/`). Investigations
whose runs repeat a configuration on purpose (single vs split process, with and without a setting) live in
`reference/experiments/` and stay out: their figures are documented in the README beside them, not baselines.

  python -m tools.store.references    # prints the dataset folders, one per line
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXPERIMENTS = "experiments"


def reference_datasets(repo: Path = REPO) -> list[Path]:
    return sorted(p for p in repo.glob("suites/*/reference/*") if p.is_dir() and p.name != EXPERIMENTS)


if __name__ == "__main__":
    for folder in reference_datasets():
        print(folder.relative_to(REPO))
