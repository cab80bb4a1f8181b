"""Compile backends: the one table that the Starlark macros and the Python harness both read.

Data only (literals), so Python reads it with compiler/starlark_data.py.
  devices:       device types the backend can run on; other devices get a `manual` target with a reason.
  modes:         training / inference.
  hud_compiler:  the HUD dashboard's compiler name for results of this backend.
  torch_backend: the torch.compile backend string (None = run eagerly, no compilation).
  inductor_options: options passed to torch.compile(options=...) for Inductor backends.
  device_graphs: Inductor backends only: capture device graphs (CUDA graphs; ACL graphs on NPU). The
                 device adapter turns this into options (compiler/devices/*.py compile_options).
  device_backend: Inductor backends only: the device's own codegen backend (torch_npu's npu_backend), or None.
  requires:      Python packages the backend needs at run time; without them it is skipped with a reason.
  presubmit:     whether CPU presubmit runs this backend's smoke targets (False: nightly only).
"""

BACKENDS = {
    "eager": {
        "devices": ["cpu", "cuda", "npu"],
        "modes": ["training", "inference"],
        "hud_compiler": "eager",
        "torch_backend": None,
        "inductor_options": {},
        "device_graphs": False,
        "device_backend": None,
        "requires": [],
        # Eager vs eager: the Inductor targets already run (and compare) two eager runs.
        "presubmit": False,
    },
    "aot_eager": {
        "devices": ["cpu", "cuda", "npu"],
        "modes": ["training", "inference"],
        "hud_compiler": "aot_eager",
        "torch_backend": "aot_eager",
        "inductor_options": {},
        "device_graphs": False,
        "device_backend": None,
        "requires": [],
        "presubmit": True,
    },
    "inductor": {
        "devices": ["cpu", "cuda", "npu"],
        "modes": ["training", "inference"],
        "hud_compiler": "default",
        "torch_backend": "inductor",
        "inductor_options": {},
        "device_graphs": False,
        "device_backend": None,
        "requires": [],
        "presubmit": True,
    },
    "inductor_cudagraphs": {
        "devices": ["cuda"],
        "modes": ["training", "inference"],
        "hud_compiler": "cudagraphs",
        "torch_backend": "inductor",
        "inductor_options": {},
        "device_graphs": True,
        "device_backend": None,
        "requires": [],
        "presubmit": False,
    },
    # The NPU counterpart of inductor_cudagraphs (same HUD column): Inductor with ACL graph capture.
    "inductor_aclgraphs": {
        "devices": ["npu"],
        "modes": ["training", "inference"],
        "hud_compiler": "cudagraphs",
        "torch_backend": "inductor",
        "inductor_options": {},
        "device_graphs": True,
        "device_backend": None,
        "requires": ["torch_npu"],
        "presubmit": False,
    },
    # The community's maxautotune-true config: max-autotune with device graphs (none on CPU).
    "inductor_max_autotune": {
        "devices": ["cpu", "cuda", "npu"],
        "modes": ["training", "inference"],
        "hud_compiler": "max_autotune",
        "torch_backend": "inductor",
        "inductor_options": {"max_autotune": True},
        "device_graphs": True,
        "device_backend": None,
        "requires": [],
        "presubmit": False,
    },
    # NPU-only: torch_npu's own Inductor codegen backends and its TorchAir graph backend.
    "npu_dvm": {
        "devices": ["npu"],
        "modes": ["training", "inference"],
        "hud_compiler": "npu_dvm",
        "torch_backend": "inductor",
        "inductor_options": {},
        "device_graphs": False,
        "device_backend": "dvm",
        "requires": ["torch_npu"],
        "presubmit": False,
    },
    "npu_triton_experimental": {
        "devices": ["npu"],
        "modes": ["training", "inference"],
        "hud_compiler": "npu_triton_experimental",
        "torch_backend": "inductor",
        "inductor_options": {},
        "device_graphs": False,
        "device_backend": "triton_experimental",
        "requires": ["torch_npu", "triton"],
        "presubmit": False,
    },
    # torch.compile(backend="npugraph_ex"): registered by torch_npu.dynamo (TorchAir's ACL graph mode). Inference
    # only: TorchAir aims it at inference (shared/reference/npu-flex-opinfo.md 5.3); training is unverified.
    "npugraph_ex": {
        "devices": ["npu"],
        "modes": ["inference"],
        "hud_compiler": "npugraph_ex",
        "torch_backend": "npugraph_ex",
        "inductor_options": {},
        "device_graphs": False,
        "device_backend": None,
        "requires": ["torch_npu"],
        "presubmit": False,
    },
}
