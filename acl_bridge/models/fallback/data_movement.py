"""Shape and data-movement operators: what numpy does with views and copies (SHAPE,
RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE, STRIDED_SLICE, SLICE, GATHER, PACK, UNPACK,
CONCATENATION, SPLIT, SPLIT_V, TILE, BROADCAST_TO, PAD, PADV2, MIRROR_PAD, CAST,
DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND, FILL).

Shapes are static in the models this library reads, so the operators whose output shape
says everything (RESHAPE, SQUEEZE, EXPAND_DIMS) take it from the output tensor. int8 / uint8
tensors move as stored (TFLite requires the output's quantization to be the input's), except
CONCATENATION of inputs with other scales, requantized as TFLite's reference kernel does
(``round(x * s_in / s_out - z_in * s_in / s_out) + z_out`` in float32). TILE, MIRROR_PAD,
DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND and SPACE_TO_BATCH_ND with constant
parameters are one ``take`` through an index map made at load (:func:`mapped`,
:mod:`.index_maps`)."""

from __future__ import annotations

from typing import Callable, List, Optional, Tuple

import numpy as np

from . import step_kernels_movement as moves
from .elementwise import float_activation
from .index_maps import PAD, bind_map, positions
from .inplace import byte_copy
from ..format.tflite_reader import UnsupportedModelError
from .registry import ANY, Call, kernel


@kernel("SHAPE", dtypes=ANY, binds=True)
def shape(c: Call) -> Callable[[], None]:
    value = np.asarray(c.inputs[0].shape)
    if value.size == c.outputs[0].size:
        value = value.reshape(c.outputs[0].shape).astype(c.outputs[0].dtype)
    return lambda: c.write(value)


@kernel("RESHAPE", "SQUEEZE", "EXPAND_DIMS", dtypes=ANY, binds=True)
def reshape(c: Call) -> Callable[[], None]:
    x, out = c.inputs[0], c.outputs[0]
    copy = byte_copy(x, out)
    if copy is not None:
        return copy
    if x.size == out.size:
        return lambda: c.write(x.reshape(out.shape))
    return lambda: c.write(x)


def _assign(view: np.ndarray, out: np.ndarray) -> Callable[[], None]:
    """``out`` := ``view`` (a view of the input made once at load) per call."""
    def assign() -> None:
        out[...] = view
    return assign


@kernel("TRANSPOSE", dtypes=ANY, binds=True)
def transpose(c: Call) -> Callable[[], None]:
    x, out = np.asarray(c.inputs[0]), c.outputs[0]
    if c.constant(1):  # the permuted view made once
        view = np.transpose(x, [int(p) for p in np.asarray(c.inputs[1]).reshape(-1)])
        if view.shape == out.shape:
            return _assign(view, out)
    return lambda: c.write(np.transpose(x, [int(p) for p in np.asarray(c.inputs[1]).reshape(-1)]))


@kernel("STRIDED_SLICE", dtypes=ANY, binds=True)
def strided_slice(c: Call) -> Callable[[], None]:
    x, out = c.inputs[0], c.outputs[0]
    if c.constant(1, 2, 3):  # the index made once, and the view it takes (basic indexing: a view)
        index = _strided_index(c)
        part = x[index if Ellipsis in index else index + (Ellipsis,)]
        if part.size == out.size:
            shape = out.shape

            def sliced() -> None:
                out[...] = part if part.shape == shape else part.reshape(shape)
            return sliced
        return lambda: c.write(x[index])
    return lambda: c.write(x[_strided_index(c)])


def _strided_index(c: Call) -> Tuple[object, ...]:
    """TFLite's STRIDED_SLICE, TensorFlow's sparse slice spec as a numpy index: per entry
    ``begin:end:stride`` (a begin_mask / end_mask bit: from the start / to the end), a
    shrink_axis_mask bit takes the element at ``begin``, an ellipsis_mask bit stands for every
    dimension no other entry names (the first one counts, as in TensorFlow), a new_axis_mask bit
    inserts a dimension of 1 (an ellipsis bit at the same entry wins); ``offset``: end is
    relative to begin. Returns the numpy index."""
    begin, end, strides = (np.asarray(v).reshape(-1).tolist() for v in c.inputs[1:4])
    bmask, emask, smask, ellipsis, new_axis = (int(c.option(n, 0)) for n in (
        "begin_mask", "end_mask", "shrink_axis_mask", "ellipsis_mask", "new_axis_mask"))
    offset = bool(c.option("offset", False))
    index: List[object] = []
    for d in range(len(begin)):
        b, e, s = int(begin[d]), int(end[d]), int(strides[d])
        if ellipsis >> d & 1:
            if Ellipsis not in index:
                index.append(Ellipsis)
        elif new_axis >> d & 1:
            index.append(np.newaxis)
        elif smask >> d & 1:
            index.append(b)
        else:
            e = e + b if offset else e
            index.append(slice(None if bmask >> d & 1 else b, None if emask >> d & 1 else e, s))
    return tuple(index)


