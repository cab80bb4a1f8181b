"""Cuts the failure down to a standalone script with the Dynamo/AOT minifier.

Two subprocesses. First the model runs once more with `torch._dynamo.config.repro_after` (TORCHDYNAMO_REPRO_AFTER)
and a `repro_level` (TORCHDYNAMO_REPRO_LEVEL) that suits the failure, and a debug folder of the triage's own
(TORCH_COMPILE_DEBUG_DIR): Inductor's compile of each AOT graph ("aot"), or the backend's compile of each graph
Dynamo captured ("dynamo"), is wrapped, and the graph that fails is written as `minifier_launcher.py`. Then that
launcher's `minify` command cuts the graph down, checking each smaller graph the same way, and leaves the smallest one
that still fails as `repro.py` in its working folder (and as a checkpoint named after its FX nodes).

The cut is made after AOT Autograd, unless the bisector's culprit comes before Inductor (`aot_eager`,
`aot_eager_decomp_partition`: a decomposition is already applied in the AOT graph the per-graph check runs both
ways, so that check cannot tell it apart); then it is made after Dynamo, whose check compares the captured graph, run
by eager, with the backend's compile of it (dynamo_check.py makes that check work in torch 2.14 and 2.11). That backend
is the culprit (TORCH_BISECT_BACKEND, through which the bisector makes torch.compile use a backend): the bisector found
the failure there already, each of the minifier's checks then costs no Inductor compile, and the repro compiles with
the backend to blame (on an H100 at 99ae858, Super_SloMo's and resnet50's dump runs took 47 s and 63 s). A model
whose failure needs more than one graph (no single compiled graph fails the check on its own) leaves no launcher:
then there is no repro, and the triage says so.
"""

from __future__ import annotations

import ast
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from compiler.backends import get_backend
from parity.v1 import results_pb2 as pb
from proto.result_files import REPRO_SUFFIX, write_atomically
from suites.common.process_group import run_in_own_group
from tools.triage import dynamo_check, settled
from tools.triage.budget import Budget, GaveUp
from tools.triage.runs import ModelRuns, log, on_sys_path, script_env, tail

# repro_level per failure: 4 compares each compiled graph with eager (fp64 reference) and dumps the one that is off;
# 2 dumps the graph whose compile or run raises; 3 dumps every graph before it runs, so the last one dumped is the
# one that was running when the process died or hung.
REPRO_LEVELS = {"fail_accuracy": 4, "fail_to_run": 2, "crash": 3, "timeout": 3}
# Culprits whose fault is already in the graph that AOT Autograd hands Inductor: cut after Dynamo instead.
BEFORE_INDUCTOR = ("aot_eager", "aot_eager_decomp_partition")
LAUNCHER = "minifier_launcher.py"
# The launcher's accuracy tester ignores outputs that are not floating point; the dump run's own check must judge
# the same way, or it can dump a graph that differs only there (in AMP training, likely a forward graph's saved
# boolean masks, such as ReLU's `x <= 0`, which flip where Inductor's fp32 intermediates round differently), which the
# launcher then passes: "Input graph did not fail the tester", as all three GPU minifications said at cafb9dc.
_SAME_TESTER = {"TORCHDYNAMO_REPRO_IGNORE_NON_FP": "1"}
_SAVE_DIR = re.compile(r"save_dir=(['\"])(.*?)\1")
_CHECKPOINT = re.compile(r"(\d+)|minified_(\d+)_nodes")
_COMMAND = re.compile(r"command=(['\"])minify\1")
_STORAGE = re.compile(r"reader\.storage\((['\"])([0-9a-fA-F]+)\1")
# Values of the triage's own processes that the minifier writes into a repro's environment lines: its paths (a stored
# repro runs elsewhere, with its reader's caches) and a pointer into one of its processes that Inductor sets before it
# loads each compiled library (the OpInfo case's repro at a71c666 carried one).
_LOCAL_PATHS = re.compile(r"^os\.environ\['(TORCHINDUCTOR_CACHE_DIR|TRITON_CACHE_DIR|TORCH_COMPILE_DEBUG_DIR"
                          r"|_TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR)'\] = .*\n", re.MULTILINE)


@dataclass(frozen=True)
class Minified:
    script: Path | None    # the minimized repro in the work folder; None when none was made
    nodes: int             # FX nodes of its graph
    partial: bool          # the limit stopped the minifier: the smallest failing graph it had reached
    note: str              # why there is none, or what is partial ("" when the minifier finished)
    launcher: Path | None = None


