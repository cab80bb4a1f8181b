"""Worker pools of a remote-execution farm: the REAPI platform properties a worker must advertise to run
a test on each device type of compiler/devices/registry.py. Data only (read by Starlark and by Python).

A target's exec_properties merge with the execution platform's (@pypi//:rbe_platform: OSFamily, the venv
path, the lock hash), so a model runs only on a worker with that accelerator and that interpreter.
cpu asks for nothing more: any worker takes CPU work (a GPU host can soak it up when idle). Change the
accelerator values to the farm's own (e.g. gpu=h100) in one place: here.
"""

DEVICE_POOLS = {
    "cpu": {},
    "cuda": {"gpu": "h200"},
    "npu": {"npu": "910b"},
}
