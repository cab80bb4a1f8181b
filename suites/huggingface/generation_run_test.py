"""An LLM entry's run: accuracy on forward logits, timing through generate(), generation figures recorded."""

from __future__ import annotations

from pathlib import Path

from proto.codegen import ensure_generated

ensure_generated()

from parity.v1 import results_pb2 as pb  # noqa: E402
from suites.common.child import run_request  # noqa: E402
from suites.common.request import ModelRequest  # noqa: E402


def test_generation_run_times_generate_and_checks_logits(tmp_path: Path) -> None:
    request = ModelRequest(suite="huggingface", model="Qwen/Qwen3-0.6B", mode="inference", backend="eager",
                           device="cpu", smoke=True, repeats=2, warmup=1)
    result = run_request(request, timed_checkpoint=tmp_path / "timed.pb")
    assert result.community_status == "pass", result.failure.message
    assert result.accuracy.checked and result.accuracy.fp64_reference and result.accuracy.eager_runs_identical
    gen = result.generation
    assert (gen.prompt_tokens, gen.max_new_tokens, gen.cache_implementation) == (8, 8, "static")
    assert gen.eager_new_tokens == gen.compiled_new_tokens == 8 and gen.same_tokens
    assert gen.eager_tokens_per_s > 0 and gen.compiled_tokens_per_s > 0
    perf = result.performance
    assert perf.measured and perf.eager.samples == perf.compiled.samples == 2 and perf.speedup > 0
    saved = pb.ModelResult.FromString((tmp_path / "timed.pb").read_bytes())  # before the accuracy work
    assert saved.performance == perf and not saved.accuracy.checked


def test_generation_entries_take_no_part_in_training() -> None:
    request = ModelRequest(suite="huggingface", model="openai/whisper-tiny", mode="training", backend="eager",
                           device="cpu", smoke=True)
    result = run_request(request)
    assert result.community_status == "skipped"
    assert "does not take part in training" in result.failure.message
