"""PyTorch memory formats: ``contiguous``, ``channels_last``, ``channels_last_3d``.

A PyTorch tensor is (storage, shape, strides); strides are in ELEMENTS, outermost first,
exactly like ``ShapeDescriptor.strides``. A *memory format* is not stored anywhere: it is
only a name for a family of stride patterns (c10/core/MemoryFormat.h). This module gives:

* ``strides_for(shape, memory_format)`` -- the strides PyTorch allocates for that format;
* ``is_contiguous(shape, strides, memory_format)`` -- ``Tensor.is_contiguous(memory_format=)``;
* ``suggest_memory_format(shape, strides)`` -- ``Tensor.suggest_memory_format()``;
* ``permute_layout`` / ``transpose_layout`` -- what ``Tensor.permute`` / ``transpose`` do to
  (shape, strides): no element moves;
* ``permute(array, dims)`` -- the same on an ``NdArray``, zero-copy (shares the allocation);
* ``to_memory_format(array, memory_format)`` -- ``Tensor.contiguous(memory_format=)``:
  an explicit COPY into a new ``NdArray``, same shape and values, new strides.

The rules are PyTorch's own (c10 ``Contiguity.h``, ``MemoryFormat.h``, ``TensorImpl``),
re-derived here in numpy terms; the comments next to each loop give the formula.

Dimension names: 4-D tensors are (N, C, H, W) and 5-D tensors (N, C, D, H, W) in *logical*
order whatever the memory format; the memory format only changes the strides.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import numpy as np

from ..array import NdArray
from ..descriptor import ShapeDescriptor
from ..errors import ArgumentTypeError, InvalidLayoutError, NotRepresentableError
from ..strides import (
    CHANNELS_LAST_INNER_TO_OUTER as _INNER_TO_OUTER,
    MEMORY_FORMATS,
    REQUIRED_RANK as _REQUIRED_RANK,
    as_int_tuple,
    normalize_memory_format,
    strides_for,
)

__all__ = [
    "MEMORY_FORMATS",
    "normalize_memory_format",
    "strides_for",
    "is_contiguous",
    "is_channels_last_strides",
    "suggest_memory_format",
    "permute_layout",
    "transpose_layout",
    "permute",
    "nchw_to_nhwc_view",
    "to_channels_last_memory",
    "layout_advice",
    "to_memory_format",
]


# --------------------------------------------------------------------------- validation
def _as_dims(values: Iterable[Any], field: str) -> tuple[int, ...]:
    """Tuple of python ints (the project's integer rule: bool and floats refused)."""
    return as_int_tuple(values, field)


def _check_shape(shape: Iterable[Any]) -> tuple[int, ...]:
    shape = _as_dims(shape, "shape")
    for i, n in enumerate(shape):
        if n < 0:
            raise InvalidLayoutError(
                f"shape[{i}] is {n} but expected a size >= 0: shape={shape}"
            )
    return shape


def _check_shape_strides(
    shape: Iterable[Any], strides: Iterable[Any]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    shape = _check_shape(shape)
    strides = _as_dims(strides, "strides")
    if len(strides) != len(shape):
        raise InvalidLayoutError(
            f"strides has {len(strides)} entries but shape has rank {len(shape)}: "
            f"shape={shape}, strides={strides}"
        )
    return shape, strides


# --------------------------------------------------------------------------- predicates


def is_contiguous(
    shape: Sequence[int], strides: Sequence[int], memory_format: Any = "contiguous"
) -> bool:
    """``Tensor.is_contiguous(memory_format=...)`` for a tensor with this shape and strides.

    contiguous (c10 _compute_contiguous):
        True if numel == 0; otherwise walking d from the last dimension to the first,
        every dimension with shape[d] != 1 must have strides[d] == expected, where
        expected starts at 1 and is multiplied by shape[d]. Strides of size-1 dimensions
        are ignored (they never change an address).
    channels_last / channels_last_3d (c10 _compute_channels_last_contiguous_2d/3d):
        the same walk over d in (1, 3, 2, 0) / (1, 4, 3, 2, 0), again skipping size-1
        dimensions (no numel == 0 shortcut). Any other rank is simply not
        channels-last contiguous: False, as in PyTorch (no error).
    """
    fmt = normalize_memory_format(memory_format)
    shape, strides = _check_shape_strides(shape, strides)
    if fmt == "contiguous":
        if math.prod(shape) == 0:
            return True
        order: Iterable[int] = reversed(range(len(shape)))
    else:
        if len(shape) != _REQUIRED_RANK[fmt]:
            return False
        order = _INNER_TO_OUTER[fmt]
    expected = 1
    for d in order:
        if shape[d] == 1:
            continue
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def is_channels_last_strides(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """c10 ``is_channels_last_strides_2d`` (rank 4) / ``_3d`` (rank 5): do the strides
    *look like* channels-last (not necessarily dense)? Other ranks: False.

    PyTorch's heuristic, walking d in (1, 3, 2, 0) (or (1, 4, 3, 2, 0)) with min = 0:
      * strides[1] == 0 (broadcast channel) -> False, default to NCHW;
      * any shape[d] == 0 -> False;
      * strides[d] < min -> False (strides must not decrease along the walk);
      * at d == 0 (N, visited last), ``min == strides[1]`` -> False: ambiguous N111-like
        tensors ([N,1,1,1]@[X,X,X,X]) default to NCHW;
      * min = strides[d] * (shape[d] if shape[d] > 1 else 1).
    """
    shape, strides = _check_shape_strides(shape, strides)
    if len(shape) == 4:
        order = _INNER_TO_OUTER["channels_last"]
    elif len(shape) == 5:
        order = _INNER_TO_OUTER["channels_last_3d"]
    else:
        return False
    if strides[1] == 0:
        return False
    minimum = 0
    for d in order:
        if shape[d] == 0:
            return False
        if strides[d] < minimum:
            return False
        if d == 0 and minimum == strides[1]:
            return False
        minimum = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def suggest_memory_format(
    shape: Sequence[int], strides: Sequence[int], *, exact_match: bool = False
) -> str:
    """``Tensor.suggest_memory_format(channels_last_strides_exact_match=exact_match)``.

    "channels_last" if rank 4 and the strides look channels-last, "channels_last_3d" for
    rank 5, else "contiguous". With ``exact_match`` the strides must also equal
    ``strides_for(shape, that_format)`` exactly (so strides of size-1 dimensions count).
    """
    shape, strides = _check_shape_strides(shape, strides)
    if not is_channels_last_strides(shape, strides):
        return "contiguous"
    fmt = "channels_last" if len(shape) == 4 else "channels_last_3d"
    if exact_match and strides_for(shape, fmt) != strides:
        return "contiguous"
    return fmt


# --------------------------------------------------------------------------- views


def _check_dims(dims: Iterable[Any], rank: int, context: str) -> tuple[int, ...]:
    dims = _as_dims(dims, "dims")
    # Negative dims count from the end, like torch.permute.
    norm = tuple(d + rank if d < 0 else d for d in dims)
    if sorted(norm) != list(range(rank)):
        raise InvalidLayoutError(
            f"dims is {dims} but expected a permutation of range({rank}): {context}"
        )
    return norm


def permute_layout(
    shape: Sequence[int], strides: Sequence[int], dims: Sequence[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(shape, strides) of ``tensor.permute(dims)``: new[i] = old[dims[i]] for both.

    Nothing in storage moves; only the description changes.
    """
    shape, strides = _check_shape_strides(shape, strides)
    dims = _check_dims(dims, len(shape), f"shape={shape}, strides={strides}")
    return tuple(shape[d] for d in dims), tuple(strides[d] for d in dims)


def transpose_layout(
    shape: Sequence[int], strides: Sequence[int], dim0: int, dim1: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(shape, strides) of ``torch.transpose(tensor, dim0, dim1)``: swap two entries."""
    shape, strides = _check_shape_strides(shape, strides)
    rank = len(shape)
    for name, d in (("dim0", dim0), ("dim1", dim1)):
        if not -rank <= d < rank:
            raise InvalidLayoutError(
                f"{name} is {d} but expected -{rank} <= {name} < {rank}: "
                f"shape={shape}, strides={strides}"
            )
    dims = list(range(rank))
    dims[dim0], dims[dim1] = dims[dim1], dims[dim0]
    return permute_layout(shape, strides, dims)


def _as_ndarray(array: Any) -> NdArray:
    """NdArray as is; a numpy array wrapped without copying (NdArray.from_numpy); any other
    DLPack producer on the CPU (a torch tensor) imported without copying."""
    if isinstance(array, NdArray):
        return array
    if isinstance(array, np.ndarray):
        return NdArray.from_numpy(array)
    if hasattr(array, "__dlpack__"):
        from .dlpack import from_dlpack

        return from_dlpack(array)
    raise ArgumentTypeError(
        f"array is a {type(array).__name__} but expected an ndarray.NdArray, a numpy array or a DLPack producer"
    )


def permute(array: Any, dims: Sequence[int]) -> NdArray:
    """Zero-copy ``Tensor.permute(dims)``: a new NdArray over the SAME allocation whose
    descriptor has shape and strides permuted by ``dims`` (``permute_layout``); offset,
    allocation size and dtype are unchanged and no byte is copied.
    """
    src = _as_ndarray(array)
    d = src.descriptor
    permute_layout(d.shape, d.strides, dims)  # checks dims with torch's rules and messages
    return src.transpose(tuple(x + d.rank if x < 0 else x for x in _as_dims(dims, "dims")))


def nchw_to_nhwc_view(array: Any) -> NdArray:
    """An NCHW array seen as NHWC without copying: ``permute(array, (0, 2, 3, 1))``.

    For a contiguous NCHW array the result has shape (N, H, W, C) and strides
    (C*H*W, W, 1, H*W): not contiguous, storage untouched.
    """
    src = _as_ndarray(array)
    if src.descriptor.rank != 4:
        raise InvalidLayoutError(
            f"array has rank {src.descriptor.rank} but NCHW -> NHWC needs rank 4: "
            f"descriptor={src.descriptor!r}"
        )
    return permute(src, (0, 2, 3, 1))


_NHWC_FROM_NCHW = {4: (0, 2, 3, 1), 5: (0, 2, 3, 4, 1)}
_NAMES = {4: ("NCHW", "NHWC", "channels_last"), 5: ("NCDHW", "NDHWC", "channels_last_3d")}


def to_channels_last_memory(array: Any) -> NdArray:
    """A PyTorch ``channels_last`` (``channels_last_3d``) tensor as the array its memory is, with
    NO copy: logical NCHW (NCDHW) in, an NdArray of shape (N, H, W, C) ((N, D, H, W, C)) over
    the same bytes out, dense in C order when the tensor was dense.

    That NHWC array is what ACL (``data_layout="NHWC"``) and numpy code written for NHWC
    take; element ``[n, h, w, c]`` of the result is element ``[n, c, h, w]`` of the tensor
    (the result is ``array.permute(0, 2, 3, 1)``). A tensor whose channels are not the
    innermost dimension (plain contiguous NCHW) is refused with NotRepresentableError saying
    what to do instead: pass it unchanged with ``data_layout="NCHW"``, or copy it with
    ``to_memory_format(array, "channels_last")`` first.
    """
    src = _as_ndarray(array)
    d = src.descriptor
    if d.rank not in _NHWC_FROM_NCHW:
        raise InvalidLayoutError(
            f"array has rank {d.rank} but channels_last needs rank 4 (NCHW) and channels_last_3d rank 5 "
            f"(NCDHW): {d!r}"
        )
    logical, memory, fmt = _NAMES[d.rank]
    if d.shape[1] > 1 and abs(d.strides[1]) != 1:
        raise NotRepresentableError(
            f"strides {d.strides} of {logical} shape {d.shape} do not put the channels innermost (C stride "
            f"{d.strides[1]}, expected 1 for torch.{fmt}): the memory is not {memory}. Use the array as it is "
            f"with data_layout='NCHW', or copy it with to_memory_format(array, '{fmt}') (torch: "
            f"x.contiguous(memory_format=torch.{fmt})) and then to_channels_last_memory: {d!r}"
        )
    return src.transpose(_NHWC_FROM_NCHW[d.rank])


def layout_advice(descriptor: ShapeDescriptor) -> str:
    """One sentence for an error message about a layout a consumer refused, when PyTorch's
    memory formats explain it ('' otherwise): a channels_last tensor is named as such, with
    the zero-copy permute and the ``data_layout`` that takes it."""
    d = descriptor
    if d.rank not in _NHWC_FROM_NCHW or not is_channels_last_strides(d.shape, d.strides):
        return ""
    logical, memory, fmt = _NAMES[d.rank]
    perm = _NHWC_FROM_NCHW[d.rank]
    return (f"this is a PyTorch {fmt} tensor (logical {logical}, memory {memory}): take its memory without "
            f"a copy with ndarray.formats.torch.to_channels_last_memory(a) (= a.permute{perm}, shape "
            f"{tuple(d.shape[i] for i in perm)}) and run the function with data_layout='NHWC'")


# --------------------------------------------------------------------------- copies


def to_memory_format(array: Any, memory_format: Any = "contiguous") -> NdArray:
    """``Tensor.contiguous(memory_format=...)`` as an explicit COPY (``NdArray.contiguous``).

    Returns a NEW NdArray (own allocation of exactly numel elements) with the same
    shape, dtype and values as ``array`` and strides ``strides_for(shape, memory_format)``.
    The input (NdArray or numpy array) is never modified or aliased.
    """
    fmt = normalize_memory_format(memory_format)
    src = _as_ndarray(array)
    strides_for(src.shape, fmt)  # raises for a wrong rank before allocating
    return src.contiguous(fmt)
