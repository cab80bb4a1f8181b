"""Runs one LLM entry the community's way: accuracy on forward logits, performance through generate().

Accuracy: fp64 reference, two eager forward passes (must agree exactly), compiled forward, compared on
`.logits` with the suite tolerance. Performance: `model.forward` is compiled and the timed unit is one whole
`model.generate(...)` call (prompt prefill plus decode); one warm-up call each for eager and compiled (the
compiled one compiles, cold), then interleaved eager/compiled calls, median over median. Eager calls run
under `set_stance("force_eager")`, so both use the same model object and the same compiled forward.
Performance runs under the community's performance settings (its separate perf process); the accuracy
runs under its accuracy settings after timing, so that the generate() compile is measured cold and nothing
the accuracy work sets up reaches the timing.
"""

from __future__ import annotations

import contextlib
import copy
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import torch
from torch._dynamo.testing import reset_rng_state

from compiler.backends import Backend
from compiler.devices.base import DeviceAdapter
from compiler.inductor_fallbacks import record_fallback_kernels
from parity.v1 import results_pb2 as pb
from suites.common import cpu_sets, sampling
from suites.common.compile_stats import CounterWindow
from suites.common.device_turns import DeviceTurns
from suites.common.manifest import Manifest, ModelEntry
from suites.common.model_run import (_classified, compare, eager_run_statuses, eager_runs_agree, fp64_reference,
                                     load_classified, record_performance, run_classified, warmup_classified)
from suites.common.request import RunPlan
from suites.common.settings import accuracy_settings, performance_settings
from suites.common.workload import cast_floats, to_device

WARMUP_CALLS = 1  # upstream warms LLM entries up with one generate() call per phase


@dataclass
class GenerationWorkload:
    """What a suite's `build_generation` returns: a bf16 model in eval mode with its generation config set."""

    model: torch.nn.Module
    forward_inputs: dict[str, Any]    # one forward pass for the accuracy check
    generate_inputs: dict[str, Any]   # the prompt passed to generate()
    prompt_tokens: int
    max_new_tokens: int
    cache_implementation: str
    output_includes_prompt: bool = True  # False where generate() returns only new tokens (Whisper)
    cache: Any = None            # a cache made once and reused by every generate() call (None: generate makes its own)
    cache_argument: str = "cache"  # generate()'s name for it ("past_key_values" before transformers renamed it)

    def new_tokens(self, output: torch.Tensor) -> int:
        return int(output.shape[-1]) - (self.prompt_tokens if self.output_includes_prompt else 0)

    def generate(self, model: torch.nn.Module, inputs: dict[str, Any]) -> torch.Tensor:
        """One generate() call; a reused cache is emptied in place first, so its tensors keep their addresses."""
        if self.cache is None:
            return model.generate(**inputs)
        self.cache.reset()
        return model.generate(**inputs, **{self.cache_argument: self.cache})


GenerationLoader = Callable[[ModelEntry, str, bool], GenerationWorkload]


@contextlib.contextmanager
def _uncompiled(model: torch.nn.Module) -> Iterator[None]:
    """The model with its own forward: the fp64 copy and the eager runs must not reach the compiled one."""
    compiled_forward = model.__dict__.pop("forward")
    try:
        yield
    finally:
        model.forward = compiled_forward


def _logits(model: torch.nn.Module, inputs: dict[str, Any]) -> torch.Tensor:
    return model(**inputs).logits  # upstream compares logits only for LLM entries


