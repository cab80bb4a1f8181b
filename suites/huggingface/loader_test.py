"""The HuggingFace manifest is the community's denominator, and every entry builds and runs from it alone."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from proto.codegen import ensure_generated

ensure_generated()

from suites.common.generation_run import GenerationWorkload  # noqa: E402
from suites.common.manifest import load_manifest  # noqa: E402
from suites.huggingface import loader  # noqa: E402

COMMUNITY_MODELS = {
    "AlbertForMaskedLM", "AllenaiLongformerBase", "BartForCausalLM", "BertForMaskedLM", "BlenderbotForCausalLM",
    "BlenderbotForConditionalGeneration", "DebertaV2ForMaskedLM", "DistilBertForMaskedLM", "DistillGPT2",
    "ElectraForCausalLM", "GPT2ForSequenceClassification", "GPTJForCausalLM", "GPTJForQuestionAnswering",
    "GPTNeoForCausalLM", "GPTNeoForSequenceClassification", "GoogleFnet", "LayoutLMForMaskedLM",
    "M2M100ForConditionalGeneration", "MBartForCausalLM", "MT5ForConditionalGeneration", "MegatronBertForCausalLM",
    "MobileBertForMaskedLM", "OPTForCausalLM", "PLBartForCausalLM", "PegasusForCausalLM", "RobertaForCausalLM",
    "T5ForConditionalGeneration", "T5Small", "TrOCRForCausalLM", "XGLMForCausalLM", "XLNetLMHeadModel",
    "YituTechConvBert",
}
LLM_ENTRIES = {
    "meta-llama/Llama-3.2-1B", "google/gemma-2-2b", "google/gemma-3-4b-it", "openai/whisper-tiny", "Qwen/Qwen3-0.6B",
    "mistralai/Mistral-7B-Instruct-v0.3", "openai/gpt-oss-20b",
}
HUB_CONFIG_ENTRIES = {"AllenaiLongformerBase", "T5Small", "DistillGPT2", "GoogleFnet", "YituTechConvBert"} | LLM_ENTRIES
# (perf batch size, sequence length): the community's list value over the yaml divisor, and its name rules.
COMMUNITY_SHAPES = {
    "AlbertForMaskedLM": (4, 512), "AllenaiLongformerBase": (4, 1024), "BartForCausalLM": (4, 1024),
    "BertForMaskedLM": (16, 512), "BlenderbotForCausalLM": (4, 128), "DebertaV2ForMaskedLM": (2, 512),
    "DistilBertForMaskedLM": (128, 128), "DistillGPT2": (16, 512), "ElectraForCausalLM": (32, 512),
    "GPT2ForSequenceClassification": (4, 1024), "GPTJForCausalLM": (1, 128), "GoogleFnet": (16, 512),
    "M2M100ForConditionalGeneration": (16, 128), "MT5ForConditionalGeneration": (16, 128), "OPTForCausalLM": (2, 2048),
    "PegasusForCausalLM": (32, 128), "T5Small": (4, 1024), "TrOCRForCausalLM": (32, 256), "XGLMForCausalLM": (8, 128),
    "XLNetLMHeadModel": (8, 512), "MobileBertForMaskedLM": (128, 128),
}

MANIFEST = load_manifest("huggingface")


def test_manifest_is_the_users_matrix() -> None:
    assert set(MANIFEST.models) == COMMUNITY_MODELS | LLM_ENTRIES
    training = {name for name, e in MANIFEST.models.items() if "training" in e.modes}
    assert training == COMMUNITY_MODELS  # 32 in AMP training; all 39 in BF16 inference
    assert all("inference" in e.modes for e in MANIFEST.models.values())
    assert {n for n, e in MANIFEST.models.items() if e.workload == "generation"} == LLM_ENTRIES
    assert MANIFEST.accuracy_batch_size == 1


def test_batch_sizes_sequence_lengths_and_tolerances_are_the_communitys() -> None:
    for name, (batch_size, seq_len) in COMMUNITY_SHAPES.items():
        entry = MANIFEST.model(name)
        assert entry.batch_sizes == {"training": batch_size, "inference": batch_size}, name
        assert entry.build["seq_len"] == seq_len, name
    assert MANIFEST.tolerance_for(MANIFEST.model("MT5ForConditionalGeneration"), "training", "cuda") == 0.02
    assert MANIFEST.tolerance_for(MANIFEST.model("GPT2ForSequenceClassification"), "inference", "cuda") == 0.004
    # upstream's higher_inference_cpu
    assert MANIFEST.tolerance_for(MANIFEST.model("GPT2ForSequenceClassification"), "inference", "cpu") == 0.005
    assert MANIFEST.tolerance_for(MANIFEST.model("T5Small"), "inference", "cpu") == 1e-3
    sgd = {n for n, e in MANIFEST.models.items() if e.optimizer == "sgd"}
    assert sgd == {"AlbertForMaskedLM", "BartForCausalLM", "ElectraForCausalLM", "M2M100ForConditionalGeneration",
                   "MBartForCausalLM", "OPTForCausalLM", "PLBartForCausalLM", "PegasusForCausalLM", "TrOCRForCausalLM",
                   "XGLMForCausalLM"}
    assert {n for n, e in MANIFEST.models.items() if e.optimizer == "none"} == {"MobileBertForMaskedLM"}
    for name in LLM_ENTRIES - {"openai/whisper-tiny"}:
        generation = MANIFEST.model(name).build["generation"]
        assert generation == {"prompt_length": 1000, "max_new_tokens": 2000, "cache_implementation": "static"}, name


def test_hub_config_entries_record_their_numbers_and_sources() -> None:
    for name in HUB_CONFIG_ENTRIES:
        build = MANIFEST.model(name).build
        assert len(build["config"]) >= 8 and build["config_source"].strip(), name
    for name in COMMUNITY_MODELS - HUB_CONFIG_ENTRIES:  # library defaults, as upstream's config_class()
        assert set(MANIFEST.model(name).build["config"]) <= {"pad_token_id"}, name


@pytest.mark.parametrize("name, attrs", [
    ("AllenaiLongformerBase", {"attention_window": [512] * 12, "max_position_embeddings": 4098, "vocab_size": 50265}),
    ("DistillGPT2", {"n_layer": 6, "n_embd": 768, "n_head": 12, "vocab_size": 50257}),
    ("GoogleFnet", {"hidden_size": 768, "type_vocab_size": 4, "vocab_size": 32000}),
    ("meta-llama/Llama-3.2-1B", {"num_key_value_heads": 8, "head_dim": 64, "tie_word_embeddings": True}),
    ("google/gemma-2-2b", {"sliding_window": 4096, "final_logit_softcapping": 30.0, "head_dim": 256}),
    ("Qwen/Qwen3-0.6B", {"num_hidden_layers": 28, "vocab_size": 151936}),
    ("mistralai/Mistral-7B-Instruct-v0.3", {"vocab_size": 32768, "sliding_window": None}),
    ("openai/gpt-oss-20b", {"num_local_experts": 32, "num_experts_per_tok": 4, "num_hidden_layers": 24}),
])
def test_full_configs_carry_the_recorded_numbers(name: str, attrs: dict) -> None:
    _, config = loader.make_config(loader.resolved_spec(MANIFEST.model(name), smoke=False))
    for key, value in attrs.items():
        assert getattr(config, key) == value, (name, key)


def test_gemma3_full_config_is_the_4b_multimodal_one() -> None:
    _, config = loader.make_config(loader.resolved_spec(MANIFEST.model("google/gemma-3-4b-it"), smoke=False))
    text = config.text_config
    assert (text.hidden_size, text.num_hidden_layers, text.sliding_window, text.vocab_size) == (2560, 34, 1024, 262208)
    assert text.layer_types[:6] == ["sliding_attention"] * 5 + ["full_attention"]
    assert config.vision_config.num_hidden_layers == 27


@pytest.mark.parametrize("name", sorted(COMMUNITY_MODELS))
def test_smoke_variant_builds_and_computes_its_own_loss(name: str) -> None:
    entry = MANIFEST.model(name)
    work = loader.build(entry, "training", "cpu", smoke=True, batch_size=entry.smoke_batch_size)
    full_class = entry.build["class"]
    inner = work.model.model if isinstance(work.model, loader.Fp32Only) else work.model
    assert type(inner).__name__ == full_class  # same architecture, scaled down
    loss = work.loss_fn(work.model(**work.inputs))
    assert loss.dim() == 0 and torch.isfinite(loss)
    loss.backward()


@pytest.mark.parametrize("name", sorted(COMMUNITY_MODELS | LLM_ENTRIES))
def test_every_parameter_and_buffer_lands_on_the_requested_device(name: str) -> None:
    # The meta device stands in for an accelerator: a tensor that a constructor put on the host shows up here.
    model = loader.make_model(loader.resolved_spec(MANIFEST.model(name), smoke=True), "meta")
    stray = [n for n, t in [*model.named_parameters(), *model.named_buffers()] if t.device.type != "meta"]
    assert not stray, f"{name}: on the host, not the requested device: {stray[:3]}"


def test_inputs_follow_the_community_rules() -> None:
    roberta = loader.build(MANIFEST.model("RobertaForCausalLM"), "inference", "cpu", True, 2).inputs
    assert int(roberta["input_ids"].abs().sum()) == 0
    bart = loader.build(MANIFEST.model("BartForCausalLM"), "inference", "cpu", True, 2)
    assert (bart.inputs["input_ids"][:, -1] == bart.model.config.eos_token_id).all()
    t5 = loader.build(MANIFEST.model("T5Small"), "inference", "cpu", True, 2).inputs
    assert torch.equal(t5["decoder_input_ids"], t5["input_ids"])
    gpt2 = loader.build(MANIFEST.model("GPT2ForSequenceClassification"), "inference", "cpu", True, 2).inputs
    assert gpt2["labels"].shape == (2,) and int(gpt2["labels"].sum()) == 0
    qa = loader.build(MANIFEST.model("GPTJForQuestionAnswering"), "inference", "cpu", True, 2).inputs
    assert set(qa) == {"input_ids", "start_positions", "end_positions"}


def test_seeded_builds_are_reproducible() -> None:
    entry = MANIFEST.model("DistillGPT2")
    a, b = (loader.build(entry, "inference", "cpu", True, 2) for _ in range(2))
    assert all(torch.equal(p, q) for p, q in zip(a.model.parameters(), b.model.parameters()))


def test_fp32_only_model_ignores_reduced_precision_casts() -> None:
    work = loader.build(MANIFEST.model("GoogleFnet"), "inference", "cpu", True, 2)
    model = work.model.to(torch.bfloat16)
    assert all(p.dtype == torch.float32 for p in model.parameters())
    assert all(p.dtype == torch.float64 for p in model.to(torch.float64).parameters())


@pytest.mark.parametrize("name", sorted(LLM_ENTRIES))
def test_llm_smoke_variant_generates_exactly_max_new_tokens(name: str) -> None:
    work = loader.build_generation(MANIFEST.model(name), "cpu", smoke=True)
    assert next(work.model.parameters()).dtype == torch.bfloat16
    with torch.no_grad():
        tokens = work.generate(work.model, work.generate_inputs)
        logits = work.model(**work.forward_inputs).logits
    assert tokens.shape[0] == 1 and work.new_tokens(tokens) == work.max_new_tokens
    assert logits.shape[:2] == (1, work.prompt_tokens)


@pytest.mark.parametrize("name", ["Qwen/Qwen3-0.6B", "openai/whisper-tiny"])  # decoder-only, encoder-decoder
def test_llm_static_cache_is_allocated_once_outside_compiled_code(name: str) -> None:
    """generate() would make a new cache per call and allocate it inside the compiled prefill, where CUDA graph
    trees overwrite it. The workload's one cache is allocated by the first (eager) call, marked as a fixed address
    (mark_static_address sets _dynamo_static_input_type), and reset in place by the compiled calls; a cache first
    filled by a compiled call carries no such mark."""
    def first_keys(work: GenerationWorkload) -> list[torch.Tensor]:
        cache = work.cache
        parts = [cache.self_attention_cache, cache.cross_attention_cache] if hasattr(cache, "cross_attention_cache") \
            else [cache]
        return [part.layers[0].keys for part in parts]

    def compile_forward(work: GenerationWorkload) -> None:
        work.model.forward = torch.compile(work.model.forward, backend="eager", fullgraph=True)

    work, compiled_first = (loader.build_generation(MANIFEST.model(name), "cpu", smoke=True) for _ in range(2))
    with torch.no_grad():
        eager = work.generate(work.model, work.generate_inputs)
        keys = first_keys(work)
        compile_forward(work)
        compiled = [work.generate(work.model, work.generate_inputs) for _ in range(2)]
        compile_forward(compiled_first)
        compiled_first.generate(compiled_first.model, compiled_first.generate_inputs)
    assert all(torch.equal(eager, tokens) for tokens in compiled)
    assert all(now is then for now, then in zip(first_keys(work), keys))  # the same tensors, not new ones
    assert all(getattr(k, "_dynamo_static_input_type", None) for k in keys)
    assert not any(getattr(k, "_dynamo_static_input_type", None) for k in first_keys(compiled_first))


def test_bad_build_specs_say_what_is_wrong() -> None:
    entry = MANIFEST.model("BertForMaskedLM")
    wrong_labels = dataclasses.replace(entry, build={**entry.build, "labels": "colours"})
    with pytest.raises(ValueError, match="build.labels 'colours' is not one of"):
        loader.build(wrong_labels, "inference", "cpu", True, 2)
    missing = dataclasses.replace(entry, build={**entry.build, "class": "NoSuchModelForMaskedLM"})
    with pytest.raises(NotImplementedError, match="has no class 'NoSuchModelForMaskedLM'"):
        loader.build(missing, "inference", "cpu", True, 2)


def test_new_token_cap_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = MANIFEST.model("Qwen/Qwen3-0.6B")
    monkeypatch.setenv(loader.MAX_NEW_TOKENS_ENV, "3")
    work = loader.build_generation(entry, "cpu", smoke=True)
    assert work.max_new_tokens == work.model.generation_config.max_new_tokens == 3
    monkeypatch.setenv(loader.MAX_NEW_TOKENS_ENV, "lots")
    with pytest.raises(ValueError, match="expected a positive integer"):
        loader.build_generation(entry, "cpu", smoke=True)


ENCODER_DECODERS_WITH_OWN_DECODER_CONFIG = ("T5ForConditionalGeneration", "T5Small", "MT5ForConditionalGeneration")


@pytest.mark.parametrize("name", ENCODER_DECODERS_WITH_OWN_DECODER_CONFIG)
def test_the_kv_cache_is_off_in_every_submodule_and_two_eager_runs_compare(name: str) -> None:
    """Issue #41: the community harness turns the cache off on the built model's config, but T5's decoder was built
    from a copy of the config and keeps use_cache on. On transformers 5 its output then carries an
    EncoderDecoderCache, which same() refuses ("unsupported type"), so upstream's determinism check reports
    eager_two_runs_differ and its eager timing includes the cache's work. Off before construction, the cache is
    off everywhere, as upstream means it (and its CI expects pass); the manifest entries record the difference."""
    from torch._dynamo.utils import same
    from transformers.cache_utils import Cache

    entry = load_manifest("huggingface").model(name)
    spec = loader.resolved_spec(entry, smoke=True)

    def eager_output(model: torch.nn.Module) -> object:
        inputs = loader.make_inputs(spec, loader.config_of(model), entry.smoke_batch_size, "cpu")
        with torch.no_grad():
            return model.eval()(**inputs)

    ours = eager_output(loader.make_model(spec, "cpu"))
    assert not any(isinstance(value, Cache) for value in ours.values())
    assert same(ours, eager_output(loader.make_model(spec, "cpu")), tol=0, equal_nan=True)

    # Upstream's order: built with the library's default (cache on), then turned off on the top-level config only.
    cls, config = loader.make_config(spec)
    config.use_cache = True
    upstreams = cls(config)
    upstreams.config.use_cache = False
    output = eager_output(upstreams)
    assert any(isinstance(value, Cache) for value in output.values())
    with pytest.raises(RuntimeError, match="unsupported type"):
        same(output, output, tol=0, equal_nan=True)
