"""Reductions: MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_PROD, ARG_MAX, ARG_MIN.

The axes come from input 1 (negative ones resolved), keep_dims from the output's rank.
float32: numpy's float32 reductions. int8 / uint8: MEAN as TFLite's reference kernel
(:func:`..int8_reference.mean`), REDUCE_MAX / REDUCE_MIN on the stored values (one
quantization in and out)."""

from __future__ import annotations

from typing import Callable, Optional, Tuple

import numpy as np

from . import int8_reference as q8
from .bound_layers import requantizer_of
from .inplace import reshaped
from .registry import FLOAT, INT8, INTEGER, Call, kernel

_FLOAT = {"MEAN": np.mean, "SUM": np.sum, "REDUCE_MAX": np.max, "REDUCE_MIN": np.min, "REDUCE_PROD": np.prod}


def _axes(c: Call) -> Tuple[int, ...]:
    x = c.inputs[0]
    return tuple(sorted({int(a) + x.ndim if a < 0 else int(a) for a in np.asarray(c.inputs[1]).reshape(-1)}))


def _int8_check(op, model) -> Optional[str]:
    if model.tensors[op.outputs[0]].dtype.name in INT8 and op.opcode not in ("MEAN", "REDUCE_MAX", "REDUCE_MIN"):
        return f"{model.tensors[op.outputs[0]].dtype} {op.opcode} (int8 on the fallback: MEAN, REDUCE_MAX, REDUCE_MIN)"
    return None


@kernel(*_FLOAT, dtypes=FLOAT + INT8 + INTEGER, check=_int8_check, binds=True)
def reduce(c: Call) -> Callable[[], None]:
    x, axes = np.asarray(c.inputs[0]), _axes(c)
    out = c.tensor_out()
    if out.dtype.name in INT8 and c.op.opcode == "MEAN":
        qx, qy = c.q_in(0), c.q_out()
        return _int8_mean(x, axes, qx, qy, c.outputs[0]) or (lambda: c.write(q8.mean(x, axes, qx, qy, out.dtype)))
    f = _FLOAT[c.op.opcode]
    into = _reduce_into(c.op.opcode, x, axes, c.outputs[0])
    if into is not None:
        return into
    if out.dtype.name in INT8:
        return lambda: c.write(f(x, axis=axes, keepdims=True))
    return lambda: c.write(f(x, axis=axes, keepdims=True).astype(out.dtype))


_UFUNCS = {"SUM": np.add, "MEAN": np.add, "REDUCE_MAX": np.maximum, "REDUCE_MIN": np.minimum, "REDUCE_PROD": np.multiply}


def _reduce_into(opcode: str, x: np.ndarray, axes: Tuple[int, ...], out: np.ndarray) -> Optional[Callable[[], None]]:
    """The reduction as one ufunc reduce written into the output (seen with the reduced axes
    kept), in the input's dtype (MEAN: float32, then divided by the count); None where the
    output is no such view or the dtypes differ."""
    if x.dtype != out.dtype or (opcode == "MEAN" and x.dtype != np.float32) or not axes:
        return None
    kept = reshaped(out, tuple(1 if d in axes else n for d, n in enumerate(x.shape)))
    if kept is None:
        return None
    f = _UFUNCS[opcode].reduce
    if opcode != "MEAN":
        return lambda: f(x, axis=axes, keepdims=True, out=kept)
    count = np.float32(int(np.prod([x.shape[a] for a in axes])))

    def mean() -> None:
        f(x, axis=axes, keepdims=True, out=kept)
        np.divide(kept, count, out=kept)
    return mean


def _int8_mean(x: np.ndarray, axes: Tuple[int, ...], qx, qy, out: np.ndarray) -> Optional[Callable[[], None]]:
    """TFLite's int8 / uint8 MEAN (:func:`..int8_reference.mean`'s arithmetic) with its
    multiplier made once: the int64 sum, less n x the input zero point, requantized
    (:func:`.bound_layers.requantizer_of`) into the output."""
    kept = tuple(1 if d in axes else s for d, s in enumerate(x.shape))
    into = reshaped(out, kept)
    if into is None:
        return None
    n = int(np.prod([x.shape[a] for a in axes]))
    q, e = q8.quantize_multiplier(np.float64(qx[0]) / np.float64(qy[0]))
    q, e = int(q[0]), int(e[0])
    k = min(n.bit_length() - 1, 32, 31 + e)
    requant = requantizer_of(np.int64((q << k) // n), np.int64(e - k), qy[1], q8.limits(out.dtype), into)
    if requant is None:
        return None
    offset = np.int64(n * qx[1])
    first, last = axes[0], axes[-1]
    if axes == tuple(range(first, last + 1)) and x.flags.c_contiguous and \
            n * (max(abs(v) for v in q8.limits(x.dtype)) + abs(qx[1])) < 2 ** 24:
        # consecutive axes: the sum as a product with ones, exact in float32 (every partial sum
        # an integer below 2**24), numpy's matmul being faster than its integer reduction
        outer, inner = int(np.prod(x.shape[:first])), int(np.prod(x.shape[last + 1:]))
        cells = x.reshape(outer, n, inner)
        floats = np.empty((outer, n, inner), np.float32)
        ones = np.ones((1, n), np.float32)
        summed = np.empty((outer, 1, inner), np.float32)
        shaped = summed.reshape(kept)

        def by_product() -> None:
            np.copyto(floats, cells, casting="unsafe")
            np.matmul(ones, floats, out=summed)
            np.subtract(summed, np.float32(offset), out=summed)
            requant(shaped)
        return by_product
    total = np.empty(kept, np.int64)

    def run() -> None:
        np.add.reduce(x, axis=axes, dtype=np.int64, keepdims=True, out=total)
        np.subtract(total, offset, out=total)
        requant(total)
    return run


@kernel("ARG_MAX", "ARG_MIN", dtypes=FLOAT + INT8 + INTEGER, binds=True)
def arg(c: Call) -> Callable[[], None]:
    """The index of the first largest (smallest) element along the axis: the array method
    into the output (another index type: into an index buffer, then converted)."""
    x, out = np.asarray(c.inputs[0]), c.outputs[0]
    f = np.argmax if c.op.opcode == "ARG_MAX" else np.argmin

    def axis() -> int:
        a = int(np.asarray(c.inputs[1]).reshape(-1)[0])
        return a + x.ndim if a < 0 else a
    if c.constant(1) and x.ndim:
        a = axis()
        if x.shape[:a] + x.shape[a + 1:] == out.shape:
            method = x.argmax if c.op.opcode == "ARG_MAX" else x.argmin
            if out.dtype in (np.int32, np.int64):  # (numpy 2.4 writes either index type)
                return lambda: method(a, out=out)
            index = np.empty(out.shape, np.intp)

            def converted() -> None:
                method(a, out=index)
                np.copyto(out, index, casting="unsafe")
            return converted
    return lambda: c.write(f(x, axis=axis()))
