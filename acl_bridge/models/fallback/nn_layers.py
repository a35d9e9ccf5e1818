"""The neural-network layers on numpy: the step kernels of ``deconvolution``, ``convolution_3d``, ``l2_normalize``,
``normalization``, ``log_softmax``, ``matmul``, L2 ``pooling`` and nearest ``resize``
(float64, and int8 / uint8 as TFLite's reference kernels: :mod:`.int8_reference`'s output
stage), and the fallback kernels of TRANSPOSE_CONV, L2_POOL_2D, LOCAL_RESPONSE_NORMALIZATION,
RESIZE_NEAREST_NEIGHBOR, BATCH_MATMUL and CONV_3D, which run their rule's steps where ACL's
validate() refused them (ACL 20.08's missing MatMul and Conv3D)."""

from __future__ import annotations

from typing import Tuple

import numpy as np

from . import int8_reference as q8
from .nn import _lowerable, lowered_layer
from .registry import FLOAT, INT8, kernel
from .step_kernels import _clamp, _windows, step_kernel


def transposed_convolution_sum(x: np.ndarray, w: np.ndarray, stride: Tuple[int, int],
                               padding: Tuple[int, int, int, int]) -> np.ndarray:
    """sum over input elements and taps: every x[n, i, j, :] @ w[o, fy, fx, :] added at the
    full output's (i * stride + fy, j * stride + fx), then (top, bottom, left, right)
    cropped (TFLite's TRANSPOSE_CONV; x NHWC, w OHWI; in x's and w's common dtype)."""
    n, h, wd, _ = x.shape
    cout, kh, kw, _ = w.shape
    sh, sw = stride
    full = np.zeros((n, (h - 1) * sh + kh, (wd - 1) * sw + kw, cout), np.result_type(x, w))
    for fy in range(kh):
        for fx in range(kw):
            full[:, fy:fy + (h - 1) * sh + 1:sh, fx:fx + (wd - 1) * sw + 1:sw] += np.einsum(
                "nhwc,oc->nhwo", x, w[:, fy, fx, :])
    top, bottom, left, right = padding
    return full[:, top:full.shape[1] - bottom, left:full.shape[2] - right]


def nearest_indices(size: int, out: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    """TFLite's RESIZE_NEAREST_NEIGHBOR source index per output index along one axis (float32
    scale as TFLite computes it): round half away from zero with align_corners, else floor,
    clamped into the input."""
    scale = (np.float32(size - 1) / np.float32(out - 1) if align_corners and out > 1
             else np.float32(size) / np.float32(out))
    v = (np.arange(out, dtype=np.float32) + np.float32(0.5 if half_pixel_centers else 0.0)) * scale
    idx = np.floor(v + np.float32(0.5)) if align_corners else np.floor(v)  # v >= 0: half away from zero
    return np.clip(idx.astype(np.int64), 0, size - 1)


def resize_nearest(x: np.ndarray, out_hw, align_corners: bool = False, half_pixel_centers: bool = False) -> np.ndarray:
    """TFLite's RESIZE_NEAREST_NEIGHBOR of an NHWC array to ``out_hw``."""
    ys = nearest_indices(x.shape[1], out_hw[0], align_corners, half_pixel_centers)
    xs = nearest_indices(x.shape[2], out_hw[1], align_corners, half_pixel_centers)
    return x[:, ys][:, :, xs]


@step_kernel("deconvolution")
def _deconvolution(s, x, p, c, arrays):
    return transposed_convolution_sum(x, c["weights"].astype(np.float64), p["stride"], p["padding"]) + c["bias"]


@step_kernel("deconvolution", quantized=True)
def _deconvolution_q(s, x, p, c, q, dst, arrays):
    w, wq = c["weights"], q["weights"]
    xs = np.asarray(x, np.int64) - q["src"][1]
    ws = np.asarray(w, np.int64) - (0 if isinstance(wq[0], tuple) else wq[1])
    acc = transposed_convolution_sum(xs, ws, p["stride"], p["padding"]) + np.asarray(c["bias"], np.int64)
    scales = np.asarray(wq[0], np.float64)
    real = np.float64(q["src"][0]) * scales / np.float64(q["dst"][0])
    return q8.output_stage(acc, real, q["dst"][1], _clamp(p, q, dst), dst.dtype)


@step_kernel("convolution_3d")
def _convolution_3d(s, x, p, c, arrays):
    (front, back), (top, bottom), (left, right) = p["padding"]
    w = c["weights"].astype(np.float64)  # (KD, KH, KW, C, OFM)
    xp = np.pad(x, ((0, 0), (front, back), (top, bottom), (left, right), (0, 0)))
    sd, sh, sw = p["stride"]
    win = np.lib.stride_tricks.sliding_window_view(xp, w.shape[:3], axis=(1, 2, 3))[:, ::sd, ::sh, ::sw]
    return np.einsum("ndhwcijk,ijkco->ndhwo", win, w) + c["bias"]


@step_kernel("l2_normalize")
def _l2_normalize(s, x, p, c, arrays):
    return x / np.sqrt(np.maximum((x * x).sum(axis=p["axis"], keepdims=True), p["epsilon"]))


@step_kernel("normalization")
def _normalization(s, x, p, c, arrays):
    r, sq = p["radius"], x * x
    padded = np.pad(sq, ((0, 0),) * (x.ndim - 1) + ((r, r),))
    window = np.lib.stride_tricks.sliding_window_view(padded, 2 * r + 1, axis=-1).sum(axis=-1)
    return x * (p["bias"] + p["alpha"] * window) ** -p["beta"]


@step_kernel("log_softmax")
def _log_softmax(s, x, p, c, arrays):
    z = p["beta"] * (x - x.max(axis=-1, keepdims=True))
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


@step_kernel("matmul")
def _matmul(s, x, p, c, arrays):
    live = iter(np.asarray(arrays[i], np.float64) for i in s.inputs)
    a, b = (np.asarray(c[r], np.float64) if r in c else next(live) for r in ("a", "b"))
    return (np.swapaxes(a, -1, -2) if p["adj_a"] else a) @ (np.swapaxes(b, -1, -2) if p["adj_b"] else b)


@step_kernel("resize", quantized=True)
def _resize_q(s, x, p, c, q, dst, arrays):
    return resize_nearest(x, dst.shape[1:3], p["align_corners"], p["half_pixel_centers"])


def l2_pool(x, kernel, stride, padding) -> np.ndarray:
    """sqrt of the mean square over the elements inside the input (TFLite's L2_POOL_2D)."""
    ones = np.ones(x.shape[:3] + (1,))
    return np.sqrt(_windows(x * x, kernel, stride, padding, 0.0).sum(axis=(-2, -1))
                   / _windows(ones, kernel, stride, padding, 0.0).sum(axis=(-2, -1)))


# the rule's steps lowered and bound once, as the layers of :mod:`.nn`
kernel("TRANSPOSE_CONV", "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "RESIZE_NEAREST_NEIGHBOR", "BATCH_MATMUL", "CONV_3D",
       dtypes=FLOAT + INT8, check=_lowerable, binds=True)(lowered_layer)
