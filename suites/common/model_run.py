"""Runs one model in this process: the community's accuracy check and performance experiment.

One cold compile serves both in inference. Order: load, cast, eager warm-up, compiled warm-up (compiles,
with empty caches when cold), interleaved timing; then the accuracy work from the model as loaded: fp64
reference, two eager runs (must agree), the checked compiled run (suites/common/settings.py says which
settings apply where). Timing comes first so that nothing the accuracy work sets up reaches it; the
loaded model waits on the host meanwhile, so that it does not count towards the device's peak memory.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import gc
import statistics
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TypeVar

import torch
from torch._dynamo.testing import reset_rng_state
from torch._dynamo.utils import clone_inputs, same

from compiler.backends import Backend
from compiler.devices.base import DeviceAdapter
from compiler.fallback.force import forced_fallbacks
from compiler.fallback.policy import policy_for
from compiler.inductor_fallbacks import record_fallback_kernels
from parity.v1 import results_pb2 as pb
from suites.common import bottleneck, cpu_sets, sampling
from suites.common.compile_stats import CounterWindow
from suites.common.device_turns import DeviceTurns
from suites.common.manifest import ACCURACY_VERDICTS, Manifest, ModelEntry
from suites.common.provenance import phase_line
from suites.common.request import RunPlan
from suites.common.result_io import FAILURE_TEXT_CHARS
from suites.common.sampling import Sampled
from suites.common.settings import accuracy_settings, performance_settings
from suites.common.workload import TRAINING_RESULT_PARTS, Iteration, Workload, cast_floats, make_optimizer, \
    to_device

T = TypeVar("T")

Loader = Callable[[ModelEntry, str, str, bool, int], Workload]


class RunFailed(Exception):
    """Ends the run with a classified status."""

    def __init__(self, status: str, phase: int, cause: BaseException, out_of_memory: bool = False) -> None:
        super().__init__(f"{status}: {type(cause).__name__}: {cause}")
        self.status, self.phase, self.cause, self.out_of_memory = status, phase, cause, out_of_memory


# Upstream's statuses for the accuracy check's two eager runs: (an error, out of memory) for each run.
EAGER_RUN_STATUSES = (("eager_1st_run_fail", "eager_1st_run_OOM"), ("eager_2nd_run_fail", "eager_2nd_run_OOM"))
# Upstream's load_model ends with validate_model, one eager iteration whose failure, an OOM too, is
# eager_fail_to_run; eager_1st_run_* are left for a model that ran there. Here the run's first eager iteration
# plays that part: the eager warm-up, or the first eager run when nothing is timed.
VALIDATION_STATUSES = ("eager_fail_to_run", "eager_fail_to_run")
# A performance-only run (--plan performance, config.performance_only) checks nothing: "pass" says only that it ran.
PERFORMANCE_ONLY_DETAIL = "not checked: a performance-only run; its pass says only that it ran"


def eager_run_statuses(validated: bool) -> tuple[tuple[str, str], tuple[str, str]]:
    """(fail, OOM) statuses of the accuracy check's two eager runs, once the model has or has not run eagerly."""
    return EAGER_RUN_STATUSES if validated else (VALIDATION_STATUSES, EAGER_RUN_STATUSES[1])


@contextlib.contextmanager
def _classified(phase: int, status: str, oom_status: str, device: DeviceAdapter) -> Iterator[None]:
    try:
        yield
    except RunFailed:
        raise
    except Exception as exc:  # noqa: BLE001 (any model error is a classified result)
        out_of_memory = device.is_oom(exc)
        raise RunFailed(oom_status if out_of_memory else status, phase, exc, out_of_memory) from exc


@contextlib.contextmanager
def warmup_classified(phase: int, device: DeviceAdapter) -> Iterator[None]:
    """A warm-up from a clean slate (peak memory is read after it), classified: the compiled warm-up's failure
    is fail_to_run or OOM; the eager warm-up is the run's first eager iteration, upstream's validate_model."""
    gc.collect()
    device.empty_cache()
    device.reset_peak_memory()
    with _classified(phase, *(("fail_to_run", "OOM") if phase == pb.PHASE_COMPILE else VALIDATION_STATUSES), device):
        yield


def _run_n(fn: Callable[..., Any], model: torch.nn.Module, inputs: Any, n: int) -> Any:
    for _ in range(n - 1):
        fn(model, inputs, collect_outputs=False)
    return fn(model, inputs, collect_outputs=True)


