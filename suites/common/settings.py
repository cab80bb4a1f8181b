"""Numeric settings of a model run, scoped by context managers (nothing is changed at import).

Upstream runs accuracy and performance in two processes with different settings. Parity runs both in one
process: the eager references and the checked compiled run under the accuracy settings, the timing under
the performance settings, as upstream. Dynamo guards on some of them (deterministic algorithms, TF32), so
the checked run recompiles; it does so after the timed cold compile, from warm caches, so the compile
latency stays a cold-start figure. Settings that are not guards
(cuDNN/mkldnn determinism) are switched on only around checked runs. `--split-processes` reproduces
upstream's two-process layout to compare the figures."""

from __future__ import annotations

import contextlib
from typing import Iterator

import torch


@contextlib.contextmanager
def accuracy_settings(deterministic_algorithms: bool) -> Iterator[None]:
    """Upstream's accuracy-mode settings that are Dynamo guards or compile-time Inductor config."""
    saved_det = torch.are_deterministic_algorithms_enabled()
    saved_tf32 = torch.backends.cuda.matmul.allow_tf32
    saved_sdp = torch.backends.cuda.fp16_bf16_reduction_math_sdp_allowed()
    torch.use_deterministic_algorithms(deterministic_algorithms)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(False)
    try:
        # fallback_random: compiled RNG ops use ATen's generator, so dropout masks match eager.
        with torch._inductor.config.patch(fallback_random=True):
            yield
    finally:
        torch.use_deterministic_algorithms(saved_det)
        torch.backends.cuda.matmul.allow_tf32 = saved_tf32
        torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(saved_sdp)


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
