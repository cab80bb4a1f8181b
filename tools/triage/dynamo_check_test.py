"""dynamo_check.py's fixes to torch's check after Dynamo, each shown where torch's own code would go wrong."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tools.triage.dynamo_check import TOLERANCE_VARIABLE, as_dynamo_calls_it, plugin_folder

# A frame whose graph compiles with Inductor, checked after Dynamo (level 4); the script prints how many symbols the
# frame's shape environment held before and after the check, and what the check said. Modes: "fixed" installs
# dynamo_check; "boxed-call-only" and "lazy-backward" apply its first fix, and its first and third, by hand.
# "threaded" runs the check's backward on a thread of its own, as autograd runs a CUDA backward on its device thread,
# and exits 3 when that backward is still blocked after half a minute.
_CHECKED_FRAME = textwrap.dedent("""
    import os, sys, threading
    import torch, torch._guards
    from tools.triage import dynamo_check
    mode, threaded = sys.argv[1], "threaded" in sys.argv[2:]
    if mode == "fixed":
        dynamo_check.install()
    from torch._dynamo.repro import after_dynamo
    checked = after_dynamo._accuracy_fails
    def by_hand(gm, inputs, compiler_fn):
        as_called = lambda g, x: dynamo_check.as_dynamo_calls_it(compiler_fn(g, x))
        if mode == "boxed-call-only":
            return checked(gm, inputs, as_called)
        with torch._guards.tracing(None):
            return checked(gm, inputs, as_called)
    def spy(gm, inputs, compiler_fn):
        env = torch._guards.TracingContext.get().fake_mode.shape_env
        before = len(env.var_to_val)
        fails = (checked if mode == "fixed" else by_hand)(gm, inputs, compiler_fn)
        print("symbols", before, len(env.var_to_val), "fails", fails, flush=True)
        return fails
    after_dynamo._accuracy_fails = spy
    backward = torch.Tensor.backward
    def backward_elsewhere(*args, **kwargs):
        raised = []
        def run():
            try:
                backward(*args, **kwargs)
            except BaseException as error:
                raised.append(error)
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(30)
        if thread.is_alive():
            print("backward blocked", flush=True)
            os._exit(3)
        if raised:
            raise raised[0]
    if threaded:
        torch.Tensor.backward = backward_elsewhere
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Conv2d(8, 4, 3))
    torch.compile(model, backend="inductor")(torch.randn(2, 3, 16, 16))
""")


def _check(tmp_path: Path, *mode: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "TORCHDYNAMO_REPRO_AFTER": "dynamo",
           "TORCHDYNAMO_REPRO_LEVEL": "4", "TORCHINDUCTOR_FX_GRAPH_CACHE": "0", "TORCHINDUCTOR_AUTOGRAD_CACHE": "0",
           "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "cache"), "TORCH_COMPILE_DEBUG_DIR": str(tmp_path / "-".join(mode))}
    done = subprocess.run([sys.executable, "-c", _CHECKED_FRAME, *mode], env=env, capture_output=True, text=True,
                          timeout=600)
    if done.returncode == 3:
        return done.stdout.splitlines()[-1]
    assert done.returncode == 0, done.stderr
    return next(line for line in done.stdout.splitlines() if line.startswith("symbols"))


def test_the_check_compiles_outside_the_frame_and_passes_a_sound_graph(tmp_path: Path) -> None:
    # With only the boxed call fixed, the check's compile fakes its input clones in the frame's shape environment
    # (5 symbols on torch 2.14.1 here), which on a GPU broke the frame's guards; fixed, it leaves none there.
    before, after = _check(tmp_path, "boxed-call-only").split()[1:3]
    assert int(after) > int(before)
    assert _check(tmp_path, "fixed", "threaded") == "symbols 0 0 fails False"


def test_a_backward_on_another_thread_needs_no_compile_during_the_check(tmp_path: Path) -> None:
    # Compiled lazily, the backward waits on another thread for the compile lock that the checking thread holds.
    assert _check(tmp_path, "lazy-backward", "threaded") == "backward blocked"


def test_the_check_gets_the_compiled_graph_as_dynamo_calls_it() -> None:
    def boxed(inputs: list[int]) -> int:
        return sum(inputs)

    def forward(*inputs: int) -> int:  # as aot_module_simplified wraps a boxed function: its attributes copied
        return boxed(list(inputs))

    forward.__dict__.update(_boxed_call=True, zero_grad=print)
    called = as_dynamo_calls_it(forward)
    assert not getattr(called, "_boxed_call", False) and called.zero_grad is print and called(1, 2) == 3
    assert getattr(forward, "_boxed_call") and as_dynamo_calls_it(boxed) is boxed  # nothing else is touched


def test_the_dump_runs_checks_judge_at_the_models_tolerance(tmp_path: Path) -> None:
    # The plugin, loaded by `import torch` as in the dump run, sets the tolerance the checks judge at; the minifier's
    # launcher then carries it in its config lines (generate_config_string is what torch writes there).
    folder = plugin_folder(tmp_path / "plugin")
    script = ("import torch, torch._dynamo.debug_utils as d; print(torch._dynamo.config.repro_tolerance); "
              "print('repro_tolerance = 0.0001' in d.generate_config_string())")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), *filter(None, sys.path)]),
           TOLERANCE_VARIABLE: "0.0001"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["0.0001", "True"], done.stderr
