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

from ndarray.errors import InvalidLayoutError

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
    "to_memory_format",
]

#: PyTorch's names, as in ``torch.contiguous_format`` / ``torch.channels_last`` /
#: ``torch.channels_last_3d`` (``"preserve"`` is an operator option, not a layout).
MEMORY_FORMATS = ("contiguous", "channels_last", "channels_last_3d")

# Dimensions from INNERMOST (stride 1) to outermost for the channels-last formats:
# NCHW stored as NHWC  -> C fastest, then W, then H, then N: the loop "for k in (1, 3, 2, 0)".
# NCDHW stored as NDHWC -> C, W, H, D, N.
_INNER_TO_OUTER = {
    "channels_last": (1, 3, 2, 0),
    "channels_last_3d": (1, 4, 3, 2, 0),
}
_REQUIRED_RANK = {"channels_last": 4, "channels_last_3d": 5}

# Accepted spellings -> canonical name. ``str(torch.channels_last)`` is
# "torch.channels_last" and ``str(torch.contiguous_format)`` "torch.contiguous_format",
# so real torch objects are accepted too without importing torch.
_ALIASES = {
    "contiguous": "contiguous",
    "contiguous_format": "contiguous",
    "channels_last": "channels_last",
    "channels_last_3d": "channels_last_3d",
}


# --------------------------------------------------------------------------- validation


def normalize_memory_format(memory_format: Any) -> str:
    """Return the canonical name ("contiguous", "channels_last", "channels_last_3d").

    Accepts those names, "contiguous_format", and ``torch.memory_format`` objects.
    """
    text = str(memory_format)
    key = text[len("torch."):] if text.startswith("torch.") else text
    try:
        return _ALIASES[key]
    except KeyError:
        raise InvalidLayoutError(
            f"memory_format is {memory_format!r} but expected one of {MEMORY_FORMATS} "
            f"(or 'contiguous_format' / a torch.memory_format)"
        ) from None


def _as_dims(values: Iterable[Any], field: str) -> tuple[int, ...]:
    """Tuple of python ints; rejects floats/bools/non-integers with the field name."""
    try:
        items = tuple(values)
    except TypeError:
        raise InvalidLayoutError(
            f"{field} is {values!r} but expected a sequence of integers"
        ) from None
    out = []
    for v in items:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise InvalidLayoutError(
                f"{field} has entry {v!r} of type {type(v).__name__} but expected integers: "
                f"{field}={items!r}"
            )
        out.append(int(v))
    return tuple(out)


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


def _check_rank_for(shape: tuple[int, ...], fmt: str) -> None:
    rank = _REQUIRED_RANK.get(fmt)
    if rank is not None and len(shape) != rank:
        raise InvalidLayoutError(
            f"shape has rank {len(shape)} but memory_format={fmt!r} needs rank {rank} "
            f"({'NCHW' if rank == 4 else 'NCDHW'}): shape={shape}"
        )


# --------------------------------------------------------------------------- strides


def strides_for(shape: Sequence[int], memory_format: Any = "contiguous") -> tuple[int, ...]:
    """Element strides PyTorch gives a new tensor of ``shape`` in ``memory_format``.

    contiguous (TensorImpl::empty_tensor_restride):
        strides[-1] = 1;  strides[i] = strides[i+1] * max(shape[i+1], 1)
        (the max keeps strides distinct when a dimension has size 0).
    channels_last (rank 4) / channels_last_3d (rank 5), get_channels_last_strides_2d/3d:
        stride = 1
        for k in (1, 3, 2, 0)        # or (1, 4, 3, 2, 0) for 3d
            strides[k] = stride;  stride *= shape[k]
        (no max() here: PyTorch doesn't use one either).

    Raises InvalidLayoutError for an unknown format or a rank the format does not have.
    """
    fmt = normalize_memory_format(memory_format)
    shape = _check_shape(shape)
    if fmt == "contiguous":
        strides = [0] * len(shape)
        stride = 1
        for i in reversed(range(len(shape))):
            strides[i] = stride
            stride *= max(shape[i], 1)
        return tuple(strides)
    _check_rank_for(shape, fmt)
    strides = [0] * len(shape)
    stride = 1
    for k in _INNER_TO_OUTER[fmt]:
        strides[k] = stride
        stride *= shape[k]
    return tuple(strides)


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


def _as_ndarray(array: Any):
    """NdArray as is; a numpy array wrapped without copying (NdArray.from_numpy)."""
    from ndarray.array import NdArray

    if isinstance(array, NdArray):
        return array
    if isinstance(array, np.ndarray):
        return NdArray.from_numpy(array)
    raise InvalidLayoutError(
        f"array is a {type(array).__name__} but expected an ndarray.NdArray or a numpy array"
    )


def permute(array: Any, dims: Sequence[int]):
    """Zero-copy ``Tensor.permute(dims)``: a new NdArray over the SAME allocation whose
    descriptor has shape and strides permuted by ``dims`` (``permute_layout``); offset,
    allocation size and dtype are unchanged and no byte is copied.
    """
    from ndarray.array import NdArray
    from ndarray.descriptor import ShapeDescriptor

    src = _as_ndarray(array)
    d = src.descriptor
    shape, strides = permute_layout(d.shape, d.strides, dims)
    view = ShapeDescriptor.create(
        shape, d.dtype, d.order, strides=strides, offset=d.offset, alloc_size=d.alloc_size
    )
    return NdArray(src.allocation, view, readonly=src.readonly)


def nchw_to_nhwc_view(array: Any):
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


# --------------------------------------------------------------------------- copies


def to_memory_format(array: Any, memory_format: Any = "contiguous"):
    """``Tensor.contiguous(memory_format=...)`` as an explicit COPY.

    Returns a NEW NdArray (own allocation of exactly numel elements) with the same
    shape, dtype and values as ``array`` and strides ``strides_for(shape, memory_format)``.
    The input (NdArray or numpy array) is never modified or aliased.
    """
    from ndarray.array import NdArray
    from ndarray.descriptor import ShapeDescriptor

    fmt = normalize_memory_format(memory_format)
    src = _as_ndarray(array)
    d = src.descriptor
    strides = strides_for(d.shape, fmt)  # raises for a wrong rank before allocating
    numel = math.prod(d.shape)
    # A dense allocation of exactly numel elements: element 0 at offset 0 and every
    # element at offset sum(index[i] * strides[i]) in [0, numel).
    out_desc = ShapeDescriptor.create(
        d.shape, d.dtype, "c", strides=strides, offset=0, alloc_size=numel
    )
    # NdArray.empty gives an aligned buffer of numel * itemsize bytes; only its bytes are used.
    storage = NdArray.empty((numel,), d.dtype).allocation
    out = NdArray(storage, out_desc)
    if numel:
        out.numpy()[...] = src.numpy()
    return out
