"""GATHER_ND on ACL's gather (ACL has no GatherNd function): what Arm NN's GatherNd workload
composes (the index rows flattened with the params' strides, then a 1-D gather of slices),
with the flattening done at load for constant indices: params viewed as (K, C) (K the
product of its first ``nd`` axes, C of the rest), one ``gather`` along axis 0 with the flat
positions into an (N, C) view of the output. float32, or int8 / uint8 moved as stored with
one quantization in and out.

Runtime indices (int32 or int64) go to the ``gather_nd`` kind (:mod:`.gather_nd_runtime`):
ACL's gather leaves an index out of range undefined (its headers: "the result will become
unpredictable") and Arm NN's MUL + REDUCE_SUM + GATHER composition has no check, where
TFLite's kernel stops with an error, so the shim flattens and checks the rows on the CPU at
every run and ACL's gather moves the slices."""

from __future__ import annotations

import math
from typing import List, Sequence, Tuple

import numpy as np

from ...format.tflite_reader import ModelSpec, OperatorSpec
from ..helpers import first_input, malformed, refuse
from ..quantized import is_quantized, one_quantization
from ..step import Intermediate, Lowered, Params, Reshape, Step
from .movement import moved
from .gather_nd_runtime import runtime_gather_nd
from .table import rule

INT32_MAX = np.iinfo(np.int32).max


def flat_positions(indices: np.ndarray, params_shape: Sequence[int]) -> Tuple[np.ndarray, int, int]:
    """(flat slice positions (N,), K, C) of GATHER_ND's ``indices`` (..., nd) into params of
    ``params_shape``: row i's position sum_j indices[i, j] * prod(params_shape[j + 1:nd]), the
    params seen as K = prod(params_shape[:nd]) slices of C = prod(params_shape[nd:])
    elements. ValueError naming the first index row with a component outside its axis
    (TensorFlow's check, and TFLite 2.x's kernel's; ai-edge-litert 1.4's kernel checked only
    that no component is negative and that the flat position lies inside params)."""
    idx = np.asarray(indices).astype(np.int64)
    if idx.ndim < 1 or not 1 <= idx.shape[-1] <= len(params_shape):
        raise ValueError(f"indices of shape {list(idx.shape)} for params {list(params_shape)} (the last axis "
                         f"1..{len(params_shape)} long)")
    nd = idx.shape[-1]
    k, c = math.prod(params_shape[:nd]), math.prod(params_shape[nd:])
    extents = np.array(params_shape[:nd], np.int64)
    strides = np.array([math.prod(params_shape[j + 1:nd]) for j in range(nd)], np.int64)
    rows = idx.reshape(-1, nd)
    outside = (rows < 0) | (rows >= extents)
    bad = np.flatnonzero(outside.any(axis=1))
    if bad.size:
        r = int(bad[0])
        j = int(np.flatnonzero(outside[r])[0])
        v = int(rows[r, j])
        if v < 0:
            raise ValueError(f"index {rows[r].tolist()} (row {r}) has a negative component (TFLite's kernel "
                             f"refuses every negative index) (component {j} is {v}, expected 0..{int(extents[j]) - 1})")
        raise ValueError(f"index {rows[r].tolist()} (row {r}) is outside params {list(params_shape[:nd])} "
                         f"(component {j} is {v}, expected 0..{int(extents[j]) - 1})")
    return rows @ strides, k, c


@rule("GATHER_ND", tensors=moved(1))
def gather_nd(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``gather`` along axis 0 of params viewed as (K, C), constant indices flattened at load
    (int32 for ACL), into the output viewed as (N, C); an index outside params is a format
    error (TFLite's kernel stops there)."""
    src, out = first_input(op), op.outputs[0]
    if len(op.inputs) != 2 or op.inputs[1] < 0:
        raise malformed(op, f"{len(op.inputs)} inputs, expected params and indices")
    data = model.tensors[op.inputs[1]].data
    if data is None:
        return runtime_gather_nd(op, model)
    x, y = tuple(model.tensors[src].shape), tuple(model.tensors[out].shape)
    indices = np.asarray(data)
    try:
        flat, k, c = flat_positions(indices, x)
    except ValueError as e:
        raise malformed(op, str(e)) from None
    nd = indices.shape[-1]
    want = indices.shape[:-1] + x[nd:]
    if y != want:
        raise malformed(op, f"params {list(x)} gathered by indices {list(indices.shape)} give {list(want)}, the "
                            f"output says {list(y)}")
    if k > INT32_MAX:
        raise refuse(op, f"{k} slices (ACL's indices are int32)")
    params: Params = (("axis", 0),) + (one_quantization(op, model, src, out) if is_quantized(model, src) else ())
    steps: List[Lowered] = []
    table, target = src, out
    if x != (k, c):
        table = -2
        steps += [Intermediate(op.index, op.opcode, table, (k, c), src), Reshape(op.index, op.opcode, src, table)]
    if y != (flat.size, c):
        target = -3
        steps.append(Intermediate(op.index, op.opcode, target, (flat.size, c), out))
    steps.append(Step(op.index, op.opcode, "gather", (table,), target, params, (("indices", flat.astype(np.int32)),)))
    if target != out:
        steps.append(Reshape(op.index, op.opcode, target, out))
    return tuple(steps)


__all__ = ["gather_nd", "flat_positions"]