def repro_after(status: str, culprit_backend: str) -> str:
    """Where the minifier cuts: after Dynamo for a culprit before Inductor, else after AOT Autograd. After AOT, an
    accuracy check compares the decomposed graph with itself, and an error that AOT Autograd raises while it traces
    (a decomposition's, as `take`'s on an H100 at a71c666) comes before any graph is cut there, so no launcher is
    written. A crash or a hang stays after AOT: no triage has yet met one whose culprit is before Inductor."""
    return "dynamo" if status in ("fail_accuracy", "fail_to_run") and culprit_backend in BEFORE_INDUCTOR else "aot"


def dump_env(status: str, culprit_backend: str, debug: Path, tolerance: float = 0.0) -> dict[str, str]:
    """The dump run's variables: where to cut and at what level, where the launcher goes, for a cut after Dynamo the
    culprit backend to compile with, and the tolerance the model's check judged at (0: torch's default)."""
    after = repro_after(status, culprit_backend)
    env = {"TORCHDYNAMO_REPRO_AFTER": after, "TORCHDYNAMO_REPRO_LEVEL": str(REPRO_LEVELS[status]),
           "TORCH_COMPILE_DEBUG_DIR": str(debug), **_SAME_TESTER}
    if after == "dynamo":
        env["TORCH_BISECT_BACKEND"] = culprit_backend
    if tolerance > 0:
        env[dynamo_check.TOLERANCE_VARIABLE] = repr(tolerance)
    return env


def minify(runs: ModelRuns, work: Path, budget: Budget, culprit_backend: str = "") -> Minified:
    """The dump run and the minifier (GaveUp before a step with no time left; the minifier cut short by the limit
    leaves a partial repro). `culprit_backend`: the bisector's, "" when it named none."""
    status, backend = runs.target.status, get_backend(runs.target.request.backend)
    if not backend.is_inductor:
        return Minified(None, 0, False, f"the minifier cuts graphs that Inductor compiles after AOT Autograd, and "
                        f"backend {backend.name} compiles with {backend.torch_backend or 'nothing'}: no repro was made")
    debug = work / "minify" / "debug"
    env = dump_env(status, culprit_backend, debug, runs.target.result.accuracy.tolerance)
    after, level = env["TORCHDYNAMO_REPRO_AFTER"], int(env["TORCHDYNAMO_REPRO_LEVEL"])
    with_backend = f", backend {env['TORCH_BISECT_BACKEND']}" if "TORCH_BISECT_BACKEND" in env else ""
    started = time.monotonic()
    with on_sys_path(dynamo_check.plugin_folder(work / "minify" / "plugin")):
        dumped = runs.run(f"minifier dump (repro_after {after}, repro_level {level}{with_backend})", env)
    dump_s = time.monotonic() - started
    launchers = sorted(debug.rglob(LAUNCHER), key=lambda p: p.stat().st_mtime)
    if not launchers:
        return Minified(None, 0, False, no_launcher(status, level, after, dumped))
    launcher = launchers[-1]
    if status == "timeout":  # each of the minifier's queries would hang as the model did: nothing to cut with
        uncut = work / "minify" / "uncut.py"
        uncut.write_text(_COMMAND.sub("command='run'", launcher.read_text()))
        return Minified(uncut, _nodes_in_forward(uncut), False, "a hang cannot be minified (each of the minifier's "
                        "queries would hang too): the repro is the graph that was running when the model hung, uncut",
                        launcher)
    cut = work / "minify" / "cut"
    cut.mkdir(parents=True, exist_ok=True)
    argv = [*settled.command(runs.target.request), str(launcher), "minify"]
    if status in ("fail_accuracy", "fail_to_run"):
        argv.append("--no-isolate")  # in one process: much faster, and an accuracy query cannot kill it
    # The repro's check is left about as long as the dump run took (it compiles and runs one of the model's graphs), or
    # half the time when that is more: a repro that the limit cut short is still checked.
    left = budget.left_for("the minifier")
    timeout_s = max(left - dump_s, left / 2)
    done = run_in_own_group(argv, cwd=cut, env=script_env(runs.cache, {"TORCH_COMPILE_DEBUG_DIR": str(debug)}),
                            log=work / "minify" / "minifier.log", timeout_s=timeout_s)
    repro = cut / "repro.py"
    log(f"minifier: {'stopped at the limit' if done.timed_out else f'exit {done.returncode}'} "
        f"in {done.wall_s:.0f} s")
    if done.timed_out:
        if repro.is_file():
            return Minified(repro, fx_nodes(repro, debug), True, "the time limit stopped the minifier: the repro is "
                            "the smallest failing graph it had reached", launcher)
        raise GaveUp(f"the {budget.limit_s:g} s limit stopped the minifier before it had a failing graph")
    if done.returncode != 0 or not repro.is_file():
        return Minified(None, 0, False, f"the minifier failed (exit {done.returncode}): {_last_line(tail(done.log))}",
                        launcher)
    return Minified(repro, fx_nodes(repro, debug), False, "", launcher)


