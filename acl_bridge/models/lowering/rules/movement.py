"""Data movement: PACK (views into the output, as CONCATENATION's), STRIDED_SLICE, SLICE,
SPLIT, SPLIT_V, UNPACK (strided slices, one per
output: with unit steps along one axis a view of the input's buffer where the plan can make
one, :class:`~..step.Slice`), GATHER, TILE, DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND, SPACE_TO_BATCH_ND
(the data-movement family, :mod:`acl_bridge.families.movement`), PADV2 and MIRROR_PAD (``pad``
with a value or a mode), CAST (``cast``), FILL (``fill``). float32, or int8 / uint8 moved as stored with one
quantization in and out (TFLite's requirement). Tables (begin, sizes, indices, multiples,
blocks, paddings) must be constants; what the fallback runs instead is refused by name."""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from ndarray.errors import IndexOutOfRangeError, UnsupportedOptionError

from ....layout import slice_bounds
from ...format.tflite_reader import ModelSpec, OperatorSpec
from ..helpers import first_input, int_option, malformed, option, refuse, unary
from ..quantized import all_float32, is_quantized, quantization, tensor_q
from ..step import Concatenate, Intermediate, Lowered, Params, Reshape, Slice, Step
from .table import rule

MAX_RANK = 4  # ACL's strided slice, gather and tile (acl_bridge.families.movement)


def moved(*tables: int):
    """The gate of the data-movement rules: every live tensor (the inputs at ``tables`` left
    to the rule) float32, or every one int8 (or uint8) per tensor; any number of outputs."""

    def check(op: OperatorSpec, model: ModelSpec) -> None:
        live = [model.tensors[i] for k, i in enumerate(op.inputs) if i >= 0 and k not in tables]
        all_float32(op, live + [model.tensors[i] for i in op.outputs])

    return check


def _table(op: OperatorSpec, model: ModelSpec, k: int, what: str) -> np.ndarray:
    """Constant input ``k`` as an int64 vector (refused when computed, malformed when absent)."""
    if k >= len(op.inputs) or op.inputs[k] < 0:
        raise malformed(op, f"no {what} input")
    data = model.tensors[op.inputs[k]].data
    if data is None:
        raise refuse(op, f"a non-constant {what}")
    return np.asarray(data).astype(np.int64).reshape(-1)


def _same_q(op: OperatorSpec, model: ModelSpec, src: int, outs: Sequence[int]) -> Params:
    """The quantization parameter of a move (none for float32); refused where an output's
    quantization differs from the input's."""
    if not is_quantized(model, src):
        return ()
    xq = tensor_q(op, model, src)
    for o in outs:
        if tensor_q(op, model, o) != xq:
            raise refuse(op, f"input quantization {xq} differing from output #{o}'s {tensor_q(op, model, o)}")
    return quantization(("src", xq), ("dst", xq))


def _check_shape(op: OperatorSpec, model: ModelSpec, out: int, want: Sequence[int], what: str) -> None:
    if tuple(model.tensors[out].shape) != tuple(want):
        raise malformed(op, f"{what} is {list(want)}, the output #{out} says {list(model.tensors[out].shape)}")


