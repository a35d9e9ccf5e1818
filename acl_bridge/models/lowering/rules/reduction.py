"""Reductions: SUM, MEAN, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD over constant axes -> the
reduction family's steps (:mod:`acl_bridge.families.reduction`), one per axis; MEAN and
REDUCE_MAX over H and W of an NHWC tensor stay a global pooling (:func:`.pooling.global_pool`,
which also runs int8)."""

from __future__ import annotations

from typing import Dict, List, Tuple

import numpy as np

from ...format.tflite_reader import ModelSpec, OperatorSpec
from ..helpers import first_input, integer_table, malformed, no_fused_activation, option, refuse
from ..quantized import is_quantized
from ..step import Intermediate, Lowered, Reshape, Step
from .pooling import GLOBAL_POOLS, MEAN_AXES, global_pool
from .table import FLOAT32_OR_INT8_WITH_TABLE, rule

# TFLite reduction -> step kind (float32; one axis a step)
REDUCTIONS: Dict[str, str] = {"SUM": "reduce_sum", "MEAN": "reduce_mean", "REDUCE_MAX": "reduce_max",
                              "REDUCE_MIN": "reduce_min", "REDUCE_PROD": "reduce_prod"}
MAX_RANK = 4  # ACL reduces along its dimensions 0..3


@rule(*REDUCTIONS, tensors=FLOAT32_OR_INT8_WITH_TABLE)
def reduction(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> one reduction step per axis (constant axes, negative ones resolved as TFLite does,
    repeats ignored), each keeping its axis with extent 1: the last one writes the output
    itself with keep_dims, else an :class:`Intermediate` of which the output is a reshape
    view. float32, rank 4 at most; MEAN / REDUCE_MAX over H and W of a rank-4 tensor: a global
    pooling (float32 and int8). int8 over other axes is refused, naming the axes."""
    no_fused_activation(op)
    src, out = first_input(op), op.outputs[0]
    x, y = tuple(model.tensors[src].shape), tuple(model.tensors[out].shape)
    axes = np.asarray(integer_table(op, model, "a non-constant axis input")).reshape(-1)
    rank = len(x)
    if any(not -rank <= int(a) < rank for a in axes):
        raise malformed(op, f"axes {axes.tolist()} for a rank-{rank} input")
    resolved = sorted({int(a) + rank if a < 0 else int(a) for a in axes})
    if op.opcode in GLOBAL_POOLS and rank == 4 and tuple(resolved) == MEAN_AXES:
        return global_pool(op, model)
    if is_quantized(model, src):
        raise refuse(op, f"{op.opcode} of {model.tensors[src].dtype} tensors over axes {axes.tolist()} "
                         f"(int8 / uint8: MEAN and REDUCE_MAX over H and W only)")
    if rank > MAX_RANK:
        raise refuse(op, f"{op.opcode} of a rank-{rank} input (ACL reduces at most {MAX_RANK} dimensions)")
    if not resolved:
        raise refuse(op, f"{op.opcode} over no axis")
    keep = option(op, "keep_dims", False)
    if not isinstance(keep, bool):
        raise malformed(op, f"option keep_dims is {keep!r}, expected True or False")
    kept = tuple(1 if i in resolved else d for i, d in enumerate(x))
    want = kept if keep else tuple(d for i, d in enumerate(x) if i not in resolved)
    if y != want:
        raise malformed(op, f"{op.opcode} of {list(x)} over axes {resolved} with keep_dims={keep} is {list(want)}, "
                            f"the output says {list(y)}")
    steps: List[Lowered] = []
    current, shape = src, x
    for k, a in enumerate(resolved):
        shape = tuple(1 if i == a else d for i, d in enumerate(shape))
        if k == len(resolved) - 1 and keep:
            target = out
        else:
            target = -2 - k
            steps.append(Intermediate(op.index, op.opcode, target, shape, out))
        steps.append(Step(op.index, op.opcode, REDUCTIONS[op.opcode], (current,), target, (("axis", a),)))
        current = target
    if not keep:
        steps.append(Reshape(op.index, op.opcode, current, out))
    return tuple(steps)
