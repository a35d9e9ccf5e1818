"""Network layers: SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION, and the operators the lowering
rules lower but ACL's validate() refused on this ACL (CONV_2D, DEPTHWISE_CONV_2D,
FULLY_CONNECTED, MAX_POOL_2D, AVERAGE_POOL_2D, RESIZE_BILINEAR): those run the rule's own
steps with the numpy executor's arithmetic (float64, and int8 exactly as TFLite's reference
kernels), so they need a rule that accepts them (a dilated convolution has none)."""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from . import int8_reference as q8
from ..lowering import Step, rule_for
from ..format.tflite_reader import ModelSpec, OperatorSpec, UnsupportedModelError
from .registry import FLOAT, INT8, Call, kernel
from .bound_layers import bind_step


@kernel("SOFTMAX", dtypes=FLOAT + INT8)
def softmax(c: Call) -> None:
    beta = float(c.option("beta", 1.0))
    x = np.asarray(c.inputs[0])
    if c.tensor_out().dtype.name in INT8:
        c.write(q8.softmax(x, c.q_in(0), beta, c.q_out(), c.tensor_out().dtype))
        return
    e = np.exp((x - x.max(axis=-1, keepdims=True)) * np.float32(beta))
    c.write(e / e.sum(axis=-1, keepdims=True))


@kernel("LOG_SOFTMAX", dtypes=FLOAT)
def log_softmax(c: Call) -> None:
    x = np.asarray(c.inputs[0], np.float32)
    z = x - x.max(axis=-1, keepdims=True)
    c.write(z - np.log(np.exp(z).sum(axis=-1, keepdims=True)))


@kernel("L2_NORMALIZATION", dtypes=FLOAT)
def l2_normalization(c: Call) -> None:
    x = np.asarray(c.inputs[0], np.float32)
    c.write(x / np.sqrt(np.maximum((x * x).sum(axis=-1, keepdims=True), np.float32(1e-6))))


def _lowerable(op: OperatorSpec, model: ModelSpec) -> Optional[str]:
    """Why the rule does not lower ``op`` (None: it does, and its steps can run here)."""
    rule = rule_for(op.opcode)
    try:
        rule.tensors(op, model)
        lowered = rule.lower(op, model)
    except UnsupportedModelError as e:
        return f"its lowering rule refuses it ({e})"
    if not all(isinstance(s, Step) for s in lowered):
        return "its lowering makes more than function steps"
    return None


@kernel("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "MAX_POOL_2D", "AVERAGE_POOL_2D", "RESIZE_BILINEAR",
        check=_lowerable, binds=True)
def lowered_layer(c: Call) -> Callable[[], None]:
    """The rule's steps on numpy, lowered and bound once (:mod:`.bound_layers`; they read the
    operator's input and write its output; an in-place activation step writes the output
    again)."""
    arrays = {c.op.inputs[0]: np.asarray(c.inputs[0]), c.op.outputs[0]: c.outputs[0]}
    runs = [bind_step(s, arrays) for s in rule_for(c.op.opcode).lower(c.op, c.model)]
    if len(runs) == 1:
        return runs[0]

    def steps() -> None:
        for run in runs:
            run()
    return steps
