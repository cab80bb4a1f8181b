# Minified repro of opinfo/nn.functional.avg_pool3d float32 inductor cpu: fail_accuracy
# made by Parity's triage (tools/triage) from opinfo-cpu-nn.functional.avg_pool3d-float32.opinfo.pb; the bisector's culprit: inductor / lowerings / bisect number 13 / avg_pool3d_backward
# From a Parity checkout, `python -m tools.triage.settled --suite opinfo --model 'nn.functional.avg_pool3d float32' --device cpu opinfo-cpu-nn.functional.avg_pool3d-float32.repro.py` runs it under the accuracy check's settings (deterministic algorithms, no TF32) and exits non-zero while the failure is present; `python opinfo-cpu-nn.functional.avg_pool3d-float32.repro.py` runs it with torch's defaults. Its inputs are in opinfo-cpu-nn.functional.avg_pool3d-float32.repro.inputs/ beside it when saved; without that folder it runs on random inputs.
import os

import os
os.environ['TORCHINDUCTOR_FX_GRAPH_CACHE'] = '0'
os.environ['TORCHINDUCTOR_AUTOGRAD_CACHE'] = '0'
os.environ['TORCHDYNAMO_REPRO_IGNORE_NON_FP'] = '1'
os.environ.pop('TORCHDYNAMO_REPRO_AFTER', None)
os.environ.pop('TORCHDYNAMO_REPRO_LEVEL', None)

import torch
from torch import tensor, device
import torch.fx as fx
from torch._dynamo.testing import rand_strided
import math
from math import inf
import torch._inductor.inductor_prims



import torch._dynamo.config
import torch._inductor.config
import torch._functorch.config
import torch.fx.experimental._config
torch._dynamo.config.raise_on_unsafe_aot_autograd = False
torch._inductor.config.fx_graph_cache = False
torch._inductor.config.fx_graph_remote_cache = False
torch._inductor.config.inplace_buffers = True
torch._inductor.config.use_fast_math = False
torch._inductor.config.unroll_reductions_threshold = 8
torch._inductor.config.deterministic = False
torch._inductor.config.comprehensive_padding = True
torch._inductor.config.generate_intermediate_hooks = True
torch._inductor.config.cpp.enable_unsafe_math_opt_flag = False
torch._inductor.config.cpp.enable_floating_point_contract_flag = 'off'
torch._inductor.config.triton.store_cubin = False
torch._inductor.config.triton.codegen_upcast_to_fp32 = True
torch._inductor.config.cuda.use_fast_math = False
torch._inductor.config.test_configs.runtime_triton_dtype_assert = False
torch._inductor.config.test_configs.static_cpp_dtype_assert = False
torch._inductor.config.emulate_precision_casts = True
torch._functorch.config.functionalize_rng_ops = False
torch._functorch.config.enable_autograd_cache = False
torch._functorch.config.fake_tensor_allow_unsafe_data_ptr_access = True
torch._functorch.config.unlift_effect_tokens = False
torch._functorch.config.selective_decompose = False




isolate_fails_code_str = None





if "__compile_source__" in globals():
    import inspect as __after_aot_inspect
    import linecache as __after_aot_linecache
    __after_aot_filename = __after_aot_inspect.currentframe().f_code.co_filename
    __after_aot_linecache.cache[__after_aot_filename] = (
        len(__compile_source__),
        None,
        __compile_source__.splitlines(True),
        __after_aot_filename,
    )
# torch version: 2.14.1+cu130
# torch cuda version: 13.0
# torch git version: 5c4886908584029761b579af026dcfb627c84070


# torch.cuda.is_available()==False, no GPU info collected
torch._higher_order_ops.triton_kernel_wrap.kernel_side_table.reset_table()

from torch.nn import *
class Repro(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()



    def forward(self, arg0_1, arg1_1):
        avg_pool3d_backward = torch.ops.aten.avg_pool3d_backward.default(arg1_1, arg0_1, [4, 5, 6], [2, 3, 2], [2, 2, 2], True, True, None);  arg1_1 = arg0_1 = None
        return (avg_pool3d_backward,)

def load_args(reader):
    buf0 = reader.storage('521c3aaca2ff0148e3b0a1bc02e2431748df5e08', 844)
    reader.tensor(buf0, (1, 1, 6, 5, 6), requires_grad=True, is_leaf=True)  # arg0_1
    buf1 = reader.storage('09fa02d4357e52a8e2f2e2f0bbf88c413cf80c2d', 144)
    reader.tensor(buf1, (1, 1, 4, 3, 3), is_leaf=True)  # arg1_1
load_args._version = 0
mod = Repro()
if __name__ == '__main__':
    from torch._dynamo.repro.after_aot import run_repro
    with torch.no_grad():
        run_repro(mod, load_args, accuracy=True, command='run', save_dir=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'opinfo-cpu-nn.functional.avg_pool3d-float32.repro.inputs'), tracing_mode='real', check_str=None)
        # To run it separately, do 
        # mod, args = run_repro(mod, load_args, accuracy=True, command='get_args', save_dir=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'opinfo-cpu-nn.functional.avg_pool3d-float32.repro.inputs'), tracing_mode='real', check_str=None)
        # mod(*args)