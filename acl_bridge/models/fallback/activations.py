"""Unary operators and activations: LOGISTIC, TANH, RELU, RELU6, RELU_N1_TO_1, RELU_0_TO_1,
HARD_SWISH, LEAKY_RELU, ELU, PRELU, EXP, LOG, ABS, NEG, SQRT, RSQRT, SQUARE, SIN, COS, FLOOR,
CEIL, ROUND, GELU, LOGICAL_NOT.

float32: numpy's float32 functions. int8 / uint8: the RELU family requantizes the input to
the output's scale (the ratio in float32, as TFLite's) and clamps; LOGISTIC and TANH use
TFLite's lookup table: per stored value ``v``, ``f(s_in (v - z_in))`` in float32, divided
by the output scale, rounded half away from zero, plus the output zero point, clamped."""

from __future__ import annotations

import functools
import math
from typing import Callable, Dict, Optional, Tuple

import numpy as np

from . import int8_reference as q8
from .inplace import const, relu_into, spread
from .registry import FLOAT, INT8, Call, kernel
from .tables import bind_unary, unary_table

_F32 = np.float32


def gelu(x: np.ndarray, approximate: bool = False) -> np.ndarray:
    """TFLite's GELU in float64: x/2 (1 + erf(x / sqrt 2)), or with ``approximate`` its tanh
    form x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    x = np.asarray(x, np.float64)
    if approximate:
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + np.vectorize(math.erf, otypes=[np.float64])(x / np.sqrt(2)))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return (_F32(1) / (_F32(1) + np.exp(-x))).astype(np.float32)


_FLOAT: Dict[str, Callable[[Call, np.ndarray], np.ndarray]] = {
    "LOGISTIC": lambda c, x: _sigmoid(x),
    "TANH": lambda c, x: np.tanh(x),
    "RELU": lambda c, x: np.maximum(x, _F32(0)),
    "RELU6": lambda c, x: np.clip(x, _F32(0), _F32(6)),
    "RELU_N1_TO_1": lambda c, x: np.clip(x, _F32(-1), _F32(1)),
    "RELU_0_TO_1": lambda c, x: np.clip(x, _F32(0), _F32(1)),
    "HARD_SWISH": lambda c, x: x * np.clip(x + _F32(3), _F32(0), _F32(6)) / _F32(6),
    "LEAKY_RELU": lambda c, x: np.where(x > 0, x, x * _F32(c.option("alpha", 0.2))),
    "ELU": lambda c, x: np.where(x > 0, x, np.expm1(x)),
    "PRELU": lambda c, x: np.where(x >= 0, x, x * np.asarray(c.inputs[1], np.float32)),
    "EXP": lambda c, x: np.exp(x),
    "LOG": lambda c, x: np.log(x),
    "ABS": lambda c, x: np.abs(x),
    "NEG": lambda c, x: -x,
    "SQRT": lambda c, x: np.sqrt(x),
    "RSQRT": lambda c, x: _F32(1) / np.sqrt(x),
    "SQUARE": lambda c, x: x * x,
    "SIN": lambda c, x: np.sin(x),
    "COS": lambda c, x: np.cos(x),
    "FLOOR": lambda c, x: np.floor(x),
    "CEIL": lambda c, x: np.ceil(x),
    "ROUND": lambda c, x: np.round(x),  # TFLite rounds half to even here, as numpy does
    "GELU": lambda c, x: gelu(x, bool(c.option("approximate", False))),
}
# float32 written straight into the output (numpy's float32 ufuncs, no temporary): one ufunc,
# a clamp, or a few in place
_UFUNCS = {"TANH": np.tanh, "RELU": None, "EXP": np.exp, "LOG": np.log, "ABS": np.abs, "NEG": np.negative,
           "SQRT": np.sqrt, "SIN": np.sin, "COS": np.cos, "FLOOR": np.floor, "CEIL": np.ceil, "ROUND": np.rint}
_CLAMPS = {"RELU6": (0, 6), "RELU_N1_TO_1": (-1, 1), "RELU_0_TO_1": (0, 1)}


def _float_into(c: Call, x: np.ndarray, out: np.ndarray) -> Optional[Callable[[], None]]:
    """The per-call work of a float32 unary operator writing ``out`` in place (None: none)."""
    op = c.op.opcode
    if x.shape != out.shape:
        return None
    if op == "RELU":
        return lambda: relu_into(x, out)
    if op in _CLAMPS:
        lo, hi = (_F32(v) for v in _CLAMPS[op])
        if lo == 0:
            return lambda: relu_into(x, out, hi)

        def clamped() -> None:
            np.maximum(x, lo, out=out)
            np.minimum(out, hi, out=out)
        return clamped
    if op in _UFUNCS:
        f = _UFUNCS[op]
        return lambda: f(x, out=out)
    if op == "LOGISTIC":  # 1 / (1 + exp(-x)), in place
        def logistic() -> None:
            np.negative(x, out=out)
            np.exp(out, out=out)
            np.add(out, _F32(1), out=out)
            np.reciprocal(out, out=out)
        return logistic
    if op == "LEAKY_RELU" and 0 <= float(c.option("alpha", 0.2)) <= 1:  # max(x, alpha x): two passes
        alpha = _F32(c.option("alpha", 0.2))

        def leaky() -> None:
            np.multiply(x, alpha, out=out)
            np.maximum(out, x, out=out)
        return leaky
    if op == "SQUARE":
        return lambda: np.multiply(x, x, out=out)
    if op == "RSQRT":
        def rsqrt() -> None:
            np.sqrt(x, out=out)
            np.reciprocal(out, out=out)
        return rsqrt
    if op in _BOUND:
        return _BOUND[op](c, x, out)
    if op == "PRELU":
        alpha = c.inputs[1]
        if not isinstance(alpha, np.ndarray) or alpha.dtype != np.float32:
            return None
        return _prelu_into(alpha, x, out, c.constant(1))
    return None


def _hard_swish_into(c: Call, x: np.ndarray, out: np.ndarray) -> Callable[[], None]:
    """x * min(max(x + 3, 0), 6) / 6, TFLite's order, in the output."""
    zero, three, six = const(0), const(3), const(6)

    def hard_swish() -> None:
        np.add(x, three, out=out)
        np.maximum(out, zero, out=out)
        np.minimum(out, six, out=out)
        np.multiply(out, x, out=out)
        np.divide(out, six, out=out)
    return hard_swish


