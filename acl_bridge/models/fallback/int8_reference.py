"""TFLite's integer arithmetic for int8 / uint8 operators, in vectorised numpy (int64
intermediates): the host oracle of the int8 plan where TFLite's interpreter has no wheel.

Written from the documented algorithms of TFLite's reference kernels (gemmlowp's fixed-point
output stage), not from their code:

* a real multiplier ``m`` becomes a Q31 integer and a power-of-two shift
  (:func:`quantize_multiplier`: ``m = q * 2**shift`` with ``q`` in [0.5, 1) by frexp,
  ``q`` rounded to 31 fractional bits, half away from zero);
* ``x * m`` is then :func:`multiply_by_quantized_multiplier`: a left shift for positive
  shifts, the saturating rounding doubling high multiplication (the high 32 bits of
  ``2 * x * q``, rounded to nearest, ties up: a nudge of 2**30, or 1 - 2**30 for a negative
  product, then a division truncating toward zero) and a rounding arithmetic right shift
  (:func:`rounding_divide_by_pot`, half away from zero);
* convolution / depthwise / fully connected: int32 accumulators of
  ``(x - x_zero_point) * (w - w_zero_point)`` plus the int32 bias, rescaled by
  ``input_scale * weight_scale[c] / output_scale`` (per output channel), plus the output
  zero point, clamped to the activation's range in the output's quantized domain (fully
  connected: the product ``acc * q`` rounded once, as TFLite's reference kernel does);
* ADD: both inputs shifted left by 20 bits and scaled to ``scale / (2 * max scale)``, summed,
  scaled by ``2 * max scale / (2**20 * output scale)``;
* average pooling: the sum over the window's elements inside the input, divided by their
  count rounding half away from zero; max pooling: the maximum;
* MEAN (the reference kernel's QuantizedMeanOrSum): the sum minus ``n`` x the input zero
  point, times the multiplier of ``in_scale / out_scale`` refined by ``floor(log2 n)`` bits
  and divided by ``n`` (truncating) as above, plus the output zero point (measured on
  ai-edge-litert 1.4.0's reference kernels: bit for bit; the single rounding misses 1 LSB);
* softmax (int8 / uint8 out): the default (optimised) kernel's float table
  ``exp(-input_scale * beta * d)`` for the distance ``d`` to the row's maximum, summed in
  float32 in order, each probability divided by ``sum * output_scale``, rounded, plus the
  zero point (the reference kernel's fixed-point exp differs from it by up to 1 LSB);
* quantize: ``round(x / scale) + zero_point`` in float32, half away from zero, clamped;
  dequantize: ``float32(scale * (q - zero_point))`` with the scale in double; requantize
  (int8 -> int8): the input minus its zero point times ``in_scale / out_scale`` as above.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

import numpy as np

Scale = Union[float, Sequence[float]]
INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1


def limits(dtype) -> Tuple[int, int]:
    info = np.iinfo(np.dtype(dtype))
    return int(info.min), int(info.max)


def quantize_multiplier(real: Union[float, np.ndarray]) -> Tuple[np.ndarray, np.ndarray]:
    """(Q31 multiplier, shift) per element of ``real`` (float64): real = q * 2**(shift - 31)."""
    real = np.atleast_1d(np.asarray(real, np.float64))
    mant, shift = np.frexp(real)
    q = np.floor(np.abs(mant) * 2.0 ** 31 + 0.5) * np.sign(mant)  # round half away from zero
    q = q.astype(np.int64)
    over = q == 2 ** 31
    q = np.where(over, q // 2, q)
    shift = np.where(over, shift + 1, shift).astype(np.int64)
    tiny = shift < -31
    q = np.where(tiny | (real == 0), 0, q)
    shift = np.where(tiny | (real == 0), 0, shift)
    return q, shift


def div_trunc(a: np.ndarray, b: int) -> np.ndarray:
    """C++ integer division (toward zero) of int64 ``a`` by a positive ``b``."""
    return np.sign(a) * (np.abs(a) // b)


def saturating_rounding_doubling_high_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    out = div_trunc(ab + nudge, 1 << 31)
    return np.where((a == INT32_MIN) & (b == INT32_MIN), INT32_MAX, out)


def rounding_divide_by_pot(x: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    x, exponent = np.asarray(x, np.int64), np.asarray(exponent, np.int64)
    mask = (np.int64(1) << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return (x >> exponent) + (remainder > threshold)


def multiply_by_quantized_multiplier(x: np.ndarray, q: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """TFLite's MultiplyByQuantizedMultiplier (int32 semantics in int64), broadcasting ``q``
    and ``shift`` against ``x`` (per channel: along the last axis)."""
    x = np.asarray(x, np.int64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    shifted = np.clip(x * (np.int64(1) << left), INT32_MIN, INT32_MAX)
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, q), right)


def multiply_single_rounding(x: np.ndarray, q: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """``x * q * 2**(shift - 31)`` rounded once, half up (TFLite's TFLITE_SINGLE_ROUNDING
    form: ``(x * q + 2**(30 - shift)) >> (31 - shift)``)."""
    total = 31 - np.asarray(shift, np.int64)
    return (np.asarray(x, np.int64) * q + (np.int64(1) << (total - 1))) >> total


def rescale(x: np.ndarray, real: Union[float, np.ndarray], single_rounding: bool = False) -> np.ndarray:
    q, shift = quantize_multiplier(real)
    if np.ndim(real) == 0:
        q, shift = q[0], shift[0]
    if single_rounding:
        return multiply_single_rounding(x, q, shift)
    return multiply_by_quantized_multiplier(x, q, shift)


def activation_range(activation: Optional[str], a: float, b: float, scale: float, zero_point: int,
                     dtype) -> Tuple[int, int]:
    """TFLite's CalculateActivationRangeQuantized: the clamp of a fused activation in the
    output's quantized domain (zero_point + round(f / scale), f / scale in float32)."""
    lo, hi = limits(dtype)

    def q(f: float) -> int:
        v = np.float32(f) / np.float32(scale)
        return int(zero_point + int(np.sign(v) * np.floor(np.abs(v) + np.float32(0.5))))

    if activation is None:
        return lo, hi
    if activation == "relu":
        return max(lo, q(0.0)), hi
    if activation == "bounded_relu":
        return max(lo, q(0.0)), min(hi, q(a))
    if activation == "lu_bounded_relu":
        return max(lo, q(b)), min(hi, q(a))
    raise ValueError(f"activation {activation!r} has no quantized clamp (relu, bounded_relu, lu_bounded_relu)")


