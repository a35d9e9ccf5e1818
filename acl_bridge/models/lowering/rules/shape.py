"""Shape and view operators: PAD, TRANSPOSE, RESIZE_BILINEAR, RESHAPE, SQUEEZE and EXPAND_DIMS (views),
CONCATENATION (views)."""

from __future__ import annotations

import math
from typing import List, Tuple

import numpy as np

from ...format.tflite_reader import ModelSpec, OperatorSpec
from ..helpers import (
    first_input,
    int_option,
    integer_table,
    malformed,
    nhwc,
    no_fused_activation,
    option,
    refuse,
    unary,
)
from ..quantized import is_quantized, quantization, tensor_q
from ..step import Concatenate, Lowered, Params, Reshape
from .table import FLOAT32_OR_INT8, FLOAT32_OR_INT8_WITH_TABLE, FLOAT32_WITH_TABLE, rule


@rule("PAD", tensors=FLOAT32_OR_INT8_WITH_TABLE)
def pad(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``pad`` (zeros) with the constant paddings ((before, after) per dimension); int8 /
    uint8: one quantization in and out (TFLite's requirement), padded with the zero point
    (the stored value of 0.0)."""
    pads = integer_table(op, model, "non-constant paddings")
    src = first_input(op)
    x, y = model.tensors[src].shape, model.tensors[op.outputs[0]].shape
    widths = pads.tolist()  # (Python numbers: no numpy scalar per element)
    if pads.shape != (len(x), 2) or any(w < 0 for row in widths for w in row):
        raise malformed(op, f"paddings {widths} do not fit input rank {len(x)}")
    out = tuple(int(d + a + b) for d, (a, b) in zip(x, widths))
    if out != tuple(y):
        raise malformed(op, f"{list(x)} padded by {widths} is {list(out)}, the output says {list(y)}")
    params: Params = (("pad_width", tuple((int(a), int(b)) for a, b in widths)),)
    if is_quantized(model, src):
        xq, yq = tensor_q(op, model, src), tensor_q(op, model, op.outputs[0])
        if xq != yq:
            raise refuse(op, f"input quantization (scale {xq[0]}, zero point {xq[1]}) differing from the output's "
                             f"(scale {yq[0]}, zero point {yq[1]})")
        params += (("constant_value", yq[1]),) + quantization(("src", xq), ("dst", yq))
    return (unary(op, "pad", params),)


# ACL's permute: any permutation of at most 4 dimensions (NEPermute / CLPermute, 20.08 and 24.11)
TRANSPOSE_MAX_RANK = 4


@rule("TRANSPOSE", tensors=FLOAT32_OR_INT8_WITH_TABLE)
def transpose(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``permute`` with the constant permutation (negative axes resolved as TFLite does);
    rank 4 at most; int8 / uint8 moves the stored values (one quantization in and out)."""
    perm = np.asarray(integer_table(op, model, "a non-constant permutation")).reshape(-1)
    src = first_input(op)
    x, y = tuple(model.tensors[src].shape), tuple(model.tensors[op.outputs[0]].shape)
    axes = tuple(int(a) + len(x) if a < 0 else int(a) for a in perm)
    if sorted(axes) != list(range(len(x))):
        raise malformed(op, f"permutation {perm.tolist()} of a rank-{len(x)} input")
    if tuple(x[a] for a in axes) != y:
        raise malformed(op, f"{list(x)} permuted by {list(axes)} is {[x[a] for a in axes]}, the output says {list(y)}")
    if len(x) > TRANSPOSE_MAX_RANK:
        raise refuse(op, f"a rank-{len(x)} permutation (ACL permutes at most {TRANSPOSE_MAX_RANK} dimensions)")
    params: Params = (("axes", axes),)
    if is_quantized(model, src):
        xq, yq = tensor_q(op, model, src), tensor_q(op, model, op.outputs[0])
        if xq != yq:
            raise refuse(op, f"input quantization {xq} differing from the output's {yq}")
        params += quantization(("src", xq), ("dst", yq))
    return (unary(op, "permute", params),)


def resize_grid(op: OperatorSpec, model: ModelSpec) -> Tuple[bool, bool]:
    """(align_corners, half_pixel_centers) of a RESIZE_* operator whose constant size input
    equals the output's height and width (ModelFormatError otherwise); both at once refused."""
    size = np.asarray(integer_table(op, model, "a non-constant size input")).reshape(-1)
    x, y = nhwc(op, model)
    if size.tolist() != list(y[1:3]) or x[0] != y[0] or x[3] != y[3]:
        raise malformed(op, f"input {list(x)} resized to size {size.tolist()} does not give the output {list(y)}")
    align, half = bool(option(op, "align_corners", False)), bool(option(op, "half_pixel_centers", False))
    if align and half:
        raise refuse(op, "option align_corners=True together with half_pixel_centers=True")
    return align, half


@rule("RESIZE_BILINEAR", tensors=FLOAT32_WITH_TABLE)
def resize_bilinear(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``resize`` (bilinear) with TFLite's align_corners / half_pixel_centers; the size
    input must be a constant equal to the output's height and width."""
    align, half = resize_grid(op, model)
    return (unary(op, "resize", (("align_corners", align), ("half_pixel_centers", half))),)


@rule("RESHAPE", tensors=FLOAT32_OR_INT8_WITH_TABLE)
def reshape(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """A view (or a counted copy): the new shape is the output's, the shape input is not read."""
    src, out = first_input(op), op.outputs[0]
    x, y = model.tensors[src].shape, model.tensors[out].shape
    if math.prod(x) != math.prod(y):  # (Python's ints: numpy's first reduction of a process costs ms under QEMU)
        raise malformed(op, f"{list(x)} -> {list(y)} changes the number of elements")
    return (Reshape(op.index, op.opcode, src, out),)


@rule("SQUEEZE", "EXPAND_DIMS", tensors=FLOAT32_OR_INT8_WITH_TABLE)
def squeeze_or_expand(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """A view as RESHAPE's: the output's shape is the input's with axes of extent 1 removed
    (SQUEEZE) or added (EXPAND_DIMS), the elements in the same order; anything else is refused
    as malformed, naming both shapes."""
    src, out = first_input(op), op.outputs[0]
    x, y = tuple(model.tensors[src].shape), tuple(model.tensors[out].shape)
    longer, shorter = (x, y) if op.opcode == "SQUEEZE" else (y, x)
    if len(longer) < len(shorter) or [d for d in longer if d != 1] != [d for d in shorter if d != 1]:
        raise malformed(op, f"{list(x)} -> {list(y)} is not a {op.opcode} (only axes of extent 1 may "
                            f"{'go' if op.opcode == 'SQUEEZE' else 'come'})")
    return (Reshape(op.index, op.opcode, src, out),)


@rule("CONCATENATION", tensors=FLOAT32_OR_INT8)
def concatenation(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """Views: every input a slice of the output along the axis (or a counted copy into it)."""
    t = model.tensors
    no_fused_activation(op)
    out = op.outputs[0]
    rank = len(t[out].shape)
    axis = int_option(op, "axis", 0)
    axis = axis + rank if axis < 0 else axis
    if not 0 <= axis < rank:
        raise malformed(op, f"axis {option(op, 'axis')} for rank {rank}")
    parts: List[Tuple[int, int]] = []
    start = 0
    for i in op.inputs:
        if i < 0:
            raise malformed(op, f"input {len(parts)} is absent")
        shape = t[i].shape
        along = shape[axis] if len(shape) == rank else -1
        expect = tuple(t[out].shape[:axis]) + (along,) + tuple(t[out].shape[axis + 1:])
        if len(shape) != rank or tuple(shape) != expect:
            raise malformed(op, f"input {list(shape)} does not fit output {list(t[out].shape)} along axis {axis}")
        parts.append((i, start))
        start += shape[axis]
    if start != t[out].shape[axis]:
        raise malformed(op, f"inputs give {start} along axis {axis}, the output has {t[out].shape[axis]}")
    return (Concatenate(op.index, op.opcode, out, axis, tuple(parts)),)
