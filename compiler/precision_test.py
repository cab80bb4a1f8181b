"""High-precision mode: what it sets, that it restores everything, and that importing it changes nothing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch
from torch._inductor import config as inductor_config

from compiler.precision import current_settings, high_precision


@pytest.fixture(autouse=True)
def _restore_defaults():
    """Every test starts from, and leaves, the process's original settings. The tests' own flag writes are
    allowed even where torch's test utilities (op_db's import, in the same pytest process) froze them."""
    with getattr(torch.backends, "__allow_nonbracketed_mutation")():
        before = current_settings()
        yield
        assert current_settings() == before


def _tf32_everywhere() -> None:
    torch.set_float32_matmul_precision("high")  # also turns cuda.matmul to TF32
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = True


def _put_back(saved: dict) -> None:
    """Restores a current_settings() snapshot by hand (independently of the code under test)."""
    torch.set_float32_matmul_precision(saved["float32_matmul_precision"])
    for name in ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"):
        setattr(torch.backends.cuda.matmul, name, saved[f"cuda.matmul.{name}"])
    for name, value in saved.items():  # new-API nodes, parents listed first
        if name.endswith(".fp32_precision"):
            node = torch.backends
            for part in name.removesuffix(".fp32_precision").split("."):
                node = node if part == "backends" else getattr(node, part)
            node.fp32_precision = value


def test_sets_ieee_fp32_and_restores_a_tf32_caller() -> None:
    saved = current_settings()
    try:
        _tf32_everywhere()
        caller = current_settings()
        assert caller["cuda.matmul.allow_tf32"] is True
        with high_precision() as state:
            assert torch.backends.cuda.matmul.allow_tf32 is False
            assert torch.backends.cudnn.allow_tf32 is False
            assert torch.get_float32_matmul_precision() == "highest"
            assert torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction is False
            assert torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction is False
            assert torch.backends.mkldnn.conv.fp32_precision == "ieee"
            assert inductor_config.emulate_precision_casts is True
            assert inductor_config.triton.codegen_upcast_to_fp32 is True
            assert state.applied["cudnn.allow_tf32"] is False
            assert state.applied["inductor.emulate_precision_casts"] is True
        assert current_settings() == caller
    finally:
        _put_back(saved)


def test_restores_on_exception_and_inductor_config() -> None:
    before = current_settings()
    casts = inductor_config.emulate_precision_casts
    with pytest.raises(ZeroDivisionError):
        with high_precision():
            1 / 0  # noqa: B018
    assert current_settings() == before
    assert inductor_config.emulate_precision_casts == casts


def test_restores_a_mixed_api_caller_exactly() -> None:
    """A caller that set cuDNN conv and rnn apart (legacy getter raises) gets that exact state back.

    torch keeps a hidden legacy flag: once the legacy setter ran, only the legacy setter makes the legacy
    getter answer again, so the clean-up below uses it.
    """
    cudnn = torch.backends.cudnn
    saved_legacy = cudnn.allow_tf32
    try:
        cudnn.conv.fp32_precision, cudnn.rnn.fp32_precision = "ieee", "tf32"
        with pytest.raises(RuntimeError):
            cudnn.allow_tf32  # noqa: B018 (torch refuses to answer for a mixed state)
        with high_precision():
            assert cudnn.allow_tf32 is False
        assert (cudnn.conv.fp32_precision, cudnn.rnn.fp32_precision) == ("ieee", "tf32")
    finally:
        cudnn.allow_tf32 = saved_legacy


def test_autocast_is_off_inside() -> None:
    a, b = torch.randn(4, 4), torch.randn(4, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert (a @ b).dtype == torch.bfloat16
        with high_precision():
            assert (a @ b).dtype == torch.float32
        assert (a @ b).dtype == torch.bfloat16


def test_inductor_compiles_and_matches_eager_inside() -> None:
    torch._dynamo.reset()
    x, w = torch.randn(2, 3, 9, 9, dtype=torch.float64), torch.randn(4, 3, 3, 3, dtype=torch.float64)

    def fn(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.conv2d(x, w).relu()
        return (y.flatten(1) @ y.flatten(1).T).tanh()

    reference = fn(x, w)
    with high_precision():
        compiled = torch.compile(fn, backend="inductor")(x.float(), w.float())
    assert compiled.dtype == torch.float32
    torch.testing.assert_close(compiled.double(), reference, rtol=1.3e-5, atol=1.5e-5)


def test_works_when_torch_test_utils_froze_the_flags() -> None:
    """op_db's import calls torch.backends.disable_global_flags(); the mode must still apply and restore."""
    frozen = torch.backends.flags_frozen()
    torch.backends.disable_global_flags()
    try:
        with high_precision():
            assert torch.backends.cudnn.allow_tf32 is False
        assert torch.backends.flags_frozen()
    finally:
        if not frozen:  # unfreeze again: the module global that disable_global_flags() cleared
            vars(torch.backends)["__allow_nonbracketed_mutation_flag"] = True


def test_import_changes_nothing() -> None:
    script = (
        "import torch, json\n"
        "from torch._inductor import config as c\n"
        "snap = lambda: json.dumps([torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32,"
        " torch.backends.cudnn.allow_tf32, c.emulate_precision_casts])\n"
        "before = snap()\n"
        "import compiler.precision\n"
        "assert snap() == before, (before, snap())\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
