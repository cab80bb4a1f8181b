"""Lets torch's Dynamo-level accuracy check and its minifier work on what Inductor compiled (torch 2.14.1, 2.11).

With `TORCHDYNAMO_REPRO_AFTER=dynamo` and level 4, torch checks each graph Dynamo captured against eager, compiled by
the model's backend, and its minifier cuts a failing one down by checking smaller graphs the same way. That check
sees a decomposition, which the AOT-level check cannot (the graph it runs both ways already holds it). Four things in
torch stop it, all worked around here, in the processes that run the check: the model's dump run (through
`plugin_folder`, a `torch.backends` entry point, as probe.py is) and the minifier's and the repro's (`settled.py`).

1. The check (`torch._dynamo.repro.after_dynamo._accuracy_fails`) runs the compiled graph through
   `torch._dynamo.debug_utils.run_fwd_maybe_bwd`, which passes the inputs as one list to a callable whose
   `_boxed_call` is set. Dynamo calls what a backend returns with the inputs one by one, and Inductor's takes them so:
   `aot_module_simplified` returns `forward(*runtime_args)`, but it wraps the boxed compiled function and copies its
   attributes, `_boxed_call` among them (`torch/_functorch/aot_autograd.py`). Every check then raises "not enough
   values to unpack (expected N, got 1)", torch logs "Skipping this graph" and counts it as passing.
   `as_dynamo_calls_it` hands the check the callable without that attribute.
2. The minifier runs its checks inside the compile of the graph it cuts (its backend is called by Dynamo), so each
   check's compile records its metrics in that compile's context; the second to record `is_forward` raises
   "Metric(s) {'is_forward'} have already been set", the check counts as passing, and the minifier exits 1 after
   writing its repro. Those metrics are compile-time telemetry: `install` lets a later record replace an earlier one.
3. On an H100 (torch 2.11), the dump runs of Super_SloMo and resnet50 ended in the guards of the frame being
   compiled: "sources must not be empty for symbol s3", and an IndexError in `produce_guards_verbose` (Super_SloMo's
   check had already skipped its graph for a `KeyError: s3` in its own compile). My reading:
   the check compiles a copy of the graph for fresh clones of its inputs inside that frame's tracing context, whose
   fake mode fakes them in the frame's own shape environment, leaving symbols there with no source. The check now
   compiles outside that context, as the minifier's launcher compiles a graph on its own. On this machine's CPU the
   check of a Conv-ReLU-Conv frame left 5 symbols in the frame's shape environment, and none from outside it; neither
   error occurred there (resnet50 at smoke size passes its dump run). On an H100 (053b87f) neither error came back.
4. There, both dump runs then hung in the check instead (killed at 420 s and 480 s; faulthandler, sent SIGABRT,
   showed why): Dynamo compiles a frame holding its compile lock, the check runs the compiled graph's backward, and
   autograd runs a CUDA backward on its device thread, where Inductor compiles the backward lazily and waits for that
   lock, while the compiling thread waits for the backward. The check now compiles the backward with the forward
   (`torch._functorch.config.force_non_lazy_backward_lowering`, as AOT compile does), in the thread that holds the
   lock. A CPU backward runs on the calling thread, so the test runs the check's backward on a thread of its own.

Both levels' checks judge at `torch._dynamo.config.repro_tolerance` (1e-3), whatever the model was judged at (maml's
BF16 inference failed at TorchBench's inference tolerance, 1e-4: a graph off by less than 1e-3 would pass). The dump
run passes the model's tolerance in TOLERANCE_VARIABLE, and `install` sets it; the minifier's launcher and the repro
then carry it in their config lines.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from tools.triage import torch_plugin

TOLERANCE_VARIABLE = "PARITY_REPRO_TOLERANCE"


def as_dynamo_calls_it(compiled: Callable[..., Any]) -> Callable[..., Any]:
    """`compiled` (a Dynamo backend's result, which Dynamo calls with the inputs one by one) without a `_boxed_call`
    that would make torch's check pass it the inputs as one list; its other attributes are kept (the check reads
    `zero_grad` and `named_parameters` from it)."""
    if not getattr(compiled, "_boxed_call", False):
        return compiled

    def call(*inputs: Any) -> Any:
        return compiled(*inputs)

    call.__dict__.update({name: value for name, value in vars(compiled).items() if name != "_boxed_call"})
    return call


def install() -> None:
    import torch._dynamo.config
    import torch._functorch.config
    import torch._guards
    from torch._dynamo import metrics_context
    from torch._dynamo.repro import after_dynamo

    if tolerance := os.environ.get(TOLERANCE_VARIABLE):
        torch._dynamo.config.repro_tolerance = float(tolerance)
    original = after_dynamo._accuracy_fails
    if getattr(original, "parity_patched", False):  # installed already (the plugin, then settled.py)
        return

    def accuracy_fails(gm: Any, example_inputs: Any, compiler_fn: Callable[..., Any]) -> bool:
        with torch._guards.tracing(None), torch._functorch.config.patch(force_non_lazy_backward_lowering=True):  # 3, 4
            return original(gm, example_inputs, lambda graph, inputs: as_dynamo_calls_it(compiler_fn(graph, inputs)))

    accuracy_fails.parity_patched = True  # type: ignore[attr-defined]
    after_dynamo._accuracy_fails = accuracy_fails

    update = metrics_context.MetricsContext.update

    def update_replacing(self: Any, values: dict[str, Any], overwrite: bool = False) -> None:
        update(self, values, True)

    metrics_context.MetricsContext.update = update_replacing  # type: ignore[method-assign]


def plugin_folder(dest: Path) -> Path:
    """Writes the entry point's distribution metadata into `dest` (a folder for sys.path) and returns `dest`."""
    return torch_plugin.plugin_folder(dest, "parity_triage_dynamo_check", f"{__name__}:install")
