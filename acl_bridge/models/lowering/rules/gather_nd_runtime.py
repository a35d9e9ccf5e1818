"""GATHER_ND with runtime indices (int32 or int64) onto the ``gather_nd`` kind: params viewed
as (K, C) (K the product of its first ``nd`` axes, C of the rest), the indices as (N, nd),
the output as (N, C); the bridge's function flattens and checks the index rows at every run
(every component inside its axis: an IndexOutOfRangeError, nothing written) and ACL's gather moves the rows.
float32, or int8 / uint8 moved as stored with one quantization in and out. No index rows (an
empty output) and int16 indices are refused (the fallback runs them)."""

from __future__ import annotations

import math
from typing import List, Tuple

import numpy as np

from ...format.tflite_reader import ModelSpec, OperatorSpec
from ..helpers import first_input, malformed, refuse
from ..quantized import is_quantized, one_quantization
from ..step import Intermediate, Lowered, Params, Reshape, Step

MAX_INDEX_DEPTH = 6  # the index row's components the bridge's function takes


def runtime_gather_nd(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``gather_nd`` of params viewed as (K, C) by the indices viewed as (N, nd) into the
    output viewed as (N, C), ``dims`` = params' first nd axes (reshape views where a tensor
    is not 2-D already)."""
    src, idx, out = first_input(op), op.inputs[1], op.outputs[0]
    x, i, y = (tuple(model.tensors[t].shape) for t in (src, idx, out))
    dtype = np.dtype(model.tensors[idx].dtype)
    if not i or not 1 <= i[-1] <= len(x):
        raise malformed(op, f"indices of shape {list(i)} for params {list(x)} (the last axis 1..{len(x)} long)")
    nd = i[-1]
    want = i[:-1] + x[nd:]
    if y != want:
        raise malformed(op, f"params {list(x)} gathered by indices {list(i)} give {list(want)}, the output says "
                            f"{list(y)}")
    if dtype not in (np.int32, np.int64):
        raise refuse(op, f"{dtype} indices (ACL's gather_nd here takes int32 or int64)")
    if nd > MAX_INDEX_DEPTH:
        raise refuse(op, f"index rows of {nd} components (at most {MAX_INDEX_DEPTH})")
    k, c, n = math.prod(x[:nd]), math.prod(x[nd:]), math.prod(i[:-1])
    if n == 0 or c == 0:
        raise refuse(op, "an empty output (no index rows or empty slices)")
    params: Params = (("dims", x[:nd]),) + (one_quantization(op, model, src, out) if is_quantized(model, src) else ())
    steps: List[Lowered] = []
    views = []
    for key, t, shape in ((-2, src, (k, c)), (-3, idx, (n, nd))):
        if tuple(model.tensors[t].shape) != shape:
            steps += [Intermediate(op.index, op.opcode, key, shape, t), Reshape(op.index, op.opcode, t, key)]
            t = key
        views.append(t)
    target = out
    if y != (n, c):
        target = -4
        steps.append(Intermediate(op.index, op.opcode, target, (n, c), out))
    steps.append(Step(op.index, op.opcode, "gather_nd", tuple(views), target, params))
    if target != out:
        steps.append(Reshape(op.index, op.opcode, target, out))
    return tuple(steps)


__all__ = ["runtime_gather_nd"]