@kernel("SLICE", dtypes=ANY, binds=True)
def slice_(c: Call) -> Callable[[], None]:
    x, out = c.inputs[0], c.outputs[0]

    def index() -> Tuple[slice, ...]:
        begin, size = (np.asarray(v).reshape(-1).tolist() for v in c.inputs[1:3])
        return tuple(slice(int(b), None if int(n) < 0 else int(b) + int(n)) for b, n in zip(begin, size))
    if c.constant(1, 2):  # the slice's view made once
        view = x[index()]
        if view.shape == out.shape:
            return _assign(view, out)
    return lambda: c.write(x[index()])


def _gather(c: Call) -> None:
    x, idx = c.inputs[0], np.asarray(c.inputs[1]).astype(np.int64)
    axis, batch = int(c.option("axis", 0)), int(c.option("batch_dims", 0))
    axis, batch = axis + x.ndim if axis < 0 else axis, batch + idx.ndim if batch < 0 else batch
    if batch == 0:
        c.write(np.take(x, idx, axis=axis))
        return
    _gather_batches(c, x, idx, axis, batch)


@kernel("GATHER", dtypes=ANY, binds=True)
def gather(c: Call) -> Callable[[], None]:
    """TFLite's GATHER: ``params`` indexed along ``axis`` by ``indices``; with ``batch_dims``
    the leading batch dimensions of both pair up (output: params' shape before ``axis``, then
    indices' shape after the batch dimensions, then params' shape after ``axis``). Constant
    indices without batch dimensions: one ``take`` into the output."""
    x, out = np.asarray(c.inputs[0]), c.outputs[0]
    axis, batch = int(c.option("axis", 0)), int(c.option("batch_dims", 0))
    if c.constant(1) and batch == 0:
        idx = np.asarray(c.inputs[1]).astype(np.intp)
        axis = axis + x.ndim if axis < 0 else axis
        if x.shape[:axis] + idx.shape + x.shape[axis + 1:] == out.shape and out.flags.c_contiguous:
            return lambda: np.take(x, idx, axis=axis, out=out)
    return lambda: _gather(c)


def _gather_batches(c: Call, x: np.ndarray, idx: np.ndarray, axis: int, batch: int) -> None:
    lead = x.shape[:batch]
    xs, ids = x.reshape((-1,) + x.shape[batch:]), idx.reshape((-1,) + idx.shape[batch:])
    parts = [np.take(xs[k], ids[k], axis=axis - batch) for k in range(xs.shape[0])]
    c.write(np.stack(parts).reshape(lead + parts[0].shape) if parts else
            np.empty(lead + x.shape[batch:axis] + idx.shape[batch:] + x.shape[axis + 1:], x.dtype))


@kernel("PACK", dtypes=ANY, binds=True)
def pack(c: Call) -> Callable[[], None]:
    axis = int(c.option("axis", 0))
    rank = c.tensor_out().shape.__len__()
    axis = axis + rank if axis < 0 else axis
    inputs, out = [np.asarray(v) for v in c.inputs], c.outputs[0]
    shapes = {v.shape for v in inputs}
    if len(shapes) == 1 and 0 <= axis <= len(inputs[0].shape) and \
            out.shape == inputs[0].shape[:axis] + (len(inputs),) + inputs[0].shape[axis:]:
        # each input into its slice of the output, the slices' views made once
        pairs = [(out[(slice(None),) * axis + (k, Ellipsis)], v) for k, v in enumerate(inputs)]

        def stacked() -> None:
            for part, v in pairs:
                part[...] = v
        return stacked
    return lambda: c.write(np.stack(inputs, axis=axis))


@kernel("UNPACK", dtypes=ANY)
def unpack(c: Call) -> None:
    x = c.inputs[0]
    axis = int(c.option("axis", 0))
    axis = axis + x.ndim if axis < 0 else axis
    for k in range(len(c.outputs)):
        c.write(np.take(x, k, axis=axis), k)


def _stored_as_is(c: Call, k: int) -> bool:
    """Whether input ``k`` goes into the output as stored (no quantization, or the output's)."""
    if c.tensor_in(k).quantization is None and c.tensor_out().quantization is None:
        return True
    try:
        return c.q_in(k) == c.q_out()
    except UnsupportedModelError:
        return False


