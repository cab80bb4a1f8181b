"""Experiment only: Parity's model process (`suites/common/child.py`, the arguments after the first) with TIMM's
random weights drawn from another seed (the first argument) than the loader's 1337; the inputs stay the loader's."""
import runpy
import sys

import timm
import torch

WEIGHTS_SEED = int(sys.argv[1])
create_model = timm.create_model


def create_model_seeded(*args, **kwargs):
    torch.manual_seed(WEIGHTS_SEED)  # after the loader's own torch.manual_seed(1337)
    return create_model(*args, **kwargs)


timm.create_model = create_model_seeded
sys.argv = ["suites/common/child.py", *sys.argv[2:]]
runpy.run_path("suites/common/child.py", run_name="__main__")
