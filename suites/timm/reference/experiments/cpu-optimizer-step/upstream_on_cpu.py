"""Experiment only: upstream's harness through Parity's crosscheck shim (same arguments), with the optimizer it
makes on CUDA made on the CPU too: its init_optimizer is asked as for "cuda", and torch lets its capturable Adam hold
CPU parameters. WEIGHTS_SEED=N seeds torch with N right before timm's create_model, as Parity's loader does with 1337
(upstream seeds only before drawing the inputs, with 1337). Prints the weights' checksum and the optimizer made."""
import os
import runpy
import sys

import torch

for module in (sys.modules["torch.optim.optimizer"], sys.modules["torch.optim.adam"]):
    module._get_capturable_supported_devices = lambda supports_xla=True: ["cpu"]
sys.path.insert(0, ".dynamobench")
import common  # noqa: E402  (upstream's; the suite script's `from common import ...` gets this module)

init_optimizer = common.BenchmarkRunner.init_optimizer


def init_optimizer_as_on_cuda(self, name, device, params):
    params = list(params)
    checksum = sum(float(p.detach().double().abs().sum()) for p in params)
    init_optimizer(self, name, "cuda" if device == "cpu" else device, params)
    print(f"[experiment] weights |sum| {checksum:.10f} over {len(params)} tensors; optimizer "
          f"{type(self.optimizer).__name__}", file=sys.stderr, flush=True)


common.BenchmarkRunner.init_optimizer = init_optimizer_as_on_cuda
if os.environ.get("WEIGHTS_SEED"):
    import timm.models  # the shim then wraps what this leaves in timm.models

    create_model = timm.models.create_model

    def create_model_seeded(*args, **kwargs):
        torch.random.default_generator.manual_seed(int(os.environ["WEIGHTS_SEED"]))  # upstream patches manual_seed
        return create_model(*args, **kwargs)

    timm.models.create_model = create_model_seeded
sys.argv = ["tools/crosscheck/upstream_shim.py", *sys.argv[1:]]
runpy.run_path("tools/crosscheck/upstream_shim.py", run_name="__main__")