def _requantized(c: Call, k: int) -> np.ndarray:
    """Input ``k`` in the output's quantization (TFLite's ConcatenationWithScaling)."""
    x = np.asarray(c.inputs[k])
    if c.tensor_out().dtype.kind == "f" or c.q_in(k) == c.q_out():
        return x
    (si, zi), (so, zo) = c.q_in(k), c.q_out()
    scale = np.float32(si) * (np.float32(1) / np.float32(so))
    bias = np.float32(-zi) * scale
    v = x.astype(np.float32) * scale + bias
    r = np.sign(v) * np.floor(np.abs(v) + np.float32(0.5))  # std::round: half away from zero
    info = np.iinfo(c.tensor_out().dtype)
    return np.clip(r.astype(np.int64) + zo, info.min, info.max)


@kernel("CONCATENATION", dtypes=ANY, binds=True)
def concatenation(c: Call) -> Callable[[], None]:
    rank = len(c.tensor_out().shape)
    axis = int(c.option("axis", 0))
    axis = axis + rank if axis < 0 else axis
    inputs, out = [np.asarray(v) for v in c.inputs], c.outputs[0]
    plain = c.option("fused_activation_function") is None if c.tensor_out().dtype == np.float32 else \
        all(_stored_as_is(c, k) for k in range(len(inputs)))
    if plain and sum(v.shape[axis] if v.ndim == rank else -1 for v in inputs) == out.shape[axis]:
        # each input into its slice of the output, made once (the bytes alone where they lie whole)
        starts = np.cumsum([0] + [v.shape[axis] for v in inputs])
        parts = [out[(slice(None),) * axis + (slice(int(b), int(e)),)] for b, e in zip(starts[:-1], starts[1:])]
        if all(p.shape == v.shape for p, v in zip(parts, inputs)):
            copies = [byte_copy(v, p) for p, v in zip(parts, inputs)]
            pairs = [(p, v) for p, v, copy in zip(parts, inputs, copies) if copy is None]
            copies = [copy for copy in copies if copy is not None]

            def placed() -> None:
                for copy in copies:
                    copy()
                for part, v in pairs:
                    part[...] = v
            return placed
    return lambda: _concatenated(c, axis)


def _concatenated(c: Call, axis: int) -> None:
    y = np.concatenate([_requantized(c, k) for k in range(len(c.inputs))], axis=axis)
    if c.tensor_out().dtype == np.float32:
        y = float_activation(y, c.option("fused_activation_function"))
    c.write(y)


@kernel("SPLIT", dtypes=ANY)
def split(c: Call) -> None:
    x = c.inputs[1]
    axis = int(np.asarray(c.inputs[0]).reshape(-1)[0])
    for k, part in enumerate(np.split(x, len(c.outputs), axis=axis + x.ndim if axis < 0 else axis)):
        c.write(part, k)


@kernel("SPLIT_V", dtypes=ANY)
def split_v(c: Call) -> None:
    x = c.inputs[0]
    axis = int(np.asarray(c.inputs[2]).reshape(-1)[0])
    axis = axis + x.ndim if axis < 0 else axis
    sizes = [c.model.tensors[o].shape[axis] for o in c.op.outputs]
    for k, part in enumerate(np.split(x, np.cumsum(sizes)[:-1], axis=axis)):
        c.write(part, k)


def mapped(c: Call, constants: Tuple[int, ...], move: Callable[[np.ndarray], np.ndarray], fill=0,
           otherwise: Optional[Callable[[], None]] = None) -> Callable[[], None]:
    """The operator as one ``take`` through ``move`` run once on the input's element numbers
    (:mod:`.index_maps`) where inputs ``constants`` are constants, else ``otherwise`` (by
    default ``move`` on the input each call)."""
    x, out = np.asarray(c.inputs[0]), c.outputs[0]
    if c.constant(*constants):
        run = bind_map(x, out, move(positions(x.shape)), fill)
        if run is not None:
            return run
    return otherwise or (lambda: c.write(move(x)))


@kernel("TILE", dtypes=ANY, binds=True)
def tile(c: Call) -> Callable[[], None]:
    return mapped(c, (1,), lambda x: np.tile(x, [int(m) for m in np.asarray(c.inputs[1]).reshape(-1)]))


@kernel("BROADCAST_TO", dtypes=ANY)
def broadcast_to(c: Call) -> None:
    c.write(np.broadcast_to(c.inputs[0], c.tensor_out().shape))


