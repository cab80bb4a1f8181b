"""What a triage records from the bisector beyond a counted application (what the first GPU triages met, 2026-12-06):
a culprit that is one of the bisector's config changes, and a bisection its limit cut short."""

from __future__ import annotations

from pathlib import Path

from tools.triage.bisect import BisectProgress, Culprit, _bounds, _config_change


def test_a_config_change_culprit_names_the_setting_it_passed_with() -> None:
    # maml_omniglot's AMP training on an H100: every pass kept the failure; setting this one made the model pass.
    assert _config_change("inductor", "inductor_emulate_precision_casts") == (
        "passes with inductor config emulate_precision_casts=True")
    assert _config_change("aot_eager_decomp_partition", "aot_eager_decomp_partition_cse") == (
        "passes with aot_eager_decomp_partition config cse=False")
    assert _config_change("inductor", "lowerings") is None  # counted applications: the bisect number names one
    assert _config_change("no_such_backend", "lowerings") is None


def test_a_bisection_cut_short_keeps_the_subsystem_and_the_applications_it_narrowed_to(tmp_path: Path) -> None:
    assert BisectProgress().partial_culprit() is None
    assert BisectProgress(runs=3, failing_backend="inductor").partial_culprit() == Culprit("inductor", "", -1, "")
    info = tmp_path / "bisect-debug-info.txt"  # as the probe writes it in the model processes
    info.write_text("1253=aten.native_batch_norm_backward.default\n1255=aten._to_copy.default\n")
    progress = BisectProgress(runs=16, failing_backend="aot_eager_decomp_partition", fixing_subsystem="decomposition",
                              narrowed=_bounds("low=1250\nhigh=1255\n"), debug_info_path=info)
    assert progress.partial_culprit() == Culprit(
        "aot_eager_decomp_partition", "decomposition", -1,
        "narrowed to applications 1250-1255: 1253=aten.native_batch_norm_backward.default; "
        "1255=aten._to_copy.default")
    assert _bounds("") is None and _bounds("low=1\n") is None
