"""Builds HuggingFace models and their inputs from manifest entries: random weights, nothing downloaded.

`build` makes the forward/training workload of the 32 community models; `build_generation` makes the
LLM entries' generate() workload. Every config number comes from the manifest (library defaults plus
the recorded overrides), so no hub config is read at run time. Seeds and inputs follow the community
harness (shared/reference/community-harness.md 7.2).
"""

from __future__ import annotations

import contextlib
import copy
import os
from typing import Any, Iterator

import torch
from torch._dynamo.testing import reset_rng_state

from suites.common.generation_run import GenerationWorkload
from suites.common.manifest import ModelEntry
from suites.common.workload import Workload

LABEL_KINDS = ("tokens", "tokens_but_last", "zeros", "positions")
INPUT_ID_KINDS = ("random", "zeros")
WHISPER_AUDIO_SECONDS, WHISPER_SAMPLE_RATE = 30, 16000
# Caps the manifest's max_new_tokens (community: 2000) for a short device session; the result records the value used.
MAX_NEW_TOKENS_ENV = "PARITY_GENERATION_MAX_NEW_TOKENS"


def build(entry: ModelEntry, mode: str, device: str, smoke: bool, batch_size: int) -> Workload:
    spec = resolved_spec(entry, smoke)
    model = make_model(spec, device)
    if spec.get("fp32_only", False):
        model = Fp32Only(model)
    inputs = make_inputs(spec, config_of(model), batch_size, device)
    return Workload(model=model, inputs=inputs, loss_fn=_own_loss)


def build_generation(entry: ModelEntry, device: str, smoke: bool) -> GenerationWorkload:
    from transformers import GenerationConfig

    spec = resolved_spec(entry, smoke)
    generation = spec["generation"]
    max_new_tokens = _capped_new_tokens(generation["max_new_tokens"])
    # As the community's LLM entries: the model in bf16 (their checkpoints' dtype), on the device.
    model = make_model(spec, device, dtype=torch.bfloat16).eval()
    config = config_of(model)
    text_config = config.get_text_config() if hasattr(config, "get_text_config") else config
    prompt = generation["prompt_length"]
    if spec["class"].startswith("Whisper"):
        forward_inputs = _whisper_inputs(config, device)
    else:
        forward_inputs = {"input_ids": torch.randint(0, text_config.vocab_size, (1, prompt), device=device)}
    eos = _first(config.eos_token_id) if config.eos_token_id is not None else 0
    # A static cache is made here and passed to every call (generate() refuses cache_implementation beside it).
    prompt_tokens = _prompt_tokens(forward_inputs)
    reused = generation["cache_implementation"] == "static"
    cache, cache_argument = _reused_static_cache(model, prompt_tokens + max_new_tokens) if reused else (None, "cache")
    # Greedy, static cache, as upstream. eos_token_id=None: with random weights EOS can win at any step, and a
    # generation that stops early would time fewer tokens; every call produces exactly max_new_tokens.
    # disable_compile: transformers would otherwise compile forward itself for a static cache, even "eagerly".
    model.generation_config = GenerationConfig(
        do_sample=False, use_cache=True, cache_implementation=None if reused else generation["cache_implementation"],
        max_new_tokens=max_new_tokens, pad_token_id=_first(config.pad_token_id) if config.pad_token_id is not None else eos,
        eos_token_id=None, disable_compile=True,
        decoder_start_token_id=getattr(config, "decoder_start_token_id", None))
    return GenerationWorkload(model=model, forward_inputs=forward_inputs, generate_inputs=dict(forward_inputs),
                              prompt_tokens=prompt_tokens,
                              max_new_tokens=max_new_tokens,
                              cache_implementation=generation["cache_implementation"],
                              output_includes_prompt=not spec["class"].startswith("Whisper"),
                              cache=cache, cache_argument=cache_argument)


def _reused_static_cache(model: torch.nn.Module, max_cache_len: int) -> tuple[Any, str]:
    """One static cache for every generate() call of the run, and generate()'s name for that argument.

    transformers 5 makes a new StaticCache in each generate() call and allocates its tensors at the first update.
    With model.forward compiled, that update is inside the compiled prefill, so under CUDA graph trees the cache
    lives in a graph's memory and the next replay overwrites it (the H200 LLM runs at 94ab0da: reference/README.md).
    Made here and first used by the eager warm-up, the cache is allocated outside any compiled region and marked as
    a fixed address; reset() empties it in place before each call. Upstream's newer LLM module pre-allocates a
    StaticCache for the same reason.
    """
    import inspect

    from transformers import EncoderDecoderCache, StaticCache

    config = config_of(model)
    decoder_config = config.get_text_config(decoder=True)
    cache: Any = StaticCache(config=decoder_config, max_cache_len=max_cache_len)
    if config.is_encoder_decoder:  # Whisper: cross-attention holds one entry per encoder position
        cache = EncoderDecoderCache(cache, StaticCache(config=decoder_config, max_cache_len=config.max_source_positions))
    forward_parameters = inspect.signature(model.forward).parameters
    return cache, "cache" if "cache" in forward_parameters else "past_key_values"


def resolved_spec(entry: ModelEntry, smoke: bool) -> dict[str, Any]:
    """The full build, or the smoke variant: the same class with the smoke config merged over the full one."""
    spec = copy.deepcopy(entry.build)
    if smoke:
        overrides = entry.smoke_build
        spec["config"] = _merged(spec.get("config", {}), overrides.get("config", {}))
        for key in ("seq_len", "generation"):
            if key in overrides:
                spec[key] = overrides[key]
    return spec


