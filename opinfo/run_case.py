"""Runs one (op, variant, dtype) of op_db through Inductor, sample by sample, and compares it with eager.

Per sample, as the community's Inductor OpInfo test does: a fresh Dynamo state (each sample compiles on
its own, static shapes), eager on a stride-preserving copy of the inputs, the compiled op on another,
outputs and mutated inputs compared with the case's tolerance (NaNs equal, dtypes exact, strides not),
gradients compared from the same random cotangents where requested (when eager's own backward raises,
the sample's gradients are outside the scope). Ops that draw random numbers (torch's `nondeterministic_seeded`
tag) and ops whose tolerance says so compare shapes and dtypes only. The compile is fullgraph and must
reach Inductor, unless a FakeTensor run of the sample shows that its output depends on the data (then Dynamo
may run it eagerly: lowering NOT_COMPILED); Inductor's generated code asserts its dtypes.

A value beyond the tolerance from eager is then judged as the community judges models: against an fp64
run of the same sample, with torch._dynamo.utils.same (compiled no farther from fp64 than eager, by RMSE).
Such samples pass, and are counted (fp64_arbitrated), so a loose kernel never hides.

Differences from upstream on purpose (high-precision mode): Inductor's implicit ATen fallback stays on,
so an op without a lowering runs through ATen and must be correct (upstream turns it off and lists such
ops as expected failures); every ATen fallback kernel is recorded, and the generated code must call it
outside every generated kernel.
"""

from __future__ import annotations

import collections
import contextlib
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import torch
from torch.utils import _pytree as pytree

from compiler.fallback.generated_code import calls_aten, kernels_containing
from compiler.fallback.policy import FallbackPolicy
from compiler.inductor_fallbacks import record_fallback_kernels
from opinfo.catalog import OpCase
from opinfo.tables import Tolerance

PHASE_COMPILE = "compile"
PHASE_RUN = "compiled_run"
PHASE_ACCURACY = "accuracy_check"
PHASE_GRADIENT = "gradient_check"
PHASE_FALLBACK = "fallback_check"


@dataclass(frozen=True)
class SampleFailure:
    phase: str
    exception_type: str
    message: str
    sample: str


@dataclass
class CaseRun:
    """What happened to one (op, dtype) over its samples."""

    total: int = 0
    passed: int = 0
    failed: int = 0
    eager_unsupported: int = 0
    gradient_checked: int = 0
    gradient_eager_rejected: int = 0
    fp64_arbitrated: int = 0
    inductor_graphs: int = 0
    generated_kernels: int = 0
    fallbacks: collections.Counter[str] = field(default_factory=collections.Counter)
    first_failure: SampleFailure | None = None
    wall_time_s: float = 0.0

    @property
    def lowering(self) -> str:
        """NATIVE / FALLBACK / MIXED over all samples; NOT_COMPILED when samples passed without reaching Inductor
        (data-dependent outputs only); UNSPECIFIED when nothing passed or reached Inductor."""
        if self.inductor_graphs == 0:
            return "NOT_COMPILED" if self.passed else "UNSPECIFIED"
        if not self.fallbacks:
            return "NATIVE"
        return "MIXED" if self.generated_kernels else "FALLBACK"