def _model_state(model: torch.nn.Module) -> Iterator[tuple[str, torch.Tensor]]:
    yield from model.named_parameters()
    yield from model.named_buffers()  # persistent or not: state_dict() would miss the non-persistent ones


def _host_copy_of_state(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {name: tensor.detach().to("cpu", copy=True) for name, tensor in _model_state(model)}


def _restore_state(model: torch.nn.Module, state: dict[str, torch.Tensor]) -> None:
    """Copies `state` back in place: the tensors keep their identity, so the compiled artifact's guards (and
    the addresses its device graphs recorded) still hold. State outside tensors (Python attributes) is not
    restored, nor is a buffer that a forward filled in after the copy (yolov3's grid, registered as None):
    resetting it would ask the checked run for a graph that timing may never have compiled."""
    with torch.no_grad():
        for name, tensor in _model_state(model):
            if name in state:
                tensor.copy_(state[name])


def _stats(samples: list[float]) -> pb.LatencyStats:
    return pb.LatencyStats(median_s=statistics.median(samples), min_s=min(samples), max_s=max(samples),
                           samples=len(samples))


def traceback_tail(exc: BaseException) -> str:
    """The end of `exc`'s traceback, where the frame that raised is."""
    return "".join(traceback.format_exception(exc))[-FAILURE_TEXT_CHARS:]


def run_classified(result: pb.ModelResult, experiment: Callable[[], str]) -> pb.ModelResult:
    """Fills `result` from `experiment()`; a RunFailed becomes its status and failure record, never an exception."""
    try:
        status = experiment()
    except RunFailed as failed:
        status = failed.status
        record_failure(result, failed)
    result.community_status = status
    return result


def record_failure(result: pb.ModelResult, failed: RunFailed) -> None:
    result.failure.CopyFrom(pb.Failure(phase=failed.phase, exception_type=type(failed.cause).__name__,
                                       message=str(failed.cause)[:FAILURE_TEXT_CHARS],
                                       log_tail=traceback_tail(failed.cause), out_of_memory=failed.out_of_memory))


def load_classified(load: Callable[[], T], device: DeviceAdapter) -> T:
    """Builds a workload: an error is upstream's eager_fail_to_run, NotImplementedError model_fail_to_load."""
    with _classified(pb.PHASE_LOAD, "eager_fail_to_run", "eager_fail_to_run", device):
        try:
            return load()
        except NotImplementedError as exc:
            raise RunFailed("model_fail_to_load", pb.PHASE_LOAD, exc) from exc


def fp64_reference(result: pb.ModelResult, device: DeviceAdapter, run64: Callable[[], Any]) -> Any:
    """Upstream's golden reference, moved to the host; None (then cosine similarity is used) when fp64 cannot
    run. The fp64 copy lives only inside `run64`, and its memory is returned before the next phase. Floating
    outputs are up-cast to fp64 as upstream does: a part the model computes in fp32 even in the fp64 run (HF's
    causal-LM loss upcasts with .float()) then still gets same()'s RMSE rule, not allclose alone."""
    try:
        return cast_floats(to_device(run64(), "cpu"), torch.float64)
    except Exception as exc:  # noqa: BLE001 (upstream falls back to cosine similarity)
        result.accuracy.detail = f"fp64 reference failed ({type(exc).__name__}: {exc}); using cosine similarity"
        return None
    finally:
        gc.collect()
        device.empty_cache()


def compare(accuracy: pb.Accuracy, eager_ref: Any, compiled: Any, fp64: Any, tolerance: float,
            larger_multiplier_for_smaller_tensor: bool = False, part_names: Sequence[str] = (),
            iou_for_bool: bool = False) -> str:
    """Upstream's check (`torch._dynamo.utils.same`), recorded in `accuracy`; "pass" or "fail_accuracy".
    `part_names` name the top-level parts of a result list (`same` names dict keys, not list positions)."""
    accuracy.checked = True
    errors: list[str] = []

    def check(ref: Any, res: Any, ref64: Any, log: Callable[..., None]) -> bool:
        return same(ref, res, fp64_ref=ref64, cos_similarity=accuracy.cosine, tol=tolerance, equal_nan=True,
                    use_larger_multiplier_for_smaller_tensor=larger_multiplier_for_smaller_tensor,
                    use_iou_for_bool=iou_for_bool, log_error=log)

    try:
        ok = check(eager_ref, compiled, fp64, lambda msg, *args: errors.append(msg % args if args else str(msg)))
        if not ok:
            errors.extend(_failed_parts(eager_ref, compiled, fp64, check, part_names))
    except Exception as exc:  # noqa: BLE001 (upstream: a comparison that raises is a failure)
        ok, errors = False, [f"comparison raised {type(exc).__name__}: {exc}"]
    if errors:
        accuracy.detail = "\n".join([accuracy.detail, *errors]).strip()[:FAILURE_TEXT_CHARS]
    return "pass" if ok else "fail_accuracy"


def eager_runs_agree(first: Any, second: Any) -> bool:
    """Upstream's determinism check: same() at tolerance 0 (NaN equal to NaN); raising means they differ."""
    try:
        return same(first, second, fp64_ref=None, cos_similarity=False, tol=0, equal_nan=True)
    except Exception:  # noqa: BLE001 (upstream: an exception while comparing means they differ)
        return False


def _failed_parts(eager_ref: Any, compiled: Any, fp64: Any, check: Callable[..., bool],
                  part_names: Sequence[str]) -> list[str]:
    """Which top-level parts fail on their own."""
    if not isinstance(eager_ref, (list, tuple)) or not isinstance(compiled, (list, tuple)) \
            or len(eager_ref) != len(compiled):
        return []
    refs64 = fp64 if isinstance(fp64, (list, tuple)) and len(fp64) == len(eager_ref) else [None] * len(eager_ref)
    lines = []
    for index, (ref, res, ref64) in enumerate(zip(eager_ref, compiled, refs64)):
        if check(ref, res, ref64, lambda *_: None):
            continue
        lines.append(f"failing part: {part_names[index] if index < len(part_names) else f'result[{index}]'}")
    return lines


def record_performance(result: pb.ModelResult, device: DeviceAdapter, sampled: Sampled,
                       warmup_s: tuple[float, float], peak_gb: tuple[float, float], turn_wait_s: float = 0.0) -> None:
    """The community's figures from the first round of (eager, compiled) pairs: median-ratio speedup, compile
    latency (compiled warm-up minus eager warm-up, less the compiled warm-up's wait for the device's turn), peak
    memory and compression ratio; and every sample with the intervals they give (Performance.timing)."""
    perf, ct, mem = result.performance, result.compile_time, result.memory
    perf.measured = True
    eager, compiled = sampled.first_round()
    perf.eager.CopyFrom(_stats(eager))
    perf.compiled.CopyFrom(_stats(compiled))
    perf.speedup = perf.eager.median_s / perf.compiled.median_s
    perf.abs_latency_ms = perf.compiled.median_s * 1000
    sampled.fill(perf.timing)
    ct.eager_warmup_s, ct.compiled_warmup_s = warmup_s
    ct.device_turn_wait_s = turn_wait_s
    ct.compilation_latency_s = warmup_s[1] - turn_wait_s - warmup_s[0]
    mem.method = device.memory_method
    mem.eager_peak_gb, mem.compiled_peak_gb = peak_gb
    mem.compression_ratio = peak_gb[0] / peak_gb[1] if peak_gb[1] > 0 else 0.0


@dataclasses.dataclass
class _Prepared:
    """A loaded model ready to time and check: the timed (cast) model and inputs, the compiled callable, and the
    model as loaded kept on the host for the accuracy work (None when nothing is compared)."""
    model: Any  # the timed module; training drops it (None) before its check, which trains fresh copies
    inputs: Any
    iteration: Iteration
    compiled: Callable[..., Any]
    pristine: torch.nn.Module | None
    pristine_inputs: Any
    state_before_timing: dict[str, torch.Tensor] | None


class ModelRun:
    def __init__(self, manifest: Manifest, entry: ModelEntry, mode: str, backend: Backend, device: DeviceAdapter,
                 smoke: bool, batch_size: int, plan: RunPlan, loader: Loader, trace_prefix: Path | None = None,
                 turns: DeviceTurns | None = None, after_timing: Callable[[pb.ModelResult], None] | None = None) -> None:
        if not entry.device_graphs:  # the model opts out of device graphs (upstream's disable_cudagraph)
            backend = dataclasses.replace(backend, device_graphs=False)
        self.manifest, self.entry, self.mode, self.backend, self.device = manifest, entry, mode, backend, device
        self.smoke, self.batch_size, self.plan, self.loader = smoke, batch_size, plan, loader
        self.trace_prefix = trace_prefix  # <out>/<stem>: profiler traces of a bottleneck analysis go next to the result
        self.turns = turns or DeviceTurns(None)  # shared with models run side by side, else the device is ours
        # Called with the result so far once timing is done and accuracy work follows: the child saves it, so that
        # a crash or timeout in the check still reports the timings (upstream measures them in a process of their own).
        self.after_timing = after_timing
        self.speedup_target = bottleneck.target_for(entry.speedup_target)  # read early: a bad override fails first
        self.training = mode == "training"
        self.result = pb.ModelResult()
        self._compile_window: CounterWindow | None = None
        # The device's forced ATen fallbacks (compiler/fallback), recorded with their reasons; read early like
        # the target, so a malformed PARITY_FORCE_FALLBACK fails before anything runs.
        self._fallback_policy = policy_for(device.type)

    # -- the experiment ---------------------------------------------------------------------------
    def run(self) -> pb.ModelResult:
        """Fills self.result; never raises for a model failure (it becomes a status)."""
        with self.turns.taken():
            return run_classified(self.result, self._experiment)

    def _experiment(self) -> str:
        """The methodology's steps: load and prepare, timing, then the accuracy check (fp64 reference, two eager
        runs, the checked compiled run)."""
        # Upstream's pick_grad: inference runs without autograd (else the compiled forward is a training
        # graph and CUDA graph trees wait for a backward that never comes), training with it; a model that
        # differentiates inside its forward keeps it on (the manifest's inference_grad).
        grad_mode = torch.enable_grad() if self.training or self.entry.inference_grad else torch.no_grad()
        inductor_options = {**self.entry.inductor_config, **dict(self.plan.inductor_overrides)}  # a variant's win
        with grad_mode, torch._inductor.config.patch(inductor_options), forced_fallbacks(self._fallback_policy):
            self.result.config.optimizer = self._optimizer
            run = self._load_and_prepare()
            ended = self._timing(run)
            if ended:
                return ended
            if run.pristine is None:
                self.result.accuracy.detail = ("not compared: upstream's accuracy.skip.large_models"
                                               if self.plan.check_accuracy else PERFORMANCE_ONLY_DETAIL)
                return "pass_due_to_skip" if self.entry.accuracy_skipped(self.mode) else "pass"
            status = self._accuracy_check(run)
        if self.entry.non_deterministic and (status == "pass" or status in ACCURACY_VERDICTS):
            accuracy = self.result.accuracy
            accuracy.detail = f"{status}, counted as pass: upstream's non_deterministic_models\n{accuracy.detail}".strip()
            status = "pass"
        return status

    def _load_and_prepare(self) -> _Prepared:
        """Load; the model as loaded kept on the host for the accuracy work; cast (inference: BF16); compile."""
        device = self.device
        with self._phase("load"):
            workload = load_classified(
                lambda: self.loader(self.entry, self.mode, device.type, self.smoke, self.batch_size), device)
        model, inputs = workload.model, workload.inputs
        model.train(self.training)
        amp_dtype = device.default_amp_dtype

        def autocast() -> contextlib.AbstractContextManager[Any]:
            return torch.autocast(device_type=device.type, dtype=amp_dtype) if self.training else contextlib.nullcontext()

        iteration = Iteration(self.training, autocast, workload.loss_fn)
        del workload  # the loaded inputs go when the run casts them
        self.result.accuracy.tolerance = self.manifest.tolerance_for(self.entry, self.mode, device.type)
        # Upstream's large models are not compared at all; eager_not_deterministic ones are run but not compared.
        compares = self.plan.check_accuracy and not self.entry.large_model
        # The accuracy work gets the model as loaded (fp32, untrained), kept on the host while timing runs.
        pristine = copy.deepcopy(model).to("cpu") if compares else None
        if pristine is not None:  # upstream checks TorchBench training in eval mode (manifest.py)
            pristine.train(self.manifest.accuracy_in_train_mode(self.entry, self.mode))
        pristine_inputs = to_device(inputs, "cpu") if compares else None
        if not self.training:  # the community's --bfloat16: cast model and float inputs
            model = model.to(torch.bfloat16)
            inputs = cast_floats(inputs, torch.bfloat16)
        compiled = self.backend.compile(iteration.__call__, device)
        # A forward that updates the model's own tensors (moco's queue and momentum encoder) leaves the timed
        # module changed; its checked run must start where the eager reference starts, as in upstream's
        # fresh accuracy process. Kept on the host, so it does not count towards the device's peak memory.
        state_before_timing = (_host_copy_of_state(model)
                               if self._checks_timed_artifact and pristine is not None else None)
        return _Prepared(model, inputs, iteration, compiled, pristine, pristine_inputs, state_before_timing)

    def _timing(self, run: _Prepared) -> str:
        """Timing first, with the run's one cold compile, under upstream's performance settings: the process is then
        in the state of upstream's performance process. The accuracy work's set-up for deterministic runs comes
        after it, as it slows eager on some devices (CUDA: cuBLAS, compiler/devices/cuda.py). Returns a status when
        the run ends here, else ""."""
        if not self.plan.measure_performance:
            return ""
        with performance_settings():
            try:
                with self._phase("performance"):
                    self._performance(run.model, run.inputs, run.iteration, run.compiled)
            except RunFailed as failed:
                if not (self.plan.check_accuracy and self.entry.large_model):
                    raise
                # Upstream's accuracy run skips a large model before running it: its status is
                # pass_due_to_skip whatever timing met. The failure is kept (upstream: a zero speedup).
                record_failure(self.result, failed)
                self.result.accuracy.detail = "not compared: upstream's accuracy.skip.large_models"
                return "pass_due_to_skip"
            if self.backend.compiles and self.result.performance.speedup < self.speedup_target:
                with self._phase("analysis"):
                    self._analyse(run.model, run.inputs, {"eager": run.iteration, "compiled": run.compiled},
                                  f"speedup {self.result.performance.speedup:.3g} < target {self.speedup_target:g}")
        if run.pristine is not None and self.after_timing is not None:
            self.after_timing(self.result)
        return ""

    def _accuracy_check(self, run: _Prepared) -> str:
        """The fp64 reference, the two eager runs (which must agree) and the checked compiled run."""
        device, accuracy = self.device, self.result.accuracy
        assert run.pristine is not None and run.pristine_inputs is not None
        if self.training:
            run.model = None  # the check below trains fresh copies; the timed model is not used again
            self._release_timed_training_state(run.iteration)
        device.prepare_deterministic_runs()

        def checked() -> contextlib.AbstractContextManager[Any]:
            # Eager runs checked against the timed artifact share its matmul precision (settings.py).
            return accuracy_settings(deterministic_algorithms=self.entry.deterministic_algorithms,
                                     reduced_precision=self._checks_timed_artifact,
                                     reduced_precision_reductions=self.entry.reduced_precision_reductions)

        with checked():
            with self._phase("fp64_reference"):
                fp64 = self._fp64_reference(run.pristine, to_device(run.pristine_inputs, device.type), run.iteration)
            accuracy.fp64_reference = fp64 is not None
            accuracy.cosine = fp64 is None
            with self._phase("eager_runs"):
                # Upstream copies the model inside its first eager run's try: an OOM here is that run's OOM.
                with _classified(pb.PHASE_EAGER, *eager_run_statuses(self.plan.measure_performance)[0], device):
                    reference = run.pristine.to(device.type)
                    if not self.training:
                        reference = reference.to(torch.bfloat16)
                eager_ref, status = self._eager_runs(reference, run.inputs, run.iteration)
        if status != "pass":
            return status
        # Inference checks the timed artifact, which needs the timed module (Dynamo guards on it); it is unchanged by
        # timing. Training recompiles for its check, from the untrained weights.
        checked_model = reference if self.training else run.model
        if run.state_before_timing is not None:
            _restore_state(run.model, run.state_before_timing)
        with self._check_settings(checked), self._phase("compiled_check"):
            return self._compiled_check(checked_model, run.inputs, run.iteration, run.compiled, eager_ref, fp64,
                                        accuracy.tolerance)

    def _release_timed_training_state(self, iteration: Iteration) -> None:
        """Frees what timing left on the device, once the caller has dropped the timed model: its optimizer state,
        and the compiled code with its device graphs and their memory pools. Upstream's accuracy process never
        holds them; here BlenderbotForCausalLM's second eager run ran out of memory beside them on the H200 (113
        GiB in the process). The compiled check then compiles afresh, as in upstream's fresh process."""
        iteration.optimizer = None
        self.turns.reset_dynamo()  # Dynamo's caches and the CUDA graph trees, whose memory pools it frees
        gc.collect()
        self.device.empty_cache()

    def _fp64_reference(self, model: torch.nn.Module, inputs: Any, iteration: Iteration) -> Any:
        def run64() -> Any:
            model64 = copy.deepcopy(model).to(self.device.type, torch.float64)
            self._fresh_optimizer(iteration, model64)
            # No reset_rng_state() here, as upstream: the eager and compiled runs reset, the fp64 run draws on
            # from where the generator stands, so dropout masks differ from theirs (one reason training's RMSE
            # rule is as lenient as the community's).
            return _run_n(iteration, model64, cast_floats(clone_inputs(inputs), torch.float64),
                          self.plan.accuracy_iterations)

        return fp64_reference(self.result, self.device, run64)

    def _eager_runs(self, model: torch.nn.Module, inputs: Any, iteration: Iteration) -> tuple[Any, str]:
        runs = []
        for fail, oom in eager_run_statuses(self.plan.measure_performance):
            with _classified(pb.PHASE_EAGER, fail, oom, self.device), self.device.determinism():
                reset_rng_state()
                copy_ = copy.deepcopy(model)
                self._fresh_optimizer(iteration, copy_)
                runs.append(to_device(_run_n(iteration, copy_, inputs, self.plan.accuracy_iterations), "cpu"))
                del copy_
        if self.training and self.entry.eager_not_deterministic:  # upstream does not compare them
            return runs[0], "pass"
        identical = eager_runs_agree(runs[0], runs[1])
        self.result.accuracy.eager_runs_identical = identical
        return runs[0], "pass" if identical else "eager_two_runs_differ"

    def _performance(self, model: torch.nn.Module, inputs: Any, iteration: Iteration, compiled: Callable[..., Any]) -> None:
        plan, device = self.plan, self.device
        # The device holds what upstream's performance run holds, so that peak memory and the compression ratio
        # are upstream's (community-harness.md 4.1): its runner keeps the loaded model while the run works on a
        # copy of it, and the eager warm-up runs on a third copy. Without the runner's model our ratio came out
        # higher wherever weights outweigh activations (HF: T5 +20%, Bert +7%).
        runners_model = copy.deepcopy(model)
        # The optimizer belongs to the timed model, as upstream's: the eager warm-up's copy is never stepped and
        # its gradients are never cleared (no optimizer state in the eager peak, upstream's too).
        self._fresh_optimizer(iteration, model)
        eager_model = copy.deepcopy(model)
        # Host wall time without a final sync, as upstream.
        eager_warmup_s, eager_peak = self._warmup(iteration, eager_model, inputs, pb.PHASE_EAGER)
        del eager_model
        self._fresh_optimizer(iteration, model)
        waited_before = self.turns.waited_s
        with self._first_compile():
            compiled_warmup_s, compiled_peak = self._warmup(compiled, model, inputs, pb.PHASE_COMPILE)
        turn_wait_s = self.turns.waited_s - waited_before
        del runners_model  # only the warm-ups' peaks needed it
        # Like upstream's torch._dynamo.run: timing never compiles; a guard failure runs eagerly.
        with _classified(pb.PHASE_TIMING, "fail_to_run", "OOM", device), torch.compiler.set_stance("eager_on_recompile"):
            # Interleaved, to even out clock and load drift; on cores of its own (suites/common/cpu_sets.py).
            sampled = sampling.sample(lambda: self._timed(iteration, model, inputs),
                                      lambda: self._timed(compiled, model, inputs), plan.sampling,
                                      cpu_sets.from_environment())
            record_performance(self.result, device, sampled, (eager_warmup_s, compiled_warmup_s),
                               (eager_peak, compiled_peak), turn_wait_s)
            bottleneck.record_eager_idle_share(self.result.performance.timing, device,
                                               lambda: iteration(model, inputs, collect_outputs=False))

    def _analyse(self, model: torch.nn.Module, inputs: Any, fns: dict[str, Callable[..., Any]], trigger: str) -> None:
        """Profiles one eager and one compiled iteration (suites/common/bottleneck.py); never compiles, never raises."""
        identity = (self.manifest.suite, self.entry.name, self.mode, self.backend.name, self.device.type)
        with torch.compiler.set_stance("eager_on_recompile"):
            bottleneck.analyse(self.result, identity, trigger, self.backend.device_graphs,
                               lambda which, trace: bottleneck.profile_iteration(fns[which], model, inputs, self.device,
                                                                                 trace), self.trace_prefix)

    def _warmup(self, fn: Callable[..., Any], model: torch.nn.Module, inputs: Any, phase: int) -> tuple[float, float]:
        with warmup_classified(phase, self.device):
            start = time.perf_counter()
            for _ in range(self.plan.warmup_iterations):
                fn(model, inputs, collect_outputs=False)
            elapsed = time.perf_counter() - start
        return elapsed, self.device.peak_memory_gb()

    def _timed(self, fn: Callable[..., Any], model: torch.nn.Module, inputs: Any) -> float:
        self.device.synchronize()
        reset_rng_state()
        start = time.perf_counter()
        fn(model, inputs, collect_outputs=False)
        self.device.synchronize()
        return time.perf_counter() - start

    def _compiled_check(self, model: torch.nn.Module, inputs: Any, iteration: Iteration, compiled: Callable[..., Any],
                        eager_ref: Any, fp64: Any, tolerance: float) -> str:
        with _classified(pb.PHASE_COMPILED_RUN, "fail_to_run", "OOM", self.device), self.device.determinism(), \
                self._first_compile():
            reset_rng_state()
            self._fresh_optimizer(iteration, model)
            result = to_device(_run_n(compiled, model, inputs, self.plan.accuracy_iterations), "cpu")
        if self.entry.accuracy_skipped(self.mode):  # ran; upstream does not compare it
            self.result.accuracy.detail = "not compared: upstream's eager_not_deterministic"
            return "pass_due_to_skip"
        return compare(self.result.accuracy, eager_ref, result, fp64, tolerance,
                       self.entry.larger_multiplier_for_smaller_tensor,
                       TRAINING_RESULT_PARTS if self.training else (), self.entry.use_iou_for_bool_masks)

    # -- helpers ----------------------------------------------------------------------------------
    @property
    def _checks_timed_artifact(self) -> bool:
        """Inference with timing checks the artifact it timed; training and accuracy-only runs compile for the check."""
        return not self.training and self.plan.measure_performance

    @contextlib.contextmanager
    def _check_settings(self, checked: Callable[[], contextlib.AbstractContextManager[Any]]) -> Iterator[None]:
        """Settings of the checked compiled run. Inference after timing checks the timed artifact itself: the
        guards it was compiled under, and a recompile is an error. Training recompiles under the accuracy
        settings, because fallback_random (dropout masks equal to eager's) is fixed at compile time."""
        if not self._checks_timed_artifact:
            with checked():
                yield
        else:
            with performance_settings(), torch.compiler.set_stance("fail_on_recompile"):
                yield

    @contextlib.contextmanager
    def _phase(self, name: str) -> Iterator[None]:
        """Adds the block's wall time to result.phase_wall_s[name]; phases do not nest. Logs the phase's start
        for the parent, in case this process dies before it writes its result."""
        print(phase_line(name), flush=True)
        start = time.perf_counter()
        try:
            yield
        finally:
            self.result.phase_wall_s[name] += time.perf_counter() - start

    @property
    def _optimizer(self) -> str:
        """Upstream's optimizer for this run: "none" in inference and on devices upstream gives none (CPU). One the
        plan names (a triage's rerun, an experiment) steps on every device."""
        if not self.training:
            return "none"
        if self.plan.optimizer:
            return self.plan.optimizer
        if not self.device.has_optimizer:
            return "none"
        return self.entry.optimizer_for(accuracy_only=not self.plan.measure_performance)

    def _fresh_optimizer(self, iteration: Iteration, model: torch.nn.Module) -> None:
        iteration.optimizer = make_optimizer(self._optimizer, model)

    @contextlib.contextmanager
    def _first_compile(self) -> Iterator[None]:
        """Records graph and compile statistics around the first block that runs compiled code."""
        if self._compile_window is not None:
            yield
            return
        self._compile_window = CounterWindow()
        try:
            with record_fallback_kernels() as fallbacks:
                yield
        finally:  # also when compilation failed: graph breaks explain many failures
            self.result.dynamo.CopyFrom(self._compile_window.dynamo_stats())
            self._compile_window.fill_compile_phases(self.result.compile_time)
            for op, count in sorted(fallbacks.items()):
                self.result.fallback_ops.add(op=op, count=count, reason=self._fallback_policy.reason_for(op))
