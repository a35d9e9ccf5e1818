"""Element types: the names numpy lacks (bfloat16, the float8 family, int4... from
``ml_dtypes``) and the one rule for byte order.

``ml_dtypes`` (the package JAX uses) registers them with numpy. It is an optional
dependency: :func:`dtype_named` gives numpy's dtype for a numpy name, ml_dtypes' for one of
its names, and without the package a NotRepresentableError that says to install it.

Byte order: a descriptor keeps its dtype's byte order (numpy memory may be big-endian, and
``from_numpy`` describes it as it is); :func:`dtype_text` prints it wherever a dtype is
named (``>f4``, never a bare ``float32`` that would hide it), and a target without a byte
order field (ACL, libnd4j's shapeInfo, DLPack) refuses a non-native one with
:func:`require_native_byte_order`.
"""

from __future__ import annotations

import numpy as np

from .errors import NotRepresentableError

__all__ = ["NUMPY_NAMES", "dtype_named", "dtype_text", "is_ml_dtype", "require_native_byte_order"]

#: The scalar types numpy has itself (by name).
NUMPY_NAMES = frozenset({"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                         "float16", "float32", "float64", "complex64", "complex128"})


def is_ml_dtype(dt: np.dtype) -> bool:
    """True for a dtype registered by ml_dtypes (bfloat16, float8_e4m3fn, int4...)."""
    return type(dt).__module__.startswith("ml_dtypes") or getattr(dt.type, "__module__", "").startswith("ml_dtypes")


def dtype_named(name: str, what: str) -> np.dtype:
    """numpy's dtype ``name``, or ml_dtypes' for the types numpy lacks; ``what`` names the
    thing that needs it in the error."""
    if name in NUMPY_NAMES:
        return np.dtype(name)
    try:
        import ml_dtypes
    except ImportError:
        raise NotRepresentableError(
            f"{what} needs dtype {name}, which numpy lacks: install ml_dtypes (the package JAX uses) to get it"
        ) from None
    dtype: np.dtype = np.dtype(getattr(ml_dtypes, name))
    return dtype


def dtype_text(dt: np.dtype) -> str:
    """The dtype's name (``float32``), or numpy's code with its byte order (``>f4``) when that
    is not the machine's: two dtypes that differ print differently."""
    return dt.name if dt.isnative else dt.str


def require_native_byte_order(dt: np.dtype, target: str, context: str = "") -> None:
    """Refuse, with NotRepresentableError naming the field, a dtype whose byte order is not
    the machine's: ``target`` (ACL, shapeInfo...) has no field to say it."""
    if not dt.isnative:
        native = "little" if np.little_endian else "big"
        raise NotRepresentableError(
            f"dtype is {dt.str} ({'big' if native == 'little' else 'little'}-endian), expected the machine's "
            f"{native}-endian byte order: {target} has no byte order field (convert with "
            f"x.astype(x.dtype.newbyteorder('='))){': ' + context if context else ''}"
        )