def _elu_into(c: Call, x: np.ndarray, out: np.ndarray) -> Callable[[], None]:
    """expm1(x) where x <= 0, else x."""
    positive, zero = np.empty(out.shape, bool), const(0)

    def elu() -> None:
        np.expm1(x, out=out)
        np.greater(x, zero, out=positive)
        np.copyto(out, x, where=positive)
    return elu


# Abramowitz and Stegun 7.1.26: erf(z) = 1 - t (a1 + t (a2 + ... a5)) exp(-z^2), t = 1 / (1 + p z),
# z >= 0 (odd in z), |error| <= 1.5e-7: GELU's x / 2 (1 + erf) within float32 tolerance of std::erf's
_ERF_P, _ERF_A = 0.3275911, (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)


def _gelu_into(c: Call, x: np.ndarray, out: np.ndarray) -> Callable[[], None]:
    """TFLite's GELU in float64 buffers, one ufunc at a time: x / 2 (1 + erf(x / sqrt 2)) (the
    erf as :data:`_ERF_A`'s polynomial), or with ``approximate`` x / 2 (1 + tanh(sqrt(2 / pi)
    (x + 0.044715 x^3)))."""
    z, t, e, poly = (np.empty(out.shape, np.float64) for _ in range(4))
    one, half = const(1.0, np.float64), const(0.5, np.float64)
    if bool(c.option("approximate", False)):
        cube, scale = const(0.044715, np.float64), const(math.sqrt(2 / math.pi), np.float64)

        def gelu_tanh() -> None:
            np.multiply(x, x, out=z, dtype=np.float64)
            np.multiply(z, cube, out=z)
            np.add(z, one, out=z)
            np.multiply(z, x, out=z)
            np.multiply(z, scale, out=z)
            np.tanh(z, out=z)
            np.add(z, one, out=z)
            np.multiply(z, x, out=z)
            np.multiply(z, half, out=out, casting="unsafe")
        return gelu_tanh
    root, p = const(1 / math.sqrt(2), np.float64), const(_ERF_P, np.float64)
    a5, *rest = (const(a, np.float64) for a in _ERF_A)

    def gelu_erf() -> None:
        np.multiply(x, root, out=z, dtype=np.float64)
        np.abs(z, out=t)
        np.multiply(t, t, out=e)
        np.negative(e, out=e)
        np.exp(e, out=e)
        np.multiply(t, p, out=t)
        np.add(t, one, out=t)
        np.reciprocal(t, out=t)
        np.multiply(t, a5, out=poly)
        for a in rest:
            np.add(poly, a, out=poly)
            np.multiply(poly, t, out=poly)
        np.multiply(poly, e, out=poly)
        np.subtract(one, poly, out=poly)
        np.copysign(poly, z, out=poly)  # erf(x / sqrt 2)
        np.add(poly, one, out=poly)
        np.multiply(poly, x, out=poly)
        np.multiply(poly, half, out=out, casting="unsafe")
    return gelu_erf


_BOUND = {"HARD_SWISH": _hard_swish_into, "ELU": _elu_into, "GELU": _gelu_into}


