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
from .registry import FLOAT, INT8, Call, kernel

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
            return lambda: c.write(f(c, x))
        return lambda: c.write(f(c, x.astype(np.float32)))
    if c.op.opcode in _TABLES:
        table = lookup_table(c.op.opcode, dtype.str, c.q_in(0), c.q_out())
        if x.dtype == dtype and x.shape == out.shape:  # indexed by the stored byte: no arithmetic per call
            by_byte, stored = np.roll(table, np.iinfo(dtype).min), x.view(np.uint8)
            return lambda: by_byte.take(stored, out=out, mode="clip")
        return lambda: np.take(table, x.astype(np.int16) - np.iinfo(dtype).min, out=out)
    xq, yq = c.q_in(0), c.q_out()
    clamp = q8.activation_range(*_RELUS[c.op.opcode], yq[0], yq[1], dtype)
    return lambda: c.write(np.clip(q8.requantize(x, xq, yq, np.int64, float32_ratio=True), *clamp))


@kernel("LOGICAL_NOT", dtypes=("bool",))
def logical_not(c: Call) -> None:
    c.write(np.logical_not(c.inputs[0]))