class GenerationRun:
    def __init__(self, manifest: Manifest, entry: ModelEntry, backend: Backend, device: DeviceAdapter, smoke: bool,
                 plan: RunPlan, loader: GenerationLoader, turns: DeviceTurns | None = None,
                 after_timing: Callable[[pb.ModelResult], None] | None = None) -> None:
        self.manifest, self.entry, self.backend, self.device = manifest, entry, backend, device
        self.smoke, self.plan, self.loader = smoke, plan, loader
        self.turns = turns or DeviceTurns(None)  # as in ModelRun
        self.after_timing = after_timing  # as in ModelRun
        self.result = pb.ModelResult()

    def run(self) -> pb.ModelResult:
        """Fills self.result; never raises for a model failure (it becomes a status)."""
        with self.turns.taken(), torch._inductor.config.patch(dict(self.plan.inductor_overrides)):
            return run_classified(self.result, self._experiment)

    def _experiment(self) -> str:
        device = self.device
        work = load_classified(lambda: self.loader(self.entry, device.type, self.smoke), device)
        model = work.model.eval()
        forward_inputs = cast_floats(work.forward_inputs, torch.bfloat16)
        generate_inputs = cast_floats(work.generate_inputs, torch.bfloat16)
        gen = self.result.generation
        gen.prompt_tokens, gen.max_new_tokens = work.prompt_tokens, work.max_new_tokens
        gen.cache_implementation = work.cache_implementation
        tolerance = self.manifest.tolerance_for(self.entry, "inference", device.type)
        self.result.accuracy.tolerance = tolerance
        with torch.no_grad(), torch._inductor.config.patch(self.entry.inductor_config):
            # Upstream compiles model.forward and calls generate(); eager calls bypass it through the stance.
            model.forward = self.backend.compile(model.forward)
            # Timing first, as in ModelRun: nothing the accuracy work sets up reaches it.
            if self.plan.measure_performance:
                with performance_settings():
                    self._performance(model, generate_inputs, work)
            if not self.plan.check_accuracy:
                return "pass"
            if self.plan.measure_performance and self.after_timing is not None:
                self.after_timing(self.result)
            self.device.prepare_deterministic_runs()
            with accuracy_settings(deterministic_algorithms=self.entry.deterministic_algorithms):
                with _uncompiled(model):
                    fp64 = self._fp64_reference(model, forward_inputs)
                    eager_ref, status = self._eager_runs(model, forward_inputs)
                if status == "pass":
                    status = self._compiled_check(model, forward_inputs, eager_ref, fp64, tolerance)
        return status

    # -- accuracy ---------------------------------------------------------------------------------
    def _fp64_reference(self, model: torch.nn.Module, inputs: dict[str, Any]) -> Any:
        def run64() -> Any:
            model64 = copy.deepcopy(model).to(torch.float64)  # no RNG reset, as upstream (model_run.py)
            return _logits(model64, cast_floats(inputs, torch.float64))

        return fp64_reference(self.result, self.device, run64)

    def _eager_runs(self, model: torch.nn.Module, inputs: dict[str, Any]) -> tuple[Any, str]:
        runs = []
        for fail, oom in eager_run_statuses(self.plan.measure_performance):
            with _classified(pb.PHASE_EAGER, fail, oom, self.device), self.device.determinism():
                reset_rng_state()
                runs.append(to_device(_logits(model, inputs), "cpu"))
        identical = eager_runs_agree(runs[0], runs[1])
        self.result.accuracy.eager_runs_identical = identical
        return runs[0], "pass" if identical else "eager_two_runs_differ"

    def _compiled_check(self, model: torch.nn.Module, inputs: dict[str, Any], eager_ref: Any, fp64: Any,
                        tolerance: float) -> str:
        accuracy = self.result.accuracy
        accuracy.fp64_reference = fp64 is not None
        accuracy.cosine = fp64 is None
        with _classified(pb.PHASE_COMPILED_RUN, "fail_to_run", "OOM", self.device), self.device.determinism():
            reset_rng_state()
            result = to_device(_logits(model, inputs), "cpu")
        return compare(accuracy, eager_ref, result, fp64, tolerance)

    # -- performance ------------------------------------------------------------------------------
    def _performance(self, model: torch.nn.Module, inputs: dict[str, Any], work: GenerationWorkload) -> None:
        perf, gen = self.result.performance, self.result.generation
        # The eager warm-up comes first: it also allocates a reused cache outside any compiled region.
        with torch.compiler.set_stance("force_eager"):
            eager_warmup_s, eager_peak, eager_tokens = self._warmup(model, inputs, work, pb.PHASE_EAGER)
        waited_before = self.turns.waited_s
        with self._compile_window():
            compiled_warmup_s, compiled_peak, compiled_tokens = self._warmup(model, inputs, work, pb.PHASE_COMPILE)
        turn_wait_s = self.turns.waited_s - waited_before
        gen.eager_new_tokens, gen.compiled_new_tokens = work.new_tokens(eager_tokens), work.new_tokens(compiled_tokens)
        gen.same_tokens = bool(torch.equal(eager_tokens, compiled_tokens))
        # Like upstream's torch._dynamo.run: timing never compiles; a guard failure runs eagerly.
        with _classified(pb.PHASE_TIMING, "fail_to_run", "OOM", self.device):
            sampled = sampling.sample(lambda: self._timed(model, inputs, work, "force_eager"),
                                      lambda: self._timed(model, inputs, work, "eager_on_recompile"),
                                      self.plan.sampling, cpu_sets.from_environment())
        record_performance(self.result, self.device, sampled, (eager_warmup_s, compiled_warmup_s),
                           (eager_peak, compiled_peak), turn_wait_s)
        gen.eager_tokens_per_s = gen.eager_new_tokens / perf.eager.median_s
        gen.compiled_tokens_per_s = gen.compiled_new_tokens / perf.compiled.median_s

    def _warmup(self, model: torch.nn.Module, inputs: dict[str, Any], work: GenerationWorkload,
                phase: int) -> tuple[float, float, torch.Tensor]:
        with warmup_classified(phase, self.device):
            start = time.perf_counter()
            for _ in range(WARMUP_CALLS):
                tokens = work.generate(model, inputs)
            elapsed = time.perf_counter() - start
        return elapsed, self.device.peak_memory_gb(), tokens.cpu()

    def _timed(self, model: torch.nn.Module, inputs: dict[str, Any], work: GenerationWorkload, stance: str) -> float:
        with torch.compiler.set_stance(stance):
            self.device.synchronize()
            reset_rng_state()
            start = time.perf_counter()
            work.generate(model, inputs)
            self.device.synchronize()
            return time.perf_counter() - start

    @contextlib.contextmanager
    def _compile_window(self) -> Iterator[None]:
        """Graph and compile statistics of the compiled warm-up (where generate()'s graphs are compiled)."""
        window = CounterWindow()
        try:
            with record_fallback_kernels() as fallbacks:
                yield
        finally:  # also when compilation failed: graph breaks explain many failures
            self.result.dynamo.CopyFrom(window.dynamo_stats())
            window.fill_compile_phases(self.result.compile_time)
            for op, count in sorted(fallbacks.items()):
                self.result.fallback_ops.add(op=op, count=count, reason="Inductor ran it through its ATen fallback kernel")
