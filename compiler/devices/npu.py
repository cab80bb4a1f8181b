"""Ascend NPUs through torch_npu (PrivateUse1 renamed `npu`).

torch_npu facts used here (read from the torch-npu 2.13.0 / 2.14.0 wheels, shared/reference/npu-flex-opinfo.md):
  - `torch.npu.matmul.allow_hf32` (default False) and `torch.npu.conv.allow_hf32` (default True) are the
    HF32 analogues of CUDA's TF32 switches;
  - Inductor's `triton.cudagraphs` option is served by torch_npu's NPU graph trees (ACL graph capture);
  - the Inductor codegen backend is chosen per compile with options={"npu_backend": ...}.
On a machine without torch_npu the adapter is importable and reports why the device is unavailable.

Device preparation: once the `npu` backend exists in the process (torch_npu imported, or the test simulation),
`prepare()` runs the initialisers that packages above compiler registered in compiler/devices/npu_hooks.py (for
example flex_attention.npu registers FlexAttention's enablement when it is imported). `availability()` calls it,
so every harness path that asks whether npu is usable prepares it first.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
from typing import Any, Iterator

import torch

from compiler.devices.base import Availability, DeviceAdapter, DeviceInfo
from compiler.devices.npu_hooks import NPU_INITIALIZERS, Initializers
from compiler.devices.privateuse1 import PrivateUse1Adapter, privateuse1_name

PACKAGE = "torch_npu"
# torch_npu's Inductor codegen backends (torch_npu/_inductor/__init__.py, 2.13-2.14); triton_experimental
# exists from 2.13; mlir is deprecated upstream.
INDUCTOR_BACKENDS = ("default", "triton_experimental", "dvm", "ascendc", "mlir")
INSTALL_HINT = ("install the NPU dependency set (requirements-npu.lock: torch_npu and triton-ascend matching "
                "the torch pin) and CANN, then run with --config=npu")


class NpuAdapter(PrivateUse1Adapter):
    memory_method = "npu.max_memory_allocated"

    def __init__(self, initializers: Initializers = NPU_INITIALIZERS) -> None:
        super().__init__("npu")
        self.initializers = initializers

    def backend_registered(self) -> bool:
        """Whether PrivateUse1 is named `npu` and `torch.npu` exists (torch_npu, or the test simulation)."""
        return privateuse1_name() == self.type and self._module() is not None

    def prepare(self) -> dict[str, Any]:
        """Runs the registered npu initialisers (each once per process); returns {name: what it returned}.

        Raises RuntimeError when the `npu` backend is not registered, or naming the initialiser that failed.
        """
        if not self.backend_registered():
            raise RuntimeError(f"cannot prepare npu: PrivateUse1 is named {privateuse1_name()!r} and torch.npu is "
                               f"{'missing' if self._module() is None else 'present'}; import {PACKAGE} first")
        return self.initializers.run_all()

    def availability(self) -> Availability:
        if privateuse1_name() == "privateuseone":
            if importlib.util.find_spec(PACKAGE) is None:
                return Availability(False, f"{PACKAGE} is not installed: {INSTALL_HINT}")
            try:
                importlib.import_module(PACKAGE)  # registers the `npu` backend natively
            except Exception as exc:  # noqa: BLE001 (e.g. CANN libraries missing: say what torch_npu said)
                return Availability(False, f"import {PACKAGE} failed ({type(exc).__name__}: {exc}); "
                                           "is CANN installed and set_env.sh sourced?")
        if self.backend_registered():
            try:
                self.prepare()
            except RuntimeError as exc:
                return Availability(False, str(exc))
        return super().availability()

    def info(self) -> DeviceInfo:
        info = super().info()
        # The SoC version distinguishes Ascend generations (e.g. 910B vs 910_93); absent in the simulation.
        soc = getattr(self._module(), "get_soc_version", None)
        return DeviceInfo(type="npu", name=info.name, arch=f"soc{soc()}" if soc else info.arch, count=info.count)

    def is_oom(self, exc: BaseException) -> bool:
        # torch_npu's caching allocator reports "NPU out of memory" (a RuntimeError in older releases).
        return super().is_oom(exc) or (isinstance(exc, RuntimeError) and "NPU out of memory" in str(exc))

    @contextlib.contextmanager
    def hf32(self, matmul: bool, conv: bool) -> Iterator[None]:
        """Sets the HF32 switches for the block and restores them after (high precision: both False)."""
        module = self._module()
        saved = (module.matmul.allow_hf32, module.conv.allow_hf32)
        module.matmul.allow_hf32, module.conv.allow_hf32 = matmul, conv
        try:
            yield
        finally:
            module.matmul.allow_hf32, module.conv.allow_hf32 = saved

    def hf32_state(self) -> dict[str, bool]:
        module = self._module()
        return {"npu.matmul.allow_hf32": module.matmul.allow_hf32, "npu.conv.allow_hf32": module.conv.allow_hf32}

    def compile_options(self, device_graphs: bool, device_backend: str | None) -> dict[str, Any]:
        """ACL graphs through Inductor's graph switch (torch_npu's NPU graph trees), plus the codegen backend."""
        backend = device_backend or "default"
        if backend not in INDUCTOR_BACKENDS:
            raise ValueError(f"unknown torch_npu Inductor backend {backend!r}; torch_npu offers: "
                             f"{', '.join(INDUCTOR_BACKENDS)}")
        return {"triton.cudagraphs": device_graphs, "npu_backend": backend}