def _slice_step(op: OperatorSpec, model: ModelSpec, src: int, out: int, begin, end, strides,
                begin_mask: int = 0, end_mask: int = 0, shrink: int = 0) -> Lowered:
    """A ``strided_slice`` step of ``src`` into ``out`` (bounds resolved, checked against out);
    with unit steps along at most one axis and nothing shrunk, a :class:`Slice` placement (a
    view of ``src``'s buffer where the plan can make one, else that step)."""
    x = tuple(model.tensors[src].shape)
    if len(x) > MAX_RANK:
        raise refuse(op, f"a rank-{len(x)} input (ACL slices at most {MAX_RANK} dimensions)")
    try:
        bounds, shape = slice_bounds(x, list(begin), list(end), list(strides), begin_mask, end_mask, shrink,
                                     f"operator #{op.index} {op.opcode}")
    except IndexOutOfRangeError as e:
        raise malformed(op, str(e)) from None
    except UnsupportedOptionError as e:
        raise refuse(op, str(e)) from None
    _check_shape(op, model, out, shape, f"{list(x)} sliced")
    params: Params = (("begin", tuple(b for b, _, _ in bounds)), ("end", tuple(e for _, e, _ in bounds)),
                      ("strides", tuple(s for _, _, s in bounds)), ("shrink_axis_mask", shrink))
    step = Step(op.index, op.opcode, "strided_slice", (src,), out, params + _same_q(op, model, src, (out,)))
    cut = [k for k, (b, e, st) in enumerate(bounds) if (b, e) != (0, x[k])]
    if shrink or any(st != 1 for _, _, st in bounds) or len(cut) > 1:
        return step
    axis = cut[0] if cut else 0
    return Slice(op.index, op.opcode, src, out, axis, bounds[axis][0], step)


