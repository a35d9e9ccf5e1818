"""The data-movement family: ACL's functions that move elements without arithmetic (any data
type their validate() takes; int8 / uint8 move as stored, one quantization in and out):
StridedSlice (NEStridedSlice), Gather (NEGather), Tile (NETile), DepthToSpace / SpaceToDepth
(NEDepthToSpaceLayer / NESpaceToDepthLayer), BatchToSpace / SpaceToBatch
(NEBatchToSpaceLayer / NESpaceToBatchLayer), and their CL twins. One native room serves them
all (native/acl_shim_movement.cpp): a kind is one class here and one row there.

Options are numpy's (axes, per-axis lists in numpy order); the one reversal into ACL's order
is :func:`~acl_bridge.layout.to_acl_order`. ACL 20.08 and 24.11 have every kind on NEON;
20.08's batch-to-space takes no crops (refused at configure as ACL's validate() message); CL
needs ACL 24.x. What ACL leaves undefined is refused here, before anything is written:
negative or zero strides, empty slices, gather indices out of range."""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np

from ndarray import NdArray
from ndarray.errors import ArgumentTypeError, IndexOutOfRangeError, InvalidLayoutError, UnsupportedOptionError

from .. import functions
from ..functions import AclFunction
from ..layout import check_int, slice_bounds, to_acl_order

MAX_RANK = 4  # ACL's strided slice, gather and tile: at most 4 dimensions (their validate())


def _ints(values, field: str, minimum: Optional[int] = None) -> Tuple[int, ...]:
    """A sequence of ints (each >= ``minimum`` where given); ArgumentTypeError naming ``field``."""
    try:
        items = [v for v in values]
    except TypeError:
        raise ArgumentTypeError(f"{field} is {values!r}, expected a sequence of integers") from None
    out = []
    for k, v in enumerate(items):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise ArgumentTypeError(f"{field}[{k}] is {v!r}, expected an integer")
        if minimum is not None and v < minimum:
            raise UnsupportedOptionError(f"{field}[{k}] is {int(v)}, expected >= {minimum}")
        out.append(int(v))
    return tuple(out)


def _rank(cls, arrays) -> Tuple[int, ...]:
    return functions._spec_of(arrays[0], "src")[0]


def _dst_shape(cls, arrays, expected: Tuple[int, ...], what: str) -> None:
    """InvalidLayoutError where dst's shape is not ``expected`` (what the options give)."""
    dst = arrays[cls.roles.index("dst")]
    shape = functions._spec_of(dst, "dst")[0]
    if tuple(shape) != tuple(expected) and tuple(expected or (1,)) != tuple(shape):
        raise InvalidLayoutError(f"{cls.__name__}: dst has shape {tuple(shape)}, {what} gives {tuple(expected)}")


