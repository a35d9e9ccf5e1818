"""DirectML's data types and size rules: the DirectMLX helpers, as plain functions.

``data_type_name`` / ``element_size_in_bytes`` (DML_TENSOR_DATA_TYPE_*), the checks on sizes
and strides (unsigned 32-bit, 1 to 8 dimensions, no size 0), the stride policies
(``packed_strides``, ``nhwc_strides``, ``calculate_strides``) and ``DMLCalcBufferTensorSize``
(``calc_buffer_tensor_size``). :class:`ndarray.formats.directml.BufferTensorDesc` builds on them;
import them from :mod:`ndarray.formats.directml`.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, Optional, Sequence, Tuple

import numpy as np

from ..dtypes import require_native_byte_order
from ..errors import ArgumentTypeError, InvalidLayoutError, NotRepresentableError
from ..strides import as_int, dense_strides

_PREFIX = "DML_TENSOR_DATA_TYPE_"

#: Short DirectML data type name -> numpy dtype, i.e. every DML_TENSOR_DATA_TYPE with a
#: whole-byte element (DirectMLX.h's DMLCalcBufferTensorSize sizes exactly these).
DATA_TYPES: Dict[str, np.dtype] = {
    "FLOAT32": np.dtype(np.float32),
    "FLOAT16": np.dtype(np.float16),
    "UINT32": np.dtype(np.uint32),
    "UINT16": np.dtype(np.uint16),
    "UINT8": np.dtype(np.uint8),
    "INT32": np.dtype(np.int32),
    "INT16": np.dtype(np.int16),
    "INT8": np.dtype(np.int8),
    "FLOAT64": np.dtype(np.float64),
    "UINT64": np.dtype(np.uint64),
    "INT64": np.dtype(np.int64),
}
# Real DirectML types (DML_TARGET_VERSION >= 0x6300) with 4-bit elements: valid, but there
# is no numpy dtype and no element address for them, so this library cannot express them.
_SUB_BYTE_TYPES = ("UINT4", "INT4")

#: DML_TENSOR_DIMENSION_COUNT_MAX1: DimensionCount ranges from 1 to 8.
MAX_DIMENSION_COUNT = 8
_UINT32_MAX = 2**32 - 1


# --------------------------------------------------------------------------- data types


def data_type_name(data_type: Any) -> str:
    """Canonical ``DML_TENSOR_DATA_TYPE_*`` name for ``data_type``.

    Accepts the full DirectML name ("DML_TENSOR_DATA_TYPE_FLOAT32"), the short one
    ("FLOAT32", any case) and numpy dtypes (np.float32, np.dtype("f4"), "float32", "<f4").

    InvalidLayoutError: not a data type at all (names the value and the accepted names).
    NotRepresentableError: a real type DirectML or this library cannot express (numpy
    bool/complex/big-endian; DirectML's 4-bit UINT4/INT4).
    """
    accepted = f"one of {', '.join(DATA_TYPES)} (with or without the {_PREFIX} prefix) or the matching numpy dtype"
    if isinstance(data_type, str):
        key = data_type.upper()
        if key.startswith(_PREFIX):
            key = key[len(_PREFIX):]
        if key in DATA_TYPES:
            return _PREFIX + key
        if key in _SUB_BYTE_TYPES:
            raise NotRepresentableError(
                f"data_type is {data_type!r}, a 4-bit DirectML type: elements smaller than a byte "
                f"have no numpy dtype or element offset; expected {accepted}"
            )
    if data_type is None or isinstance(data_type, (bool, int, float)):
        # np.dtype(None) is float64 and np.dtype(int) works on the *type*: refuse values.
        raise ArgumentTypeError(f"data_type is {data_type!r} but expected {accepted}")
    try:
        dt = np.dtype(data_type)
    except (TypeError, ValueError):
        error = InvalidLayoutError if isinstance(data_type, str) else ArgumentTypeError
        raise error(f"data_type is {data_type!r} but expected {accepted}") from None
    require_native_byte_order(dt, "DirectML's data type", f"data_type={data_type!r}")
    for name, candidate in DATA_TYPES.items():
        if dt == candidate:
            return _PREFIX + name
    raise NotRepresentableError(
        f"data_type is numpy {dt!r} ({dt.str}), which has no DirectML equivalent; expected {accepted}"
    )


def _short(name: str) -> str:
    return name[len(_PREFIX):]


def _numpy_dtype(data_type: Any) -> np.dtype:
    dtype: np.dtype = DATA_TYPES[_short(data_type_name(data_type))]
    return dtype


def element_size_in_bytes(data_type: Any) -> int:
    """Bytes per element: 8 for *64, 4 for FLOAT32/UINT32/INT32, 2 for *16, 1 for *8."""
    return _numpy_dtype(data_type).itemsize


# --------------------------------------------------------------------------- validation


def _uints(values: Iterable[Any], field: str, context: str, *, minimum: int) -> tuple[int, ...]:
    """Tuple of ints in [minimum, 2**32 - 1] (DirectML's UINT arrays)."""
    try:
        items = tuple(values)
    except TypeError:
        raise InvalidLayoutError(f"{field} is {values!r} but expected a sequence of integers: {context}") from None
    out = []
    for i, v in enumerate(items):
        n = as_int(v, f"{field}[{i}]", context)
        if not minimum <= n <= _UINT32_MAX:
            raise InvalidLayoutError(
                f"{field}[{i}] is {n} but expected {minimum} <= {field}[{i}] <= {_UINT32_MAX} "
                f"(a DirectML UINT{', and a size of 0 is invalid' if minimum else ''}): {context}"
            )
        out.append(n)
    return tuple(out)


def _check_sizes_strides(
    sizes: Iterable[Any], strides: Optional[Iterable[Any]]
) -> tuple[tuple[int, ...], Optional[tuple[int, ...]]]:
    sizes_t = _as_tuple(sizes, "sizes")
    strides_t = None if strides is None else _as_tuple(strides, "strides")
    context = f"sizes={_plain(sizes_t)}" + ("" if strides_t is None else f", strides={_plain(strides_t)}")
    sizes_t = _uints(sizes_t, "sizes", context, minimum=1)
    if not sizes_t:
        raise InvalidLayoutError(
            f"sizes is empty but DirectML's DimensionCount must be 1..{MAX_DIMENSION_COUNT} "
            f"(a scalar is sizes=(1,)): {context}"
        )
    if len(sizes_t) > MAX_DIMENSION_COUNT:
        raise NotRepresentableError(
            f"sizes has rank {len(sizes_t)} but DirectML tensors have at most "
            f"{MAX_DIMENSION_COUNT} dimensions: {context}"
        )
    if strides_t is not None:
        if len(strides_t) != len(sizes_t):
            raise InvalidLayoutError(
                f"strides has {len(strides_t)} entries but sizes has rank {len(sizes_t)}: {context}"
            )
        strides_t = _uints(strides_t, "strides", context, minimum=0)
    return sizes_t, strides_t


def _plain(values: Tuple[Any, ...]) -> Tuple[Any, ...]:
    """For messages: numpy integers shown as plain ints ((1, 2) rather than (np.int64(1), ...))."""
    return tuple(int(v) if isinstance(v, np.integer) else v for v in values)


def _as_tuple(values: Any, field: str) -> Tuple[Any, ...]:
    if isinstance(values, (str, bytes)):
        raise InvalidLayoutError(f"{field} is {values!r} but expected a sequence of integers")
    try:
        return tuple(values)
    except TypeError:
        raise InvalidLayoutError(f"{field} is {values!r} but expected a sequence of integers") from None


# --------------------------------------------------------------------------- strides


def packed_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    """Packed (row-major, "NCHW") strides in elements: each stride is the product of the
    sizes of the lower-order dimensions, ``strides[i] = prod(sizes[i+1:])``.

    DHW {2, 2, 3} -> {6, 3, 1}; NCHW {1, 1, 3, 5} -> {15, 15, 5, 1}.
    """
    sizes, _ = _check_sizes_strides(sizes, None)
    return dense_strides(sizes, "c")


def nhwc_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    """Interleaved-channel strides for NCHW-ORDERED sizes (NCW -> NWC, NCHW -> NHWC,
    NCDHW -> NDHWC), as DirectMLX's InterleavedChannel tensor policy computes them::

        C-stride = 1
        spatial strides, innermost first: stride = C-size; for i = last .. 2:
            strides[i] = stride; stride *= sizes[i]
        N-stride = product of all other sizes

    NCHW {1, 1, 3, 5} -> {15, 1, 5, 1} (seeds/000, "NHWC empacotado").
    Rank 1 is just {1}; rank 2 (N, C) is the same as packed.
    """
    sizes, _ = _check_sizes_strides(sizes, None)
    rank = len(sizes)
    if rank <= 2:
        return packed_strides(sizes)
    # innermost first: C, then the spatial dimensions from the last, then N
    return dense_strides(sizes, (1, *range(rank - 1, 1, -1), 0))


def calculate_strides(
    sizes: Sequence[int], layout: str = "NCHW", broadcast: Iterable[int] = ()
) -> tuple[int, ...]:
    """Strides for NCHW-ordered ``sizes`` in ``layout`` ("NCHW" packed, or "NHWC"
    interleaved channels; "NCDHW"/"NDHWC" are accepted as the same two layouts for 5-D),
    with the dimensions listed in ``broadcast`` given stride 0.

    As in DirectML's CalculateStrides helper, a broadcast dimension counts as size 1 when
    the other strides are computed, so the buffer holds only the distinct elements:
    2x3 broadcast along H: ``calculate_strides((2, 3), broadcast=(0,))`` -> (0, 1).
    """
    sizes, _ = _check_sizes_strides(sizes, None)
    rank = len(sizes)
    bcast = tuple(_as_tuple(broadcast, "broadcast"))
    for i, axis in enumerate(bcast):
        axis = as_int(axis, f"broadcast[{i}]", f"sizes={sizes}, broadcast={bcast}")
        if not 0 <= axis < rank:
            raise InvalidLayoutError(
                f"broadcast has entry {axis!r} but expected dimension indices 0 <= axis < {rank}: "
                f"sizes={sizes}, broadcast={bcast}"
            )
    physical = tuple(1 if i in bcast else n for i, n in enumerate(sizes))
    key = str(layout).upper()
    if key in ("NCHW", "NCDHW"):
        strides = packed_strides(physical)
    elif key in ("NHWC", "NDHWC"):
        strides = nhwc_strides(physical)
    else:
        raise InvalidLayoutError(
            f"layout is {layout!r} but expected 'NCHW' or 'NHWC' ('NCDHW'/'NDHWC' for 5-D): "
            f"sizes={sizes}"
        )
    return tuple(0 if i in bcast else s for i, s in enumerate(strides))


# --------------------------------------------------------------------------- sizes


def index_of_last_element(sizes: Sequence[int], strides: Optional[Sequence[int]] = None) -> int:
    """``dot(sizes - 1, strides)``: element offset of the last element (packed if no strides)."""
    sizes, strides = _check_sizes_strides(sizes, strides)
    if strides is None:
        return math.prod(sizes) - 1
    return sum((n - 1) * s for n, s in zip(sizes, strides))


def calc_buffer_tensor_size(
    data_type: Any, sizes: Sequence[int], strides: Optional[Sequence[int]] = None
) -> int:
    """``DMLCalcBufferTensorSize``: minimum BYTES of a buffer holding this tensor::

        IndexOfLastElement = dot(Sizes - 1, Strides)
        MinimumImpliedSizeInBytes = roundup((IndexOfLastElement + 1) * ElementSizeInBytes, 4)

    Without strides, DirectML's helper uses prod(Sizes) * ElementSizeInBytes, which is the
    same number for packed strides. The rounding to 4 is there because every buffer bound
    to DirectML must have a DWORD-aligned size: ``(bytes + 3) & ~3``.

    Differences from the C++ helper: an unknown data type raises InvalidLayoutError instead
    of returning 0, and the arithmetic is exact (the helper sums the index in a 32-bit UINT).
    Trailing padding after the last element is not counted: the padded 2x3 "ABCxxDEFxx"
    with strides {5, 1} needs (5 + 2 + 1) elements, 8 bytes as UINT8, 32 as FLOAT32.
    """
    element_size = element_size_in_bytes(data_type)
    last = index_of_last_element(sizes, strides)
    size_in_bytes = (last + 1) * element_size
    return (size_in_bytes + 3) & ~3
