"""Zero-copy Arm Compute Library tensors over NdArray memory.

The pure mapping (``tensor_info``, ``auto_padding``, ``extend_padding``,
``descriptor_from_tensor_info``) works on any machine; the native part (cffi over ACL's C++
API) exists only where it was built against ACL, and ``native_available()`` says why not.
"""

from .mapping import (
    AclTensorInfo,
    PaddingSize,
    auto_padding,
    descriptor_from_tensor_info,
    extend_padding,
    padded_descriptor,
    tensor_info,
)

try:
    from .native import native_available  # noqa: F401  (native.py imports without ACL)
except ImportError as _e:  # native.py not there: a source tree without the native layer
    _reason = f"acl_bridge.native could not be imported: {_e}"

    def native_available():
        """(False, reason): the native layer is missing from this installation."""
        return False, _reason

__all__ = [
    "AclTensorInfo",
    "PaddingSize",
    "auto_padding",
    "descriptor_from_tensor_info",
    "extend_padding",
    "padded_descriptor",
    "tensor_info",
    "native_available",
]
