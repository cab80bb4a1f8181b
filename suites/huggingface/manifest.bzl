"""HuggingFace suite manifest: the community's 32 HF models (AMP training, BF16 inference) and 7 LLM entries
(BF16 inference through `generate`).

Data only (read by suites/common/manifest.py and the Starlark macro); the schema is documented there.
Sources: huggingface.py / huggingface.yaml / huggingface_models_list.txt / huggingface_llm_models.py as
summarised in shared/reference/community-harness.md sections 2.3, 3.4 and 7.2 (perf batch size = list value
over the yaml divisor; sequence length by the harness's name rules). Weights are random; nothing is fetched.

build (forward entries):
  class        transformers class; its config_class() is built with library defaults plus `config`
  config       overrides: the full hub config.json numbers for the community's hub-config entries
               (AllenaiLongformerBase, T5Small, DistillGPT2, GoogleFnet, YituTechConvBert), pad_token_id 0 where
               the harness adds it; config_source says where the numbers come from
  seq_len      input length;  labels: tokens | tokens_but_last (vocab-1) | zeros (sequence classification) |
               positions (question answering);  decoder_input_ids: copy input_ids (T5/M2M100/MT5/Blenderbot
               seq2seq);  input_ids: random | zeros (Roberta*);  eos_last: last token = eos (names with "Bart")
  fp32_only    the harness's only_fp32 list: the model stays fp32 and runs without autocast
build (workload "generation", the LLM entries): class, config, config_source, and generation
  {prompt_length, max_new_tokens, cache_implementation}; inputs are batch 1 random prompt ids (Whisper: log-mel
  features of 30 s of randn*0.1 audio plus the decoder start token). A "static" cache is made once per run and
  reset before each generate() call (suites/huggingface/loader.py says why).
smoke: batch_size, and build {config (applied over the full config), seq_len, generation}: same class, scaled down.
Presubmit (2-core CPU, <= 4 min): encoder MLM (BertForMaskedLM, Inductor), decoder causal LM (DistillGPT2),
encoder-decoder (T5Small), one LLM through generate (Qwen/Qwen3-0.6B, Inductor); every other model is nightly.
Bump "version" whenever the model list, a batch size, a tolerance, a config number or an expectation changes.
"""


