"""hf_Bert in high-precision mode: BERT (HuggingFace BertForMaskedLM, the model TorchBench's hf_Bert wraps,
built from a config with random weights) in FP32 with Inductor, inference and training.

  python -m opinfo.hf_bert --device cuda --size full --out out/h200-hf-bert
  python -m opinfo.hf_bert --device cpu --size smoke            # the scaled-down presubmit variant

Checked as the community's accuracy mode checks a model: an fp64 copy is the reference; eager and compiled
fp32 runs are compared with torch._dynamo.utils.same() at TorchBench's fp32 tolerance (1e-3 for training on
an accelerator, 1e-4 otherwise); inference compares the MaskedLM output (logits and loss), training the loss
and every parameter's gradient. Every compiled tensor must also be free of NaN and Inf. Dropout is 0 so
that eager, compiled and fp64 runs compute the same function. One ModelResult per mode is written to --out.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proto.codegen import ensure_generated

ensure_generated()

from parity.v1 import results_pb2 as pb  # noqa: E402

from compiler.devices.registry import get_device  # noqa: E402
from compiler.precision import high_precision  # noqa: E402
from opinfo import results  # noqa: E402
from proto.result_files import write_message  # noqa: E402


@dataclass(frozen=True)
class BertSize:
    """The model and input size. `full` is bert-base (BertConfig's defaults) at sequence length 512."""

    layers: int
    hidden: int
    heads: int
    intermediate: int
    vocab: int
    seq_len: int
    batch_inference: int
    batch_training: int


SIZES = {
    "full": BertSize(layers=12, hidden=768, heads=12, intermediate=3072, vocab=30522, seq_len=512,
                     batch_inference=1, batch_training=2),
    # Same architecture, scaled down so that it compiles in about a minute on 2 CPU cores (presubmit).
    "smoke": BertSize(layers=2, hidden=128, heads=2, intermediate=256, vocab=1024, seq_len=64,
                      batch_inference=2, batch_training=2),
}


def build_model(size: BertSize) -> Any:
    from transformers import BertConfig, BertForMaskedLM

    config = BertConfig(vocab_size=size.vocab, hidden_size=size.hidden, num_hidden_layers=size.layers,
                        num_attention_heads=size.heads, intermediate_size=size.intermediate,
                        max_position_embeddings=max(512, size.seq_len), hidden_dropout_prob=0.0,
                        attention_probs_dropout_prob=0.0)
    return BertForMaskedLM(config)


def _finite(tree: Any) -> list[str]:
    """Names (paths) of tensors holding NaN or Inf."""
    import torch
    from torch.utils import _pytree as pytree

    leaves, _ = pytree.tree_flatten_with_path(tree)
    return [pytree.keystr(path) for path, leaf in leaves
            if isinstance(leaf, torch.Tensor) and leaf.is_floating_point() and not torch.isfinite(leaf).all()]


def _outputs(model: Any, inputs: dict[str, Any], training: bool) -> Any:
    """Inference: logits and loss. Training: loss and every parameter's gradient (missing ones as zeros)."""
    import torch

    out = model(**inputs)
    if not training:
        return {"logits": out.logits.detach(), "loss": out.loss.detach()}
    model.zero_grad(set_to_none=True)
    out.loss.backward()
    module = getattr(model, "_orig_mod", model)  # a compiled module's names carry an `_orig_mod.` prefix
    grads = {name: (p.grad if p.grad is not None else torch.zeros_like(p)).detach()
             for name, p in module.named_parameters()}
    return {"loss": out.loss.detach(), "grads": grads}


def check_mode(device: str, size: BertSize, training: bool) -> tuple[bool, str, float]:
    """(passed, detail, tolerance) of one mode."""
    import torch
    from torch._dynamo.utils import same

    torch.manual_seed(0)
    model = build_model(size).to(device)
    model.train(training)
    batch = size.batch_training if training else size.batch_inference
    ids = torch.randint(0, size.vocab, (batch, size.seq_len), device=device)
    inputs = {"input_ids": ids, "labels": ids.clone()}
    tol = 1e-3 if training and device != "cpu" else 1e-4
    with torch.no_grad() if not training else torch.enable_grad():
        reference = _outputs(copy.deepcopy(model).double(), inputs, training)
        eager = _outputs(model, inputs, training)
        torch._dynamo.reset()
        compiled_model = torch.compile(copy.deepcopy(model), backend="inductor")
        compiled = _outputs(compiled_model, inputs, training)
    problems = []
    if bad := _finite(compiled):
        problems.append(f"compiled NaN/Inf in {', '.join(bad[:5])}")
    if bad := _finite(eager):
        problems.append(f"eager NaN/Inf in {', '.join(bad[:5])}")
    if not same(eager, compiled, fp64_ref=reference, tol=tol, equal_nan=True):
        problems.append(f"compiled differs from eager beyond tolerance {tol} (torch._dynamo.utils.same with fp64 "
                        "reference; its log names the tensor)")
    return not problems, "; ".join(problems), tol


def run(device: str, size_name: str, modes: list[str], out: Path) -> list[pb.ModelResult]:
    adapter = get_device(device)
    available = adapter.availability()
    if not available.ok:
        raise RuntimeError(f"device {device} is not usable here: {available.reason}")
    if size_name not in SIZES:
        raise ValueError(f"--size must be one of {', '.join(SIZES)}, not {size_name!r}")
    info = adapter.info()
    written = []
    for mode in modes:
        training = mode == "training"
        started = time.monotonic()
        with high_precision() as precision:
            try:
                passed, detail, tol = check_mode(device, SIZES[size_name], training)
                status, failure = (pb.STATUS_PASS if passed else pb.STATUS_FAIL_ACCURACY), None
            except Exception as exc:  # noqa: BLE001 (classified, with its message)
                passed, detail, tol = False, f"{type(exc).__name__}: {exc}"[:2000], 0.0
                status, failure = pb.STATUS_FAIL_TO_RUN, pb.Failure(phase=pb.PHASE_COMPILED_RUN,
                                                                    exception_type=type(exc).__name__,
                                                                    message=str(exc)[:2000])
        result = pb.ModelResult(
            run_id=os.environ.get("PARITY_RUN_ID", "hf_bert"),
            config=pb.RunConfig(suite="opinfo", model="hf_Bert", mode=pb.MODE_TRAINING if training else pb.MODE_INFERENCE,
                                precision=pb.PRECISION_FLOAT32, backend="inductor", hud_compiler="inductor",
                                device=device, smoke=size_name == "smoke",
                                batch_size=SIZES[size_name].batch_training if training else SIZES[size_name].batch_inference),
            status=status, community_status="pass" if passed else ("fail_accuracy" if failure is None else "fail_to_run"),
            expected_status=pb.STATUS_PASS,
            accuracy=pb.Accuracy(checked=True, tolerance=tol, fp64_reference=True, detail=detail),
            wall_time_s=time.monotonic() - started,
        )
        result.provenance.CopyFrom(results.provenance(device, info.name, info.arch, f"high-precision:{size_name}", ""))
        for key, value in precision.applied.items():
            result.provenance.package_versions[f"precision.{key}"] = str(value)
        if failure is not None:
            result.failure.CopyFrom(failure)
        result.result_id = hashlib.sha256(f"{result.run_id}\0{device}\0hf_Bert\0{mode}\0{size_name}".encode()).hexdigest()
        write_message(result, out, f"hf_bert-{device}-{size_name}-{mode}")
        print(f"hf_Bert {mode} fp32 inductor on {device} ({size_name}): {result.community_status} "
              f"in {result.wall_time_s:.1f} s{' -- ' + detail if detail else ''}", flush=True)
        written.append(result)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default=os.environ.get("PARITY_DEVICE", "cpu"))
    parser.add_argument("--size", default="smoke", choices=sorted(SIZES))
    parser.add_argument("--modes", default="inference,training")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    if not modes or set(modes) - {"inference", "training"}:
        parser.error(f"--modes takes inference and/or training, not {args.modes!r}")
    out = args.out or Path(os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR", "out/hf_bert"))
    written = run(args.device, args.size, modes, out)
    return 0 if all(r.status == pb.STATUS_PASS for r in written) else 1


if __name__ == "__main__":
    sys.exit(main())
