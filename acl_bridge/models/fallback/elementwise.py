"""Elementwise binary operators with numpy broadcasting: ADD, SUB, MUL, DIV, MAXIMUM,
MINIMUM, SQUARED_DIFFERENCE, POW, FLOOR_DIV, FLOOR_MOD and the comparisons.

float32: numpy's float32 arithmetic (IEEE, as TFLite's), then the fused activation. int8 /
uint8 (TFLite's reference kernels): ADD and SUB rescale both inputs to twice the larger
input scale with 20 bits of headroom, add, rescale to the output (gemmlowp's roundings:
:func:`..int8_reference.add`); MUL multiplies the zero-point-corrected inputs and rescales by
``s_a s_b / s_out``; MAXIMUM and MINIMUM compare the stored values (TFLite requires one
quantization in and out); a fused activation is a clamp in the output's domain."""

from __future__ import annotations

from typing import Callable, Dict, Optional

import numpy as np

from . import int8_reference as q8
from ..lowering.helpers import FUSED
from .registry import ANY, FLOAT, INT8, INTEGER, Call, kernel
from .inplace import clamp_into, relu_into, spread
from .tables import bind_binary, binary_table

_FLOAT_ACTIVATIONS: Dict[Optional[str], Callable[[np.ndarray], np.ndarray]] = {
    None: lambda y: y,
    "RELU": lambda y: np.maximum(y, np.float32(0)),
    "RELU6": lambda y: np.minimum(np.maximum(y, np.float32(0)), np.float32(6)),
    "RELU_N1_TO_1": lambda y: np.minimum(np.maximum(y, np.float32(-1)), np.float32(1)),
    "TANH": np.tanh,
    "SIGN_BIT": np.sign,
}


def float_activation(y: np.ndarray, name: Optional[str]) -> np.ndarray:
    """A TFLite fused activation (by the reader's name) on float32 values."""
    return _FLOAT_ACTIVATIONS[name](y)


def int8_clamp(c: Call) -> tuple:
    """The clamp of the operator's fused activation in the output's quantized domain."""
    act = FUSED.get(c.option("fused_activation_function"))
    scale, zp = c.q_out()
    return q8.activation_range(*(act or (None, 0.0, 0.0)), scale, zp, c.tensor_out().dtype)


def _quantized(c: Call) -> bool:
    return c.tensor_out().dtype.name in INT8


_FLOAT_BINARY: Dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "ADD": np.add, "SUB": np.subtract, "MUL": np.multiply, "DIV": np.divide, "MAXIMUM": np.maximum,
    "MINIMUM": np.minimum, "SQUARED_DIFFERENCE": lambda a, b: np.square(a - b), "POW": np.power,
    "FLOOR_DIV": np.floor_divide, "FLOOR_MOD": np.mod,
}


_INT8_ARITHMETIC = {"ADD": q8.add, "SUB": q8.sub, "MUL": q8.mul}


def _binary(c: Call) -> Callable[[], None]:
    a, b = np.asarray(c.inputs[0]), np.asarray(c.inputs[1])
    op = c.op.opcode
    f = _FLOAT_BINARY[op]
    if not _quantized(c):
        if c.tensor_out().dtype == np.float32:
            name = c.option("fused_activation_function")
            if name in _CLAMPS and a.dtype == b.dtype == np.float32:
                try:  # a constant operand broadcast along the channels: spread once
                    shape = np.broadcast_shapes(a.shape, b.shape)
                    a, b = (spread(v, shape) if c.constant(k) else v for k, v in enumerate((a, b)))
                except ValueError:
                    pass
                return _into(f, a, b, c, _CLAMPS[name])
            act = _FLOAT_ACTIVATIONS[name]
            return lambda: c.write(act(f(a, b).astype(np.float32, copy=False)))
        return lambda: c.write(f(a, b))
    dtype, clamp = c.tensor_out().dtype, int8_clamp(c)
    qa, qb, qy = c.q_in(0), c.q_in(1), c.q_out()
    if op in _INT8_ARITHMETIC:
        g = _INT8_ARITHMETIC[op]
        table = binary_table(lambda x, y: g(x, qa, y, qb, qy, dtype, clamp), a.dtype, b.dtype, dtype)
        looked_up = bind_binary(table, a, b, c.outputs[0], c.constant(0), c.constant(1))
        return looked_up or (lambda: c.write(g(a, qa, b, qb, qy, dtype, clamp)))
    return _into(f, a, b, c)  # MAXIMUM, MINIMUM: the stored values


