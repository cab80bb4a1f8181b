"""What a triage records from the bisector beyond a counted application (what the first GPU triages met, 2026-12-06):
a culprit that is one of the bisector's config changes, and a bisection its limit cut short."""

from __future__ import annotations

from pathlib import Path

from tools.triage.bisect import BisectProgress, Culprit, _bounds, _config_change, bisect
from tools.triage.memo import BisectAnswer, Memo


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


def test_a_failure_that_no_inductor_subsystem_fixes_is_inductors_and_the_bisection_ends(tmp_path: Path) -> None:
    # The OpInfo case on an H100 (5f95839): the failure held with each of Inductor's subsystems disabled, and torch's
    # do_bisect went back to testing them again until the triage's limit. Here each test is answered at once, as the
    # model runs answered: only Inductor fails. A bound on the tests turns a loop back into a failure, not a hang.
    from torch._inductor.compiler_bisector import BACKENDS

    asked: list[tuple[str, str]] = []

    def only_inductor_fails(env: dict[str, str], cache: Path) -> BisectAnswer:
        asked.append((env["TORCH_BISECT_BACKEND"], env.get("TORCH_BISECT_SUBSYSTEM", "")))
        assert len(asked) <= 2 * (len(BACKENDS) + len(BACKENDS["inductor"])), f"the bisector went round: {asked}"
        return BisectAnswer(good=env["TORCH_BISECT_BACKEND"] != "inductor")

    progress = BisectProgress()
    culprit = bisect(only_inductor_fails, tmp_path / "bisect", progress, tmp_path / "bisect.log",
                     Memo(tmp_path, "result", "torch"))
    subsystems = [s.name for s in BACKENDS["inductor"]]
    assert culprit == Culprit("inductor", "", -1,
                              f"disabling each of inductor's {len(subsystems)} subsystems left the failure")
    assert asked == [(b, "") for b in BACKENDS] + [("inductor", s) for s in subsystems]  # each asked once
    assert progress.runs == len(asked) and progress.failing_backend == "inductor"
