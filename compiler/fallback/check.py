"""The forced-fallback check: compile a small function whose op would be fused, with and without forcing
that op to ATen, and read what Inductor generated. Runs on any device Inductor supports.

  python -m compiler.fallback.check --device cuda      # prints one JSON report; exit 1 if a check fails

The function is relu -> mul -> <op> -> add: without the policy Inductor fuses all four into one kernel;
with it, the op must be an ATen call between two kernels, no kernel may compute it, and the result must
match eager exactly as closely as the fused compile does.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass

import torch

from compiler.fallback.force import forced_fallbacks, resolve_op
from compiler.fallback.generated_code import calls_aten, kernels, kernels_containing
from compiler.fallback.policy import FallbackPolicy
from compiler.inductor_fallbacks import record_fallback_kernels

DEFAULT_OP = "aten.sigmoid.default"


@dataclass(frozen=True)
class Compiled:
    kernels: list[str]
    kernels_computing_op: list[str]
    aten_call: bool
    fallback_kernels: dict[str, int]
    max_abs_error_vs_eager: float


@dataclass(frozen=True)
class FallbackCheck:
    device: str
    op: str
    fused: Compiled
    forced: Compiled

    @property
    def failures(self) -> list[str]:
        problems = []
        if not self.forced.aten_call:
            problems.append(f"{self.op} is not called through ATen in the generated code")
        if self.forced.kernels_computing_op:
            problems.append(f"generated kernels still compute {self.op}: {self.forced.kernels_computing_op}")
        if self.op not in self.forced.fallback_kernels:
            problems.append(f"Inductor created no FallbackKernel for {self.op}")
        if not self.fused.kernels_computing_op:
            problems.append(f"control failed: without the policy no kernel computes {self.op}, so the check "
                            "could not tell forced from fused")
        if self.forced.max_abs_error_vs_eager > self.fused.max_abs_error_vs_eager:
            problems.append(f"forcing {self.op} changed accuracy: error vs eager {self.forced.max_abs_error_vs_eager} "
                            f"(fused: {self.fused.max_abs_error_vs_eager})")
        return problems


def _compile_and_read(fn, x: torch.Tensor, op: str, policy: FallbackPolicy) -> Compiled:  # noqa: ANN001
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.reset()
    expected = fn(x)
    with torch._inductor.config.patch(force_disable_caches=True), forced_fallbacks(policy), \
            record_fallback_kernels() as seen:
        out, codes = run_and_get_code(torch.compile(fn, backend="inductor"), x)
    code = "\n".join(codes)
    return Compiled(
        kernels=[k.name for k in kernels(code)],
        kernels_computing_op=kernels_containing(code, op),
        aten_call=calls_aten(code, op),
        fallback_kernels=dict(seen),
        max_abs_error_vs_eager=float((out - expected).abs().max()),
    )


def check_forced_fallback(device: str, op: str = DEFAULT_OP, size: int = 256) -> FallbackCheck:
    """Compiles relu -> mul -> op -> add on `device` fused and with `op` forced to ATen."""
    aten_op = resolve_op(op)

    def fn(x: torch.Tensor) -> torch.Tensor:
        return aten_op(torch.relu(x) * 3) + 1

    torch.manual_seed(0)
    x = torch.randn(size, size, device=device)
    return FallbackCheck(
        device=device, op=op,
        fused=_compile_and_read(fn, x, op, FallbackPolicy(device)),
        forced=_compile_and_read(fn, x, op, FallbackPolicy(device, {op: "forced by compiler.fallback.check"})),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--op", default=DEFAULT_OP, help="a pointwise op overload, e.g. aten.sigmoid.default")
    args = parser.parse_args(argv)
    check = check_forced_fallback(args.device, args.op)
    report = {**asdict(check), "torch": torch.__version__, "failures": check.failures,
              "device_name": torch.cuda.get_device_name() if args.device == "cuda" else args.device}
    print(json.dumps(report, indent=2))
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main())
