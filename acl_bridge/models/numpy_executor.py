"""Carry out a :class:`~.tflite_plan.Plan` with numpy (float64 arithmetic): the host-side
reference for the plan itself. Running it against TFLite's interpreter checks the lowering
(SAME padding, weight layouts, fused activations, views for RESHAPE and CONCATENATION) on any
machine; the ACL runner then only has to match it."""

from __future__ import annotations

from typing import Dict

import numpy as np

from .tflite_plan import Plan, Step, slice_index

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


def _run_step(s: Step, arrays: Dict[int, np.ndarray]) -> None:
    p = dict(s.params)
    c = dict(s.constants)
    x = arrays[s.inputs[0]].astype(np.float64)
    if s.kind == "convolution":
        y = np.einsum("nhwcij,oijc->nhwo", _windows(x, c["weights"].shape[1:3], p["stride"], p["padding"], 0.0),
                      c["weights"].astype(np.float64)) + c["bias"]
    elif s.kind == "depthwise":
        m = p.get("depth_multiplier", 1)
        win = np.repeat(_windows(x, c["weights"].shape[:2], p["stride"], p["padding"], 0.0), m, axis=3)
        y = np.einsum("nhwcij,ijc->nhwc", win, c["weights"].astype(np.float64)) + c["bias"]
    elif s.kind == "add":
        y = x + arrays[s.inputs[1]]
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
    elif s.kind == "softmax":
        e = np.exp(p["beta"] * (x - x.max(axis=-1, keepdims=True)))
        y = e / e.sum(axis=-1, keepdims=True)
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


def run_plan(plan: Plan, x: np.ndarray) -> Dict[str, np.ndarray]:
    """Outputs of the model for input ``x``, by tensor name (float32)."""
    t = plan.model.tensors
    owned = {i: np.zeros(t[i].shape, np.float32) for i in plan.buffers()}
    arrays = plan.bind(owned)
    arrays[plan.model.inputs[0]][...] = x
    for s in plan.steps:
        _run_step(s, arrays)
    return {t[i].name: np.array(arrays[i]) for i in plan.model.outputs}
