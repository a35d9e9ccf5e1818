"""Pooling: MAX_POOL_2D, AVERAGE_POOL_2D, and MEAN / REDUCE_MAX over H and W (a global average /
max pooling)."""

from __future__ import annotations

from typing import Tuple

import numpy as np

from ...format.tflite_reader import ModelSpec, OperatorSpec
from ..helpers import (
    first_input,
    int_option,
    integer_table,
    malformed,
    no_fused_activation,
    option,
    refuse,
    unary,
    window,
)
from ..quantized import is_quantized, one_quantization, quantization, tensor_q
from ..step import Intermediate, Lowered, Params, Reshape, Step
from .table import FLOAT32_OR_INT8, rule


@rule("MAX_POOL_2D", "AVERAGE_POOL_2D", tensors=FLOAT32_OR_INT8)
def pool_2d(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``pooling`` (average over the elements inside the input, as TFLite); int8 / uint8
    with the same scale and zero point in and out (TFLite requires it)."""
    no_fused_activation(op)
    kh, kw = int_option(op, "filter_height"), int_option(op, "filter_width")
    stride, padding = window(op, model, kh, kw)
    pool = "max" if op.opcode == "MAX_POOL_2D" else "avg"
    params: Params = (("pool_type", pool), ("kernel", (kh, kw)), ("stride", stride), ("padding", padding))
    src, out = first_input(op), op.outputs[0]
    if is_quantized(model, src):
        params += one_quantization(op, model, src, out)
    return (unary(op, "pooling", params),)


# the spatial axes of an NHWC tensor: the only ones MEAN and REDUCE_MAX are lowered over
# (global average / max pooling)
MEAN_AXES = (1, 2)
# the pooling of each reduction over H and W
GLOBAL_POOLS = {"MEAN": "avg", "REDUCE_MAX": "max"}


def global_pool(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """The lowering of MEAN and REDUCE_MAX (:mod:`.reduction`'s rule) over H and W of an NHWC tensor (constant axes [1, 2] or [2, 1], negative ones
    resolved as TFLite does) -> a global average ``pooling`` (kernel H x W, no padding) into
    (N, 1, 1, C): the output itself with keep_dims, else an :class:`Intermediate` of which
    the (N, C) output is a reshape view. Other axes are refused naming them.

    int8 / uint8 (``global_mean``: the numpy plan computes TFLite's MEAN, not its
    AVERAGE_POOL_2D): TFLite's reference kernel sums the ``n`` elements (``s``), subtracts ``n`` x the
    input zero point and rescales by ``in_scale / out_scale / n`` as one fixed-point
    multiplier (the Q31 multiplier of ``in_scale / out_scale`` shifted left by
    ``floor(log2 n)`` bits and divided by ``n``, truncating) in gemmlowp's two roundings (the
    rounding doubling high multiply, then a right shift rounding half away from zero);
    input and output may have different scales and zero points. ACL's average pooling
    requantizes in float instead (measured on 24.11: ``round(s / ((out_scale / in_scale) *
    n)) + out_zero_point - trunc(in_zero_point * in_scale / out_scale)``, the offset
    truncated toward zero; with equal quantization ``round(s / n)``, ties to even): within
    1 step of TFLite's arithmetic (tests/models/test_mean_acl.py).

    REDUCE_MAX over H and W: a global max ``pooling`` the same way; int8 / uint8 with one
    quantization in and out (the stored values compared)."""
    no_fused_activation(op)
    src, out = first_input(op), op.outputs[0]
    axes = np.asarray(integer_table(op, model, "a non-constant axis input")).reshape(-1)
    x, y = tuple(model.tensors[src].shape), tuple(model.tensors[out].shape)
    if len(x) != 4:
        raise refuse(op, f"{op.opcode} of a rank-{len(x)} input {list(x)} (rank 4, NHWC, over axes [1, 2] only)")
    resolved = sorted({int(a) + 4 if a < 0 else int(a) for a in axes})
    if resolved != list(MEAN_AXES):
        raise refuse(op, f"{op.opcode} over axes {axes.tolist()} (only over H and W: axes [1, 2])")
    keep = option(op, "keep_dims", False)
    if not isinstance(keep, bool):
        raise malformed(op, f"option keep_dims is {keep!r}, expected True or False")
    n, h, w, c = x
    pooled = (n, 1, 1, c)
    want = pooled if keep else (n, c)
    if y != want:
        raise malformed(op, f"{op.opcode} of {list(x)} over axes [1, 2] with keep_dims={keep} is {list(want)}, "
                            f"the output says {list(y)}")
    pool = GLOBAL_POOLS[op.opcode]
    params: Params = (("pool_type", pool), ("kernel", (h, w)), ("stride", (1, 1)), ("padding", (0, 0, 0, 0)))
    if pool == "avg":
        params += (("global_mean", True),)
    if is_quantized(model, src):
        xq, yq = tensor_q(op, model, src), tensor_q(op, model, out)
        if pool == "max" and xq != yq:
            raise refuse(op, f"input quantization {xq} differing from the output's {yq}")
        params += quantization(("src", xq), ("dst", yq))
    if keep:
        return (unary(op, "pooling", params),)
    key = -2
    return (Intermediate(op.index, op.opcode, key, pooled, out),
            Step(op.index, op.opcode, "pooling", (src,), key, params),
            Reshape(op.index, op.opcode, key, out))
