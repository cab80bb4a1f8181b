"""Experiment only: Parity's model process (`suites/common/child.py`, same arguments) with upstream's capturable Adam
on CPU parameters. torch refuses them outside a compiled step (torch.optim checks the device only when not
compiling), so the check is lifted here, and every Adam is made capturable."""
import runpy
import sys

import torch

for module in (sys.modules["torch.optim.optimizer"], sys.modules["torch.optim.adam"]):
    module._get_capturable_supported_devices = lambda supports_xla=True: ["cpu"]
adam_init = torch.optim.Adam.__init__


def capturable_init(self, params, **kwargs):
    adam_init(self, params, **{**kwargs, "capturable": True})


torch.optim.Adam.__init__ = capturable_init
sys.argv = ["suites/common/child.py", *sys.argv[1:]]
runpy.run_path("suites/common/child.py", run_name="__main__")
