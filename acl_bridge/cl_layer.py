"""Asking for acl-ndarray's OpenCL loader layer (native/cl_layer), the one job of this module.

Software OpenCL devices (PoCL, Mesa rusticl) and NVIDIA's driver report OpenCL 3.0 without
non-uniform work-groups, which ACL's CL kernels need; ``libacl_ndarray_cl_layer.so`` makes
such a device acceptable (docs/opencl.md). The ICD loader loads the files named in
``OPENCL_LAYERS`` once, when it starts, so the layer is asked for before the first OpenCL use:
``ACL_NDARRAY_CL_LAYER=1`` in the environment (applied by :func:`prepare_opencl`, which every
path into the native CL backend calls first) or :func:`use_software_opencl_layer`. It is never
loaded unless asked for. Whether it is really active for a device: acl_bridge.opencl.cl_devices.

Lowest layer of acl_bridge (imports only the standard library and ndarray's errors), so the
backend choice itself (acl_bridge.backend) can apply the environment variable.
"""

from __future__ import annotations

import os
from typing import Optional, Tuple

from ndarray.errors import AclNdarrayError

LAYER_ENV = "ACL_NDARRAY_CL_LAYER"            # "1": load the layer (before the first OpenCL use)
LAYER_PATH_ENV = "ACL_NDARRAY_CL_LAYER_PATH"  # another build of the layer
LAYER_FILE = "libacl_ndarray_cl_layer.so"

_STATE = {"opencl_touched": False}


class OpenCLLayerError(AclNdarrayError, RuntimeError):
    """The OpenCL layer cannot be loaded (not built, or asked for after OpenCL started)."""


def layer_path() -> Optional[str]:
    """The layer library: $ACL_NDARRAY_CL_LAYER_PATH, else the one built into this package
    (setup.py builds it where the OpenCL headers with CL/cl_layer.h are installed)."""
    path = os.environ.get(LAYER_PATH_ENV) or os.path.join(os.path.dirname(os.path.abspath(__file__)), LAYER_FILE)
    return path if os.path.isfile(path) else None


def _layers() -> Tuple[str, ...]:
    return tuple(p for p in os.environ.get("OPENCL_LAYERS", "").split(":") if p)


def layer_requested() -> bool:
    """Whether OPENCL_LAYERS names the layer (whether it is active: opencl.cl_devices)."""
    return any(os.path.basename(p) == LAYER_FILE for p in _layers())


def use_software_opencl_layer() -> str:
    """Make the ICD loader load acl-ndarray's OpenCL layer: prepends it to OPENCL_LAYERS.

    Must run before the first OpenCL use in this process. Returns the layer's path; raises
    :class:`OpenCLLayerError` when it was not built or OpenCL was already started without it.
    """
    path = layer_path()
    if path is None:
        raise OpenCLLayerError(
            f"{LAYER_FILE} was not found next to acl_bridge (nor ${LAYER_PATH_ENV}): it is built by setup.py "
            f"where the OpenCL headers with CL/cl_layer.h are installed (Debian: opencl-c-headers)")
    if layer_requested():
        return path
    if _STATE["opencl_touched"]:
        raise OpenCLLayerError(
            "OpenCL was already used in this process without the layer, and the ICD loader reads OPENCL_LAYERS "
            f"only when it starts: set {LAYER_ENV}=1 in the environment, or call use_software_opencl_layer() "
            "before any OpenCL function, tensor or device listing")
    os.environ["OPENCL_LAYERS"] = ":".join((path,) + _layers())
    return path


def prepare_opencl() -> None:
    """Called before every native OpenCL use: applies ACL_NDARRAY_CL_LAYER=1 the first time."""
    if not _STATE["opencl_touched"] and os.environ.get(LAYER_ENV) == "1":
        use_software_opencl_layer()
    _STATE["opencl_touched"] = True