def _prelu_into(alpha: np.ndarray, x: np.ndarray, out: np.ndarray, constant: bool) -> Optional[Callable[[], None]]:
    """PRELU as max(x, alpha x) (a constant alpha, every one in [0, 1]) or min(x, alpha x)
    (every one >= 1): two passes; else the negative part scaled plus the positive part."""
    try:
        if np.broadcast_shapes(x.shape, alpha.shape) != out.shape:
            return None
    except ValueError:
        return None
    pick = None
    if constant:
        pick = np.maximum if ((alpha >= 0) & (alpha <= 1)).all() else np.minimum if (alpha >= 1).all() else None
        alpha = spread(alpha, out.shape)
    if pick is not None:
        def two_passes() -> None:
            np.multiply(x, alpha, out=out)
            pick(out, x, out=out)
        return two_passes
    negative = np.empty(out.shape, np.float32)

    def four_passes() -> None:
        np.minimum(x, _F32(0), out=negative)
        np.multiply(negative, alpha, out=negative)
        np.maximum(x, _F32(0), out=out)
        np.add(out, negative, out=out)
    return four_passes


# int8 / uint8: (bridge activation, a, b) clamps after a requantization
_RELUS = {"RELU": ("relu", 0.0, 0.0), "RELU6": ("bounded_relu", 6.0, 0.0),
          "RELU_N1_TO_1": ("lu_bounded_relu", 1.0, -1.0), "RELU_0_TO_1": ("lu_bounded_relu", 1.0, 0.0)}
_TABLES = {"LOGISTIC": lambda v: _F32(1) / (_F32(1) + np.exp(-v)), "TANH": np.tanh}


@functools.lru_cache(maxsize=256)
def lookup_table(opcode: str, dtype_str: str, q_in: Tuple[float, int], q_out: Tuple[float, int]) -> np.ndarray:
    """TFLite's int8 / uint8 table of LOGISTIC or TANH (``opcode``): one output per stored
    input value, from the type's minimum up (made once per opcode, dtype and quantization)."""
    f = _TABLES[opcode]
    dtype = np.dtype(dtype_str)
    (si, zi), (so, zo) = q_in, q_out
    info = np.iinfo(dtype)
    values = np.arange(info.min, info.max + 1, dtype=np.int64)
    real = _F32(si) * (values - zi).astype(np.float32)
    scaled = f(real).astype(np.float32) * (_F32(1) / _F32(so))
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + _F32(0.5))
    table = np.clip(rounded.astype(np.int64) + zo, info.min, info.max).astype(dtype)
    table.flags.writeable = False
    return table


def _int8_check(op, model) -> Optional[str]:
    if model.tensors[op.outputs[0]].dtype.name in INT8 and op.opcode not in _RELUS and op.opcode not in _TABLES:
        return (f"{model.tensors[op.outputs[0]].dtype} {op.opcode} (int8 on the fallback: "
                f"{', '.join(sorted(list(_RELUS) + list(_TABLES)))})")
    return None


@kernel(*_FLOAT, dtypes=FLOAT + INT8, check=_int8_check, binds=True)
def unary(c: Call) -> Callable[[], None]:
    x, out = np.asarray(c.inputs[0]), c.outputs[0]
    dtype = c.tensor_out().dtype
    if dtype == np.float32:
        f = _FLOAT[c.op.opcode]
        if x.dtype == np.float32:
            into = _float_into(c, x, out)
            return into or (lambda: c.write(f(c, x)))
        return lambda: c.write(f(c, x.astype(np.float32)))
    if c.op.opcode in _TABLES:
        table = lookup_table(c.op.opcode, dtype.str, c.q_in(0), c.q_out())
        if x.dtype == dtype and x.shape == out.shape:  # indexed by the stored byte: no arithmetic per call
            looked_up = bind_unary(np.roll(table, np.iinfo(dtype).min), x, out)
            if looked_up is not None:
                return looked_up
        return lambda: np.take(table, x.astype(np.int16) - np.iinfo(dtype).min, out=out)
    xq, yq = c.q_in(0), c.q_out()
    clamp = q8.activation_range(*_RELUS[c.op.opcode], yq[0], yq[1], dtype)

    def relu(v: np.ndarray) -> np.ndarray:
        return np.clip(q8.requantize(v, xq, yq, np.int64, float32_ratio=True), *clamp)
    # the requantization and clamp as a table of the 256 stored values: one take a call
    return bind_unary(unary_table(relu, x.dtype, dtype), x, out) or (lambda: c.write(relu(x)))


@kernel("LOGICAL_NOT", dtypes=("bool",), binds=True)
def logical_not(c: Call) -> Callable[[], None]:
    x, out = np.asarray(c.inputs[0]), c.outputs[0]
    if x.shape == out.shape:
        return lambda: np.logical_not(x, out=out)
    return lambda: c.write(np.logical_not(x))