@kernel("PAD", "PADV2", dtypes=ANY, binds=True)
def pad(c: Call) -> Callable[[], None]:
    """Constant padding: PADV2's value input, else 0 (float) or the output's zero point
    (int8 / uint8: TFLite pads with the quantized zero). Written in place: the border, then
    the input into the interior (no padded temporary)."""
    out, x = c.outputs[0], c.inputs[0]

    def padded(value: object, interior: Tuple[slice, ...]) -> None:
        out[...] = value
        out[interior] = x

    if c.constant(1, 2):  # the paddings and the value, read once; the interior a view made once
        value, interior = _pad_layout(c)
        inner = out[interior]
        if inner.shape == x.shape:
            value = np.asarray(value).astype(out.dtype)
            fill = out.fill

            def padded_once() -> None:
                fill(value)
                inner[...] = x
            return padded_once
        return lambda: padded(value, interior)
    return lambda: padded(*_pad_layout(c))


def _pad_layout(c: Call) -> Tuple[object, Tuple[slice, ...]]:
    """PAD's (value, index of the input within the output)."""
    pads = np.asarray(c.inputs[1]).reshape(-1, 2).astype(np.int64).tolist()
    if len(c.inputs) > 2 and c.inputs[2] is not None:
        value = np.asarray(c.inputs[2]).reshape(-1)[0]
    elif c.tensor_out().dtype.kind in "iu" and c.tensor_out().quantization is not None:
        value = c.q_out()[1]
    else:
        value = 0
    return value, tuple(slice(b, b + n) for (b, _), n in zip(pads, c.inputs[0].shape))


@kernel("MIRROR_PAD", dtypes=ANY, binds=True)
def mirror_pad(c: Call) -> Callable[[], None]:
    mode = "reflect" if c.option("mode", "REFLECT") == "REFLECT" else "symmetric"

    def padded(x: np.ndarray) -> np.ndarray:
        pads = np.asarray(c.inputs[1]).reshape(-1, 2).astype(np.int64)
        return np.pad(x, [tuple(p) for p in pads.tolist()], mode=mode)
    return mapped(c, (1,), padded)


@kernel("CAST", dtypes=ANY, binds=True)
def cast(c: Call) -> Callable[[], None]:
    """numpy's conversion is C++'s static_cast: float -> integer truncates toward zero."""
    x, out = np.asarray(c.inputs[0]), c.outputs[0]
    if x.shape == out.shape:
        return lambda: np.copyto(out, x, casting="unsafe")
    return lambda: c.write(x.astype(c.tensor_out().dtype))


@kernel("DEPTH_TO_SPACE", "SPACE_TO_DEPTH", dtypes=ANY, binds=True)
def depth_space(c: Call) -> Callable[[], None]:
    """NHWC, TFLite's DCR order (the step kernels': ``step_kernels_movement``)."""
    move, params = moves.KERNELS[c.op.opcode.lower()], {"block_size": int(c.option("block_size"))}
    return mapped(c, (), lambda x: move(None, x, params, {}, {}))


def _block_edges(c: Call):
    block = [int(v) for v in np.asarray(c.inputs[1]).reshape(-1)]
    edges = np.asarray(c.inputs[2]).reshape(2, 2).astype(np.int64).tolist()
    return tuple(block), tuple(tuple(e) for e in edges)


@kernel("BATCH_TO_SPACE_ND", dtypes=ANY, binds=True)
def batch_to_space(c: Call) -> Callable[[], None]:
    """Rank 4 (NHWC): batches to blocks of the image, then the crops cut."""
    def moved(x: np.ndarray) -> np.ndarray:
        block, crops = _block_edges(c)
        return moves.KERNELS["batch_to_space"](None, x, {"block_shape": block, "crops": crops}, {}, {})
    return mapped(c, (1, 2), moved)


@kernel("SPACE_TO_BATCH_ND", dtypes=ANY, binds=True)
def space_to_batch(c: Call) -> Callable[[], None]:
    """Rank 4 (NHWC): padded (int8 / uint8: with the output's zero point, as TFLite), then blocks
    of the image to batches."""
    quantized = c.tensor_out().dtype.kind in "iu" and c.tensor_out().quantization is not None
    fill = c.q_out()[1] if quantized else 0

    def moved(x: np.ndarray, value=fill) -> np.ndarray:
        block, pads = _block_edges(c)
        padded = np.pad(x, ((0, 0),) + pads + ((0, 0),), constant_values=value)
        return moves.KERNELS["space_to_batch"](None, padded, {"block_shape": block, "paddings": ((0, 0), (0, 0))},
                                               {}, {})
    return mapped(c, (1, 2), lambda x: moved(x, PAD), fill, otherwise=lambda: c.write(moved(np.asarray(c.inputs[0]))))


@kernel("FILL", dtypes=ANY)
def fill(c: Call) -> None:
    c.outputs[0][...] = np.asarray(c.inputs[1]).reshape(-1)[0]
