"""The numpy kernels of the data-movement step kinds (:mod:`..lowering.rules.movement`):
strided_slice, gather, tile, depth_to_space, space_to_depth, batch_to_space, space_to_batch
(NHWC) and cast, registered with :func:`.step_kernels.step_kernel`; int8 / uint8 move as
stored (the same kernels: one quantization in and out)."""

from __future__ import annotations

import numpy as np

from .step_kernels import step_kernel


def _strided_slice(s, x, p, c, arrays):
    index = tuple(b if p["shrink_axis_mask"] >> k & 1 else slice(b, e, st)
                  for k, (b, e, st) in enumerate(zip(p["begin"], p["end"], p["strides"])))
    return x[index]


def _gather(s, x, p, c, arrays):
    return np.take(x, c["indices"], axis=p["axis"])


def _tile(s, x, p, c, arrays):
    return np.tile(x, p["multiples"])


def _depth_to_space(s, x, p, c, arrays):
    """TFLite's DCR order: out[n, h*b+i, w*b+j, k] = x[n, h, w, (i*b + j)*C' + k]."""
    n, h, w, ch = x.shape
    b = p["block_size"]
    return x.reshape(n, h, w, b, b, ch // (b * b)).transpose(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b, ch // (b * b))


def _space_to_depth(s, x, p, c, arrays):
    n, h, w, ch = x.shape
    b = p["block_size"]
    return x.reshape(n, h // b, b, w // b, b, ch).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, b * b * ch)


def _batch_to_space(s, x, p, c, arrays):
    n, h, w, ch = x.shape
    bh, bw = p["block_shape"]
    (t, b), (l, r) = p["crops"]
    y = x.reshape(bh, bw, n // (bh * bw), h, w, ch).transpose(2, 3, 0, 4, 1, 5).reshape(n // (bh * bw), h * bh, w * bw, ch)
    return y[:, t:h * bh - b, l:w * bw - r]


def _space_to_batch(s, x, p, c, arrays):
    bh, bw = p["block_shape"]
    y = np.pad(x, ((0, 0),) + tuple(p["paddings"]) + ((0, 0),))
    n, h, w, ch = y.shape
    return y.reshape(n, h // bh, bh, w // bw, bw, ch).transpose(2, 4, 0, 1, 3, 5).reshape(n * bh * bw, h // bh,
                                                                                          w // bw, ch)


KERNELS = {"strided_slice": _strided_slice, "gather": _gather, "tile": _tile, "depth_to_space": _depth_to_space,
           "space_to_depth": _space_to_depth, "batch_to_space": _batch_to_space, "space_to_batch": _space_to_batch}

for _kind, _kernel in KERNELS.items():
    step_kernel(_kind)(_kernel)
    step_kernel(_kind, quantized=True)(lambda s, x, p, c, q, dst, arrays, k=_kernel: k(s, x, p, c, arrays))


@step_kernel("cast")
def _cast(s, x, p, c, arrays):
    """float64 of the input, assigned into the output: float -> integer truncates toward zero
    (TFLite's static_cast)."""
    return np.trunc(x) if arrays[s.output].dtype.kind in "iu" else x


@step_kernel("fill")
def _fill(s, x, p, c, arrays):
    return np.full(arrays[s.output].shape, p["value"])
