"""The custom operators TFLite's CPU kernels know from MediaPipe (mobile segmentation models:
selfie, hair and portrait segmenters): ``Convolution2DTransposeBias``,
``MaxPoolingWithArgmax2D`` and ``MaxUnpooling2D``, float32 only as MediaPipe's kernels are.

Their options are not a flatbuffer: ``custom_options`` holds the bytes of a C struct that the
kernel reinterprets (the reader keeps them as hex, :mod:`..format.tflite_reader`), little-endian
int32 fields:

* ``Convolution2DTransposeBias``: TfLiteTransposeConvParams = (padding, stride_width,
  stride_height[, activation: not applied by MediaPipe's kernel]); inputs (x NHWC, weights
  OHWI, bias [O]). Output height = stride_h * (H - 1) + filter_h - total_pad_h, where
  total_pad_h = max(0, filter_h - (H - 1) % stride_h - 1) for SAME, 0 for VALID; the output
  is bias + the scatter of every input pixel through the filter, starting total_pad_h // 2
  rows up (the same for the width).
* ``MaxPoolingWithArgmax2D``: TfLitePoolParams = (padding, stride_width, stride_height,
  filter_width, filter_height, activation, ...); one input, outputs (max, argmax), both float32.
  Output size as MAX_POOL_2D (SAME: ceil(H / stride); VALID: (H - filter + stride) // stride),
  padding top = max(0, ((out - 1) * stride + filter - H) // 2). Per window: the first
  strictly greatest element (a float ``>`` from float32's lowest value, so NaN and -inf never
  win), clamped by the fused activation; argmax = ``fy * filter_width + fx + 0.1`` (its
  position inside the window, made float; the 0.1 survives the truncation back to int).
* ``MaxUnpooling2D``: TfLitePoolParams as above; inputs (values, argmax float32); output
  (N, H * filter_h, W * filter_w, C) zero but for each value written at
  ``(y * stride_h - pad_h + idx // filter_w, x * stride_w - pad_w + idx % filter_w)``
  (idx = int(argmax), pad = the padding that pooling the output would have had), later
  inputs (C order) over earlier ones. A position outside the output is dropped (MediaPipe's
  kernel writes out of bounds there).
"""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from ..format.tflite_reader import ModelSpec, OperatorSpec
from .registry import FLOAT, Call, kernel

SAME, VALID = 1, 2
_CLAMP = {1: (0.0, np.inf), 2: (-1.0, 1.0), 3: (0.0, 6.0)}  # RELU, RELU_N1_TO_1, RELU6; others: none


