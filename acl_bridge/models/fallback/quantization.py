"""QUANTIZE and DEQUANTIZE (TFLite's reference arithmetic: :mod:`.int8_reference`)."""

from __future__ import annotations

import numpy as np

from . import int8_reference as q8
from .registry import FLOAT, INT8, Call, kernel


@kernel("QUANTIZE", dtypes=FLOAT + INT8 + ("int16",))
def quantize(c: Call) -> None:
    x, dtype = c.inputs[0], c.tensor_out().dtype
    if c.tensor_in(0).dtype == np.float32:
        c.write(q8.quantize(x, c.q_out(), dtype))
    else:
        c.write(q8.requantize(x, c.q_in(0), c.q_out(), dtype))


@kernel("DEQUANTIZE", dtypes=FLOAT + INT8 + ("float16", "int16"))
def dequantize(c: Call) -> None:
    x = c.inputs[0]
    if c.tensor_in(0).dtype == np.float16:
        c.write(np.asarray(x).astype(np.float32))
    else:
        c.write(q8.dequantize(x, c.q_in(0)))
