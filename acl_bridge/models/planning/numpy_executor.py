"""Carry out a :class:`~.tflite_plan.Plan` with numpy (float64 arithmetic): the host-side
reference for the plan itself. Running it against TFLite's interpreter checks the lowering
(SAME padding, weight layouts, fused activations, views for RESHAPE and CONCATENATION) on any
machine; the ACL runner then only has to match it."""

from __future__ import annotations

from typing import Any, Dict

import numpy as np

from ..fallback import int8_reference as q8
from ..fallback import prepare
from .tflite_plan import Fallback, Plan, Step, graph_inputs, slice_index

_ACT = {
    None: lambda x, a, b: x,
    "relu": lambda x, a, b: np.maximum(x, 0),
    "bounded_relu": lambda x, a, b: np.minimum(a, np.maximum(0, x)),
    "lu_bounded_relu": lambda x, a, b: np.minimum(a, np.maximum(b, x)),
    "tanh": lambda x, a, b: a * np.tanh(b * x),
    "logistic": lambda x, a, b: 1 / (1 + np.exp(-x)),
}

def _windows(x, kernel, stride, padding, fill):
    top, bottom, left, right = padding
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=fill)
    win = np.lib.stride_tricks.sliding_window_view(xp, kernel, axis=(1, 2))  # N,H',W',C,kh,kw
    return win[:, ::stride[0], ::stride[1]]

def _resize_grid(size: int, out: int, align_corners: bool, half_pixel_centers: bool):
    """TFLite's source coordinate per output index along one axis (float32, as TFLite
    computes it), with its lower and upper neighbours clamped into the input:
    scale = (in - 1) / (out - 1) with align_corners (out > 1), else in / out;
    src = (dst + 0.5) * scale - 0.5 with half_pixel_centers, else dst * scale;
    lower = max(floor(src), 0), upper = min(ceil(src), in - 1)."""
    if align_corners and out > 1:
        scale = np.float32(size - 1) / np.float32(out - 1)
    else:
        scale = np.float32(size) / np.float32(out)
    dst = np.arange(out, dtype=np.float32)
    src = (dst + np.float32(0.5)) * scale - np.float32(0.5) if half_pixel_centers else dst * scale
    lower = np.maximum(np.floor(src), 0).astype(np.int64)
    upper = np.minimum(np.ceil(src), size - 1).astype(np.int64)
    return src.astype(np.float64), lower, upper

def resize_bilinear(x: np.ndarray, out_hw, align_corners: bool = False, half_pixel_centers: bool = False) -> np.ndarray:
    """TFLite's RESIZE_BILINEAR of an NHWC array to ``out_hw`` (float64): each output is
    x[y0,x0](1-dy)(1-dx) + x[y1,x0] dy (1-dx) + x[y0,x1](1-dy) dx + x[y1,x1] dy dx with
    dy = src_y - y0, dx = src_x - x0 (TFLite's reference kernel; the weights are not
    clamped, so outside the input the edge element is taken)."""
    x = np.asarray(x, np.float64)
    sy, y0, y1 = _resize_grid(x.shape[1], out_hw[0], align_corners, half_pixel_centers)
    sx, x0, x1 = _resize_grid(x.shape[2], out_hw[1], align_corners, half_pixel_centers)
    dy = (sy - y0)[None, :, None, None]
    rows = x[:, y0] * (1 - dy) + x[:, y1] * dy
    dx = (sx - x0)[None, None, :, None]
    return rows[:, :, x0] * (1 - dx) + rows[:, :, x1] * dx

def _destination(s: Step, arrays: Dict[int, np.ndarray], shape) -> np.ndarray:
    """Where a copy-like step writes: its output, or its slice of ``into`` (concatenation)."""
    p = dict(s.params)
    if "into" in p:
        _, axis, start = p["slice"]
        return arrays[p["into"]][slice_index(len(shape), axis, start, shape[axis])]
    return arrays[s.output]

def _run_quantized(s: Step, arrays: Dict[int, np.ndarray]) -> None:
    """An int8 / uint8 step, with TFLite's integer arithmetic (:mod:`.int8_reference`)."""
    p, c = dict(s.params), dict(s.constants)
    q = dict(p["quantization"])
    x = arrays[s.inputs[0]]
    dst = _destination(s, arrays, x.shape)
    if s.kind == "dequantize":
        dst[...] = q8.dequantize(x, q["src"])
        return
    if s.kind == "quantize":
        dst[...] = q8.quantize(x, q["dst"], dst.dtype) if "src" not in q else q8.requantize(x, q["src"], q["dst"], dst.dtype)
        return
    if s.kind == "copy":
        dst[...] = x.reshape(dst.shape)
        return
    yq = q["dst"]
    clamp = q8.activation_range(p.get("activation"), p.get("act_a", 0.0), p.get("act_b", 0.0), yq[0], yq[1], dst.dtype)
    if s.kind in ("convolution", "depthwise"):
        y = q8.convolution(x, q["src"], c["weights"], q["weights"], c["bias"], yq, dst.dtype, p["stride"],
                           p["padding"], clamp, p.get("depth_multiplier") if s.kind == "depthwise" else None)
    elif s.kind == "fully_connected":
        y = q8.fully_connected(x, q["src"], c["weights"], q["weights"], c["bias"], yq, dst.dtype, clamp)
    elif s.kind == "add":
        b = c["b"] if "b" in c else arrays[s.inputs[1]]
        y = q8.add(x, q["a"], b, q["b"], yq, dst.dtype, clamp)
    elif s.kind == "activation":  # TFLite: requantize to the output's scale, then clamp
        clamp = q8.activation_range(p["function"], p["a"], p["b"], yq[0], yq[1], dst.dtype)
        y = np.clip(q8.requantize(x, q["src"], yq, np.int64, float32_ratio=True), *clamp).astype(dst.dtype)
    elif s.kind == "pooling" and p.get("global_mean"):  # TFLite's MEAN, its own arithmetic
        y = np.clip(q8.mean(x, (1, 2), q["src"], yq, np.int64), *clamp).astype(dst.dtype)
    elif s.kind == "pooling":
        pool = q8.max_pool if p["pool_type"] == "max" else q8.average_pool
        y = pool(x, p["kernel"], p["stride"], p["padding"], clamp, dst.dtype)
    elif s.kind == "softmax":
        y = q8.softmax(x, q["src"], p["beta"], yq, dst.dtype)
    else:  # pragma: no cover - plan_model produces no other quantized kind
        raise AssertionError(f"unknown quantized step kind {s.kind!r}: {s!r}")
    dst[...] = y

