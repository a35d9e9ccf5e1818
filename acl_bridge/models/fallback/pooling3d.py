"""3-D pooling on numpy: the step kernel of ``pooling_3d`` (float, and int8 as TFLite's
reference kernel) and the fallback kernel of TFLite's ``CUSTOM:AveragePool3D`` /
``CUSTOM:MaxPool3D`` (ACL 20.08 has no Pooling3dLayer; options the rule refuses, an
``activation`` name in the map, are run as TFLite's kernel runs them: without one).

TFLite's pooling3d.cc: the average is over the elements of the window inside the input (the
padding is not counted), in int8 the integer sum rounded half away from zero ((sum +- n / 2)
/ n, C's division); the max over the same elements."""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from ..format.pool3d_options import POOL_3D, pool3d_geometry, pool3d_options
from ..format.tflite_reader import ModelFormatError, ModelSpec, OperatorSpec
from .registry import Call, kernel
from .step_kernels import step_kernel

Pads = Tuple[Tuple[int, int], ...]


def pool3d(x: np.ndarray, pool_type: str, kernel_dhw: Tuple[int, int, int], stride: Tuple[int, int, int],
           pads: Pads, out: Tuple[int, ...]) -> np.ndarray:
    """``x`` (N, D, H, W, C) pooled into ``out`` (N, D', H', W', C): "max" or "avg" over the
    window's elements inside ``x`` (``pads``: (before, after) per spatial axis). Float input:
    float64 result; integer input: the max as stored, the average rounded half away from zero
    (TFLite's int8 reference), in x's dtype."""
    integer = np.issubdtype(x.dtype, np.integer)
    width = ((0, 0),) + tuple(pads) + ((0, 0),)
    if pool_type == "max":
        fill = np.iinfo(x.dtype).min if integer else -np.inf
        src = np.pad(x if integer else x.astype(np.float64), width, constant_values=fill)
    else:
        src = np.pad(x.astype(np.int64 if integer else np.float64), width)
    win = np.lib.stride_tricks.sliding_window_view(src, kernel_dhw, axis=(1, 2, 3))
    sd, sh, sw = stride
    _, d, h, w, _ = out
    win = win[:, :(d - 1) * sd + 1:sd, :(h - 1) * sh + 1:sh, :(w - 1) * sw + 1:sw]
    if pool_type == "max":
        return win.max(axis=(-3, -2, -1))
    total = win.sum(axis=(-3, -2, -1))
    ones = np.pad(np.ones(x.shape[1:4], np.int64), tuple(pads))
    n = np.lib.stride_tricks.sliding_window_view(ones, kernel_dhw)[::sd, ::sh, ::sw][:d, :h, :w].sum(axis=(-3, -2, -1))
    n = n[None, :, :, :, None]
    if not integer:
        return total / n
    half = n // 2
    avg = np.where(total > 0, (total + half) // n, -((-total + half) // n))
    info = np.iinfo(x.dtype)
    return np.clip(avg, info.min, info.max).astype(x.dtype)


@step_kernel("pooling_3d")
def _pooling_3d(s, x, p, c, arrays):
    return pool3d(x, p["pool_type"], p["kernel"], p["stride"], p["padding"], arrays[s.output].shape)


@step_kernel("pooling_3d", quantized=True)
def _pooling_3d_q(s, x, p, c, q, dst, arrays):
    return pool3d(np.asarray(x), p["pool_type"], p["kernel"], p["stride"], p["padding"], dst.shape)


def _check(op: OperatorSpec, model: ModelSpec) -> Optional[str]:
    """Why TFLite's kernel would not run ``op`` (None: it would)."""
    try:
        o = pool3d_options(op)
    except ModelFormatError as e:
        return str(e)
    if len(op.inputs) != 1 or len(op.outputs) != 1 or op.inputs[0] < 0:
        return f"inputs {list(op.inputs)} and outputs {list(op.outputs)}, expected one input and one output"
    x, y = (tuple(model.tensors[i].shape) for i in (op.inputs[0], op.outputs[0]))
    if len(x) != 5:
        return f"input shape {list(x)}, expected rank 5 (NDHWC)"
    want = pool3d_geometry(x, o)[0]
    if y != want or min(want) < 1:
        return f"output shape {list(y)}, expected {list(want)}"
    if model.tensors[op.inputs[0]].dtype == np.uint8:
        return "uint8 tensors (TFLite's 3-D pooling takes float32, int8, int16)"
    return None


@kernel(*POOL_3D, check=_check)
def pool_3d(c: Call) -> None:
    o = pool3d_options(c.op)
    x = np.asarray(c.inputs[0])
    out, pads = pool3d_geometry(x.shape, o)
    y = pool3d(x, o.pool_type, o.kernel, o.stride, pads, out)
    c.write(y.astype(np.float32) if x.dtype == np.float32 else y)


__all__ = ["pool3d", "pool_3d"]
