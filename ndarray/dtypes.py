"""Element types numpy lacks: bfloat16, the float8 family, int4... from ``ml_dtypes``.

``ml_dtypes`` (the package JAX uses) registers them with numpy. It is an optional
dependency: :func:`dtype_named` gives numpy's dtype for a numpy name, ml_dtypes' for one of
its names, and without the package a NotRepresentableError that says to install it.
"""

from __future__ import annotations

import numpy as np

from .errors import NotRepresentableError

__all__ = ["NUMPY_NAMES", "dtype_named", "is_ml_dtype"]

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