def make_config(spec: dict[str, Any]) -> Any:
    import transformers

    cls = getattr(transformers, spec["class"], None)
    if cls is None:
        raise NotImplementedError(f"transformers {transformers.__version__} has no class {spec['class']!r}")
    config = cls.config_class(**spec.get("config", {}))
    config.use_cache = False  # as upstream for the forward workloads; generate() turns the cache on itself
    return cls, config


def make_model(spec: dict[str, Any], device: str, dtype: torch.dtype = torch.float32) -> torch.nn.Module:
    cls, config = make_config(spec)
    reset_rng_state()  # upstream seeds 1337 before building, so random weights are reproducible
    with torch.device(device), _default_dtype(dtype):
        model = cls(config)
    # The device context does not reach legacy constructors: XLNet's `nn.Parameter(torch.FloatTensor(...))`
    # lands on the host, and its first CUDA matmul failed with "mat2 is on cpu". Move any such stragglers.
    model.to(device)
    # Upstream sets every float "drop" config attribute to ~0 after construction (modules built with dropout
    # keep it; models that read the config at run time see 1e-30).
    for name in list(vars(config)):
        if "drop" in name and isinstance(getattr(config, name), float):
            setattr(config, name, 1e-30)
    return model


def make_inputs(spec: dict[str, Any], config: Any, batch_size: int, device: str) -> dict[str, torch.Tensor]:
    """Token ids plus the labels the community always passes (the model computes its own loss)."""
    seq_len, vocab = spec["seq_len"], config.vocab_size
    labels = spec.get("labels", "tokens")
    if labels not in LABEL_KINDS:
        raise ValueError(f"build.labels {labels!r} is not one of {LABEL_KINDS}")
    id_kind = spec.get("input_ids", "random")
    if id_kind not in INPUT_ID_KINDS:
        raise ValueError(f"build.input_ids {id_kind!r} is not one of {INPUT_ID_KINDS}")
    high = 1 if id_kind == "zeros" else vocab  # Roberta*: randint(0, 1), all zeros, as upstream
    input_ids = torch.randint(0, high, (batch_size, seq_len), device=device)
    if spec.get("eos_last", False):
        input_ids[:, -1] = config.eos_token_id
    inputs = {"input_ids": input_ids}
    if spec.get("decoder_input_ids", False):
        inputs["decoder_input_ids"] = input_ids
    if labels == "tokens":
        inputs["labels"] = torch.randint(0, vocab, (batch_size, seq_len), device=device)
    elif labels == "tokens_but_last":
        inputs["labels"] = torch.randint(0, vocab - 1, (batch_size, seq_len), device=device)
    elif labels == "zeros":  # randint(0, num_labels - 1): all zeros with the default two labels
        inputs["labels"] = torch.randint(0, config.num_labels - 1, (batch_size,), device=device)
    else:
        inputs["start_positions"] = torch.randint(0, seq_len, (batch_size,), device=device)
        inputs["end_positions"] = torch.randint(0, seq_len, (batch_size,), device=device)
    return inputs


def config_of(model: torch.nn.Module) -> Any:
    return model.model.config if isinstance(model, Fp32Only) else model.config


class Fp32Only(torch.nn.Module):
    """Upstream's only_fp32 list: the model keeps fp32 under --bfloat16 and runs without autocast under --amp.

    A cast to fp16/bf16 moves it (device) but keeps its dtype; fp64 (the accuracy reference) still applies.
    """

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, **inputs: Any) -> Any:
        device_type = next(self.model.parameters()).device.type
        with torch.autocast(device_type=device_type, enabled=False):
            return self.model(**inputs)

    def to(self, *args: Any, **kwargs: Any) -> "Fp32Only":  # type: ignore[override]
        device, dtype, non_blocking, _ = torch._C._nn._parse_to(*args, **kwargs)
        if dtype in (torch.float16, torch.bfloat16):
            return super().to(device=device, non_blocking=non_blocking) if device is not None else self
        return super().to(*args, **kwargs)


def _own_loss(output: Any) -> torch.Tensor:
    return output[0]  # upstream's pred[0]: the model's own loss, since labels are always passed


def _whisper_inputs(config: Any, device: str) -> dict[str, torch.Tensor]:
    """Upstream: log-mel features of 30 s of randn*0.1 audio at 16 kHz, and the decoder start token."""
    from transformers import WhisperFeatureExtractor

    audio = (torch.randn(WHISPER_AUDIO_SECONDS * WHISPER_SAMPLE_RATE) * 0.1).numpy()
    extractor = WhisperFeatureExtractor(feature_size=config.num_mel_bins)
    features = extractor(audio, sampling_rate=WHISPER_SAMPLE_RATE, return_tensors="pt").input_features
    return {"input_features": features.to(device=device, dtype=torch.bfloat16),
            "decoder_input_ids": torch.tensor([[config.decoder_start_token_id]], device=device)}


def _capped_new_tokens(manifest_value: int) -> int:
    raw = os.environ.get(MAX_NEW_TOKENS_ENV, "").strip()
    if not raw:
        return manifest_value
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{MAX_NEW_TOKENS_ENV}={raw!r}: expected a positive integer (a cap on max_new_tokens), or unset")
    return min(int(raw), manifest_value)


def _prompt_tokens(inputs: dict[str, torch.Tensor]) -> int:
    ids = inputs.get("decoder_input_ids", inputs.get("input_ids"))
    return int(ids.shape[-1])


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, (list, tuple)) else value


def _merged(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in overrides.items():
        out[key] = _merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


@contextlib.contextmanager
def _default_dtype(dtype: torch.dtype) -> Iterator[None]:
    saved = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(saved)
