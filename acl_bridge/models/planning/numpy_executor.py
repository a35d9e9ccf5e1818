"""Carry out a :class:`~.tflite_plan.Plan` with numpy: the host-side reference for the plan
itself. Steps run on their kinds' numpy kernels (:mod:`..fallback.step_kernels`), fallback
operators on the fallback's kernels (:mod:`..fallback`), in the plan's order; running it
against TFLite's interpreter checks the lowering on any machine, and the ACL runner then only
has to match it."""

from __future__ import annotations

from typing import Any, Dict

import numpy as np

from ..fallback import prepare
from ..fallback.step_kernels import run_step
from .tflite_plan import Fallback, Plan, graph_inputs


def run_plan_tensors(plan: Plan, x: Any) -> Dict[int, np.ndarray]:
    """Every tensor of the plan after a run on ``x`` (one array, a sequence in the graph's
    input order, or a dict by input name, each of its input's dtype and shape, nothing cast:
    :func:`~.tflite_plan.graph_inputs`), by tensor
    index (views included, each in its tensor's dtype: float32, or int8 / uint8 for a
    quantized model). Fallback operators run on :mod:`.fallback`'s kernels in their place."""
    t = plan.model.tensors
    owned = {i: np.zeros(t[i].shape, t[i].dtype) for i in plan.buffers()}
    arrays = plan.bind(owned)
    arrays.update((c.index, c.data) for c in t if c.is_constant)  # operands of copies (CONCATENATION)
    for i, value in graph_inputs(plan.model, x).items():
        arrays[i][...] = value
    ops = {op.index: op for op in plan.model.operators} if plan.fallbacks else {}
    with np.errstate(all="ignore"):  # IEEE: NaN and Inf go through as in TFLite, without numpy's warnings
        for s in plan.order():
            if isinstance(s, Fallback):
                prepare(ops[s.op_index], plan.model, arrays)()
            else:
                run_step(s, arrays)
    return arrays

def run_plan(plan: Plan, x: Any) -> Dict[str, np.ndarray]:
    """Outputs of the model for input ``x`` (see :func:`run_plan_tensors`), by tensor name
    (each in its tensor's dtype)."""
    arrays = run_plan_tensors(plan, x)
    return {plan.model.tensors[i].name: np.array(arrays[i]) for i in plan.model.outputs}