def output_stage(acc: np.ndarray, real_multiplier: Union[float, np.ndarray], zero_point: int,
                 clamp: Tuple[int, int], dtype, single_rounding: bool = False) -> np.ndarray:
    y = rescale(acc, real_multiplier, single_rounding) + zero_point
    return np.clip(y, clamp[0], clamp[1]).astype(dtype)


def _scales(s: Scale) -> np.ndarray:
    return np.asarray(s, np.float64)


def _pad_windows(x: np.ndarray, kernel, stride, padding, fill) -> np.ndarray:
    top, bottom, left, right = padding
    xp = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=fill)
    win = np.lib.stride_tricks.sliding_window_view(xp, tuple(kernel), axis=(1, 2))  # N,H',W',C,kh,kw
    return win[:, ::stride[0], ::stride[1]]


def convolution(x, x_q, w, w_q, bias, y_q, y_dtype, stride, padding, clamp, depth_multiplier=None) -> np.ndarray:
    """Conv (weights OHWI) or depthwise (weights HW(C*M), ``depth_multiplier`` given)."""
    xs = np.asarray(x, np.int64) - x_q[1]
    ws = np.asarray(w, np.int64) - (0 if isinstance(w_q[0], tuple) else w_q[1])
    if depth_multiplier is None:
        win = _pad_windows(xs, w.shape[1:3], stride, padding, 0)
        acc = np.einsum("nhwcij,oijc->nhwo", win, ws)
    else:
        win = np.repeat(_pad_windows(xs, w.shape[:2], stride, padding, 0), depth_multiplier, axis=3)
        acc = np.einsum("nhwcij,ijc->nhwc", win, ws)
    if bias is not None:
        acc = acc + np.asarray(bias, np.int64)
    real = np.float64(x_q[0]) * _scales(w_q[0]) / np.float64(y_q[0])
    return output_stage(acc, real, y_q[1], clamp, y_dtype)