class _SeededOpDetector(torch.utils._python_dispatch.TorchDispatchMode):
    """Notes whether any ATen op that draws random numbers ran."""

    def __init__(self) -> None:
        super().__init__()
        self.random = False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001,ANN204 (torch's signature)
        if torch.Tag.nondeterministic_seeded in getattr(func, "tags", ()):
            self.random = True
        return func(*args, **(kwargs or {}))


def _clone(tree: Any) -> Any:
    return pytree.tree_map(lambda x: _clone_tensor(x) if isinstance(x, torch.Tensor) else x, tree)


def _clone_tensor(x: torch.Tensor) -> torch.Tensor:
    from torch._dynamo.utils import clone_input

    try:
        return clone_input(x)  # keeps strides and storage offset
    except RuntimeError:  # it sizes the storage from the strides, negative for some empty views (linalg.pinv.singular)
        return x.detach().clone().requires_grad_(x.requires_grad)


def _tensors(tree: Any) -> list[torch.Tensor]:
    return [x for x in pytree.tree_leaves(tree) if isinstance(x, torch.Tensor)]


def _compare(actual: Any, expected: Any, tol: Tolerance, values: bool) -> None:
    """Raises AssertionError describing the first difference."""
    if not values:
        got, want = _tensors(actual), _tensors(expected)
        if len(got) != len(want):
            raise AssertionError(f"compiled returned {len(got)} tensors, eager {len(want)}")
        for i, (g, w) in enumerate(zip(got, want)):
            if g.shape != w.shape or g.dtype != w.dtype:
                raise AssertionError(f"output {i}: compiled {tuple(g.shape)} {g.dtype}, eager {tuple(w.shape)} {w.dtype}")
        return
    torch.testing.assert_close(actual, expected, atol=tol.atol, rtol=tol.rtol, equal_nan=True, check_dtype=True,
                               check_stride=False)


def _grads(outputs: Any, inputs: list[torch.Tensor], seed: int, dtype: torch.dtype) -> list[torch.Tensor | None]:
    """Gradients from random cotangents drawn in the case's dtype (so an fp64 rerun gets the same values)."""
    outs = [o for o in _tensors(outputs) if o.requires_grad]
    if not outs:
        return []
    gen = torch.Generator(device=outs[0].device).manual_seed(seed)
    cotangents = [torch.randn(o.shape, dtype=dtype if o.is_floating_point() else o.dtype, device=o.device,
                              generator=gen).to(o.dtype) for o in outs]
    return list(torch.autograd.grad(outs, inputs, cotangents, allow_unused=True))


def _fp64(tree: Any) -> Any:
    """A float64 copy of the floating tensors in `tree` (leaves that required grad still do)."""
    def cast(x: Any) -> Any:
        if not isinstance(x, torch.Tensor) or not x.is_floating_point():
            return x
        return x.detach().to(torch.float64).requires_grad_(x.requires_grad)

    return pytree.tree_map(cast, tree)


def _fp64_agrees(call: Callable[..., Any], inputs: Any, seed: int, dtype: torch.dtype, tol: Tolerance, grads: bool,
                 eager: Any, compiled: Any) -> bool:
    """True when `compiled` is no farther from an fp64 run of the sample than `eager` is (community rule).

    Forward: `eager`/`compiled` are (output, input tensors after the call); gradients: the gradient lists."""
    from torch._dynamo.utils import same

    try:
        args, kwargs = _fp64(_clone(inputs))
        torch.manual_seed(seed)
        output = call(*args, **kwargs)
        leaves = [t for t in _tensors((args, kwargs)) if t.requires_grad]
        reference = _grads(output, leaves, seed, dtype) if grads else (output, _tensors(args))
        # `same` first tries allclose(atol=rtol=tol): the case's own tolerance, so nothing gets looser there.
        return bool(same(eager, compiled, fp64_ref=reference, cos_similarity=False,
                         tol=min(t for t in (tol.atol, tol.rtol, 1.5e-5) if t), equal_nan=True))
    except Exception:  # noqa: BLE001 (no fp64 run of this op: the tolerance's verdict stands)
        return False


@contextlib.contextmanager
def _counting_inductor() -> Iterator[tuple[Callable[..., Any], list[int]]]:
    """An Inductor backend that counts the graphs handed to it."""
    from torch._inductor.compile_fx import compile_fx

    graphs = [0]

    def backend(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
        graphs[0] += 1
        return compile_fx(gm, example_inputs)

    yield backend, graphs


@contextlib.contextmanager
def _community_checks() -> Iterator[None]:
    """Checks the community's OpInfo test switches on: dtype asserts in the generated code (Triton at run time,
    C++ at compile time), and an error where AOTAutograd would otherwise compile unsafely."""
    dtype_asserts = {"test_configs.runtime_triton_dtype_assert": True, "test_configs.static_cpp_dtype_assert": True}
    with torch._inductor.config.patch(dtype_asserts), torch._dynamo.config.patch(raise_on_unsafe_aot_autograd=True):
        yield


def _output_depends_on_data(call: Callable[..., Any], inputs: Any) -> bool:
    """The community's nopython rule: a FakeTensor run that needs real data (an output shape or value that
    depends on it) lets the compile break the graph; any other error is left to the compiled run to show."""
    from torch._dispatch.python import enable_python_dispatcher
    from torch._subclasses.fake_tensor import DataDependentOutputException, DynamicOutputShapeException, FakeTensorMode

    try:
        with FakeTensorMode() as mode, enable_python_dispatcher():
            args, kwargs = pytree.tree_map_only(torch.Tensor, mode.from_tensor, inputs)
            call(*args, **kwargs)
    except (DataDependentOutputException, DynamicOutputShapeException):
        return True
    except Exception:  # noqa: BLE001 (not this rule's concern)
        return False
    return False


def _describe(sample: Any) -> str:
    text = sample.summary() if hasattr(sample, "summary") else repr(sample)
    return text[:600]


def run_case(case: OpCase, device: str, tol: Tolerance, policy: FallbackPolicy, check_gradients: bool,
             max_samples: int | None = None) -> CaseRun:
    """Runs every sample of `case` (or the first `max_samples`) eager and compiled on `device`."""
    from torch._inductor import metrics
    from torch._inductor.utils import run_and_get_code

    op, dtype = case.op, case.dtype
    requires_grad = bool(check_gradients and op.supports_autograd and dtype in op.supported_backward_dtypes(device))
    run = CaseRun()
    started = time.monotonic()
    torch.manual_seed(0)
    samples = op.sample_inputs(device, dtype, requires_grad=requires_grad)
    for index, sample in enumerate(samples):
        if max_samples is not None and index >= max_samples:
            break
        run.total += 1
        fn = op.get_op()

        def call(*args: Any, **kwargs: Any) -> Any:
            return fn(*args, **kwargs)

        args, kwargs = [sample.input, *sample.args], dict(sample.kwargs)
        eager_args, eager_kwargs = _clone((args, kwargs))
        detector = _SeededOpDetector()
        try:
            torch.manual_seed(index)
            with detector:
                expected = call(*eager_args, **eager_kwargs)
        except Exception:  # noqa: BLE001 (eager rejects this sample: outside what eager supports)
            run.eager_unsupported += 1
            continue
        compare_values = tol.compare_values and not detector.random
        failure = _run_compiled(run, call, (args, kwargs), (eager_args, eager_kwargs), expected, tol, compare_values,
                                requires_grad, index, dtype, run_and_get_code, metrics)
        if failure is None:
            run.passed += 1
        else:
            run.failed += 1
            if run.first_failure is None:
                run.first_failure = SampleFailure(*failure, sample=_describe(sample))
    run.wall_time_s = time.monotonic() - started
    return run


def _raised(exc: Exception) -> tuple[str, str, str]:
    """(phase, exception type, message) of compiled code that raised: its compile's error or its run's. The accuracy
    and gradient phases are for values that differ (a triage reads a case's failure by its phase)."""
    phase = PHASE_COMPILE if "BackendCompilerFailed" in type(exc).__name__ else PHASE_RUN
    return phase, type(exc).__name__, str(exc)[:2000]


def _run_compiled(run: CaseRun, call: Callable[..., Any], inputs: Any, eager_inputs: Any, expected: Any,
                  tol: Tolerance, compare_values: bool, requires_grad: bool, index: int, dtype: torch.dtype,
                  run_and_get_code: Any, metrics: Any) -> tuple[str, str, str] | None:
    """Compiles and checks one sample; returns (phase, exception type, message) on failure."""
    args, kwargs = _clone(inputs)
    fullgraph = not _output_depends_on_data(call, (args, kwargs))
    torch._dynamo.reset()
    kernels_before = metrics.generated_kernel_count
    with _counting_inductor() as (backend, graphs), record_fallback_kernels() as seen, _community_checks():
        try:
            torch.manual_seed(index)
            actual, codes = run_and_get_code(torch.compile(call, backend=backend, fullgraph=fullgraph), *args, **kwargs)
        except Exception as exc:  # noqa: BLE001 (classified, not hidden)
            return _raised(exc)
    # Under torch's compiler bisector (a triage: tools/triage/op_case.py), torch.compile compiles with the backend the
    # bisector tests instead of ours, so Inductor may rightly not be called.
    if fullgraph and not graphs[0] and not os.environ.get("TORCH_BISECT_BACKEND"):
        return PHASE_COMPILE, "InductorNotCalled", "the compiled call ran without handing Inductor a graph"
    run.inductor_graphs += graphs[0]
    run.generated_kernels += metrics.generated_kernel_count - kernels_before
    run.fallbacks.update(seen)
    code = "\n".join(codes)
    # A fallback lowering may leave no call at all (its output was dead code, e.g. an empty result); only one
    # that a generated kernel computes instead of the wrapper calling it breaks the rule.
    fused = [op for op in seen if not calls_aten(code, op) and kernels_containing(code, op)]
    if fused:
        return PHASE_FALLBACK, "FallbackNotExtern", f"ATen fallback(s) {fused} are computed inside generated kernels"
    try:
        _compare(actual, expected, tol, compare_values)
        _compare(_tensors(args), _tensors(eager_inputs[0]), tol, compare_values)  # input mutations
    except AssertionError as exc:
        if not _fp64_agrees(call, inputs, index, dtype, tol, False, (expected, _tensors(eager_inputs[0])),
                            (actual, _tensors(args))):
            return PHASE_ACCURACY, "AssertionError", str(exc)[:2000]
        run.fp64_arbitrated += 1
    if requires_grad:
        leaves = [t for t in _tensors((args, kwargs)) if t.requires_grad]
        eager_leaves = [t for t in _tensors(eager_inputs) if t.requires_grad]
        try:
            want = _grads(expected, eager_leaves, index, dtype)
        except Exception:  # noqa: BLE001 (eager's backward rejects this sample: nothing in scope to compare)
            run.gradient_eager_rejected += 1
            return None
        try:
            got = _grads(actual, leaves, index, dtype)
        except Exception as exc:  # noqa: BLE001 (the compiled backward's compile or run raised: not a mismatch)
            phase, kind, message = _raised(exc)
            return phase, kind, f"in the backward: {message}"
        if got or want:
            run.gradient_checked += 1
            try:
                _compare(got, want, tol, compare_values)
            except AssertionError as exc:
                if not _fp64_agrees(call, inputs, index, dtype, tol, True, want, got):
                    return PHASE_GRADIENT, "AssertionError", str(exc)[:2000]
                run.fp64_arbitrated += 1
    return None
