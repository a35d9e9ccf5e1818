"""QUANTIZE and DEQUANTIZE (TFLite's reference arithmetic: :mod:`.int8_reference`)."""

from __future__ import annotations

from typing import Callable, Optional, Tuple

import numpy as np

from . import int8_reference as q8
from .inplace import clamp_into
from .registry import FLOAT, INT8, Call, kernel
from .tables import bind_unary, unary_table


@kernel("QUANTIZE", dtypes=FLOAT + INT8 + ("int16",), binds=True)
def quantize(c: Call) -> Callable[[], None]:
    x, dtype, qy = c.inputs[0], c.tensor_out().dtype, c.q_out()
    if c.tensor_in(0).dtype == np.float32:
        return _quantize_into(np.asarray(x), qy, c.outputs[0]) or (lambda: c.write(q8.quantize(x, qy, dtype)))
    qx = c.q_in(0)
    x = np.asarray(x)
    table = unary_table(lambda v: q8.requantize(v, qx, qy, dtype), x.dtype, dtype) if x.dtype.itemsize == 1 else None
    looked_up = None if table is None else bind_unary(table, x, c.outputs[0])
    return looked_up or (lambda: c.write(q8.requantize(x, qx, qy, dtype)))


def _quantize_into(x: np.ndarray, q: Tuple[float, int], out: np.ndarray) -> Optional[Callable[[], None]]:
    """float32 -> int8 / uint8 in place: x / scale in float32, clamped to the type's range less
    the zero point, rounded half away from zero (trunc(v + copysign(0.5, v)), the same float32
    sum as :func:`.int8_reference.quantize`'s), plus the zero point (clamping first changes
    nothing: the bounds are integers)."""
    if x.dtype != np.float32 or x.shape != out.shape or out.dtype.kind not in "iu":
        return None
    scale, zp = np.float32(q[0]), int(q[1])
    lo, hi = (np.float32(v - zp) for v in q8.limits(out.dtype))
    v, half = np.empty(out.shape, np.float32), np.empty(out.shape, np.float32)

    def run() -> None:
        np.divide(x, scale, out=v)
        clamp_into(v, lo, hi)
        np.copysign(np.float32(0.5), v, out=half)
        np.add(v, half, out=v)
        np.trunc(v, out=v)
        np.add(v, np.float32(zp), out=out, casting="unsafe")
    return run


@kernel("DEQUANTIZE", dtypes=FLOAT + INT8 + ("float16", "int16"), binds=True)
def dequantize(c: Call) -> Callable[[], None]:
    x = c.inputs[0]
    if c.tensor_in(0).dtype == np.float16:
        return lambda: c.write(np.asarray(x).astype(np.float32))
    qx = c.q_in(0)
    x = np.asarray(x)
    if x.dtype.itemsize == 1:  # a table of the 256 stored values
        looked_up = bind_unary(unary_table(lambda v: q8.dequantize(v, qx), x.dtype, np.float32), x, c.outputs[0])
        if looked_up is not None:
            return looked_up
    return lambda: c.write(q8.dequantize(x, qx))
