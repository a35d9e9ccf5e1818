"""Where an NdArray's bytes come from: aligned fresh allocations, the dense numpy buffer a
view belongs to, which cells of an allocation hold elements, and what memory is refused
(a masked array: an NdArray has no mask, so its mask would be dropped silently).

Helpers of :mod:`ndarray.array`; plain numpy, no NdArray.
"""

from __future__ import annotations

import sys
from typing import Optional, Tuple

import numpy as np

from .descriptor import ShapeDescriptor
from .errors import InvalidLayoutError, NotRepresentableError
from .strides import as_int

__all__ = ["DEFAULT_ALIGNMENT_IN_BYTES", "address", "aligned_bytes", "dense_owner", "element_mask",
           "read_only_bytes", "refuse_masked"]

DEFAULT_ALIGNMENT_IN_BYTES = 64


def aligned_bytes(size_in_bytes: int, alignment_in_bytes: int, *, zero: bool = False) -> np.ndarray:
    """A fresh uint8 array of ``size_in_bytes`` whose first byte is aligned (zeroed if asked)."""
    alignment_in_bytes = as_int(alignment_in_bytes, "alignment_in_bytes")
    if alignment_in_bytes <= 0 or alignment_in_bytes & (alignment_in_bytes - 1):
        raise InvalidLayoutError(f"alignment_in_bytes is {alignment_in_bytes}, expected a power of two")
    raw = (np.zeros if zero else np.empty)(size_in_bytes + alignment_in_bytes, dtype=np.uint8)
    start = (-raw.ctypes.data) % alignment_in_bytes
    return raw[start : start + size_in_bytes]


def read_only_bytes(allocation: np.ndarray) -> np.ndarray:
    """The same bytes, read-only for good. numpy lets anyone flag a view of writeable memory
    writeable again (``v.flags.writeable = True``); memory exported read-only cannot be."""
    owner = allocation
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if isinstance(owner.base, memoryview) and owner.base.readonly:
        return allocation  # made here already
    if isinstance(owner.base, bytes):  # immutable (a model file's): numpy refuses to flag any view writeable
        return allocation
    return np.frombuffer(allocation.data.toreadonly(), np.uint8)


def address(arr: np.ndarray) -> int:
    return int(arr.__array_interface__["data"][0])


def dense_owner(arr: np.ndarray) -> Optional[np.ndarray]:
    """The dense numpy array whose buffer ``arr`` views, when its size suits ``arr``'s dtype."""
    owner = arr
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if owner is arr or not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        return None
    itemsize, start = arr.dtype.itemsize, address(owner)
    if owner.nbytes % itemsize or (address(arr) - start) % itemsize:
        return None
    low, high = byte_reach(arr)
    if not (start <= address(arr) + low and address(arr) + high <= start + owner.nbytes):
        return None
    return owner


def byte_reach(arr: np.ndarray) -> Tuple[int, int]:
    """(lowest, one past the highest) byte any element of ``arr`` occupies, relative to element 0."""
    low = sum((n - 1) * s for n, s in zip(arr.shape, arr.strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(arr.shape, arr.strides) if s > 0)
    return low, high + arr.dtype.itemsize


def element_mask(d: ShapeDescriptor) -> np.ndarray:
    """Boolean array over the allocation (in elements): True where an element of ``d`` lives."""
    mask = np.zeros(d.alloc_size, dtype=bool)
    if d.size:
        index = np.lib.stride_tricks.as_strided(
            np.arange(d.alloc_size, dtype=np.int64)[d.offset:], shape=d.shape,
            strides=tuple(s * 8 for s in d.strides))
        mask[index.reshape(-1)] = True
    return mask


def refuse_masked(obj: object, call: str) -> None:
    """NotRepresentableError for a ``numpy.ma.MaskedArray`` given to ``call``: an NdArray
    has no mask, so wrapping the data would drop it. The message names the two explicit ways:
    ``x.filled(value)`` (masked elements replaced) or ``np.ma.getdata(x)`` (the mask ignored).
    Where ``numpy.ma`` was never imported no masked array exists, and it is not imported here
    (numpy 2 imports it when first named: 0.1 s of a model's first start under emulation)."""
    ma = sys.modules.get("numpy.ma")
    if ma is not None and isinstance(obj, ma.MaskedArray):
        masked = int(np.count_nonzero(ma.getmaskarray(obj)))
        raise NotRepresentableError(
            f"{call} got a numpy.ma.MaskedArray of shape {obj.shape} with {masked} masked element"
            f"{'' if masked == 1 else 's'}, expected a numpy.ndarray: an NdArray has no mask, so the mask would be "
            f"lost; pass x.filled(value) to replace the masked elements, or np.ma.getdata(x) to ignore the mask"
        )
