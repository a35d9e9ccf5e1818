"""NdArrays as Arm NN tensors: data types, TensorInfos, and the (counted) dense copies.

Arm NN tensors are dense (C order, no strides, no padding): a dense NdArray is handed over in
place; anything else is staged through a dense buffer, warned about and counted.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Optional, Tuple, Union

import numpy as np

from ndarray import NdArray, NotRepresentableError, ShapeDescriptor
from ndarray.errors import ArgumentTypeError

from ..mapping import check_quantization
from .loader import ArmnnCopyWarning, load

ArrayLike = Union[NdArray, np.ndarray]
Quantization = Optional[Tuple[float, int]]


# ---------------------------------------------------------------------------- data types
# numpy dtype -> pyarmnn DataType attribute name; quantized ones by storage type.
_PLAIN = {np.dtype("float32"): "DataType_Float32", np.dtype("float16"): "DataType_Float16",
          np.dtype("int32"): "DataType_Signed32", np.dtype("bool"): "DataType_Boolean"}
_QUANTIZED = {np.dtype("uint8"): "DataType_QAsymmU8", np.dtype("int8"): "DataType_QAsymmS8",
              np.dtype("int16"): "DataType_QSymmS16"}
_NUMPY_OF = {"DataType_Float32": "float32", "DataType_Float16": "float16", "DataType_Signed32": "int32",
             "DataType_Boolean": "bool", "DataType_QAsymmU8": "uint8", "DataType_QAsymmS8": "int8",
             "DataType_QSymmS8": "int8", "DataType_QSymmS16": "int16"}


def data_type_name(dtype, quantization: Quantization = None) -> str:
    """pyarmnn DataType name for a numpy dtype (+ quantization); NotRepresentableError if none."""
    dt = np.dtype(dtype)
    if dt.byteorder == (">" if np.little_endian else "<"):
        raise NotRepresentableError(f"dtype {dt} is not in native byte order, which Arm NN requires")
    if quantization is None:
        if dt in _PLAIN:
            return _PLAIN[dt]
        hint = " (quantized types need quantization=(scale, offset))" if dt in _QUANTIZED else ""
        raise NotRepresentableError(
            f"dtype {dt} has no Arm NN data type{hint}, expected one of {sorted(t.name for t in _PLAIN)}")
    if dt not in _QUANTIZED:
        raise NotRepresentableError(
            f"dtype {dt} has no quantized Arm NN data type, expected one of {sorted(t.name for t in _QUANTIZED)}")
    scale, offset = check_quantization(quantization, dt)
    if dt == np.dtype("int16") and offset != 0:
        raise NotRepresentableError(f"quantization offset is {offset}, Arm NN's QSymmS16 is symmetric (offset 0)")
    return _QUANTIZED[dt]



def _shape_of(obj) -> Tuple[int, ...]:
    shape = tuple(int(n) for n in obj)
    if any(n <= 0 for n in shape):
        raise NotRepresentableError(f"shape is {shape}, Arm NN tensors need every dimension >= 1")
    if len(shape) > 5:
        raise NotRepresentableError(f"shape {shape} has rank {len(shape)}, Arm NN tensors have at most 5 dimensions")
    return shape or (1,)


def armnn_tensor_info(array_or_descriptor: Union[NdArray, ShapeDescriptor, np.ndarray],
                quantization: Quantization = None, *, constant: bool = False):
    """pyarmnn ``TensorInfo`` for an NdArray / descriptor (Arm NN's shape is numpy's shape,
    outermost first; a scalar becomes (1,)). ``constant`` marks it constant (23.08 needs that
    for ConstTensors; 20.08 has no such flag and ignores it)."""
    ann = load()
    d = _descriptor(array_or_descriptor)
    name = data_type_name(d.dtype, quantization)
    scale, offset = (0.0, 0) if quantization is None else check_quantization(quantization, d.dtype)
    info = ann.TensorInfo(ann.TensorShape(_shape_of(d.shape)), getattr(ann, name), scale, offset)
    if constant and hasattr(info, "SetConstant"):
        info.SetConstant(True)
    return info


def _descriptor(obj) -> ShapeDescriptor:
    if isinstance(obj, NdArray):
        return obj.descriptor
    if isinstance(obj, ShapeDescriptor):
        return obj
    if isinstance(obj, np.ndarray):
        return NdArray.from_numpy(obj).descriptor
    raise ArgumentTypeError(f"expected an NdArray, numpy array or ShapeDescriptor, got {type(obj).__name__}")


def describe(info) -> Tuple[Tuple[int, ...], np.dtype, Quantization]:
    """(shape, numpy dtype, quantization or None) of a pyarmnn TensorInfo."""
    ann = load()
    code = info.GetDataType()
    names = [n for n in _NUMPY_OF if getattr(ann, n, None) == code]
    if not names:
        raise NotRepresentableError(f"Arm NN data type {code} has no numpy equivalent here: {info!r}")
    shape = tuple(int(info.GetShape()[i]) for i in range(info.GetNumDimensions()))
    quantized = names[0] in _QUANTIZED.values() or names[0] == "DataType_QSymmS8"
    quant = (float(info.GetQuantizationScale()), int(info.GetQuantizationOffset())) if quantized else None
    return shape, np.dtype(_NUMPY_OF[names[0]]), quant


def descriptor_from_armnn_info(info) -> Tuple[ShapeDescriptor, Quantization]:
    """The dense C-order ShapeDescriptor of an Arm NN tensor, and its quantization (or None)."""
    shape, dtype, quant = describe(info)
    return ShapeDescriptor.create(shape, dtype), quant


def format_tensor_info(info) -> str:
    """Compact text of a pyarmnn TensorInfo: ``QAsymmU8[1,3,4,4] q=(0.5,10) const``."""
    shape, dtype, quant = describe(info)
    ann = load()
    name = next(n for n in _NUMPY_OF if getattr(ann, n, None) == info.GetDataType()).replace("DataType_", "")
    q = f" q=({quant[0]:g},{quant[1]})" if quant else ""
    const = " const" if hasattr(info, "IsConstant") and info.IsConstant() else ""
    return f"{name}[{','.join(map(str, shape))}]{q}{const}"


# ---------------------------------------------------------------------------- copies
@dataclass(frozen=True)
class CopyStats:
    """Copies the bridge made between NdArrays and Arm NN tensors."""

    copies: int = 0
    bytes_copied: int = 0


_TOTAL = [0, 0]  # copies, bytes (process-wide)


def copy_stats() -> CopyStats:
    """Staged copies made by this module in this process, all bindings together."""
    return CopyStats(*_TOTAL)


def dense_view(array: ArrayLike) -> Optional[np.ndarray]:
    """The NdArray's elements as one C-contiguous numpy array over the SAME memory, or None
    when they are not one dense block (padding, strides) and Arm NN would need a copy."""
    if isinstance(array, np.ndarray):
        view = array
    else:
        view = array.numpy()
    if view.flags.c_contiguous and view.dtype.isnative:
        return view.view()  # a fresh view object: pyarmnn flips writeable on what it gets
    return None


def _staging_reason(array: ArrayLike) -> str:
    if isinstance(array, NdArray):
        d = array.descriptor
        what = "a padded buffer" if d.has_padded_buffer else "not C-contiguous"
        return f"{what}: {d!r}"
    return f"not C-contiguous: shape={array.shape}, strides={array.strides}"


def _as_ndarray(a: ArrayLike, role: str) -> NdArray:
    if isinstance(a, NdArray):
        return a
    if isinstance(a, np.ndarray):
        return NdArray.from_numpy(a)
    raise ArgumentTypeError(f"{role} must be an NdArray or a numpy array, got {type(a).__name__}")


class _Staged:
    """One NdArray and the dense memory Arm NN uses for it (the same memory when possible)."""

    def __init__(self, array: NdArray, role: str, allow_copy: bool):
        self.array = array
        self.role = role
        view = dense_view(array)
        self.in_place = view is not None
        if view is None:
            if not allow_copy:
                raise NotRepresentableError(
                    f"{role}: Arm NN tensors are dense and this NdArray is {_staging_reason(array)}; "
                    f"allow_copy=False")
            view = np.empty(array.shape, array.dtype)
        self.dense = view
        self.reason = None if self.in_place else _staging_reason(array)

    @property
    def nbytes(self) -> int:
        return int(self.dense.nbytes)


def const_tensor(array: ArrayLike, quantization: Quantization = None, *, allow_copy: bool = True):
    """``(ConstTensor, bytes_copied)``: a pyarmnn ConstTensor over the NdArray's memory (0 bytes
    copied) or, for a padded/strided NdArray, over a dense copy (counted, and warned about).

    The ConstTensor keeps a reference to the memory; Arm NN reads it when the tensor is used
    (as a network input on every run; weights are copied by Arm NN when the layer is added).
    """
    ann = load()
    nd = _as_ndarray(array, "const_tensor")
    s = _Staged(nd, "const_tensor", allow_copy)
    copied = 0
    if not s.in_place:
        warnings.warn(ArmnnCopyWarning(f"const_tensor: copying {s.nbytes} bytes into a dense buffer: {s.reason}"),
                      stacklevel=2)
        s.dense[...] = nd.numpy()
        copied = s.nbytes
        _count(copied)
    return ann.ConstTensor(armnn_tensor_info(nd, quantization, constant=True), s.dense.view()), copied


def to_ndarray(tensor) -> NdArray:
    """An NdArray over a pyarmnn Tensor's / ConstTensor's own memory (no copy)."""
    shape = tuple(int(tensor.GetShape()[i]) for i in range(tensor.GetNumDimensions()))
    mem = tensor.get_memory_area()
    return NdArray.from_numpy(mem.reshape(shape))


def _count(nbytes: int) -> None:
    _TOTAL[0] += 1
    _TOTAL[1] += nbytes