@rule("STRIDED_SLICE", tensors=moved(1, 2, 3))
def strided_slice(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``strided_slice`` with constant begin / end / strides and TFLite's begin, end and
    shrink masks (``offset``: end relative to begin); entries past the given ones take their
    whole axis. Refused (the fallback runs them): ellipsis and new-axis masks, negative
    strides, an empty result, rank above 4."""
    src = first_input(op)
    rank = len(model.tensors[src].shape)
    begin, end, strides = (_table(op, model, k, name) for k, name in ((1, "begin"), (2, "end"), (3, "strides")))
    if not len(begin) == len(end) == len(strides) <= rank:
        raise malformed(op, f"begin, end and strides of {len(begin)}, {len(end)} and {len(strides)} entries "
                            f"for a rank-{rank} input")
    for name in ("ellipsis_mask", "new_axis_mask"):
        if int(option(op, name, 0) or 0):
            raise refuse(op, f"option {name}={option(op, name)}")
    bmask, emask, smask = (int(option(op, n, 0) or 0) for n in ("begin_mask", "end_mask", "shrink_axis_mask"))
    if option(op, "offset", False):
        end = end + begin
    extra = rank - len(begin)  # the axes not named: whole
    full = ((1 << rank) - 1) ^ ((1 << len(begin)) - 1)
    begin, end = np.concatenate([begin, np.zeros(extra, np.int64)]), np.concatenate([end, np.zeros(extra, np.int64)])
    strides = np.concatenate([strides, np.ones(extra, np.int64)])
    return (_slice_step(op, model, src, op.outputs[0], begin, end, strides, bmask | full, emask | full, smask),)


@rule("SLICE", tensors=moved(1, 2))
def slice_(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``strided_slice`` with unit steps from constant begin and size (-1: to the end)."""
    src = first_input(op)
    x = model.tensors[src].shape
    begin, size = _table(op, model, 1, "begin"), _table(op, model, 2, "size")
    if not len(begin) == len(size) == len(x):
        raise malformed(op, f"begin {begin.tolist()} and size {size.tolist()} for a rank-{len(x)} input")
    if (begin < 0).any() or (size < -1).any():
        raise malformed(op, f"begin {begin.tolist()} / size {size.tolist()}: expected begin >= 0, size >= -1")
    end = np.where(size < 0, np.asarray(x), begin + size)
    return (_slice_step(op, model, src, op.outputs[0], begin, end, np.ones(len(x), np.int64)),)


def _axis(op: OperatorSpec, axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise malformed(op, f"axis {axis} for a rank-{rank} input")
    return axis + rank if axis < 0 else axis


def _parts(op: OperatorSpec, model: ModelSpec, src: int, axis: int, shrink: bool = False) -> Tuple[Lowered, ...]:
    """One ``strided_slice`` step per output: consecutive parts of ``src`` along ``axis``, each
    as long as its output says (``shrink``: one element each, the axis dropped: UNPACK)."""
    x = tuple(model.tensors[src].shape)
    steps: List[Lowered] = []
    start = 0
    for out in op.outputs:
        y = model.tensors[out].shape
        length = 1 if shrink else (y[axis] if len(y) == len(x) else -1)
        if length < 1 or start + length > x[axis]:
            raise malformed(op, f"output #{out} {list(y)} does not fit {list(x)} along axis {axis} from {start}")
        begin = [0] * len(x)
        begin[axis] = start
        end = list(x)
        end[axis] = start + length
        steps.append(_slice_step(op, model, src, out, begin, end, [1] * len(x), shrink=(1 << axis) if shrink else 0))
        start += length
    if start != x[axis]:
        raise malformed(op, f"the outputs cover {start} of {x[axis]} along axis {axis}")
    return tuple(steps)


@rule("SPLIT", tensors=moved(0))
def split(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> one ``strided_slice`` per output (num_splits equal parts along the constant axis)."""
    if len(op.inputs) != 2 or op.inputs[1] < 0:
        raise malformed(op, f"{len(op.inputs)} inputs, expected (axis, input)")
    src = op.inputs[1]
    axis = _axis(op, int(_table(op, model, 0, "axis")[0]), len(model.tensors[src].shape))
    n = int_option(op, "num_splits", len(op.outputs))
    if n != len(op.outputs) or model.tensors[src].shape[axis] % n:
        raise malformed(op, f"num_splits {n} with {len(op.outputs)} outputs of extent "
                            f"{model.tensors[src].shape[axis]} along axis {axis}")
    return _parts(op, model, src, axis)


@rule("SPLIT_V", tensors=moved(1, 2))
def split_v(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> one ``strided_slice`` per output, as long along the constant axis as the output is."""
    src = first_input(op)
    return _parts(op, model, src, _axis(op, int(_table(op, model, 2, "axis")[0]), len(model.tensors[src].shape)))


@rule("UNPACK", tensors=moved())
def unpack(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> one ``strided_slice`` per output, each one element along ``axis`` (shrunk away)."""
    src = first_input(op)
    x = model.tensors[src].shape
    axis = _axis(op, int_option(op, "axis", 0), len(x))
    if len(op.outputs) != x[axis]:
        raise malformed(op, f"{len(op.outputs)} outputs for extent {x[axis]} along axis {axis}")
    return _parts(op, model, src, axis, shrink=True)


@rule("GATHER", tensors=moved(1))
def gather(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``gather`` along ``axis`` with constant 1-D indices (int32 for ACL), each checked in
    range (ACL's result for others is undefined); batch_dims 0, rank 4 at most."""
    src, out = first_input(op), op.outputs[0]
    x = tuple(model.tensors[src].shape)
    if len(op.inputs) < 2 or op.inputs[1] < 0 or model.tensors[op.inputs[1]].data is None:
        raise refuse(op, "non-constant indices")
    indices = np.asarray(model.tensors[op.inputs[1]].data)
    if indices.ndim != 1:
        raise refuse(op, f"indices of shape {list(indices.shape)} (1-D only)")
    if int(option(op, "batch_dims", 0) or 0):
        raise refuse(op, f"option batch_dims={option(op, 'batch_dims')}")
    if len(x) > MAX_RANK:
        raise refuse(op, f"a rank-{len(x)} input (ACL gathers at most {MAX_RANK} dimensions)")
    axis = _axis(op, int_option(op, "axis", 0), len(x))
    bad = indices[(indices < 0) | (indices >= x[axis])]
    if bad.size:
        raise malformed(op, f"index {int(bad[0])} out of range 0..{x[axis] - 1} along axis {axis}")
    _check_shape(op, model, out, x[:axis] + indices.shape + x[axis + 1:], f"{list(x)} gathered along {axis}")
    return (unary(op, "gather", (("axis", axis),) + _same_q(op, model, src, (out,)),
                  (("indices", indices.astype(np.int32)),)),)


@rule("TILE", tensors=moved(1))
def tile(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``tile`` with the constant multiples (>= 1), rank 4 at most."""
    src, out = first_input(op), op.outputs[0]
    x = tuple(model.tensors[src].shape)
    m = _table(op, model, 1, "multiples")
    if len(m) != len(x) or (m < 1).any():
        raise malformed(op, f"multiples {m.tolist()} for a rank-{len(x)} input")
    if len(x) > MAX_RANK:
        raise refuse(op, f"a rank-{len(x)} input (ACL tiles at most {MAX_RANK} dimensions)")
    _check_shape(op, model, out, [d * int(k) for d, k in zip(x, m)], f"{list(x)} tiled by {m.tolist()}")
    return (unary(op, "tile", (("multiples", tuple(int(k) for k in m)),) + _same_q(op, model, src, (out,))),)


@rule("DEPTH_TO_SPACE", "SPACE_TO_DEPTH", tensors=moved())
def depth_space(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``depth_to_space`` / ``space_to_depth`` (NHWC) with the block size (>= 2)."""
    src, out = first_input(op), op.outputs[0]
    x = tuple(model.tensors[src].shape)
    b = int_option(op, "block_size")
    if len(x) != 4:
        raise refuse(op, f"a rank-{len(x)} input (NHWC, rank 4)")
    n, h, w, c = x
    if b < 2 or (op.opcode == "DEPTH_TO_SPACE" and c % (b * b)) or (op.opcode == "SPACE_TO_DEPTH" and (h % b or w % b)):
        raise malformed(op, f"block_size {b} for input {list(x)}")
    want = (n, h * b, w * b, c // (b * b)) if op.opcode == "DEPTH_TO_SPACE" else (n, h // b, w // b, c * b * b)
    _check_shape(op, model, out, want, f"{list(x)} with block {b}")
    return (unary(op, op.opcode.lower(), (("block_size", b),) + _same_q(op, model, src, (out,))),)


def _block_and_edges(op: OperatorSpec, model: ModelSpec, what: str):
    """(block_h, block_w), ((top, bottom), (left, right)) of a rank-4 BATCH_TO_SPACE_ND /
    SPACE_TO_BATCH_ND (constant tables)."""
    x = tuple(model.tensors[first_input(op)].shape)
    if len(x) != 4:
        raise refuse(op, f"a rank-{len(x)} input (NHWC, rank 4)")
    block, edges = _table(op, model, 1, "block_shape"), _table(op, model, 2, what)
    if len(block) != 2 or (block < 1).any() or len(edges) != 4 or (edges < 0).any():
        raise malformed(op, f"block_shape {block.tolist()} / {what} {edges.tolist()} for an NHWC input")
    t, b, l, r = (int(v) for v in edges)
    return x, (int(block[0]), int(block[1])), ((t, b), (l, r))


@rule("BATCH_TO_SPACE_ND", tensors=moved(1, 2))
def batch_to_space(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``batch_to_space`` (NHWC) with the constant block shape and crops."""
    src, out = first_input(op), op.outputs[0]
    (n, h, w, c), (bh, bw), ((t, b), (l, r)) = _block_and_edges(op, model, "crops")
    if n % (bh * bw):
        raise malformed(op, f"batch {n} not a multiple of the block {bh}x{bw}")
    _check_shape(op, model, out, (n // (bh * bw), h * bh - t - b, w * bw - l - r, c), "batch to space")
    return (unary(op, "batch_to_space", (("block_shape", (bh, bw)), ("crops", ((t, b), (l, r))))
                  + _same_q(op, model, src, (out,))),)


@rule("SPACE_TO_BATCH_ND", tensors=moved(1, 2))
def space_to_batch(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``space_to_batch`` (NHWC) with the constant block shape and paddings (float32; int8
    without padding: TFLite pads with the zero point)."""
    src, out = first_input(op), op.outputs[0]
    (n, h, w, c), (bh, bw), ((t, b), (l, r)) = _block_and_edges(op, model, "paddings")
    if (h + t + b) % bh or (w + l + r) % bw:
        raise malformed(op, f"padded {h + t + b}x{w + l + r} not a multiple of the block {bh}x{bw}")
    if is_quantized(model, src) and (t, b, l, r) != (0, 0, 0, 0):
        raise refuse(op, f"padding {[t, b, l, r]} of a {model.tensors[src].dtype} input")
    _check_shape(op, model, out, (n * bh * bw, (h + t + b) // bh, (w + l + r) // bw, c), "space to batch")
    return (unary(op, "space_to_batch", (("block_shape", (bh, bw)), ("paddings", ((t, b), (l, r))))
                  + _same_q(op, model, src, (out,))),)


def _pads(op: OperatorSpec, model: ModelSpec) -> Tuple[Tuple[int, int], ...]:
    src, out = first_input(op), op.outputs[0]
    x = model.tensors[src].shape
    table = _table(op, model, 1, "paddings")
    pads = table.reshape(-1, 2) if len(table) % 2 == 0 else np.zeros((0, 2), np.int64)
    if pads.shape != (len(x), 2) or (pads < 0).any():
        raise malformed(op, f"paddings {pads.tolist()} do not fit input rank {len(x)}")
    _check_shape(op, model, out, [d + int(a) + int(b) for d, (a, b) in zip(x, pads)], f"{list(x)} padded")
    return tuple((int(a), int(b)) for a, b in pads)


@rule("PADV2", tensors=moved(1, 2))
def padv2(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``pad`` with the constant padding value (int8 / uint8: the stored value)."""
    src, out = first_input(op), op.outputs[0]
    pads = _pads(op, model)
    value = model.tensors[op.inputs[2]].data if len(op.inputs) > 2 and op.inputs[2] >= 0 else None
    if value is None:
        raise refuse(op, "a non-constant padding value")
    v = np.asarray(value).reshape(-1)[0]
    return (unary(op, "pad", (("pad_width", pads), ("constant_value", float(v) if v.dtype.kind == "f" else int(v)))
                  + _same_q(op, model, src, (out,))),)


@rule("MIRROR_PAD", tensors=moved(1))
def mirror_pad(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``pad`` in mode reflect (the edge not repeated) or symmetric (repeated): numpy's and
    ACL's modes of the same names."""
    src, out = first_input(op), op.outputs[0]
    pads = _pads(op, model)
    mode = str(option(op, "mode", "REFLECT")).lower()
    x = model.tensors[src].shape
    if any(max(a, b) > d - (mode == "reflect") for d, (a, b) in zip(x, pads)):
        raise malformed(op, f"paddings {list(pads)} wider than {mode} allows for {list(x)}")
    return (unary(op, "pad", (("pad_width", pads), ("mode", mode)) + _same_q(op, model, src, (out,))),)


CASTS = (np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.uint8), np.dtype(np.int16), np.dtype(np.float16))


def cast_gate(op: OperatorSpec, model: ModelSpec) -> None:
    """CAST: one live input and one output among float32, float16, int32, int16, uint8, no
    quantization (ACL's validate() says which pairs it converts)."""
    if len(op.inputs) != 1 or len(op.outputs) != 1 or op.inputs[0] < 0:
        raise refuse(op, f"{len(op.inputs)} inputs / {len(op.outputs)} outputs (1 and 1)")
    for i in (op.inputs[0], op.outputs[0]):
        t = model.tensors[i]
        if t.dtype not in CASTS or t.quantization is not None and t.quantization.scale:
            raise refuse(op, f"tensor #{i} {t.name!r} of type {t.dtype}" + (" with quantization" if t.quantization
                                                                          and t.quantization.scale else "")
                         + f" (one of {', '.join(d.name for d in CASTS)})")


@rule("CAST", tensors=cast_gate)
def cast(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``cast`` (ACL's depth conversion, saturating; float -> integer truncates as TFLite's
    static_cast)."""
    if tuple(model.tensors[op.inputs[0]].shape) != tuple(model.tensors[op.outputs[0]].shape):
        raise malformed(op, "input and output shapes differ")
    return (unary(op, "cast"),)


def fill_gate(op: OperatorSpec, model: ModelSpec) -> None:
    """FILL: constant dims and value, the value's type the output's (float32 or int32)."""
    if len(op.inputs) != 2 or len(op.outputs) != 1 or min(op.inputs) < 0:
        raise refuse(op, f"{len(op.inputs)} inputs / {len(op.outputs)} outputs (dims, value -> 1)")
    dims, value, y = (model.tensors[i] for i in (*op.inputs, op.outputs[0]))
    if dims.data is None or value.data is None:
        raise refuse(op, "non-constant dims or value (a FILL of constants whose output is no graph output is "
                         "folded at load)")
    if y.dtype not in (np.dtype(np.float32), np.dtype(np.int32)) or value.dtype != y.dtype:
        raise refuse(op, f"a {value.dtype} value into a {y.dtype} output (float32 or int32, the same)")


@rule("FILL", tensors=fill_gate)
def fill(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``fill`` (ACL's NEFill) of the output with the constant value; the dims must be the
    output's shape. The step names the dims as its input (a constant: no buffer, nothing read)."""
    dims, value = (model.tensors[i].data for i in op.inputs)
    y = model.tensors[op.outputs[0]]
    if [int(d) for d in np.asarray(dims).reshape(-1)] != list(y.shape):
        raise malformed(op, f"dims {np.asarray(dims).reshape(-1).tolist()}, the output is {list(y.shape)}")
    v = np.asarray(value).reshape(-1)[0]
    return (Step(op.index, op.opcode, "fill", (op.inputs[0],), op.outputs[0],
                 (("value", float(v) if v.dtype.kind == "f" else int(v)),)),)


@rule("PACK", tensors=moved())
def pack(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """Views: each input a reshape (its new axis of 1) of its slice of the output along
    ``axis``, so its producer writes straight into the output (a counted copy where it cannot:
    a graph input, an input read twice), as CONCATENATION's inputs are; one quantization for
    every input and the output (TFLite's requirement). A constant input is refused (the
    fallback stacks it; PACK of constants alone is folded at load)."""
    t = model.tensors
    out = op.outputs[0]
    y = tuple(t[out].shape)
    axis = _axis(op, int_option(op, "axis", 0), len(y))
    if any(i < 0 for i in op.inputs) or int_option(op, "values_count", len(op.inputs)) != len(op.inputs):
        raise malformed(op, f"{len(op.inputs)} inputs, values_count {option(op, 'values_count')}")
    x = y[:axis] + y[axis + 1:]
    steps: List[Lowered] = []
    parts = []
    for k, i in enumerate(op.inputs):
        if tuple(t[i].shape) != x or y[axis] != len(op.inputs):
            raise malformed(op, f"input #{i} {list(t[i].shape)} stacked {len(op.inputs)} times along axis {axis} "
                                f"is not the output's {list(y)}")
        _same_q(op, model, i, (out,))
        if t[i].is_constant:  # the runner hands ACL no buffer of a constant to copy from
            raise refuse(op, f"the constant input #{i} {t[i].name!r}")
        key = -2 - k
        steps += [Intermediate(op.index, op.opcode, key, x[:axis] + (1,) + x[axis:], i),
                  Reshape(op.index, op.opcode, i, key)]
        parts.append((key, k))
    return tuple(steps) + (Concatenate(op.index, op.opcode, out, axis, tuple(parts)),)
