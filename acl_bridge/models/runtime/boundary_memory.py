"""Buffers that are TFLite's own memory: where a fallback segment runs in TFLite's interpreter
and a tensor at its boundary needs no padding on the bridge's side, the runner's buffer for it
is the interpreter's tensor (:meth:`..fallback.tflite_segments.SegmentBinder.memory`), taken out
of the arena, so that neither side copies it at a run. ai-edge-litert cannot point a tensor at
outside memory, so the bridge's buffer goes the other way."""

from __future__ import annotations

from typing import Dict, Mapping

import numpy as np

from ndarray import NdArray, ShapeDescriptor

from ..fallback.tflite_segments import InterpreterMemory, SegmentBinder
from ..planning.tflite_plan import Plan


def interpreter_memory(plan: Plan, binder: SegmentBinder) -> Dict[int, np.ndarray]:
    """{buffer (a tensor owning memory in the plan, or the buffer a tensor is an alias or a
    reshape of): the interpreter's bytes for it}, every fallback segment asked in order (a tensor's producer first; a tensor two segments share
    is the first one's, the second copies it). Empty for a plan without fallback operators."""
    out: Dict[int, np.ndarray] = {}
    if not plan.fallbacks:
        return out
    buffers, views = set(plan.buffers()), plan.view_of()
    for side, ks in plan.segments():
        if side == "fallback":
            ops = [plan.fallbacks[k].op_index for k in ks]
            for t, memory in binder.memory(plan.model, ops).items():
                while t in views and views[t].how[0] in ("alias", "reshape"):  # the same bytes as its parent
                    t = views[t].parent
                if t in buffers and t not in out:
                    out[t] = memory
    return out


def interpreter_arrays(plan: Plan, memory: Mapping[int, np.ndarray]) -> Dict[int, NdArray]:
    """Each buffer of ``memory`` as a dense NdArray of its tensor over the interpreter's bytes
    (the user's origin for ACL: the planner stages where ACL would write beyond it)."""
    t = plan.model.tensors
    return {b: NdArray(m, ShapeDescriptor.dense(tuple(t[b].shape), t[b].dtype)) for b, m in memory.items()}


def interpreter_owned(a: NdArray) -> bool:
    """Whether ``a`` lies in a fallback segment's interpreter's memory (:func:`interpreter_arrays`)."""
    return isinstance(a.allocation.base, InterpreterMemory)


__all__ = ["interpreter_arrays", "interpreter_memory", "interpreter_owned"]
