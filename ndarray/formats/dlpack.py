"""DLPack exchange: ``NdArray.__dlpack__`` / ``__dlpack_device__`` and :func:`from_dlpack`.

DLPack describes a tensor by a data pointer, a ``byte_offset`` to element 0, a shape and
strides "in number of elements, not bytes" (dlpack.h). It has no notion of an allocation
size or of padding: a padded buffer crosses as larger strides. What comes back wraps only
the bytes DLPack vouches for (from the lowest to the highest element), so its descriptor is
an explicit strided layout whose allocation ends at the last element; reading past it to
restore the outermost padding would touch memory the producer never offered.

Import: numpy is the capsule consumer (``np.from_dlpack``, numpy >= 1.22) for the dtypes it
knows; it honours ``byte_offset`` and strides and keeps the producer's memory alive. For the
types numpy lacks (bfloat16, the float8 family: DLPack codes kDLBfloat, kDLFloat8_*), this
module reads the legacy ``dltensor`` capsule itself and gives the memory the matching
``ml_dtypes`` dtype (the package JAX uses; an optional dependency: without it, a
NotRepresentableError says to install it). Size-0 tensors keep their shape and strides.

Export: ``NdArray.__dlpack__`` is numpy's export of the elements, except that negative
strides are refused with BufferError (PyTorch's importer aborts the process on them), and
ml_dtypes dtypes cannot be exported (numpy's BufferError).
"""

from __future__ import annotations

import ctypes
import math
from typing import Any, Dict, Tuple

import numpy as np

from ..array import NdArray
from ..dtypes import dtype_named
from ..errors import NotRepresentableError
from ..memory import refuse_masked
from ..strides import dense_strides

KDL_CPU = 1

# DLDataTypeCode (dlpack.h, v1.1) -> ml_dtypes name, for the codes numpy cannot import.
_ML_DTYPES_OF_CODE: Dict[Tuple[int, int], str] = {
    (4, 16): "bfloat16",
    (7, 8): "float8_e3m4",
    (8, 8): "float8_e4m3",
    (9, 8): "float8_e4m3b11fnuz",
    (10, 8): "float8_e4m3fn",
    (11, 8): "float8_e4m3fnuz",
    (12, 8): "float8_e5m2",
    (13, 8): "float8_e5m2fnuz",
    (14, 8): "float8_e8m0fnu",
}


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    pass


# DLDataTypeCode -> numpy, for what numpy imports itself (kDLInt 0, kDLUInt 1, kDLFloat 2,
# kDLComplex 5, kDLBool 6).
_NUMPY_OF_CODE: Dict[Tuple[int, int], str] = {
    **{(0, b): f"int{b}" for b in (8, 16, 32, 64)}, **{(1, b): f"uint{b}" for b in (8, 16, 32, 64)},
    **{(2, b): f"float{b}" for b in (16, 32, 64)}, (5, 64): "complex64", (5, 128): "complex128", (6, 8): "bool",
}

_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
_is_valid = ctypes.pythonapi.PyCapsule_IsValid
_is_valid.restype, _is_valid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
_set_name = ctypes.pythonapi.PyCapsule_SetName
_set_name.restype, _set_name.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
_DLTENSOR, _USED_DLTENSOR = b"dltensor", b"used_dltensor"  # module constants: the names must outlive capsules


class _Owner:
    """Holds a consumed DLManagedTensor; calls its deleter once, when the memory is released."""

    def __init__(self, managed: Any) -> None:
        self._managed = managed

    def __del__(self) -> None:
        managed, self._managed = self._managed, None
        if managed is not None and managed.contents.deleter:
            managed.contents.deleter(managed)


def from_dlpack(obj: Any) -> NdArray:
    """Wrap any DLPack producer on the CPU (numpy arrays, NdArrays, torch tensors, JAX arrays...);
    a numpy masked array is refused (its ``__dlpack__`` would hand over the data without the mask)."""
    refuse_masked(obj, "from_dlpack")
    device = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else (KDL_CPU, 0)
    if int(device[0]) != KDL_CPU:
        raise NotRepresentableError(
            f"__dlpack_device__ is {tuple(device)}, expected a CPU device ({KDL_CPU}, 0): {type(obj).__name__}"
        )
    capsule = obj.__dlpack__()
    managed = _managed_tensor(capsule, type(obj).__name__)
    t = managed.contents.dl_tensor
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = _strides(t, shape)
    key = (t.dtype.code, t.dtype.bits)
    if math.prod(shape) == 0:  # no memory to keep: numpy would drop the strides
        dtype = _dtype_of(key, t.dtype.lanes, type(obj).__name__)
        return NdArray.from_numpy(np.ndarray(shape, dtype, buffer=np.empty(0, np.uint8),
                                             strides=tuple(s * dtype.itemsize for s in strides)))
    if key not in _ML_DTYPES_OF_CODE:
        del capsule  # unused: its destructor releases it
        return NdArray.from_numpy(np.from_dlpack(obj))  # numpy's well-trodden import
    return NdArray.from_numpy(_consume(capsule, managed, shape, strides, _dtype_of(key, t.dtype.lanes, type(obj).__name__)))


def _managed_tensor(capsule: Any, producer: str) -> Any:
    if not _is_valid(capsule, _DLTENSOR):
        raise NotRepresentableError(f"__dlpack__() of {producer} did not return an unused 'dltensor' capsule")
    return ctypes.cast(_get_pointer(capsule, _DLTENSOR), ctypes.POINTER(_DLManagedTensor))


def _strides(t: Any, shape: Tuple[int, ...]) -> Tuple[int, ...]:
    """Element strides; NULL means compact row-major (dlpack.h)."""
    if t.strides:
        return tuple(t.strides[i] for i in range(len(shape)))
    return dense_strides(shape, "c")


def _dtype_of(key: Tuple[int, int], lanes: int, producer: str) -> np.dtype:
    code, bits = key
    if lanes == 1 and key in _NUMPY_OF_CODE:
        return np.dtype(_NUMPY_OF_CODE[key])
    name = _ML_DTYPES_OF_CODE.get(key)
    if name is None or lanes != 1:
        known = sorted(set(_NUMPY_OF_CODE) | set(_ML_DTYPES_OF_CODE))
        raise NotRepresentableError(
            f"DLPack dtype (code={code}, bits={bits}, lanes={lanes}) of {producer} has no numpy or ml_dtypes "
            f"dtype, expected one of {known} (code, bits) with lanes=1"
        )
    return dtype_named(name, f"DLPack dtype {name} of {producer}")


def _consume(capsule: Any, managed: Any, shape: Tuple[int, ...], strides: Tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """numpy array over the memory of a ``dltensor`` capsule, which this call takes over."""
    t = managed.contents.dl_tensor
    _set_name(capsule, _USED_DLTENSOR)  # ours now: the capsule's destructor must not free it
    owner = _Owner(managed)
    itemsize = dtype.itemsize
    low = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    start = (t.data or 0) + t.byte_offset + low * itemsize
    raw = (ctypes.c_ubyte * ((high - low + 1) * itemsize)).from_address(start)
    raw._owner = owner  # type: ignore[attr-defined]  # the producer's memory lives as long as raw
    return np.ndarray(shape, dtype, buffer=memoryview(raw), offset=-low * itemsize, strides=tuple(s * itemsize for s in strides))