def no_launcher(status: str, level: int, after: str, dumped: pb.ModelResult) -> str:
    """Why the dump run left nothing to minify: its own check broke off, or no single graph showed the failure."""
    if dumped.community_status != status:
        error = dumped.failure.message or _last_line(dumped.failure.log_tail)
        failure = f"{dumped.failure.exception_type}: {error}" if dumped.failure.exception_type else error
        return (f"the model run with repro_after {after}, repro_level {level} ended in {dumped.community_status}, not "
                f"{status}, and wrote no minifier launcher ({_last_line(failure)}), so the minifier had nothing to cut; "
                "no repro was made")
    if status == "fail_accuracy":
        return (f"no single compiled graph fails the accuracy check on its own (repro_after {after}, repro_level 4 "
                "compared each one with eager and wrote no minifier launcher), so the minifier had nothing to cut; no "
                "repro was made")
    return (f"the model run with repro_after {after}, repro_level {level} wrote no minifier launcher (the failure is "
            "not in one graph the minifier sees), so the minifier had nothing to cut; no repro was made")


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else "no output"


def saved_inputs(script: Path) -> Path | None:
    """The folder a repro loads its inputs from (its run_repro(save_dir=...)); None when it names none."""
    found = _SAVE_DIR.search(script.read_text())
    return Path(found.group(2)) if found and found.group(2) else None


def fx_nodes(script: Path, debug: Path) -> int:
    """FX nodes of a repro's graph: the minifier names each checkpoint after its node count (`<N>.py` after AOT,
    `minified_<N>_nodes.py` after Dynamo), and the repro is a copy of the last one; failing that, counted from the
    script's forward."""
    text = script.read_bytes()
    for checkpoint in (*debug.rglob("checkpoints/*.py"), *script.parent.glob("checkpoints/*.py")):
        count = _CHECKPOINT.fullmatch(checkpoint.stem)
        if count and checkpoint.read_bytes() == text:
            return int(count.group(1) or count.group(2))
    return _nodes_in_forward(script)


def _nodes_in_forward(script: Path) -> int:
    """Placeholders, one node per assignment, and the output, in the repro's `Repro.forward`."""
    for node in ast.walk(ast.parse(script.read_text())):
        if isinstance(node, ast.FunctionDef) and node.name == "forward":
            placeholders = len(node.args.args) - 1 + len(node.args.kwonlyargs)
            assignments = sum(isinstance(stmt, (ast.Assign, ast.AnnAssign)) for stmt in node.body)
            return placeholders + assignments + 1
    return 0


def store_repro(script: Path, dest: Path, stem: str, header: str) -> Path:
    """Copies the minified repro to `<dest>/<stem>.repro.py`, with the saved inputs it loads in `<stem>.repro.inputs/`,
    which the script finds beside itself (so the two can move together; without it, it runs on random inputs)."""
    text = script.read_text()
    inputs_name = f"{stem}.repro.inputs"
    inputs = dest / inputs_name
    shutil.rmtree(inputs, ignore_errors=True)
    saved = saved_inputs(script)
    if saved is not None:
        for _, digest in _STORAGE.findall(text):
            source = saved / "storages" / digest
            if source.is_file():
                (inputs / "storages").mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, inputs / "storages" / digest)
    here = f"save_dir=os.path.join(os.path.dirname(os.path.abspath(__file__)), {inputs_name!r})"
    text = _SAVE_DIR.sub(lambda _: here, _LOCAL_PATHS.sub("", text))
    path = dest / f"{stem}{REPRO_SUFFIX}"
    write_atomically(path, (header + "import os\n" + text).encode())
    return path
