"""QUANTIZE and DEQUANTIZE (TFLite's reference arithmetic: :mod:`.int8_reference`)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from . import int8_reference as q8
from .registry import FLOAT, INT8, Call, kernel


@kernel("QUANTIZE", dtypes=FLOAT + INT8 + ("int16",), binds=True)
def quantize(c: Call) -> Callable[[], None]:
    x, dtype, qy = c.inputs[0], c.tensor_out().dtype, c.q_out()
    if c.tensor_in(0).dtype == np.float32:
        return lambda: c.write(q8.quantize(x, qy, dtype))
    qx = c.q_in(0)
    return lambda: c.write(q8.requantize(x, qx, qy, dtype))


@kernel("DEQUANTIZE", dtypes=FLOAT + INT8 + ("float16", "int16"), binds=True)
def dequantize(c: Call) -> Callable[[], None]:
    x = c.inputs[0]
    if c.tensor_in(0).dtype == np.float16:
        return lambda: c.write(np.asarray(x).astype(np.float32))
    qx = c.q_in(0)
    return lambda: c.write(q8.dequantize(x, qx))
