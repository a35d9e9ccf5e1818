"""OpenCL: ACL's CL backend over the same NdArrays, and the software-device layer.

* ``backend="cl"`` on a function (or :class:`acl_bridge.AclTensor`) makes ACL's CL function
  of the kind run on a CLTensor that imports the NdArray's own allocation:
  ``cl_arm_import_memory`` where the device has it (Mali), else a ``cl_mem`` with
  ``CL_MEM_USE_HOST_PTR`` over the allocation, staged copies only where a device refuses
  both. :func:`tensor_memory` says which route a tensor took and what mapping its device
  buffer returns (the NdArray's own address when the device uses the host bytes).
* Software OpenCL devices (PoCL, Mesa rusticl) and NVIDIA's driver report OpenCL 3.0 without
  non-uniform work-groups, which ACL's CL kernels need. acl-ndarray's OpenCL loader layer
  (``libacl_ndarray_cl_layer.so``, native/cl_layer) makes such a device acceptable. It is
  loaded only when asked for: ``ACL_NDARRAY_CL_LAYER=1`` in the environment, or
  :func:`use_software_opencl_layer` before the first OpenCL use in the process (the ICD
  loader reads ``OPENCL_LAYERS`` once, when it starts).

Details and measurements: docs/opencl.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from ndarray.errors import AclNdarrayError, ArgumentTypeError

from .cl_layer import (  # noqa: F401  (re-exported: asking for the layer is part of this API)
    LAYER_ENV,
    OpenCLLayerError,
    layer_path,
    layer_requested,
    prepare_opencl,
    use_software_opencl_layer,
)
from .errors import AclUnsupportedError
from .native import check, require_native

def _native_cl():
    ffi, lib = require_native()
    if not lib.acl_shim_cl_available():
        raise AclUnsupportedError(
            "this acl_bridge was built without ACL's OpenCL backend (the ACL headers found at build time had no "
            "CL runtime, or ACL is older than 24.x)", what="opencl")
    prepare_opencl()
    return ffi, lib


@dataclass(frozen=True)
class ClDevice:
    """One OpenCL device as ACL's OpenCL loader sees it."""

    platform_index: int
    device_index: int
    platform_name: str
    name: str
    version: str
    driver_version: str
    non_uniform_work_groups: bool         # ACL accepts it (with the layer, when active)
    native_non_uniform_work_groups: bool  # the driver alone
    layer_active: bool
    arm_import_memory: bool
    fp16: bool
    selected: bool                        # the device ACL's CLScheduler uses
    extensions: Tuple[str, ...]           # those of interest the device lists

    def __str__(self) -> str:
        flags = [f"non-uniform work-groups: {'yes' if self.non_uniform_work_groups else 'no'}"
                 + ("" if self.native_non_uniform_work_groups == self.non_uniform_work_groups
                    else f" (driver alone: {'yes' if self.native_non_uniform_work_groups else 'no'})"),
                 f"layer {'active' if self.layer_active else 'not active'}"]
        if self.selected:
            flags.append("selected")
        ext = ", ".join(self.extensions) or "none of interest"
        return (f"[{self.platform_index}.{self.device_index}] {self.name} ({self.version}; {self.platform_name}, "
                f"driver {self.driver_version}): {'; '.join(flags)}; extensions: {ext}")


def cl_available() -> bool:
    """Whether the native module has ACL's CL backend (False also without a native module)."""
    try:
        _, lib = require_native()
    except AclNdarrayError:
        return False
    return bool(lib.acl_shim_cl_available())


def cl_devices() -> Tuple[ClDevice, ...]:
    """Every OpenCL device of every platform, with what ACL needs of it."""
    ffi, lib = _native_cl()
    count = ffi.new("int32_t *")
    check(lib.acl_shim_cl_devices(ffi.NULL, 0, count), "cl_devices")
    out = ffi.new("acl_shim_cl_device[]", max(1, count[0]))
    check(lib.acl_shim_cl_devices(out, count[0], count), "cl_devices")

    def text(field) -> str:
        return ffi.string(field).decode("utf-8", "replace").strip()

    return tuple(ClDevice(
        platform_index=d.platform_index, device_index=d.device_index, platform_name=text(d.platform_name),
        name=text(d.device_name), version=text(d.device_version), driver_version=text(d.driver_version),
        non_uniform_work_groups=bool(d.non_uniform_work_groups),
        native_non_uniform_work_groups=bool(d.native_non_uniform_work_groups), layer_active=bool(d.layer_active),
        arm_import_memory=bool(d.arm_import_memory), fp16=bool(d.fp16), selected=bool(d.selected),
        extensions=tuple(text(d.extensions_of_interest).split()),
    ) for d in out[0:min(count[0], len(out))])


