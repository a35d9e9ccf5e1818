"""The rules a layout must satisfy, and the libnd4j padding recovery (ShapeDescriptor's checks).

* :func:`check_dtype`: numeric or boolean scalar dtypes (and ml_dtypes' bfloat16, float8...);
* :func:`check_bounds`: elements, bytes and byte strides fit int64 (DLPack, numpy's intp);
* :func:`check_inside`: every element of an explicit strided layout lies in its allocation;
* :func:`recover_padding`: the ADR's pseudo-code, strides back to (paddings, padding_offsets);
* :func:`may_overlap`: whether two elements may share an address (stride 0, overlapping strides).

Pure functions of plain values; :mod:`ndarray.descriptor` calls them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from .dtypes import is_ml_dtype
from .errors import InvalidLayoutError
from .strides import Context, context_text as _text, inner_to_outer

__all__ = ["INT64_MAX", "ExplicitLayout", "check_bounds", "check_dtype", "check_inside", "may_overlap", "reach",
           "recover_padding"]

# Above this many logical elements, `overlaps` stops enumerating addresses and answers
# conservatively (True = "may overlap") when the cheap sorted-stride test is inconclusive.
_EXACT_OVERLAP_LIMIT = 1 << 20


#: Every count of elements and of bytes must fit a signed 64-bit integer (DLPack's int64
#: shapes and strides, numpy's intp, ACL's size_t all hold it).
INT64_MAX = 2**63 - 1
@dataclass(frozen=True)
class ExplicitLayout:
    """A strided view that is not a padded buffer: stored as given (all in elements)."""

    strides: Tuple[int, ...]
    offset: int
    alloc_size: int


def check_bounds(shape: Tuple[int, ...], itemsize: int, strides: Sequence[int], alloc_size: Optional[int],
                  context: Context) -> None:
    """Elements, bytes and byte strides must fit int64 (DLPack, numpy's intp, ACL's sizes)."""
    size = math.prod(shape)
    if size > INT64_MAX or size * itemsize > INT64_MAX:
        raise InvalidLayoutError(
            f"shape {shape} has {size} elements ({size * itemsize} bytes), expected at most 2**63 - 1 "
            f"elements and bytes (int64): {_text(context)}"
        )
    for i, s in enumerate(strides):
        if abs(s) * itemsize > INT64_MAX:
            raise InvalidLayoutError(
                f"strides[{i}] is {s} elements ({s * itemsize} bytes), expected |strides_in_bytes| <= 2**63 - 1 "
                f"(int64): {_text(context)}"
            )
    if alloc_size is not None and alloc_size * itemsize > INT64_MAX:
        raise InvalidLayoutError(
            f"alloc_size is {alloc_size} elements ({alloc_size * itemsize} bytes), expected "
            f"alloc_size_in_bytes <= 2**63 - 1 (int64): {_text(context)}"
        )


def check_dtype(dtype: Any, context: Context) -> np.dtype:
    try:
        dt: np.dtype = np.dtype(dtype)
    except TypeError:
        raise InvalidLayoutError(f"dtype {dtype!r} is not a numpy dtype: {_text(context)}") from None
    if (dt.kind not in "biufc" and not is_ml_dtype(dt)) or dt.fields is not None or dt.subdtype is not None:
        raise InvalidLayoutError(
            f"dtype is {dt!r}, expected a numeric or boolean scalar dtype (or one of ml_dtypes'): {_text(context)}"
        )
    return dt


def reach(shape: Sequence[int], strides: Sequence[int]) -> Tuple[int, int]:
    """(lowest, highest) element offset reachable from element 0, relative to element 0."""
    if math.prod(shape) == 0:
        return 0, -1
    low = sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    return low, high


def check_inside(shape: Tuple[int, ...], layout: ExplicitLayout, context: Context) -> None:
    """Refuse any layout that would reach outside its allocation."""
    if layout.alloc_size < 0:
        raise InvalidLayoutError(f"alloc_size is {layout.alloc_size}, expected >= 0: {_text(context)}")
    if math.prod(shape) == 0:
        return
    low, high = reach(shape, layout.strides)
    if layout.offset + low < 0:
        raise InvalidLayoutError(
            f"offset {layout.offset} with strides {layout.strides} reaches element {layout.offset + low}, "
            f"before the start of the allocation (expected >= 0): {_text(context)}"
        )
    if layout.offset + high >= layout.alloc_size:
        raise InvalidLayoutError(
            f"offset {layout.offset} with strides {layout.strides} reaches element {layout.offset + high}, "
            f"past the end of the allocation of alloc_size {layout.alloc_size} "
            f"(expected < {layout.alloc_size}): {_text(context)}"
        )


def recover_padding(
    shape: Sequence[int], strides: Sequence[int], offset: int, alloc_size: int, order: str
) -> Optional[Tuple[Tuple[int, ...], Tuple[int, ...]]]:
    """(paddings, padding_offsets) when ``strides`` describe a padded buffer, else None.

    The ADR's pseudo-code, for order 'c' (order 'f' reads the dimensions the other way)::

        shapesAfterPadding[j] = strides[j - 1] / strides[j]      for j = rank-1 .. 1
        shapesAfterPadding[0] = allocSize / strides[0]
        paddings[j] = shapesAfterPadding[j] - shape[j]

    The ADR notes padding offsets cannot be read off the offset in general; with every
    padding offset bounded by its padding they can: they are the digits of ``offset`` in
    the mixed radix ``padded_shape`` (innermost digit first), and this function requires
    that decomposition to land every element inside the padded box.
    """
    rank = len(shape)
    if rank == 0 or any(n == 0 for n in shape):
        # rank 0: only offset 0 in a 1-element buffer is a "padded buffer" (with nothing padded)
        ok = rank == 0 and offset == 0 and alloc_size == 1
        return ((), ()) if ok else None
    dims = list(inner_to_outer(rank, order))
    if strides[dims[0]] != 1:
        return None
    padded = [0] * rank
    for inner, outer in zip(dims, dims[1:]):
        if strides[inner] <= 0 or strides[outer] % strides[inner]:
            return None
        padded[inner] = strides[outer] // strides[inner]
    last = dims[-1]
    if strides[last] <= 0 or alloc_size % strides[last]:
        return None
    padded[last] = alloc_size // strides[last]
    if any(p < n for p, n in zip(padded, shape)):
        return None
    offsets = [0] * rank
    rest = offset
    for d in dims[:-1]:
        rest, offsets[d] = divmod(rest, padded[d])
    offsets[last] = rest
    if any(o + n > p for o, n, p in zip(offsets, shape, padded)):
        return None
    return tuple(p - n for p, n in zip(padded, shape)), tuple(offsets)


def may_overlap(shape: Sequence[int], strides: Sequence[int]) -> bool:
    if math.prod(shape) == 0:  # no two elements to share an address
        return False
    dims = sorted((abs(s), n) for n, s in zip(shape, strides) if n > 1)
    if not dims:
        return False
    if dims[0][0] == 0:
        return True
    # Sufficient test: each stride clears the whole extent of the faster dimensions.
    extent = 1
    for s, n in dims:
        if s < extent:
            break
        extent += s * (n - 1)
    else:
        return False
    size = math.prod(n for _, n in dims)
    if size > _EXACT_OVERLAP_LIMIT:
        return True
    addresses = np.zeros((), dtype=np.int64)
    for s, n in dims:
        addresses = np.add.outer(addresses, np.arange(n, dtype=np.int64) * s)
    return np.unique(addresses).size != size