def run_step(s: Step, arrays: Dict[int, np.ndarray]) -> None:
    """One step of a plan on ``arrays`` (tensor index -> array; its output written in place)."""
    p = dict(s.params)
    c = dict(s.constants)
    if p.get("quantization"):
        _run_quantized(s, arrays)
        return
    x = arrays[s.inputs[0]].astype(np.float64)
    if s.kind == "convolution":
        y = np.einsum("nhwcij,oijc->nhwo", _windows(x, c["weights"].shape[1:3], p["stride"], p["padding"], 0.0),
                      c["weights"].astype(np.float64)) + c["bias"]
    elif s.kind == "depthwise":
        m = p.get("depth_multiplier", 1)
        win = np.repeat(_windows(x, c["weights"].shape[:2], p["stride"], p["padding"], 0.0), m, axis=3)
        y = np.einsum("nhwcij,ijc->nhwc", win, c["weights"].astype(np.float64)) + c["bias"]
    elif s.kind == "add":
        y = x + (c["b"] if "b" in c else arrays[s.inputs[1]])
    elif s.kind == "prelu":
        y = np.where(x > 0, x, c["alpha"].astype(np.float64) * x)
    elif s.kind == "activation":
        y = _ACT[p["function"]](x, p["a"], p["b"])
    elif s.kind == "pad":
        y = np.pad(x, p["pad_width"])
    elif s.kind == "pooling":
        if p["pool_type"] == "max":
            y = _windows(x, p["kernel"], p["stride"], p["padding"], -np.inf).max(axis=(-2, -1))
        else:  # TFLite averages over the elements inside the input only
            ones = np.ones(x.shape[:3] + (1,))
            y = (_windows(x, p["kernel"], p["stride"], p["padding"], 0.0).sum(axis=(-2, -1))
                 / _windows(ones, p["kernel"], p["stride"], p["padding"], 0.0).sum(axis=(-2, -1)))
    elif s.kind == "fully_connected":
        y = x @ c["weights"].astype(np.float64).T + c["bias"]
    elif s.kind == "softmax":
        e = np.exp(p["beta"] * (x - x.max(axis=-1, keepdims=True)))
        y = e / e.sum(axis=-1, keepdims=True)
    elif s.kind == "resize":
        y = resize_bilinear(x, arrays[s.output].shape[1:3], p["align_corners"], p["half_pixel_centers"])
    elif s.kind == "copy":
        if "into" in p:
            _, axis, start = p["slice"]
            dst = arrays[p["into"]][slice_index(x.ndim, axis, start, x.shape[axis])]
        else:
            dst = arrays[s.output]
        dst[...] = x.reshape(dst.shape)
        return
    else:  # pragma: no cover - plan_model produces no other kind
        raise AssertionError(f"unknown step kind {s.kind!r}: {s!r}")
    y = _ACT[p.get("activation")](y, p.get("act_a", 0.0), p.get("act_b", 0.0))
    arrays[s.output][...] = y

def run_plan_tensors(plan: Plan, x: Any) -> Dict[int, np.ndarray]:
    """Every tensor of the plan after a run on ``x`` (one array, a sequence in the graph's
    input order, or a dict by input name: :func:`~.tflite_plan.graph_inputs`), by tensor
    index (views included, each in its tensor's dtype: float32, or int8 / uint8 for a
    quantized model). Fallback operators run on :mod:`.fallback`'s kernels in their place."""
    t = plan.model.tensors
    owned = {i: np.zeros(t[i].shape, t[i].dtype) for i in plan.buffers()}
    arrays = plan.bind(owned)
    arrays.update((c.index, c.data) for c in t if c.is_constant)  # operands of copies (CONCATENATION)
    for i, value in graph_inputs(plan.model, x).items():
        arrays[i][...] = value
    ops = {op.index: op for op in plan.model.operators} if plan.fallbacks else {}
    for s in plan.order():
        if isinstance(s, Fallback):
            prepare(ops[s.op_index], plan.model, arrays)()
        else:
            run_step(s, arrays)
    return arrays

def run_plan(plan: Plan, x: Any) -> Dict[str, np.ndarray]:
    """Outputs of the model for input ``x`` (see :func:`run_plan_tensors`), by tensor name
    (each in its tensor's dtype)."""
    arrays = run_plan_tensors(plan, x)
    return {plan.model.tensors[i].name: np.array(arrays[i]) for i in plan.model.outputs}

