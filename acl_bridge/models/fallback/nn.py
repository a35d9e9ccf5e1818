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
from .bound_steps import bind
from .inplace import clamp_into, const, dot_last_into


@kernel("SOFTMAX", dtypes=FLOAT + INT8, binds=True)
def softmax(c: Call) -> Callable[[], None]:
    beta = float(c.option("beta", 1.0))
    x, out = np.asarray(c.inputs[0]), c.outputs[0]
    if c.tensor_out().dtype.name in INT8:
        qx, qy, dtype = c.q_in(0), c.q_out(), c.tensor_out().dtype
        return _int8_softmax(x, qx, beta, qy, out) or (lambda: c.write(q8.softmax(x, qx, beta, qy, dtype)))
    if x.dtype != np.float32 or x.shape != out.shape or x.ndim == 0:
        def softmax_f() -> None:
            e = np.exp((x - x.max(axis=-1, keepdims=True)) * np.float32(beta))
            c.write(e / e.sum(axis=-1, keepdims=True))
        return softmax_f
    row = np.empty(x.shape[:-1] + (1,), np.float32)
    scale = np.float32(beta)

    def softmax_into() -> None:  # exp((x - max) * beta) / sum, in the output
        np.maximum.reduce(x, axis=-1, keepdims=True, out=row)
        np.subtract(x, row, out=out)
        if scale != 1:
            np.multiply(out, scale, out=out)
        np.exp(out, out=out)
        np.add.reduce(out, axis=-1, keepdims=True, out=row)
        np.divide(out, row, out=out)
    return softmax_into


def _int8_softmax(x: np.ndarray, qx, beta: float, qy, out: np.ndarray) -> Optional[Callable[[], None]]:
    """:func:`.int8_reference.softmax`'s arithmetic into ``out``, its table made once: the
    distance to the row's maximum, its table entry, the float32 sum in order, each entry over
    ``sum * output scale`` rounded half away from zero, plus the zero point, clamped."""
    if x.shape != out.shape or x.ndim == 0 or x.dtype != out.dtype:
        return None
    table = np.exp(np.float32(-np.float32(qx[0]) * np.float32(beta)) * np.arange(256, dtype=np.float32))
    table = table.astype(np.float32)
    lo, hi = (np.float32(v - qy[1]) for v in q8.limits(out.dtype))
    top = np.empty(x.shape[:-1] + (1,), x.dtype)
    d = np.empty(x.shape, np.intp)
    e, sums, half = np.empty(x.shape, np.float32), np.empty(x.shape, np.float32), np.empty(x.shape, np.float32)
    total = sums[..., -1:]
    scale, zp = np.float32(qy[0]), np.float32(qy[1])

    def run() -> None:
        np.maximum.reduce(x, axis=-1, keepdims=True, out=top)
        np.subtract(top, x, out=d, dtype=np.intp)
        table.take(d, out=e, mode="clip")
        np.add.accumulate(e, axis=-1, out=sums)  # float32, in order (as the kernel's loop)
        np.multiply(total, scale, out=total)
        np.divide(np.float32(1), total, out=total)
        np.multiply(e, total, out=e)
        clamp_into(e, lo, hi)
        np.copysign(np.float32(0.5), e, out=half)
        np.add(e, half, out=e)
        np.trunc(e, out=e)
        np.add(e, zp, out=out, casting="unsafe")
    return run


@kernel("LOG_SOFTMAX", dtypes=FLOAT, binds=True)
def log_softmax(c: Call) -> Callable[[], None]:
    """x - max - log(sum(exp(x - max))) over the last axis, in the output."""
    x, out = np.asarray(c.inputs[0]), c.outputs[0]
    if x.dtype != np.float32 or x.shape != out.shape or x.ndim == 0:
        def log_softmax_f() -> None:
            z = np.asarray(x, np.float32) - np.asarray(x, np.float32).max(axis=-1, keepdims=True)
            c.write(z - np.log(np.exp(z).sum(axis=-1, keepdims=True)))
        return log_softmax_f
    rows, e, ones = np.empty(x.shape[:-1], np.float32), np.empty(x.shape, np.float32), np.ones(x.shape[-1], np.float32)
    row = rows[..., None]  # (numpy's reductions with keepdims cost more; the sum is a dot product with ones)
    total = dot_last_into(e, ones, rows)

    def log_softmax_into() -> None:
        np.maximum.reduce(x, axis=-1, out=rows)
        np.subtract(x, row, out=out)
        np.exp(out, out=e)
        total()
        np.log(rows, out=rows)
        np.subtract(out, row, out=out)
    return log_softmax_into


@kernel("L2_NORMALIZATION", dtypes=FLOAT, binds=True)
def l2_normalization(c: Call) -> Callable[[], None]:
    """x / sqrt(max(sum of squares over the last axis, 1e-6)), in the output."""
    x, out = np.asarray(c.inputs[0]), c.outputs[0]
    eps = const(1e-6)
    if x.dtype != np.float32 or x.shape != out.shape or x.ndim == 0:
        def l2_f() -> None:
            v = np.asarray(x, np.float32)
            c.write(v / np.sqrt(np.maximum((v * v).sum(axis=-1, keepdims=True), eps)))
        return l2_f
    rows = np.empty(x.shape[:-1], np.float32)
    row = rows[..., None]
    squares = dot_last_into(x, x, rows)

    def l2_into() -> None:
        squares()  # the sum of squares, one call
        np.maximum(rows, eps, out=rows)
        np.sqrt(rows, out=rows)
        np.divide(x, row, out=out)
    return l2_into


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
    """The rule's steps on numpy, lowered and bound once (:mod:`.bound_steps`,
    :mod:`.bound_layers`; they read the operator's inputs and write its output; an in-place
    activation step writes the output again)."""
    arrays = {i: np.asarray(v) for i, v in zip(c.op.inputs, c.inputs) if i >= 0 and v is not None}
    arrays[c.op.outputs[0]] = c.outputs[0]
    runs = [bind(s, arrays) for s in rule_for(c.op.opcode).lower(c.op, c.model)]
    if len(runs) == 1:
        return runs[0]

    def steps() -> None:
        for run in runs:
            run()
    return steps
