"""Reductions: MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, ARG_MAX, ARG_MIN.

The axes come from input 1 (negative ones resolved), keep_dims from the output's rank.
float32: numpy's float32 reductions. int8 / uint8: MEAN as TFLite's reference kernel
(:func:`..int8_reference.mean`), REDUCE_MAX / REDUCE_MIN on the stored values (one
quantization in and out)."""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from . import int8_reference as q8
from .registry import FLOAT, INT8, INTEGER, Call, kernel

_FLOAT = {"MEAN": np.mean, "SUM": np.sum, "REDUCE_MAX": np.max, "REDUCE_MIN": np.min, "REDUCE_PROD": np.prod}


def _axes(c: Call) -> Tuple[int, ...]:
    x = c.inputs[0]
    return tuple(sorted({int(a) + x.ndim if a < 0 else int(a) for a in np.asarray(c.inputs[1]).reshape(-1)}))


def _int8_check(op, model) -> Optional[str]:
    if model.tensors[op.outputs[0]].dtype.name in INT8 and op.opcode not in ("MEAN", "REDUCE_MAX", "REDUCE_MIN"):
        return f"{model.tensors[op.outputs[0]].dtype} {op.opcode} (int8 on the fallback: MEAN, REDUCE_MAX, REDUCE_MIN)"
    return None


@kernel(*_FLOAT, dtypes=FLOAT + INT8 + INTEGER, check=_int8_check)
def reduce(c: Call) -> None:
    x, axes = np.asarray(c.inputs[0]), _axes(c)
    out = c.tensor_out()
    if out.dtype.name in INT8 and c.op.opcode == "MEAN":
        c.write(q8.mean(x, axes, c.q_in(0), c.q_out(), out.dtype))
    elif out.dtype.name in INT8:
        c.write(_FLOAT[c.op.opcode](x, axis=axes, keepdims=True))
    else:
        c.write(_FLOAT[c.op.opcode](x, axis=axes, keepdims=True).astype(out.dtype))


@kernel("ARG_MAX", "ARG_MIN", dtypes=FLOAT + INT8 + INTEGER)
def arg(c: Call) -> None:
    x = np.asarray(c.inputs[0])
    axis = int(np.asarray(c.inputs[1]).reshape(-1)[0])
    f = np.argmax if c.op.opcode == "ARG_MAX" else np.argmin
    c.write(f(x, axis=axis + x.ndim if axis < 0 else axis))
