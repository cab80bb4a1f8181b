"""Numeric settings of a model run, scoped by context managers (nothing is changed at import).

Upstream runs accuracy and performance in two processes with different settings, so it compiles twice.
Parity runs both in one process and applies upstream's accuracy settings only where they matter: the fp64
reference and the two eager runs (which must agree bit for bit). Inference compiles once, under the
performance settings, and its checked compiled run reuses that artifact under the same Dynamo guards
(deterministic algorithms and TF32 are guards; a recompile there is an error); its eager runs then keep the
performance settings' matmul precision (TF32, reduced-precision SDP math), so that eager and compiled are
compared at one precision, as in each of upstream's processes. Training's checked run
recompiles under the accuracy settings, because fallback_random (dropout masks equal to eager's) is an
Inductor setting fixed at compile time; it recompiles after the timed cold compile, so the compile
latency stays a cold-start figure. Settings that are not guards (cuDNN/mkldnn determinism) are switched on
around every checked run. `--split-processes` reproduces upstream's two-process layout to compare figures.
"""

from __future__ import annotations

import contextlib
from typing import Iterator

import torch


@contextlib.contextmanager
def accuracy_settings(deterministic_algorithms: bool, reduced_precision: bool = False,
                      reduced_precision_reductions: bool = True) -> Iterator[None]:
    """Upstream's accuracy-mode settings that are Dynamo guards or compile-time Inductor config.

    reduced_precision keeps the performance settings' TF32 matmul and reduced-precision SDP math: for eager runs
    that are compared with an artifact compiled under them. reduced_precision_reductions False turns off cuBLAS's
    fp16/bf16 reduced-precision matmul reductions, as upstream does for nvidia_deeprecommender's check.
    """
    matmul = torch.backends.cuda.matmul
    saved_det = torch.are_deterministic_algorithms_enabled()
    saved_tf32 = matmul.allow_tf32
    saved_sdp = torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
    saved_reductions = (matmul.allow_fp16_reduced_precision_reduction, matmul.allow_bf16_reduced_precision_reduction)
    torch.use_deterministic_algorithms(deterministic_algorithms)
    matmul.allow_tf32 = reduced_precision
    torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(reduced_precision)
    if not reduced_precision_reductions:
        matmul.allow_fp16_reduced_precision_reduction = matmul.allow_bf16_reduced_precision_reduction = False
    try:
        # fallback_random: compiled RNG ops use ATen's generator, so dropout masks match eager.
        with torch._inductor.config.patch(fallback_random=True):
            yield
    finally:
        torch.use_deterministic_algorithms(saved_det)
        matmul.allow_tf32 = saved_tf32
        torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(saved_sdp)
        matmul.allow_fp16_reduced_precision_reduction, matmul.allow_bf16_reduced_precision_reduction = saved_reductions


@contextlib.contextmanager
def performance_settings() -> Iterator[None]:
    """Upstream's performance-mode settings: TF32 matmul and reduced-precision SDP math allowed."""
    saved_tf32 = torch.backends.cuda.matmul.allow_tf32
    saved_sdp = torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True)
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved_tf32
        torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(saved_sdp)