# float32 fused activations as clamps in the output (low, high; None: open)
_CLAMPS = {None: (None, None), "RELU": (0, None), "RELU6": (0, 6), "RELU_N1_TO_1": (-1, 1)}


def _into(f: Callable, a: np.ndarray, b: np.ndarray, c: Call, clamp=(None, None)) -> Callable[[], None]:
    """``f(a, b)`` written straight into the output where it has the broadcast shape and dtype
    (then clamped in place: ``clamp``, float32 only)."""
    out = c.outputs[0]
    try:
        fits = np.broadcast_shapes(a.shape, b.shape) == out.shape and np.result_type(a, b) == out.dtype
    except ValueError:
        fits = False
    lo, hi = clamp
    if not fits or not isinstance(f, np.ufunc):
        act = _FLOAT_ACTIVATIONS[c.option("fused_activation_function")] if lo is not None else (lambda y: y)
        return lambda: c.write(act(f(a, b)))
    if lo is None:
        return lambda: f(a, b, out=out)
    top = None if hi is None else np.float32(hi)

    def clamped() -> None:
        f(a, b, out=out)
        if lo == 0:
            relu_into(out, out, top)
        else:
            clamp_into(out, np.float32(lo), top)
    return clamped


def _int8_binary_check(op, model) -> Optional[str]:
    t = model.tensors
    if t[op.outputs[0]].dtype.name in INT8 and op.opcode not in ("ADD", "SUB", "MUL", "MAXIMUM", "MINIMUM"):
        return f"{t[op.outputs[0]].dtype} {op.opcode} (int8 on the fallback: ADD, SUB, MUL, MAXIMUM, MINIMUM)"
    return None


kernel("ADD", "SUB", "MUL", "DIV", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE", "POW", "FLOOR_DIV", "FLOOR_MOD",
       dtypes=FLOAT + INT8 + INTEGER, check=_int8_binary_check, binds=True)(_binary)

_COMPARISONS = {"EQUAL": np.equal, "NOT_EQUAL": np.not_equal, "LESS": np.less, "LESS_EQUAL": np.less_equal,
                "GREATER": np.greater, "GREATER_EQUAL": np.greater_equal, "LOGICAL_AND": np.logical_and,
                "LOGICAL_OR": np.logical_or}


@kernel(*_COMPARISONS, dtypes=ANY, binds=True)
def compare(c: Call) -> Callable[[], None]:
    """Comparisons of stored values (of int8 tensors with one quantization, the same order),
    written into the output where it has the broadcast shape."""
    f, a, b, out = _COMPARISONS[c.op.opcode], np.asarray(c.inputs[0]), np.asarray(c.inputs[1]), c.outputs[0]
    try:
        fits = np.broadcast_shapes(a.shape, b.shape) == out.shape and out.dtype == np.bool_
    except ValueError:
        fits = False
    if fits:
        return lambda: f(a, b, out=out)
    return lambda: c.write(f(a, b))


@kernel("SELECT", "SELECT_V2", dtypes=ANY, binds=True)
def select(c: Call) -> Callable[[], None]:
    """``out`` := b, then a where the condition holds (two copies into the output,
    broadcasting as SELECT_V2 does)."""
    cond, a, b = (np.asarray(v) for v in c.inputs[:3])
    out = c.outputs[0]
    try:
        fits = np.broadcast_shapes(cond.shape, a.shape, b.shape) == out.shape
    except ValueError:
        fits = False
    if fits and cond.dtype == np.bool_ and a.dtype == b.dtype == out.dtype:
        def selected() -> None:
            np.copyto(out, b)
            np.copyto(out, a, where=cond)
        return selected
    return lambda: c.write(np.where(cond, a, b))