def fully_connected(x, x_q, w, w_q, bias, y_q, y_dtype, clamp) -> np.ndarray:
    xs = np.asarray(x, np.int64) - x_q[1]
    ws = np.asarray(w, np.int64) - (0 if isinstance(w_q[0], tuple) else w_q[1])
    acc = xs @ ws.T
    if bias is not None:
        acc = acc + np.asarray(bias, np.int64)
    real = np.float64(x_q[0]) * _scales(w_q[0]) / np.float64(y_q[0])
    # TFLite's reference FULLY_CONNECTED rounds once (measured on ai-edge-litert 1.4.0: 20480 of
    # 20480 outputs of a 64x256 -> 32 layer; the gemmlowp double rounding missed 4)
    return output_stage(acc, real, y_q[1], clamp, y_dtype, single_rounding=True)


def add(a, a_q, b, b_q, y_q, y_dtype, clamp) -> np.ndarray:
    left_shift = 20
    twice_max = 2 * max(np.float64(a_q[0]), np.float64(b_q[0]))
    sa = rescale((np.asarray(a, np.int64) - a_q[1]) << left_shift, np.float64(a_q[0]) / twice_max)
    sb = rescale((np.asarray(b, np.int64) - b_q[1]) << left_shift, np.float64(b_q[0]) / twice_max)
    return output_stage(sa + sb, twice_max / ((1 << left_shift) * np.float64(y_q[0])), y_q[1], clamp, y_dtype)


def sub(a, a_q, b, b_q, y_q, y_dtype, clamp) -> np.ndarray:
    """TFLite's SUB: a - b = a + (-(b - zb)), b mirrored about its zero point, then :func:`add`."""
    return add(a, a_q, 2 * b_q[1] - np.asarray(b, np.int64), b_q, y_q, y_dtype, clamp)


def mul(a, a_q, b, b_q, y_q, y_dtype, clamp) -> np.ndarray:
    """TFLite's MUL: the zero-point-corrected product rescaled by ``s_a s_b / s_out``."""
    acc = (np.asarray(a, np.int64) - a_q[1]) * (np.asarray(b, np.int64) - b_q[1])
    return output_stage(acc, np.float64(a_q[0]) * np.float64(b_q[0]) / np.float64(y_q[0]), y_q[1], clamp, y_dtype)


def squared_difference(a, a_q, b, b_q, y_q, y_dtype, clamp) -> np.ndarray:
    """TFLite's SQUARED_DIFFERENCE: both inputs shifted left by 7 and rescaled to twice the
    larger input scale, their difference squared, rescaled by ``(2 s_max)^2 / (2^14 s_out)``."""
    left_shift = 7
    twice_max = 2 * max(np.float64(a_q[0]), np.float64(b_q[0]))
    sa = rescale((np.asarray(a, np.int64) - a_q[1]) << left_shift, np.float64(a_q[0]) / twice_max)
    sb = rescale((np.asarray(b, np.int64) - b_q[1]) << left_shift, np.float64(b_q[0]) / twice_max)
    return output_stage((sa - sb) ** 2, twice_max * twice_max / ((1 << 2 * left_shift) * np.float64(y_q[0])), y_q[1],
                        clamp, y_dtype)


