"""Backends: where ACL runs a function (NEON on the CPU; OpenCL: docs/opencl.md).

A backend is a value the executor is given, never a fork of the decision logic: the planner
(acl_bridge/plan.py) does not know backends at all. The native ABI tells a tensor's backend
by the ``backend`` field of ``acl_shim_tensor_desc`` (``ACL_SHIM_BACKEND_*``); a header
without that field knows NEON only.
"""

from __future__ import annotations

from dataclasses import dataclass

from ndarray.errors import UnsupportedOptionError

from . import abi
from .cl_layer import prepare_opencl


@dataclass(frozen=True)
class Backend:
    name: str  # "neon" or "cl"
    code: int  # ACL_SHIM_BACKEND_* (0 where the header predates backends)

    def mark(self, desc) -> None:
        """Label a native tensor description with this backend."""
        if self.code:
            desc.backend = self.code


NEON = Backend("neon", abi.BACKENDS.get("neon", 0))


def backend_named(name) -> Backend:
    """The backend for ``backend=`` (``"neon"``, or ``"cl"`` where the native layer has it)."""
    if isinstance(name, Backend):
        return name
    if name == "neon":
        return NEON
    if isinstance(name, str) and name in abi.BACKENDS:
        if name == "cl":
            prepare_opencl()  # ACL_NDARRAY_CL_LAYER=1: ask for the layer before OpenCL starts
        return Backend(name, abi.BACKENDS[name])
    raise UnsupportedOptionError(
        f"backend is {name!r}, expected one of {sorted(set(abi.BACKENDS) | {'neon'})}")
