"""The native layer's exceptions and warnings (part of the one hierarchy of ndarray/errors.py).

:func:`acl_bridge.native.check` is the one place a native status becomes one of these.
"""

from __future__ import annotations

from ndarray.errors import AclNdarrayError, IndexOutOfRangeError

from . import abi


class AclError(AclNdarrayError, RuntimeError):
    """A failure reported by the native layer; ``code`` is the shim status, ``message``
    ACL's own text (e.g. ``in validate_arguments src/...Kernel.cpp:86: Tensors have
    different shapes``)."""

    def __init__(self, message: str, code: int = -1, what: str = ""):
        self.code = code
        self.message = message
        self.what = what
        super().__init__(f"{what}: {message}" if what else message)


class AclUnavailableError(AclError):
    """The native module is not available on this machine."""


class AclInvalidArgumentError(AclError):
    """The shim rejected an argument (unknown enum, rank, NULL...)."""


class AclStatusError(AclError):
    """An ACL Status (validate() or import_memory()) was an error."""


class AclExceptionError(AclError):
    """A C++ exception was caught at the ABI boundary."""


class AclOutOfMemoryError(AclError, MemoryError):
    """std::bad_alloc inside ACL or the shim."""


class AclNotImportedError(AclError):
    """run() before every tensor had its memory imported."""


class AclUnsupportedError(AclError):
    """Not available in the ACL version the module was built against."""


class AclNoDeviceError(AclError):
    """No usable OpenCL device: none found, or ACL cannot run its kernels on it (the message
    says what is missing and how to enable acl-ndarray's OpenCL layer)."""


class AclIndexOutOfRangeError(AclError, IndexOutOfRangeError):
    """A run met an index value outside its tensor (gather_nd's runtime indices) and wrote
    nothing: the library's IndexOutOfRangeError, from the native layer."""


# Status name (the header's ACL_SHIM_ERR_*) -> exception class; codes come from the header.
_BY_NAME = {
    "INVALID_ARGUMENT": AclInvalidArgumentError,
    "ACL_STATUS": AclStatusError,
    "EXCEPTION": AclExceptionError,
    "OUT_OF_MEMORY": AclOutOfMemoryError,
    "NOT_IMPORTED": AclNotImportedError,
    "UNSUPPORTED": AclUnsupportedError,
    "NO_DEVICE": AclNoDeviceError,
    "INDEX_OUT_OF_RANGE": AclIndexOutOfRangeError,
}
STATUS_ERRORS = {abi.STATUS[name]: cls for name, cls in _BY_NAME.items() if name in abi.STATUS}


class AclCopyFallbackWarning(UserWarning):
    """A function stages a tensor through a bridge-owned, ACL-padded copy on every run."""
