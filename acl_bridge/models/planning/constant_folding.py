"""Constant folding at load: an operator whose inputs are all known before the first
inference (constants, or for SHAPE a tensor whose shape is static) runs once, on its
fallback kernel, and its outputs become constants of the plan's model.

Converters leave shape arithmetic in graphs (SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE, so
that a batch size may change): with static shapes it always gives the same answer, so it
costs nothing per inference once folded and no longer splits a model into ACL segments
around CPU operators. What is not folded: an operator that writes a graph output (the
runner owns those buffers), one the fallback cannot run, one whose output would hold more
than :data:`MAX_FOLDED_ELEMENTS`, and one whose kernel fails on its constants (it then runs,
and fails, where it did before)."""

from __future__ import annotations

import dataclasses
from typing import Dict, List

import numpy as np

from ..fallback import KERNELS, prepare, unsupported
from ..format.tflite_reader import ModelSpec, OperatorSpec, UnsupportedModelError

MAX_FOLDED_ELEMENTS = 1 << 20
SHAPE_ONLY = frozenset({"SHAPE", "RANK"})  # operators that read only their input's (static) shape
NOT_FOLDED = frozenset({"RANDOM_UNIFORM", "RANDOM_STANDARD_NORMAL", "MULTINOMIAL"})  # new values each run


def fold_constants(model: ModelSpec) -> ModelSpec:
    """``model`` with every foldable operator (see the module) replaced by the constants it
    computes; ``model`` itself when there is none."""
    tensors = list(model.tensors)
    kept: List[OperatorSpec] = []
    graph_outputs = set(model.outputs)
    current = model  # the model with the constants folded so far (made again only after a fold)
    for op in model.operators:
        values = _folded(op, current, graph_outputs)
        if values is None:
            kept.append(op)
            continue
        for i, value in values.items():
            value.flags.writeable = False
            tensors[i] = dataclasses.replace(tensors[i], data=value)
        current = dataclasses.replace(model, tensors=tuple(tensors))
    if len(kept) == len(model.operators):
        return model
    return dataclasses.replace(model, tensors=tuple(tensors), operators=tuple(kept))


def _folded(op: OperatorSpec, model: ModelSpec, graph_outputs: set) -> "Dict[int, np.ndarray] | None":
    """The outputs of ``op`` computed now, or None where it is not foldable."""
    t = model.tensors
    if op.opcode not in KERNELS or op.opcode in NOT_FOLDED or not op.outputs or graph_outputs.intersection(op.outputs):
        return None
    shape_only = op.opcode in SHAPE_ONLY
    live = [i for i in op.inputs if i >= 0 and t[i].data is None]  # (not is_constant: no call per input)
    if live and not (shape_only and len(op.inputs) == 1):
        return None
    if any(int(np.prod(t[o].shape, dtype=np.int64)) > MAX_FOLDED_ELEMENTS for o in op.outputs):
        return None
    if unsupported(op, model) is not None:
        return None
    arrays = {i: np.broadcast_to(np.zeros((), t[i].dtype), t[i].shape) for i in live}
    outputs = {o: np.zeros(t[o].shape, t[o].dtype) for o in op.outputs}
    try:
        with np.errstate(all="ignore"):
            prepare(op, model, {**arrays, **outputs})()
    except (UnsupportedModelError, ValueError, IndexError, TypeError, ArithmeticError):
        return None
    return outputs


__all__ = ["fold_constants", "MAX_FOLDED_ELEMENTS"]