def cl_init(platform_index: Optional[int] = None, device_index: int = 0) -> ClDevice:
    """Start ACL's CLScheduler on a device (default: ACL's, the first platform's default
    device) and return it. CL functions call this implicitly with the default. Raises
    :class:`acl_bridge.errors.AclNoDeviceError` when ACL cannot run its kernels there; the
    message says what is missing and how to enable the layer."""
    ffi, lib = _native_cl()
    if platform_index is None:
        check(lib.acl_shim_cl_init(-1, -1), "cl_init")
    else:
        if not isinstance(platform_index, int) or not isinstance(device_index, int):
            raise ArgumentTypeError(f"platform_index and device_index must be ints, got "
                                    f"{platform_index!r}, {device_index!r}")
        check(lib.acl_shim_cl_init(platform_index, device_index), "cl_init")
    return next(d for d in cl_devices() if d.selected)


@dataclass(frozen=True)
class TensorMemory:
    """How one tensor's memory reached its device."""

    backend: str
    route: str                # "host", "cl_arm_import_memory", "CL_MEM_USE_HOST_PTR", "staged", "none"
    base_address: int         # the NdArray's allocation
    mapped_address: int       # what mapping the device buffer returns
    size_in_bytes: int
    bytes_staged_per_run: int

    @property
    def zero_copy(self) -> bool:
        """The device works on the NdArray's own bytes (mapping gives back its address)."""
        return self.route != "staged" and self.route != "none" and self.mapped_address == self.base_address


def _route_names(lib) -> Dict[int, str]:
    return {lib.ACL_SHIM_MEMORY_NONE: "none", lib.ACL_SHIM_MEMORY_HOST: "host",
            lib.ACL_SHIM_MEMORY_CL_IMPORT_ARM: "cl_arm_import_memory",
            lib.ACL_SHIM_MEMORY_CL_USE_HOST_PTR: "CL_MEM_USE_HOST_PTR", lib.ACL_SHIM_MEMORY_CL_STAGED: "staged"}


def tensor_memory(tensor) -> TensorMemory:
    """The memory route of an :class:`acl_bridge.AclTensor` (maps and unmaps a CL buffer),
    once its memory is imported (route "none" before)."""
    ffi, lib = require_native()
    out = ffi.new("acl_shim_tensor_memory *")
    check(lib.acl_shim_tensor_memory_get(tensor.handle, out), "tensor_memory")
    return TensorMemory(
        backend="cl" if out.backend == lib.ACL_SHIM_BACKEND_CL else "neon", route=_route_names(lib)[out.route],
        base_address=int(out.base_address), mapped_address=int(out.mapped_address),
        size_in_bytes=int(out.size_in_bytes), bytes_staged_per_run=int(out.bytes_staged_per_run))


def memory_report(function) -> Dict[str, TensorMemory]:
    """Per tensor role of a configured function: how its memory reached the device."""
    return {role: tensor_memory(t) for role, t in function.tensors.items() if t is not None}


def describe() -> str:
    """Lines for ``python -m acl_bridge info``: the CL backend and every device."""
    if not cl_available():
        return "OpenCL: not in this build"
    try:
        devices = cl_devices()
    except AclNdarrayError as e:
        return f"OpenCL: {e}"
    layer = "requested (OPENCL_LAYERS)" if layer_requested() else f"not requested (set {LAYER_ENV}=1)"
    lines = [f"OpenCL: {len(devices)} device(s); acl-ndarray layer {layer}"]
    lines += [f"  {d}" for d in devices]
    return "\n".join(lines)


__all__ = [
    "ClDevice", "OpenCLLayerError", "TensorMemory", "cl_available", "cl_devices", "cl_init", "describe",
    "layer_path", "layer_requested", "memory_report", "prepare_opencl", "tensor_memory",
    "use_software_opencl_layer",
]
