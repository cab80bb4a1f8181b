"""Is a suite's opsets.bzl current? Cheap: no tracing. Stale means any of
  - the manifest lists a model the file lacks, or the file lists a model the manifest dropped;
  - a model's manifest entry (build spec, modes) changed since it was traced;
  - torch or the suite's model library is not the version the op sets were traced with;
  - the stored families are not what the op families (compiler/lowering) make of the stored ops now.
"""

from __future__ import annotations

from pathlib import Path

from compiler.lowering.registry import FAMILY_NAMES
from tools.opsets.data import SUITES_DIR, entry_sha256, families_of, library_versions, load_opsets, opsets_path, \
    raw_manifest_models


def stale_reasons(suite: str, suites_dir: Path = SUITES_DIR) -> list[str]:
    """Why suites/<suite>/opsets.bzl is stale (empty when current)."""
    fix = f"regenerate with `python -m tools.opsets update --suite {suite}`"
    opsets = load_opsets(suite, suites_dir)
    if opsets is None:
        return [f"{opsets_path(suite, suites_dir)} does not exist: {fix}"]
    reasons = []
    if opsets.suite != suite:
        reasons.append(f"opsets.bzl declares suite {opsets.suite!r}, expected {suite!r}")
    installed = library_versions(suite)
    if opsets.generated_with != installed:
        reasons.append(f"traced with {opsets.generated_with}, installed {installed}: {fix}")
    manifest = raw_manifest_models(suite, suites_dir)
    for model in sorted(set(manifest) - set(opsets.models)):
        reasons.append(f"{model} is in the manifest but has no op set: {fix} --models {model}")
    for model in sorted(set(opsets.models) - set(manifest)):
        reasons.append(f"{model} has an op set but is no longer in the manifest: {fix}")
    for model in sorted(set(manifest) & set(opsets.models)):
        entry = opsets.models[model]
        if entry["entry_sha256"] != entry_sha256(manifest[model]):
            reasons.append(f"{model}: its manifest entry changed since it was traced: {fix} --models {model}")
        ops = {op for mode_ops in entry["ops"].values() for op in mode_ops}
        expected = list(FAMILY_NAMES) if "trace_error" in entry else families_of(ops)
        if entry["families"] != expected:
            reasons.append(f"{model}: stored families {entry['families']} but its ops classify as {expected} "
                           f"(compiler/lowering changed): run `python -m tools.opsets reclassify --suite {suite}`")
    return reasons