def _mask(value: object, field: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ArgumentTypeError(f"{field} is {value!r}, expected a non-negative integer (bit k: numpy axis k)")
    return int(value)


class StridedSlice(AclFunction):
    """dst = src[b0:e0:s0, b1:e1:s1, ...] (numpy axes, steps >= 1), TFLite's STRIDED_SLICE
    masks: a ``begin_mask`` / ``end_mask`` bit k takes axis k from its start / to its end, a
    ``shrink_axis_mask`` bit k takes the element at begin[k] and drops the axis. At most 4
    axes; negative begin / end count from the end as in numpy."""

    kind, roles, outputs = "strided_slice", ("src", "dst"), ("dst",)

    @classmethod
    def _params(cls, begin: Sequence[int], end: Sequence[int], strides: Optional[Sequence[int]] = None,
                begin_mask: int = 0, end_mask: int = 0, shrink_axis_mask: int = 0):
        """The options in numpy order (slice_* and the masks as given): :meth:`_call` resolves
        them against src's shape and puts them in ACL's order."""
        begin, end = _ints(begin, "begin"), _ints(end, "end")
        strides = (1,) * len(begin) if strides is None else _ints(strides, "strides")
        if not len(begin) == len(end) == len(strides) <= MAX_RANK:
            raise UnsupportedOptionError(f"begin, end and strides have {len(begin)}, {len(end)} and {len(strides)} "
                                         f"entries, expected one per axis (at most {MAX_RANK})")
        p = functions.default_params()
        p.slice_len = len(begin)
        for i, (b, e, s) in enumerate(zip(begin, end, strides)):
            p.slice_begin[i], p.slice_end[i], p.slice_stride[i] = b, e, s
        p.begin_mask, p.end_mask = _mask(begin_mask, "begin_mask"), _mask(end_mask, "end_mask")
        p.shrink_mask = _mask(shrink_axis_mask, "shrink_axis_mask")
        return p

    @classmethod
    def _call(cls, args: Sequence, options: dict, quantization) -> tuple:
        arrays, kind, params, quant = super()._call(args, options, quantization)
        shape = _rank(cls, arrays)
        if len(shape) > MAX_RANK:
            raise UnsupportedOptionError(f"{cls.__name__}: src has {len(shape)} dimensions, ACL slices at most "
                                         f"{MAX_RANK}")
        n = params.slice_len
        given = [tuple(getattr(params, f)[i] for i in range(n)) for f in ("slice_begin", "slice_end", "slice_stride")]
        smask = params.shrink_mask
        bounds, out = slice_bounds(shape, *given, params.begin_mask, params.end_mask, smask, cls.__name__)
        _dst_shape(cls, arrays, out, f"src {tuple(shape)} sliced")
        # ACL counts no outer dimension of extent 1 (its validate() refuses more starts than
        # dimensions): those axes, whole or shrunk either way, are left out
        rank = len(shape)
        while rank > 1 and shape[len(shape) - rank] == 1:
            rank -= 1
        params.slice_len = rank
        for i, (b, e, s) in enumerate(to_acl_order(bounds[len(shape) - rank:])):  # resolved: no begin / end masks
            params.slice_begin[i], params.slice_end[i], params.slice_stride[i] = b, e, s
        params.begin_mask = params.end_mask = 0
        params.shrink_mask = sum(1 << (len(shape) - 1 - k) for k in range(len(shape) - rank, len(shape))
                                 if smask >> k & 1)
        return arrays, kind, params, quant


class Gather(AclFunction):
    """dst = np.take(src, indices, axis): ``indices`` a 1-D int32 array whose values are in
    0..src.shape[axis]-1 (checked when the function is made: ACL's result for others is
    undefined; the caller keeps later values in range); src at most 4 dimensions."""

    kind, roles, outputs = "gather", ("src", "indices", "dst"), ("dst",)
    const_roles = ("indices",)

    @classmethod
    def _params(cls, axis: int = 0):
        p = functions.default_params()
        p.axis = check_int(axis, "axis", minimum=-MAX_RANK)
        return p

    @classmethod
    def _call(cls, args: Sequence, options: dict, quantization) -> tuple:
        arrays, kind, params, quant = super()._call(args, options, quantization)
        shape = _rank(cls, arrays)
        rank = len(shape)
        if rank > MAX_RANK:
            raise UnsupportedOptionError(f"{cls.__name__}: src has {rank} dimensions, ACL gathers at most {MAX_RANK}")
        if not -rank <= params.axis < rank:
            raise UnsupportedOptionError(f"{cls.__name__}: axis is {params.axis}, expected -{rank}..{rank - 1} "
                                         f"for a rank-{rank} src")
        axis = params.axis % rank
        idx_shape, idx_dtype = functions._spec_of(arrays[1], "indices")
        if idx_dtype != np.int32 or len(idx_shape) != 1:
            raise ArgumentTypeError(f"{cls.__name__}: indices is {idx_dtype}{list(idx_shape)}, expected a 1-D int32 array")
        cls._check_indices(arrays, shape, axis)
        _dst_shape(cls, arrays, shape[:axis] + tuple(idx_shape) + shape[axis + 1:], f"src {tuple(shape)} gathered")
        params.axis = rank - 1 - axis
        return arrays, kind, params, quant

    @classmethod
    def _check_indices(cls, arrays: Sequence, shape: Tuple[int, ...], axis: int) -> None:
        """IndexOutOfRangeError where the indices' values (when given: a ShapeDescriptor has
        none) leave 0..shape[axis] - 1."""
        values = arrays[1] if isinstance(arrays[1], np.ndarray) else \
            arrays[1].numpy() if isinstance(arrays[1], NdArray) else None
        if values is not None and values.size and (values.min() < 0 or values.max() >= shape[axis]):
            bad = int(values[(values < 0) | (values >= shape[axis])][0])
            raise IndexOutOfRangeError(f"{cls.__name__}: indices holds {bad}, expected 0..{shape[axis] - 1} "
                                       f"(axis {axis} of src {tuple(shape)})")

    @classmethod
    def _check_bound_values(cls, arrays: Sequence, params) -> None:
        shape = _rank(cls, arrays)
        cls._check_indices(arrays, shape, len(shape) - 1 - params.axis)


class Tile(AclFunction):
    """dst = np.tile(src, multiples), one multiple (>= 1) per axis of src (at most 4)."""

    kind, roles, outputs = "tile", ("src", "dst"), ("dst",)

    @classmethod
    def _params(cls, multiples: Sequence[int]):
        p = functions.default_params()
        m = _ints(multiples, "multiples", minimum=1)
        if not 1 <= len(m) <= MAX_RANK:
            raise UnsupportedOptionError(f"multiples has {len(m)} entries, expected 1..{MAX_RANK}")
        p.multiples_len = len(m)
        for i, v in enumerate(to_acl_order(m)):
            p.multiples[i] = v
        return p

    @classmethod
    def _call(cls, args: Sequence, options: dict, quantization) -> tuple:
        arrays, kind, params, quant = super()._call(args, options, quantization)
        shape = _rank(cls, arrays)
        m = to_acl_order(tuple(params.multiples[i] for i in range(params.multiples_len)))
        if len(m) != len(shape):
            raise UnsupportedOptionError(f"{cls.__name__}: multiples has {len(m)} entries, expected {len(shape)} "
                                         f"(one per axis of src {tuple(shape)})")
        _dst_shape(cls, arrays, tuple(d * k for d, k in zip(shape, m)), f"src {tuple(shape)} tiled {m}")
        return arrays, kind, params, quant


class _Blocks(AclFunction):
    """(src, dst) with a square ``block_size`` >= 2 over height and width (``data_layout``)."""

    roles, outputs = ("src", "dst"), ("dst",)

    @classmethod
    def _params(cls, block_size: int):
        p = functions.default_params()
        p.block_x = p.block_y = check_int(block_size, "block_size", minimum=2)
        return p


class DepthToSpace(_Blocks):
    """TFLite's DEPTH_TO_SPACE: channels C = b*b*C' become b x b blocks of the image."""

    kind = "depth_to_space"


class SpaceToDepth(_Blocks):
    """TFLite's SPACE_TO_DEPTH: b x b blocks of the image become channels (H, W multiples of b)."""

    kind = "space_to_depth"


def _pairs(value, field: str) -> Tuple[Tuple[int, int], Tuple[int, int]]:
    """((top, bottom), (left, right)), each >= 0."""
    try:
        (t, b), (l, r) = value
    except (TypeError, ValueError):
        raise ArgumentTypeError(f"{field} is {value!r}, expected ((top, bottom), (left, right))") from None
    t, b, l, r = _ints((t, b, l, r), field, minimum=0)
    return (t, b), (l, r)


class _BatchSpace(AclFunction):
    """(src, dst) of rank 4 with ``block_shape`` (block_h, block_w), each >= 1, over height
    and width (``data_layout``), and ((top, bottom), (left, right)) paddings or crops."""

    roles, outputs = ("src", "dst"), ("dst",)
    edges = ""

    @classmethod
    def _edge_params(cls, block_shape, edges):
        p = functions.default_params()
        by, bx = _ints(block_shape, "block_shape", minimum=1) if len(tuple(block_shape)) == 2 else (0, 0)
        if by == 0:
            raise UnsupportedOptionError(f"block_shape is {tuple(block_shape)}, expected (block_h, block_w)")
        p.block_y, p.block_x = by, bx
        (p.pad_top, p.pad_bottom), (p.pad_left, p.pad_right) = _pairs(edges, cls.edges)
        return p


class BatchToSpace(_BatchSpace):
    """TFLite's BATCH_TO_SPACE_ND (rank 4): batches N = n*bh*bw become bh x bw blocks, then
    ``crops`` ((top, bottom), (left, right)) are cut (ACL 24.x; 20.08 refuses crops)."""

    kind, edges = "batch_to_space", "crops"

    @classmethod
    def _params(cls, block_shape: Sequence[int], crops=((0, 0), (0, 0))):
        return cls._edge_params(block_shape, crops)


class SpaceToBatch(_BatchSpace):
    """TFLite's SPACE_TO_BATCH_ND (rank 4): the image padded by ``paddings`` ((top, bottom),
    (left, right)) with zeros, then bh x bw blocks become batches."""

    kind, edges = "space_to_batch", "paddings"

    @classmethod
    def _params(cls, block_shape: Sequence[int], paddings=((0, 0), (0, 0))):
        return cls._edge_params(block_shape, paddings)


CLASSES: Tuple[type, ...] = (StridedSlice, Gather, Tile, DepthToSpace, SpaceToDepth, BatchToSpace, SpaceToBatch)

__all__ = ["StridedSlice", "Gather", "Tile", "DepthToSpace", "SpaceToDepth", "BatchToSpace", "SpaceToBatch",
           "CLASSES", "MAX_RANK"]
