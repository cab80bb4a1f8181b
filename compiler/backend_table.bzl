"""Compile backends: the one table that the Starlark macros and the Python harness both read.

Data only (literals), so Python reads it with compiler/starlark_data.py.
  devices:       device types the backend can run on; other devices get a `manual` target with a reason.
  modes:         training / inference.
  hud_compiler:  the HUD dashboard's compiler name for results of this backend.
  torch_backend: the torch.compile backend string (None = run eagerly, no compilation).
  inductor_options: options passed to torch.compile(options=...) for Inductor backends.
  presubmit:     whether CPU presubmit runs this backend's smoke targets (False: nightly only).
"""

BACKENDS = {
    "eager": {
        "devices": ["cpu", "cuda", "npu"],
        "modes": ["training", "inference"],
        "hud_compiler": "eager",
        "torch_backend": None,
        "inductor_options": {},
        # Eager vs eager: the Inductor targets already run (and compare) two eager runs.
        "presubmit": False,
    },
    "aot_eager": {
        "devices": ["cpu", "cuda", "npu"],
        "modes": ["training", "inference"],
        "hud_compiler": "aot_eager",
        "torch_backend": "aot_eager",
        "inductor_options": {},
        "presubmit": True,
    },
    "inductor": {
        "devices": ["cpu", "cuda", "npu"],
        "modes": ["training", "inference"],
        "hud_compiler": "default",
        "torch_backend": "inductor",
        "inductor_options": {"triton.cudagraphs": False},
        "presubmit": True,
    },
    "inductor_cudagraphs": {
        "devices": ["cuda"],
        "modes": ["training", "inference"],
        "hud_compiler": "cudagraphs",
        "torch_backend": "inductor",
        "inductor_options": {"triton.cudagraphs": True},
        "presubmit": False,
    },
}