def average_pool(x, kernel, stride, padding, clamp, dtype) -> np.ndarray:
    s = _pad_windows(np.asarray(x, np.int64), kernel, stride, padding, 0).sum(axis=(-2, -1))
    ones = np.ones(x.shape[:3] + (1,), np.int64)
    n = _pad_windows(ones, kernel, stride, padding, 0).sum(axis=(-2, -1))
    num = np.where(s > 0, s + n // 2, s - n // 2)
    avg = np.sign(num) * (np.abs(num) // n)  # C++ division, toward zero
    return np.clip(avg, clamp[0], clamp[1]).astype(dtype)


def mean(x, axes, x_q, y_q, dtype, single_rounding: bool = False) -> np.ndarray:
    """TFLite's reference int8 / uint8 MEAN over ``axes`` (keep_dims: the reduced axes stay as
    1s; the caller reshapes): the integer sum ``s`` of the ``n`` elements, the multiplier of
    ``in_scale / out_scale`` (Q31 ``q``, exponent ``e``) refined by ``k = min(floor(log2 n), 32,
    31 + e)`` bits and divided by ``n``: ``q' = (q << k) // n``, ``e' = e - k``; then
    ``(s - n * in_zero_point) * q' * 2**(e' - 31)`` (:func:`multiply_by_quantized_multiplier`)
    plus the output zero point, clamped to the type."""
    xi = np.asarray(x, np.int64)
    s = xi.sum(axis=tuple(axes), keepdims=True)
    n = int(np.prod([xi.shape[a] for a in axes]))
    q, e = quantize_multiplier(np.float64(x_q[0]) / np.float64(y_q[0]))
    q, e = int(q[0]), int(e[0])
    k = min(n.bit_length() - 1, 32, 31 + e)
    q, e = (q << k) // n, e - k
    acc = s - n * x_q[1]
    y = (multiply_single_rounding(acc, np.int64(q), np.int64(e)) if single_rounding
         else multiply_by_quantized_multiplier(acc, np.int64(q), np.int64(e))) + y_q[1]
    lo, hi = limits(dtype)
    return np.clip(y, lo, hi).astype(dtype)


def max_pool(x, kernel, stride, padding, clamp, dtype) -> np.ndarray:
    lo = limits(x.dtype)[0] - 1
    m = _pad_windows(np.asarray(x, np.int64), kernel, stride, padding, lo).max(axis=(-2, -1))
    return np.clip(m, clamp[0], clamp[1]).astype(dtype)


def softmax(x, x_q, beta: float, y_q, dtype) -> np.ndarray:
    """The default kernel's float-table softmax (see the module's text)."""
    xi = np.asarray(x, np.int64)
    d = xi.max(axis=-1, keepdims=True) - xi
    table = np.exp(np.float32(-np.float32(x_q[0]) * np.float32(beta)) * np.arange(256, dtype=np.float32))
    e = table.astype(np.float32)[d]
    total = np.add.accumulate(e, axis=-1, dtype=np.float32)[..., -1:]
    inv = np.float32(1) / (total * np.float32(y_q[0]))
    p = e * inv
    r = np.sign(p) * np.floor(np.abs(p) + np.float32(0.5))
    lo, hi = limits(dtype)
    return np.clip(r.astype(np.int64) + y_q[1], lo, hi).astype(dtype)


def quantize(x, y_q, dtype) -> np.ndarray:
    v = np.asarray(x, np.float32) / np.float32(y_q[0])
    r = np.sign(v) * np.floor(np.abs(v) + np.float32(0.5))
    lo, hi = limits(dtype)
    return np.clip(r.astype(np.int64) + y_q[1], lo, hi).astype(dtype)


def requantize(x, x_q, y_q, dtype, float32_ratio: bool = False) -> np.ndarray:
    """QUANTIZE between quantized tensors (the scale ratio in double), or with
    ``float32_ratio`` the requantization of TFLite's int8 RELU / RELU6 / RELU_N1_TO_1 (its
    ratio in float32: 0.05 / 0.08 is 0.625 there, 0.62500002 in double, and -12.5 rounds
    differently)."""
    lo, hi = limits(dtype)
    ratio = (np.float64(np.float32(x_q[0]) / np.float32(y_q[0])) if float32_ratio
             else np.float64(x_q[0]) / np.float64(y_q[0]))
    y = rescale(np.asarray(x, np.int64) - x_q[1], ratio) + y_q[1]
    return np.clip(y, lo, hi).astype(dtype)


def dequantize(x, x_q) -> np.ndarray:
    return (np.float64(x_q[0]) * (np.asarray(x, np.int64) - x_q[1])).astype(np.float32)


__all__ = ["quantize_multiplier", "multiply_by_quantized_multiplier", "rescale", "activation_range", "convolution",
           "fully_connected", "add", "average_pool", "mean", "max_pool", "softmax", "quantize", "requantize", "dequantize"]