def struct_fields(op: OperatorSpec, least: int) -> Tuple[int, ...]:
    """The int32 fields of ``op``'s custom_options; ValueError naming what is wrong."""
    raw = bytes.fromhex(op.option("custom_options", ""))
    if len(raw) < 4 * least:
        raise ValueError(f"custom_options has {len(raw)} bytes, expected at least {4 * least} "
                         f"({least} int32 fields)")
    fields = tuple(int(v) for v in np.frombuffer(raw[:len(raw) // 4 * 4], "<i4"))
    if fields[0] not in (SAME, VALID):
        raise ValueError(f"padding is {fields[0]}, expected {SAME} (SAME) or {VALID} (VALID)")
    if any(s < 1 for s in fields[1:least]):
        raise ValueError(f"strides / filter sizes are {list(fields[1:least])}, expected positive values")
    return fields


def _pool_padding(size: int, out: int, stride: int, filt: int) -> int:
    """TFLite's ComputePadding (dilation 1): the leading padding, never negative."""
    return max(0, ((out - 1) * stride + filt - size) // 2)


def _pool_out(padding: int, size: int, stride: int, filt: int) -> int:
    return (size + stride - 1) // stride if padding == SAME else (size - filt + stride) // stride


def _shape(model: ModelSpec, i: int) -> Tuple[int, ...]:
    return tuple(model.tensors[i].shape)


# ------------------------------------------------------------------- Convolution2DTransposeBias
def _transpose_geometry(fields, x_shape, w_shape):
    """((output height, width), (leading padding height, width)) of the transposed convolution."""
    padding, stride_w, stride_h = fields[:3]
    out, lead = [], []
    for size, filt, stride in ((x_shape[1], w_shape[1], stride_h), (x_shape[2], w_shape[2], stride_w)):
        total = max(0, filt - (size - 1) % stride - 1) if padding == SAME else 0
        out.append(stride * (size - 1) + filt - total)
        lead.append(total // 2)
    return tuple(out), tuple(lead)


def _check_transpose(op: OperatorSpec, model: ModelSpec) -> Optional[str]:
    try:
        fields = struct_fields(op, 3)
    except ValueError as e:
        return str(e)
    if len(op.inputs) != 3 or len(op.outputs) != 1 or min(op.inputs) < 0:
        return f"inputs {list(op.inputs)} and outputs {list(op.outputs)}, expected (x, weights, bias) and one output"
    x, w, b, y = (_shape(model, i) for i in op.inputs + op.outputs)
    if len(x) != 4 or len(w) != 4 or len(b) != 1 or w[3] != x[3] or b[0] != w[0]:
        return f"shapes x {list(x)}, weights {list(w)}, bias {list(b)}, expected NHWC, OHWI with I = C, and [O]"
    (oh, ow), _ = _transpose_geometry(fields, x, w)
    if y != (x[0], oh, ow, w[0]):
        return f"output shape {list(y)}, expected {[x[0], oh, ow, w[0]]}"
    return None


@kernel("CUSTOM:Convolution2DTransposeBias", dtypes=FLOAT, check=_check_transpose)
def convolution_2d_transpose_bias(c: Call) -> None:
    fields = struct_fields(c.op, 3)
    x, w, b = (np.asarray(v, np.float32) for v in c.inputs)
    stride_w, stride_h = fields[1], fields[2]
    n, h, wd, _ = x.shape
    o, fh, fw, _ = w.shape
    (oh, ow), (ph, pw) = _transpose_geometry(fields, x.shape, w.shape)
    # every input pixel scattered through the whole filter, then the window of the output
    full = np.zeros((n, stride_h * (h - 1) + fh, stride_w * (wd - 1) + fw, o), np.float32)
    flat = x.reshape(-1, x.shape[3])
    for fy in range(fh):
        for fx in range(fw):
            contrib = (flat @ w[:, fy, fx, :].T).reshape(n, h, wd, o)
            full[:, fy:fy + stride_h * (h - 1) + 1:stride_h, fx:fx + stride_w * (wd - 1) + 1:stride_w] += contrib
    c.write(full[:, ph:ph + oh, pw:pw + ow] + b)


# ------------------------------------------------------------------- MaxPoolingWithArgmax2D
def _check_pool(op: OperatorSpec, model: ModelSpec) -> Optional[str]:
    try:
        fields = struct_fields(op, 5)
    except ValueError as e:
        return str(e)
    if len(op.inputs) != 1 or len(op.outputs) != 2 or op.inputs[0] < 0:
        return f"inputs {list(op.inputs)} and outputs {list(op.outputs)}, expected one input and (max, argmax)"
    x = _shape(model, op.inputs[0])
    if len(x) != 4:
        return f"input shape {list(x)}, expected NHWC"
    padding, sw, sh, fw, fh = fields[:5]
    want = (x[0], _pool_out(padding, x[1], sh, fh), _pool_out(padding, x[2], sw, fw), x[3])
    for k in (0, 1):
        if _shape(model, op.outputs[k]) != want:
            return f"output {k} shape {list(_shape(model, op.outputs[k]))}, expected {list(want)}"
    return None


@kernel("CUSTOM:MaxPoolingWithArgmax2D", dtypes=FLOAT, check=_check_pool)
def max_pooling_with_argmax_2d(c: Call) -> None:
    fields = struct_fields(c.op, 5)
    padding, sw, sh, fw, fh = fields[:5]
    activation = fields[5] if len(fields) > 5 else 0
    x = np.asarray(c.inputs[0], np.float32)
    n, h, w, ch = x.shape
    oh, ow = _pool_out(padding, h, sh, fh), _pool_out(padding, w, sw, fw)
    ph, pw = _pool_padding(h, oh, sh, fh), _pool_padding(w, ow, sw, fw)
    # NaN outside the input: a comparison with NaN is false, so padding never wins
    span_h, span_w = (oh - 1) * sh + fh, (ow - 1) * sw + fw
    padded = np.full((n, max(span_h, ph + h), max(span_w, pw + w), ch), np.nan, np.float32)
    padded[:, ph:ph + h, pw:pw + w] = x
    best = np.full((n, oh, ow, ch), np.finfo(np.float32).min, np.float32)
    where = np.full((n, oh, ow, ch), np.float32(0.1), np.float32)  # no winner: position 0
    for fy in range(fh):
        for fx in range(fw):
            cur = padded[:, fy:fy + sh * (oh - 1) + 1:sh, fx:fx + sw * (ow - 1) + 1:sw]
            better = cur > best
            best = np.where(better, cur, best)
            where[better] = np.float32(fy * fw + fx) + np.float32(0.1)
    lo, hi = _CLAMP.get(activation, (-np.inf, np.inf))
    c.write(np.clip(best, lo, hi), 0)
    c.write(where, 1)


# ------------------------------------------------------------------- MaxUnpooling2D
def _check_unpool(op: OperatorSpec, model: ModelSpec) -> Optional[str]:
    try:
        fields = struct_fields(op, 5)
    except ValueError as e:
        return str(e)
    if len(op.inputs) != 2 or len(op.outputs) != 1 or min(op.inputs) < 0:
        return f"inputs {list(op.inputs)} and outputs {list(op.outputs)}, expected (values, argmax) and one output"
    x, idx, y = (_shape(model, i) for i in op.inputs + op.outputs)
    if len(x) != 4 or idx != x:
        return f"input shapes {list(x)} and {list(idx)}, expected the same NHWC shape"
    fw, fh = fields[3], fields[4]
    if y != (x[0], x[1] * fh, x[2] * fw, x[3]):
        return f"output shape {list(y)}, expected {[x[0], x[1] * fh, x[2] * fw, x[3]]}"
    return None


@kernel("CUSTOM:MaxUnpooling2D", dtypes=FLOAT, check=_check_unpool)
def max_unpooling_2d(c: Call) -> None:
    _, sw, sh, fw, fh = struct_fields(c.op, 5)[:5]
    x = np.asarray(c.inputs[0], np.float32)
    n, h, w, ch = x.shape
    oh, ow = h * fh, w * fw
    ph, pw = _pool_padding(oh, h, sh, fh), _pool_padding(ow, w, sw, fw)
    idx = np.asarray(c.inputs[1], np.float32).astype(np.int64)  # C's float -> int: toward zero
    dx = np.fmod(idx, fw)  # C's % and / on ints: toward zero
    dy = (idx - dx) // fw
    b, y, xx, k = np.indices(x.shape, sparse=True)
    oy, ox = y * sh - ph + dy, xx * sw - pw + dx
    inside = (oy >= 0) & (oy < oh) & (ox >= 0) & (ox < ow)
    out = np.zeros((n, oh, ow, ch), np.float32)
    b, k = np.broadcast_to(b, x.shape), np.broadcast_to(k, x.shape)
    out[b[inside], oy[inside], ox[inside], k[inside]] = x[inside]  # C order: the last write wins
    c.write(out)
