"""The minifier after AOT Autograd on a graph whose compiled code raises (aot_check.py): here a custom op whose fake
kernel gives its output another layout than the op returns, which Inductor's generated code asserts, as the OpInfo
case `_efficient_attention_forward` failed on an H100 (torch's meta kernel of its backward)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import torch

from tools.triage.op_case import OpCaseRequest
from tools.triage.runs import script_env
from tools.triage.settled import command


@torch.library.custom_op("parity_triage_test::doubled", mutates_args=())
def doubled(x: torch.Tensor) -> torch.Tensor:
    return (x * 2).contiguous()


@doubled.register_fake
def _doubled_fake(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_strided(x.shape, (1, x.shape[0]), dtype=x.dtype, device=x.device)  # column-major: wrong


LAUNCHER = '''
import torch
import tools.triage.aot_check_test  # registers parity_triage_test::doubled

class Repro(torch.nn.Module):
    def forward(self, x, y):
        doubled = torch.ops.parity_triage_test.doubled.default(x)
        added = torch.ops.aten.add.Tensor(doubled, y)
        return (added, torch.ops.aten.neg.default(y))

def load_args(reader):
    buf0 = reader.storage(None, 96)
    reader.tensor(buf0, (4, 6), is_leaf=True)
    buf1 = reader.storage(None, 96)
    reader.tensor(buf1, (4, 6), is_leaf=True)
load_args._version = 0
mod = Repro()
if __name__ == "__main__":
    from torch._dynamo.repro.after_aot import run_repro
    with torch.no_grad():
        run_repro(mod, load_args, accuracy=False, command="minify", save_dir=CHECKPOINTS, tracing_mode="real",
                  check_str=None)
'''


def test_the_minifier_cuts_a_graph_whose_compiled_code_raises(tmp_path: Path) -> None:
    launcher = tmp_path / "minifier_launcher.py"
    launcher.write_text(LAUNCHER.replace("CHECKPOINTS", repr(str(tmp_path / "checkpoints"))))
    cut = tmp_path / "cut"
    cut.mkdir()
    settled = command(OpCaseRequest("doubled", "float32", "cpu", 1, False))
    # As minify.py runs the minifier: under the check's settings, in the environment of a model run.
    done = subprocess.run([*settled, str(launcher), "minify", "--no-isolate"], cwd=cut, capture_output=True,
                          text=True, timeout=600, env=script_env(tmp_path / "cache"))
    # Without aot_check the first query emptied the minifier's inputs: "len(ph_nodes)=2 != len(self.inps)=0".
    assert done.returncode == 0, done.stderr[-3000:]
    repro = (cut / "repro.py").read_text()
    assert "parity_triage_test.doubled.default" in repro and "aten.neg" not in repro  # the raising op, cut to it