MANIFEST = {
    "suite": "huggingface",
    "version": "1.8.0",
    "accuracy_batch_size": 1,
    "tolerance": {"training": 0.01, "inference": 0.001},
    "models": {
        "AlbertForMaskedLM": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"class": "AlbertForMaskedLM", "config": {}, "seq_len": 512, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"embedding_size": 16, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64, "vocab_size": 256}, "seq_len": 16}},
            "optimizer": "sgd",
            "presubmit": False,
        },
        "AllenaiLongformerBase": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {
                "class": "LongformerForMaskedLM",
                "config": {"vocab_size": 50265, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                           "intermediate_size": 3072, "hidden_act": "gelu", "attention_window": [512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512],
                           "max_position_embeddings": 4098, "type_vocab_size": 1, "layer_norm_eps": 1e-05,
                           "pad_token_id": 1, "bos_token_id": 0, "eos_token_id": 2, "sep_token_id": 2,
                           "initializer_range": 0.02, "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1},
                "config_source": "allenai/longformer-base-4096 config.json (RoBERTa-base dimensions, 512-token attention window in all 12 layers, 4096 positions + 2 for RoBERTa's padding offset); transformers' LongformerConfig names this checkpoint as its reference",
                "seq_len": 1024,
                "labels": "tokens",
            },
            "smoke": {"batch_size": 2, "build": {"config": {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64, "vocab_size": 256, "attention_window": [8, 8], "max_position_embeddings": 64}, "seq_len": 16}},
            "presubmit": False,
        },
        "BartForCausalLM": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"class": "BartForCausalLM", "config": {}, "seq_len": 1024, "labels": "tokens", "eos_last": True},
            "smoke": {"batch_size": 2, "build": {"config": {"d_model": 32, "encoder_layers": 1, "decoder_layers": 2, "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "vocab_size": 256, "max_position_embeddings": 64}, "seq_len": 16}},
            "optimizer": "sgd",
            "presubmit": False,
        },
        "BertForMaskedLM": {
            "modes": {"training": {"batch_size": 16}, "inference": {"batch_size": 16}},
            "build": {"class": "BertForMaskedLM", "config": {}, "seq_len": 512, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64, "vocab_size": 256}, "seq_len": 16}},
            # higher_training in the pytorch index yaml; the larger multiplier in the dynamobench copy.
            "tolerance": {"training": 0.02},
            "larger_multiplier_for_smaller_tensor": True,
            "presubmit_compile": ["training", "inference"],
        },
        "BlenderbotForCausalLM": {
            "accuracy_optimizer": "sgd",
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"class": "BlenderbotForCausalLM", "config": {}, "seq_len": 128, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"d_model": 32, "encoder_layers": 1, "decoder_layers": 2, "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "vocab_size": 256, "max_position_embeddings": 64}, "seq_len": 16}},
            "notes": "community: accuracy.skip.large_models (pass_due_to_skip); Parity checks accuracy on every device",
            "presubmit": False,
        },
        "BlenderbotForConditionalGeneration": {
            "modes": {"training": {"batch_size": 16}, "inference": {"batch_size": 16}},
            "build": {"class": "BlenderbotForConditionalGeneration", "config": {}, "seq_len": 128, "labels": "tokens_but_last", "decoder_input_ids": True},
            "smoke": {"batch_size": 2, "build": {"config": {"d_model": 32, "encoder_layers": 1, "decoder_layers": 2, "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "vocab_size": 256, "max_position_embeddings": 64}, "seq_len": 16}},
            "notes": "community: skip.all (deepcopy failed on older transformers); deepcopy works on 5.x, so Parity runs it",
            "presubmit": False,
        },
        "DebertaV2ForMaskedLM": {
            "modes": {"training": {"batch_size": 2}, "inference": {"batch_size": 2}},
            "build": {"class": "DebertaV2ForMaskedLM", "config": {}, "seq_len": 512, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64, "vocab_size": 256}, "seq_len": 16}},
            "notes": "community: accuracy.skip.large_models (pass_due_to_skip), skip.all in the dynamobench yaml",
            "presubmit": False,
        },
        "DistilBertForMaskedLM": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"class": "DistilBertForMaskedLM", "config": {}, "seq_len": 128, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"dim": 32, "n_layers": 2, "n_heads": 2, "hidden_dim": 64, "vocab_size": 256}, "seq_len": 16}},
            "presubmit": False,
        },
        "DistillGPT2": {
            "modes": {"training": {"batch_size": 16}, "inference": {"batch_size": 16}},
            "build": {
                "class": "GPT2LMHeadModel",
                "config": {"vocab_size": 50257, "n_positions": 1024, "n_embd": 768, "n_layer": 6, "n_head": 12,
                           "activation_function": "gelu_new", "resid_pdrop": 0.1, "embd_pdrop": 0.1, "attn_pdrop": 0.1,
                           "layer_norm_epsilon": 1e-05, "initializer_range": 0.02, "bos_token_id": 50256, "eos_token_id": 50256},
                "config_source": "distilgpt2 config.json: GPT-2 small (768 wide, 12 heads, 50257 tokens, 1024 positions) with 6 layers instead of 12",
                "seq_len": 512,
                "labels": "tokens",
            },
            "smoke": {"batch_size": 2, "build": {"config": {"n_embd": 32, "n_layer": 2, "n_head": 2, "vocab_size": 256, "n_positions": 64}, "seq_len": 16}},
        },
        "ElectraForCausalLM": {
            "modes": {"training": {"batch_size": 32}, "inference": {"batch_size": 32}},
            "build": {"class": "ElectraForCausalLM", "config": {}, "seq_len": 512, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"embedding_size": 16, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64, "vocab_size": 256}, "seq_len": 16}},
            "optimizer": "sgd",
            "presubmit": False,
        },
        "GPT2ForSequenceClassification": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"class": "GPT2ForSequenceClassification", "config": {"pad_token_id": 0}, "seq_len": 1024, "labels": "zeros"},
            "smoke": {"batch_size": 2, "build": {"config": {"n_embd": 32, "n_layer": 2, "n_head": 2, "vocab_size": 256, "n_positions": 64}, "seq_len": 16}},
            # higher_inference, and higher_inference_cpu on the CPU
            "tolerance": {"inference": 0.004, "inference@cpu": 0.005},
            "larger_multiplier_for_smaller_tensor": True,
            "presubmit": False,
        },
        "GPTJForCausalLM": {
            "modes": {"training": {"batch_size": 1}, "inference": {"batch_size": 1}},
            "build": {"class": "GPTJForCausalLM", "config": {}, "seq_len": 128, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"n_embd": 32, "n_layer": 2, "n_head": 2, "rotary_dim": 8, "vocab_size": 256, "n_positions": 64}, "seq_len": 16}},
            "notes": "community: skip.all (6B parameters, too big for its A10G runners); an H200 holds it",
            "presubmit": False,
        },
        "GPTJForQuestionAnswering": {
            "modes": {"training": {"batch_size": 1}, "inference": {"batch_size": 1}},
            "build": {"class": "GPTJForQuestionAnswering", "config": {}, "seq_len": 128, "labels": "positions"},
            "smoke": {"batch_size": 2, "build": {"config": {"n_embd": 32, "n_layer": 2, "n_head": 2, "rotary_dim": 8, "vocab_size": 256, "n_positions": 64}, "seq_len": 16}},
            "notes": "community: skip.all (6B parameters, too big for its A10G runners); an H200 holds it",
            "presubmit": False,
        },
        "GPTNeoForCausalLM": {
            "modes": {"training": {"batch_size": 32}, "inference": {"batch_size": 32}},
            "build": {"class": "GPTNeoForCausalLM", "config": {}, "seq_len": 128, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"hidden_size": 32, "num_layers": 2, "num_heads": 2, "attention_types": [[["global", "local"], 1]], "window_size": 8, "vocab_size": 256, "max_position_embeddings": 64}, "seq_len": 16}},
            "notes": "community: skip.all (1.3B parameters at batch 32, too big for its A10G runners)",
            "presubmit": False,
        },
        "GPTNeoForSequenceClassification": {
            "modes": {"training": {"batch_size": 32}, "inference": {"batch_size": 32}},
            "build": {"class": "GPTNeoForSequenceClassification", "config": {"pad_token_id": 0}, "seq_len": 128, "labels": "zeros"},
            "smoke": {"batch_size": 2, "build": {"config": {"hidden_size": 32, "num_layers": 2, "num_heads": 2, "attention_types": [[["global", "local"], 1]], "window_size": 8, "vocab_size": 256, "max_position_embeddings": 64}, "seq_len": 16}},
            "notes": "community: skip.all (1.3B parameters at batch 32, too big for its A10G runners)",
            "presubmit": False,
        },
        "GoogleFnet": {
            "modes": {"training": {"batch_size": 16}, "inference": {"batch_size": 16}},
            "build": {
                "class": "FNetForMaskedLM",
                "config": {"vocab_size": 32000, "hidden_size": 768, "num_hidden_layers": 12, "intermediate_size": 3072,
                           "hidden_act": "gelu_new", "hidden_dropout_prob": 0.1, "max_position_embeddings": 512,
                           "type_vocab_size": 4, "initializer_range": 0.02, "layer_norm_eps": 1e-12,
                           "use_tpu_fourier_optimizations": False, "tpu_short_seq_length": 512,
                           "pad_token_id": 3, "bos_token_id": 1, "eos_token_id": 2},
                "config_source": "google/fnet-base config.json; transformers' FNetConfig defaults name this checkpoint and carry the same numbers",
                "seq_len": 512,
                "labels": "tokens",
                "fp32_only": True,
            },
            "smoke": {"batch_size": 2, "build": {"config": {"hidden_size": 32, "num_hidden_layers": 2, "intermediate_size": 64, "vocab_size": 256, "max_position_embeddings": 64, "tpu_short_seq_length": 16}, "seq_len": 16}},
            "presubmit": False,
        },
        "LayoutLMForMaskedLM": {
            "modes": {"training": {"batch_size": 16}, "inference": {"batch_size": 16}},
            "build": {"class": "LayoutLMForMaskedLM", "config": {}, "seq_len": 512, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64, "vocab_size": 256}, "seq_len": 16}},
            "presubmit": False,
        },
        "M2M100ForConditionalGeneration": {
            "modes": {"training": {"batch_size": 16}, "inference": {"batch_size": 16}},
            "build": {"class": "M2M100ForConditionalGeneration", "config": {}, "seq_len": 128, "labels": "tokens_but_last", "decoder_input_ids": True},
            "smoke": {"batch_size": 2, "build": {"config": {"d_model": 32, "encoder_layers": 1, "decoder_layers": 2, "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "vocab_size": 256, "max_position_embeddings": 64}, "seq_len": 16}},
            "optimizer": "sgd",
            "notes": "community runs its accuracy check in eval mode (only_inference); Parity's harness keeps train mode for training",
            "presubmit": False,
        },
        "MBartForCausalLM": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"class": "MBartForCausalLM", "config": {}, "seq_len": 1024, "labels": "tokens", "eos_last": True},
            "smoke": {"batch_size": 2, "build": {"config": {"d_model": 32, "encoder_layers": 1, "decoder_layers": 2, "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "vocab_size": 256, "max_position_embeddings": 64}, "seq_len": 16}},
            "optimizer": "sgd",
            "presubmit": False,
        },
        "MT5ForConditionalGeneration": {
            "notes": "the KV cache is off before construction, so in every submodule (issue #41). The community harness turns it off on the built model only; this model's decoder keeps its own copy of the config with the cache on, and on transformers 5 the output carries an EncoderDecoderCache that same() refuses: its determinism check says eager_two_runs_differ (its CI expects pass) and its eager time includes the cache (loader_test.py)",
            "modes": {"training": {"batch_size": 16}, "inference": {"batch_size": 16}},
            "build": {"class": "MT5ForConditionalGeneration", "config": {}, "seq_len": 128, "labels": "tokens_but_last", "decoder_input_ids": True},
            "smoke": {"batch_size": 2, "build": {"config": {"d_model": 32, "d_ff": 64, "d_kv": 16, "num_layers": 2, "num_decoder_layers": 2, "num_heads": 2, "vocab_size": 256}, "seq_len": 16}},
            "tolerance": {"training": 0.02},
            "presubmit": False,
        },
        "MegatronBertForCausalLM": {
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"class": "MegatronBertForCausalLM", "config": {}, "seq_len": 512, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64, "vocab_size": 256}, "seq_len": 16}},
            "presubmit": False,
        },
        "MobileBertForMaskedLM": {
            "modes": {"training": {"batch_size": 128}, "inference": {"batch_size": 128}},
            "build": {"class": "MobileBertForMaskedLM", "config": {}, "seq_len": 128, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"hidden_size": 32, "embedding_size": 16, "intra_bottleneck_size": 16, "true_hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 32, "num_feedforward_networks": 2, "vocab_size": 256}, "seq_len": 16}},
            "optimizer": "none",  # upstream's CI_SKIP_OPTIMIZER: the training step ends with the backward pass
            "presubmit": False,
        },
        "OPTForCausalLM": {
            "modes": {"training": {"batch_size": 2}, "inference": {"batch_size": 2}},
            "build": {"class": "OPTForCausalLM", "config": {}, "seq_len": 2048, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"hidden_size": 32, "word_embed_proj_dim": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "ffn_dim": 64, "vocab_size": 256, "max_position_embeddings": 64}, "seq_len": 16}},
            "optimizer": "sgd",
            "presubmit": False,
        },
        "PLBartForCausalLM": {
            "modes": {"training": {"batch_size": 8}, "inference": {"batch_size": 8}},
            "build": {"class": "PLBartForCausalLM", "config": {}, "seq_len": 1024, "labels": "tokens", "eos_last": True},
            "smoke": {"batch_size": 2, "build": {"config": {"d_model": 32, "encoder_layers": 1, "decoder_layers": 2, "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "vocab_size": 256, "max_position_embeddings": 64}, "seq_len": 16}},
            "optimizer": "sgd",
            "presubmit": False,
        },
        "PegasusForCausalLM": {
            "modes": {"training": {"batch_size": 32}, "inference": {"batch_size": 32}},
            "build": {"class": "PegasusForCausalLM", "config": {}, "seq_len": 128, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"d_model": 32, "encoder_layers": 1, "decoder_layers": 2, "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "vocab_size": 256, "max_position_embeddings": 64}, "seq_len": 16}},
            "optimizer": "sgd",
            "presubmit": False,
        },
        "RobertaForCausalLM": {
            "modes": {"training": {"batch_size": 16}, "inference": {"batch_size": 16}},
            "build": {"class": "RobertaForCausalLM", "config": {"pad_token_id": 0}, "seq_len": 512, "labels": "tokens", "input_ids": "zeros"},
            "smoke": {"batch_size": 2, "build": {"config": {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64, "vocab_size": 256, "max_position_embeddings": 64}, "seq_len": 16}},
            "presubmit": False,
        },
        "T5ForConditionalGeneration": {
            "notes": "the KV cache is off before construction, so in every submodule (issue #41). The community harness turns it off on the built model only; this model's decoder keeps its own copy of the config with the cache on, and on transformers 5 the output carries an EncoderDecoderCache that same() refuses: its determinism check says eager_two_runs_differ (its CI expects pass) and its eager time includes the cache (loader_test.py)",
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {"class": "T5ForConditionalGeneration", "config": {}, "seq_len": 1024, "labels": "tokens_but_last", "decoder_input_ids": True},
            "smoke": {"batch_size": 2, "build": {"config": {"d_model": 32, "d_ff": 64, "d_kv": 16, "num_layers": 2, "num_decoder_layers": 2, "num_heads": 2, "vocab_size": 256}, "seq_len": 16}},
            "presubmit": False,
        },
        "T5Small": {
            "notes": "the KV cache is off before construction, so in every submodule (issue #41). The community harness turns it off on the built model only; this model's decoder keeps its own copy of the config with the cache on, and on transformers 5 the output carries an EncoderDecoderCache that same() refuses: its determinism check says eager_two_runs_differ (its CI expects pass) and its eager time includes the cache (loader_test.py)",
            "modes": {"training": {"batch_size": 4}, "inference": {"batch_size": 4}},
            "build": {
                "class": "T5ForConditionalGeneration",
                "config": {"vocab_size": 32128, "d_model": 512, "d_kv": 64, "d_ff": 2048, "num_layers": 6, "num_decoder_layers": 6,
                           "num_heads": 8, "relative_attention_num_buckets": 32, "dropout_rate": 0.1,
                           "layer_norm_epsilon": 1e-06, "initializer_factor": 1.0, "feed_forward_proj": "relu",
                           "pad_token_id": 0, "eos_token_id": 1, "decoder_start_token_id": 0},
                "config_source": "t5-small (google-t5/t5-small) config.json; transformers' T5Config defaults name this checkpoint and carry the same numbers",
                "seq_len": 1024,
                "labels": "tokens",
                "decoder_input_ids": True,
            },
            "smoke": {"batch_size": 2, "build": {"config": {"d_model": 32, "d_ff": 64, "d_kv": 16, "num_layers": 2, "num_decoder_layers": 2, "num_heads": 2, "vocab_size": 256}, "seq_len": 16}},
        },
        "TrOCRForCausalLM": {
            "modes": {"training": {"batch_size": 32}, "inference": {"batch_size": 32}},
            "build": {"class": "TrOCRForCausalLM", "config": {}, "seq_len": 256, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"d_model": 32, "decoder_layers": 2, "decoder_attention_heads": 2, "decoder_ffn_dim": 64, "vocab_size": 256, "max_position_embeddings": 64}, "seq_len": 16}},
            "optimizer": "sgd",
            "presubmit": False,
        },
        "XGLMForCausalLM": {
            "modes": {"training": {"batch_size": 8}, "inference": {"batch_size": 8}},
            "build": {"class": "XGLMForCausalLM", "config": {}, "seq_len": 128, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"d_model": 32, "num_layers": 2, "attention_heads": 2, "ffn_dim": 64, "vocab_size": 256, "max_position_embeddings": 64}, "seq_len": 16}},
            "optimizer": "sgd",
            "notes": "community: flaky in CI (check_accuracy.py reports it without failing)",
            "presubmit": False,
        },
        "XLNetLMHeadModel": {
            "modes": {"training": {"batch_size": 8}, "inference": {"batch_size": 8}},
            "build": {"class": "XLNetLMHeadModel", "config": {}, "seq_len": 512, "labels": "tokens"},
            "smoke": {"batch_size": 2, "build": {"config": {"d_model": 32, "n_layer": 2, "n_head": 2, "d_inner": 64, "vocab_size": 256}, "seq_len": 16}},
            "presubmit": False,
        },
        "YituTechConvBert": {
            "modes": {"training": {"batch_size": 16}, "inference": {"batch_size": 16}},
            "build": {
                "class": "ConvBertForMaskedLM",
                "config": {"vocab_size": 30522, "hidden_size": 768, "embedding_size": 768, "num_hidden_layers": 12,
                           "num_attention_heads": 12, "intermediate_size": 3072, "hidden_act": "gelu",
                           "max_position_embeddings": 512, "type_vocab_size": 2, "layer_norm_eps": 1e-12,
                           "head_ratio": 2, "conv_kernel_size": 9, "num_groups": 1, "pad_token_id": 0,
                           "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02},
                "config_source": "YituTech/conv-bert-base config.json (BERT-base dimensions, head_ratio 2, span-conv kernel 9); transformers' ConvBertConfig defaults name this checkpoint",
                "seq_len": 512,
                "labels": "tokens",
            },
            "smoke": {"batch_size": 2, "build": {"config": {"hidden_size": 32, "embedding_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64, "vocab_size": 256}, "seq_len": 16}},
            "presubmit": False,
        },
        # ---- LLM entries: inference only, timed through generate() with model.forward compiled -------------------
        "meta-llama/Llama-3.2-1B": {
            "workload": "generation",
            "modes": {"inference": {"batch_size": 1}},
            "build": {
                "class": "LlamaForCausalLM",
                "config": {"vocab_size": 128256, "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
                           "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64, "hidden_act": "silu",
                           "max_position_embeddings": 131072, "rms_norm_eps": 1e-05, "tie_word_embeddings": True,
                           "rope_parameters": {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 32.0, "high_freq_factor": 4.0,
                                               "low_freq_factor": 1.0, "original_max_position_embeddings": 8192},
                           "attention_bias": False, "mlp_bias": False, "bos_token_id": 128000, "eos_token_id": 128001},
                "config_source": "meta-llama/Llama-3.2-1B config.json; dims cross-checked with a public copy of the Llama-3.2-1B-Instruct config (kevinstephano/thunder_model_blocks hf_llama/llama_config.py), same numbers",
                "generation": {"prompt_length": 1000, "max_new_tokens": 2000, "cache_implementation": "static"},
            },
            "smoke": {"batch_size": 1, "build": {
                "config": {"vocab_size": 256, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                           "num_key_value_heads": 2, "head_dim": 16, "max_position_embeddings": 16384, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0},
                "generation": {"prompt_length": 8, "max_new_tokens": 8, "cache_implementation": "static"}}},
            "presubmit": False,
        },
        "google/gemma-2-2b": {
            "workload": "generation",
            "modes": {"inference": {"batch_size": 1}},
            "build": {
                "class": "Gemma2ForCausalLM",
                "config": {"vocab_size": 256000, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
                           "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh",
                           "max_position_embeddings": 8192, "rms_norm_eps": 1e-06, "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0},
                           "sliding_window": 4096, "query_pre_attn_scalar": 256, "attn_logit_softcapping": 50.0,
                           "final_logit_softcapping": 30.0, "pad_token_id": 0, "eos_token_id": 1, "bos_token_id": 2},
                "config_source": "google/gemma-2-2b config.json (alternating 4096-token sliding window and global layers, logit soft-capping 50/30); transformers' Gemma2Config docstring names gemma-2-2b",
                "generation": {"prompt_length": 1000, "max_new_tokens": 2000, "cache_implementation": "static"},
            },
            "smoke": {"batch_size": 1, "build": {
                "config": {"vocab_size": 256, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                           "num_key_value_heads": 2, "head_dim": 16, "sliding_window": 8, "query_pre_attn_scalar": 16, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0},
                "generation": {"prompt_length": 8, "max_new_tokens": 8, "cache_implementation": "static"}}},
            "presubmit": False,
        },
        "google/gemma-3-4b-it": {
            "workload": "generation",
            "modes": {"inference": {"batch_size": 1}},
            "build": {
                "class": "Gemma3ForConditionalGeneration",
                "config": {
                    "text_config": {"vocab_size": 262208, "hidden_size": 2560, "intermediate_size": 10240, "num_hidden_layers": 34,
                                    "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "query_pre_attn_scalar": 256,
                                    "sliding_window": 1024, "max_position_embeddings": 131072, "rms_norm_eps": 1e-06,
                                    "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
                                                        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}},
                    "vision_config": {"hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 27, "num_attention_heads": 16,
                                      "image_size": 896, "patch_size": 14, "vision_use_head": False},
                    "mm_tokens_per_image": 256, "boi_token_index": 255999, "eoi_token_index": 256000, "image_token_index": 262144,
                    "eos_token_id": 1, "pad_token_id": 0, "bos_token_id": 2},
                "config_source": "google/gemma-3-4b-it config.json as published with the Gemma 3 release (text: 34 layers, 5 local (1024 window) : 1 global, linear RoPE x8 on global layers; vision: SigLIP 896 px, 27 layers); not re-verified from a stored copy here",
                "generation": {"prompt_length": 1000, "max_new_tokens": 2000, "cache_implementation": "static"},
            },
            "smoke": {"batch_size": 1, "build": {
                "config": {"text_config": {"vocab_size": 512, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                                           "num_key_value_heads": 2, "head_dim": 16, "query_pre_attn_scalar": 16, "sliding_window": 8},
                           "vision_config": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
                                             "image_size": 28, "patch_size": 14},
                           "mm_tokens_per_image": 4, "boi_token_index": 500, "eoi_token_index": 501, "image_token_index": 502, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0},
                "generation": {"prompt_length": 8, "max_new_tokens": 8, "cache_implementation": "static"}}},
            "notes": "community: skip.all ('Model too big' for its runners); 4.3B parameters fit an H200",
            "presubmit": False,
        },
        "openai/whisper-tiny": {
            "workload": "generation",
            "modes": {"inference": {"batch_size": 1}},
            "build": {
                "class": "WhisperForConditionalGeneration",
                "config": {"vocab_size": 51865, "num_mel_bins": 80, "d_model": 384, "encoder_layers": 4, "decoder_layers": 4,
                           "encoder_attention_heads": 6, "decoder_attention_heads": 6, "encoder_ffn_dim": 1536, "decoder_ffn_dim": 1536,
                           "max_source_positions": 1500, "max_target_positions": 448, "decoder_start_token_id": 50258,
                           "pad_token_id": 50257, "bos_token_id": 50257, "eos_token_id": 50257},
                "config_source": "openai/whisper-tiny config.json; dims as listed in k2-fsa/sherpa-onnx scripts/whisper/model-info.md; transformers' WhisperConfig docstring names whisper-tiny",
                # The decoder holds 448 positions, so a generation stops at 447 new tokens whatever max_new_tokens asks.
                "generation": {"prompt_length": 1, "max_new_tokens": 447, "cache_implementation": "static"},
            },
            "smoke": {"batch_size": 1, "build": {
                "config": {"vocab_size": 256, "num_mel_bins": 80, "d_model": 32, "encoder_layers": 1, "decoder_layers": 2,
                           "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64,
                           "max_source_positions": 1500, "max_target_positions": 32, "decoder_start_token_id": 250,
                           "pad_token_id": 251, "bos_token_id": 251, "eos_token_id": 251},
                "generation": {"prompt_length": 1, "max_new_tokens": 8, "cache_implementation": "static"}}},
            "presubmit": False,
        },
        "Qwen/Qwen3-0.6B": {
            "workload": "generation",
            "modes": {"inference": {"batch_size": 1}},
            "build": {
                "class": "Qwen3ForCausalLM",
                "config": {"vocab_size": 151936, "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28,
                           "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "hidden_act": "silu",
                           "max_position_embeddings": 40960, "rms_norm_eps": 1e-06, "tie_word_embeddings": True,
                           "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0}, "attention_bias": False,
                           "use_sliding_window": False, "bos_token_id": 151643, "eos_token_id": 151645},
                "config_source": "Qwen/Qwen3-0.6B config.json; same dims in Joinn99/GR config/modified_qwen3.py",
                "generation": {"prompt_length": 1000, "max_new_tokens": 2000, "cache_implementation": "static"},
            },
            "smoke": {"batch_size": 1, "build": {
                "config": {"vocab_size": 256, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                           "num_key_value_heads": 2, "head_dim": 16, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0},
                "generation": {"prompt_length": 8, "max_new_tokens": 8, "cache_implementation": "static"}}},
            "presubmit_compile": ["inference"],
        },
        "mistralai/Mistral-7B-Instruct-v0.3": {
            "workload": "generation",
            "modes": {"inference": {"batch_size": 1}},
            "build": {
                "class": "MistralForCausalLM",
                "config": {"vocab_size": 32768, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                           "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "hidden_act": "silu",
                           "max_position_embeddings": 32768, "rms_norm_eps": 1e-05, "tie_word_embeddings": False,
                           "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0}, "sliding_window": None,
                           "bos_token_id": 1, "eos_token_id": 2},
                "config_source": "mistralai/Mistral-7B-Instruct-v0.3 config.json; dims and rope_theta 1e6 as in edadaltocg/mistral-src-finetune finetune/config.py (v0.2), vocabulary 32768 from the v0.3 model card (extended tokenizer), no sliding window since v0.2",
                "generation": {"prompt_length": 1000, "max_new_tokens": 2000, "cache_implementation": "static"},
            },
            "smoke": {"batch_size": 1, "build": {
                "config": {"vocab_size": 256, "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                           "num_key_value_heads": 2, "head_dim": 16, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0},
                "generation": {"prompt_length": 8, "max_new_tokens": 8, "cache_implementation": "static"}}},
            "notes": "community: skip.all ('Model too big' for its runners); 7.2B parameters in bf16 (14.5 GB) fit an H200",
            "presubmit": False,
        },
        "openai/gpt-oss-20b": {
            "workload": "generation",
            "modes": {"inference": {"batch_size": 1}},
            "build": {
                "class": "GptOssForCausalLM",
                "config": {"vocab_size": 201088, "hidden_size": 2880, "intermediate_size": 2880, "num_hidden_layers": 24,
                           "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "num_local_experts": 32,
                           "num_experts_per_tok": 4, "sliding_window": 128,
                           "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention"],
                           "max_position_embeddings": 131072, "rms_norm_eps": 1e-05, "attention_bias": True,
                           "swiglu_limit": 7.0, "router_aux_loss_coef": 0.9, "output_router_logits": False,
                           "tie_word_embeddings": False,
                           "rope_parameters": {"rope_type": "yarn", "rope_theta": 150000.0, "factor": 32.0, "beta_fast": 32.0,
                                               "beta_slow": 1.0, "truncate": False, "original_max_position_embeddings": 4096},
                           "eos_token_id": 200002, "pad_token_id": 199999},
                "config_source": "openai/gpt-oss-20b config.json (24 layers, 32 experts top-4, alternating 128-token sliding window, YaRN x32 from 4096); as in EchoCog/gpt-oss-20b docs/gpt-oss-20b-architecture.md and ParagEkbote/hf-model-inspector; the hub's MXFP4 quantization_config is not applied: built from config the experts are bf16 (42 GB)",
                "generation": {"prompt_length": 1000, "max_new_tokens": 2000, "cache_implementation": "static"},
            },
            "smoke": {"batch_size": 1, "build": {
                "config": {"vocab_size": 256, "hidden_size": 64, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                           "num_key_value_heads": 2, "head_dim": 16, "num_local_experts": 4, "num_experts_per_tok": 2, "sliding_window": 8,
                           "layer_types": ["sliding_attention", "full_attention"], "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0},
                "generation": {"prompt_length": 8, "max_new_tokens": 8, "cache_implementation": "static"}}},
            "expected": [{"device": "cuda", "mode": "inference", "backend": "inductor*", "status": "fail_accuracy", "reason": "no fp64 reference: about 21B parameters (42 GB in bf16) need about 168 GB in fp64, more than an H200 holds, so the check falls back to cosine similarity, as upstream does, and the compiled logits score 0.9414 against eager, below same()'s 0.99, identically with and without CUDA graphs; seen on the H200 at b9010c8 (torch 2.11, transformers 5.17); not investigated further"}],
            "notes": "community: skip.all ('Model too big' for its runners); 21B parameters in bf16 fit an H200",
            "presubmit": False,
        },
    },
}
