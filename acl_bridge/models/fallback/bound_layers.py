"""The lowered layers' steps bound once per operator at load, for the fallback: convolution,
depthwise convolution, fully connected and max / average pooling, float32 and int8 / uint8
(what :mod:`.nn`'s CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, MAX_POOL_2D and
AVERAGE_POOL_2D kernels run where ACL refused the operator).

At load a binder makes the step's buffers (a padded input, im2col columns, accumulators),
weights in the layout numpy wants and the requantization's per-channel integers; the call
does only numpy work into them, writing the operator's output in place. A binder answers
None where it has no fast path (then :func:`.step_kernels.run_step` runs the step each call).

int8 / uint8 are bit-exact with TFLite's reference kernels, by other arithmetic than
:mod:`.int8_reference`'s (which the numpy executor keeps as the oracle):

* accumulators: depthwise in int32, the windows of a zero-point-padded input copied into
  columns one kernel row at a time and summed by one einsum; convolution and fully connected
  as one matrix product in float32 where every partial sum is an integer below 2**24
  (bounded at load from the weights and bias), else in float64 where it stays within int32
  (TFLite's accumulator), the input zero point folded into the bias and the bias into the
  product (a column of ones);
* TFLite's MultiplyByQuantizedMultiplier (gemmlowp's two roundings: the high half of the
  doubled product rounded half up, then a rounding right shift by ``e`` bits, half away from
  zero) as one rounding right shift: ``(acc * q + 2**30 + 2**(30 + e) - 2**31 [acc * q <
  -2**30]) >> (31 + e)`` in int64 (the two floors compose; the bracket is the second
  rounding's tie for a negative high half); the fully connected layer's single rounding
  ``(acc * q + 2**(30 + e)) >> (31 + e)``;
* average pooling: the int32 sum over the window's cells inside the input, divided by their
  count rounding half away from zero (one count: a table of every possible sum; else
  ``trunc((s +- n // 2) / n)`` in float64, exact for sums below 2**31).
"""

from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple

import numpy as np

from ..lowering.step import Step
from . import int8_reference as q8
from .inplace import clamp_into, product_into, relu_into, reshaped, spread
from .requant_tables import table_requantizer
from .step_kernels import _clamp, run_step

Run = Callable[[], None]
# (params, constants, quantization by role or None, input, output) -> the per-call work, or None
Binder = Callable[[dict, dict, Optional[dict], np.ndarray, np.ndarray], Optional[Run]]
_BINDERS: Dict[Tuple[str, bool], Binder] = {}
# pooling windows with more cells, or outputs with fewer, reduce over a window view in one call
# instead of looping over the taps
_MANY_TAPS, _FEW_CELLS = 16, 1024
# im2col columns kept per operator: at most this many elements (64 MiB of float32), else the
# step runs unbound
_MOST_COLUMNS = 1 << 24


def registrar(table: dict) -> Callable[[str, bool], Callable[[Callable], Callable]]:
    """The decorator factory filling ``table`` by (step kind, quantized)."""
    def binder(kind: str, quantized: bool) -> Callable[[Callable], Callable]:
        def add(f: Callable) -> Callable:
            table[(kind, quantized)] = f
            return f
        return add
    return binder


_binder = registrar(_BINDERS)


def bind_step(s: Step, arrays: Dict[int, np.ndarray]) -> Run:
    """The per-call work of step ``s`` on ``arrays`` (its input and output), bound once."""
    p, c = dict(s.params), dict(s.constants)
    q = dict(p["quantization"]) if p.get("quantization") else None
    binder = _BINDERS.get((s.kind, q is not None))
    if binder is not None and "into" not in p and len(s.inputs) == 1 and s.output in arrays:
        x, y = np.asarray(arrays[s.inputs[0]]), arrays[s.output]
        if s.kind == "fully_connected":  # TFLite flattens the input to (batch, weights' columns)
            x, y = _matrix(x, np.shape(c.get("weights"))), _matrix(y, np.shape(c.get("weights"))[:1])
        if x is not None and y is not None and x.ndim == y.ndim == (2 if s.kind == "fully_connected" else 4):
            run = binder(p, c, q, x, y)
            if run is not None:
                return run
    return lambda: run_step(s, arrays)


def _matrix(a: np.ndarray, weights_shape) -> Optional[np.ndarray]:
    """``a`` as a (rows, weights_shape[-1]) view, or None."""
    return reshaped(a, (-1, weights_shape[-1])) if len(weights_shape) else None


# ---- int8 / uint8: the requantization

def requantizer(real, zero_point: int, clamp: Tuple[int, int], out: np.ndarray,
                single_rounding: bool = False) -> Optional[Callable[[np.ndarray], None]]:
    """A function writing ``out`` := TFLite's requantized ``acc`` (int32 / int64 / integral
    float accumulators of ``out``'s shape, channels last; ``real``: the multiplier, one or one
    per channel) plus ``zero_point``, clamped; None where a multiplier is at least 1 (a left
    shift first: :mod:`.int8_reference` does that)."""
    qm, shift = q8.quantize_multiplier(real)
    return requantizer_of(qm, shift, zero_point, clamp, out, single_rounding)


def requantizer_of(qm: np.ndarray, shift: np.ndarray, zero_point: int, clamp: Tuple[int, int], out: np.ndarray,
                   single_rounding: bool = False, by_table: bool = True) -> Optional[Callable[[np.ndarray], None]]:
    """:func:`requantizer` of a multiplier given as TFLite's (Q31 integers, shifts), arrays;
    ``by_table``: as a table of this arithmetic's outputs where the unsaturated range is small
    (:mod:`.requant_tables`)."""
    qm, shift = np.atleast_1d(np.asarray(qm, np.int64)), np.atleast_1d(np.asarray(shift, np.int64))
    if by_table:
        table = table_requantizer(lambda probe: requantizer_of(qm, shift, zero_point, clamp, probe, single_rounding,
                                                               by_table=False), qm, shift, zero_point, clamp, out)
        if table is not None:
            return table
    if not single_rounding and (shift > 0).any():
        return None
    e = -shift
    total = 31 + e
    if single_rounding:
        if (total < 1).any() or (total > 62).any():
            return None
        nudge, fix = np.int64(1) << (total - 1), np.zeros_like(total)
    else:
        nudge = (np.int64(1) << 30) + np.where(e > 0, np.int64(1) << (30 + np.maximum(e, 0)), 0)
        fix = np.where(e > 0, np.int64(1) << 31, 0)
    corrects = bool(np.any(fix))
    if corrects:  # the first 2**30 of the nudge, then the sign of the sum picks the fix
        nudge = nudge - (1 << 30)
    one = qm.size == 1
    qm, nudge, fix, total = ((v[0] if one else spread(v, out.shape)).astype(np.int64, copy=False)
                             for v in (qm, nudge, fix, total))
    lo, hi = clamp[0] - zero_point, clamp[1] - zero_point
    v, sign = np.empty(out.shape, np.int64), np.empty(out.shape, np.int64)

    def run(acc: np.ndarray) -> None:
        if acc.dtype.kind == "f":
            np.copyto(v, acc, casting="unsafe")
            np.multiply(v, qm, out=v)
        else:
            np.multiply(acc, qm, out=v, dtype=np.int64)  # (numpy 1.24: an int64 scalar would multiply int32 in int32)
        if corrects:  # v + 2**30 < 0 (the high half negative): its sign, all ones, masks the fix
            np.add(v, 1 << 30, out=v)
            np.right_shift(v, 63, out=sign)
            np.bitwise_and(sign, fix, out=sign)
            np.subtract(v, sign, out=v)
        np.add(v, nudge, out=v)
        np.right_shift(v, total, out=v)
        clamp_into(v, lo, hi)
        np.add(v, zero_point, out=out, casting="unsafe")
    return run


def _weights_and_real(c: dict, q: dict, axis_first: bool):
    """(weights minus their zero point as int64, bias as int64 or zeros, the per-channel real
    multiplier) of a convolution-like step."""
    w, wq = c["weights"], q["weights"]
    ws = np.asarray(w, np.int64) - (0 if isinstance(wq[0], tuple) else wq[1])
    channels = ws.shape[0] if axis_first else ws.shape[-1]
    bias = np.zeros(channels, np.int64) if c.get("bias") is None else np.asarray(c["bias"], np.int64).reshape(-1)
    real = np.float64(q["src"][0]) * np.asarray(q["weights"][0], np.float64) / np.float64(q["dst"][0])
    return ws, bias, real


def _padded(x: np.ndarray, padding, fill, dtype) -> Tuple[np.ndarray, np.ndarray]:
    """(a buffer of ``x`` padded by (top, bottom, left, right) filled with ``fill``, its interior)."""
    top, bottom, left, right = padding
    n, h, w, ch = x.shape
    buf = np.full((n, h + top + bottom, w + left + right, ch), fill, dtype)
    return buf, buf[:, top:top + h, left:left + w]


def _split_channels(inner: np.ndarray, cin: int, m: int) -> Optional[np.ndarray]:
    """``inner`` (channels C * M) as a (..., C, M) view (M > 1: the depth multiplier), or None."""
    if m == 1:
        return inner
    return reshaped(inner, inner.shape[:3] + (cin, m))


def _taps(buf: np.ndarray, kernel, stride, out_hw):
    """The strided view of ``buf`` under each kernel tap (row-major), or None where the
    output does not fit."""
    (kh, kw), (sh, sw), (oh, ow) = kernel, stride, out_hw
    views = [buf[:, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw] for i in range(kh) for j in range(kw)]
    return views if views[-1].shape[1:3] == (oh, ow) else None


def _window_rows(buf: np.ndarray, kernel, stride, out_hw):
    """Per kernel row, the (N, OH, OW, kw x C) view of ``buf`` (C-contiguous) whose last axis
    is each window's row: its kw x C cells lie side by side, so one view (and one copy) per
    kernel row, not per tap; None where the output does not fit."""
    if _taps(buf, kernel, stride, out_hw) is None:
        return None
    (kh, kw), (sh, sw), (oh, ow) = kernel, stride, out_hw
    n, ch = buf.shape[0], buf.shape[3]
    s0, s1, s2, s3 = buf.strides
    return [np.lib.stride_tricks.as_strided(buf[:, i:], (n, oh, ow, kw * ch), (s0, sh * s1, sw * s2, s3),
                                            writeable=False) for i in range(kh)]


def _matmul_dtype(bound: float):
    """float32 where every partial sum is an integer below 2**24, else float64 where it stays
    within int32 (TFLite's accumulator), else None."""
    return np.float32 if bound < 2 ** 24 else (np.float64 if bound < 2 ** 31 else None)


def _input_bound(x: np.ndarray) -> int:
    info = np.iinfo(x.dtype)
    return max(abs(int(info.min)), abs(int(info.max)))


def _gemm(x: np.ndarray, cols_of: Callable[[np.ndarray], Optional[np.ndarray]], k: int,
          wmat: np.ndarray, bias: np.ndarray, x_zero: int, requant, rows: int, out_shape) -> Optional[Run]:
    """acc = [cols(x), 1] @ [wmat; bias - x_zero * column sums of wmat] exactly in float, then
    ``requant(acc)`` (acc seen in ``out_shape``). ``cols_of(buf)``: the function that fills ``buf`` (rows x k, float) from
    ``x`` per call, made once on it (None: no fast path)."""
    if requant is None:
        return None
    folded = bias - x_zero * wmat.sum(axis=0)
    bound = _input_bound(x) * np.abs(wmat).sum(axis=0) + np.abs(folded)
    dtype = _matmul_dtype(float(bound.max(initial=0)))
    if dtype is None:
        return None
    if rows * (k + 1) > _MOST_COLUMNS:
        return None
    cols = np.empty((rows, k + 1), dtype)
    cols[:, k] = 1
    fill = cols_of(cols[:, :k])
    if fill is None:
        return None
    w = np.concatenate([wmat, folded[None, :]]).astype(dtype)
    acc = np.empty((rows, w.shape[1]), dtype)
    shaped = acc.reshape(out_shape)
    product = product_into(cols, w, acc)

    def run() -> None:
        fill()
        product()
        requant(shaped)
    return run


def _im2col(x: np.ndarray, kernel, stride, padding, out_hw, fill_value, cols: np.ndarray) -> Optional[Run]:
    """The function copying ``x``'s windows into ``cols`` (rows = output cells, columns =
    (kernel row, kernel column, channel)); padding cells hold ``fill_value``."""
    n, cin = x.shape[0], x.shape[3]
    (kh, kw), (oh, ow) = kernel, out_hw
    if kernel == (1, 1) and stride == (1, 1) and not any(padding) and x.shape[1:3] == (oh, ow) and x.flags.c_contiguous:
        flat = x.reshape(n * oh * ow, cin)
        return lambda: np.copyto(cols, flat, casting="unsafe")
    buf, inner = _padded(x, padding, fill_value, cols.dtype)
    if _window_rows(buf, kernel, stride, out_hw) is None:
        return None
    grid = reshaped(cols, (n, oh, ow, kh, kw * cin))  # a view, never a copy
    if grid is None:
        return None
    pairs = [(grid[:, :, :, i], v) for i, v in enumerate(_window_rows(buf, kernel, stride, out_hw))]

    def fill() -> None:
        np.copyto(inner, x, casting="unsafe")
        for dst, v in pairs:
            np.copyto(dst, v)
    return fill


@_binder("convolution", True)
def _convolution_q(p, c, q, x, y):
    ws, bias, real = _weights_and_real(c, q, axis_first=True)  # OHWI
    o, kh, kw, cin = ws.shape
    n, oh, ow, _ = y.shape
    if cin != x.shape[3] or y.shape[3] != o:
        return None
    requant = requantizer(real, q["dst"][1], _clamp(p, q, y), y)
    xz = q["src"][1]
    return _gemm(x, lambda cols: _im2col(x, (kh, kw), p["stride"], p["padding"], (oh, ow), xz, cols),
                 kh * kw * cin, ws.reshape(o, -1).T, bias, xz, requant, n * oh * ow, y.shape)


@_binder("fully_connected", True)
def _fully_connected_q(p, c, q, x, y):
    ws, bias, real = _weights_and_real(c, q, axis_first=True)  # (out, in)
    if ws.ndim != 2 or x.shape[1] != ws.shape[1] or y.shape != (x.shape[0], ws.shape[0]):
        return None
    requant = requantizer(real, q["dst"][1], _clamp(p, q, y), y, single_rounding=True)
    return _gemm(x, lambda cols: (lambda: np.copyto(cols, x, casting="unsafe")), ws.shape[1], ws.T, bias,
                 q["src"][1], requant, x.shape[0], y.shape)


@_binder("depthwise", True)
def _depthwise_q(p, c, q, x, y):
    ws, bias, real = _weights_and_real(c, q, axis_first=False)  # (kh, kw, C * M)
    m = int(p.get("depth_multiplier", 1))
    kh, kw, cm = ws.shape
    n, h, w, cin = x.shape
    if cm != cin * m or y.shape[3] != cm or np.abs(ws).max(initial=0) >= 2 ** 15:
        return None
    requant = requantizer(real, q["dst"][1], _clamp(p, q, y), y)
    if requant is None:
        return None
    xz = q["src"][1]
    buf, inner = _padded(np.empty((n, h, w, cm), np.int32), p["padding"], 0, np.int32)
    target = _split_channels(inner, cin, m)
    acc = np.empty(y.shape, np.int32)
    total = None if target is None else _depthwise_sum(buf, (kh, kw), p["stride"], ws.astype(np.int32), acc)
    if total is None:
        return None
    source = x if m == 1 else x[..., None]
    bias32 = spread(bias.astype(np.int32), acc.shape)

    def run() -> None:
        np.subtract(source, xz, out=target, dtype=np.int32)
        total()
        np.add(acc, bias32, out=acc)
        requant(acc)
    return run


def _depthwise_sum(buf: np.ndarray, kernel, stride, w: np.ndarray, acc: np.ndarray) -> Optional[Run]:
    """The function writing ``acc`` := per channel, the sum over each window of ``buf`` (the
    padded input, channels C) times ``w`` (kh, kw, C): the windows copied by kernel row into
    columns (P, kh * kw, C), then one einsum (a loop per tap costs two passes each)."""
    rows = _window_rows(buf, kernel, stride, acc.shape[1:3])
    if rows is None or not acc.flags.c_contiguous:
        return None
    (kh, kw), (n, oh, ow, ch) = kernel, acc.shape
    if n * oh * ow * kh * kw * ch > _MOST_COLUMNS:
        return None
    cols = np.empty((n, oh, ow, kh, kw * ch), acc.dtype)
    flat, weights, sums = cols.reshape(n * oh * ow, kh * kw, ch), w.reshape(kh * kw, ch).astype(acc.dtype), \
        acc.reshape(n * oh * ow, ch)
    pairs = [(cols[:, :, :, i], r) for i, r in enumerate(rows)]

    def run() -> None:
        for dst, r in pairs:
            np.copyto(dst, r)
        np.einsum("pkc,kc->pc", flat, weights, out=sums)
    return run


@_binder("pooling", True)
def _pooling_q(p, c, q, x, y):
    if p.get("global_mean") or p["pool_type"] not in ("max", "avg") or x.dtype != y.dtype:
        return None
    lo, hi = _clamp(p, q, y)
    kernel, stride, padding = tuple(p["kernel"]), tuple(p["stride"]), tuple(p["padding"])
    if p["pool_type"] == "max":
        return _max_pool(x, y, kernel, stride, padding, np.iinfo(x.dtype).min, (lo, hi), np.iinfo(y.dtype))
    n, h, w, ch = x.shape
    acc = np.empty(y.shape, np.int32)
    total = _window_reduce(np.add, x, acc, kernel, stride, padding, 0)
    if total is None:
        return None
    counts = _counts(x.shape, kernel, stride, padding, y.shape)
    if (counts == counts.flat[0]).all() and counts.flat[0] <= 1 << 14:  # one count: a table of every sum
        return _average_by_table(total, acc, int(counts.flat[0]), (lo, hi), x.dtype, y)
    count = spread(counts.astype(np.float64), y.shape)
    half = np.floor(count / 2)
    f, g = np.empty(y.shape, np.float64), np.empty(y.shape, np.float64)

    def run() -> None:
        total()
        np.copyto(f, acc)
        np.copysign(half, f, out=g)  # s + n // 2 for s > 0, s - n // 2 below (0 either way at 0)
        np.add(f, g, out=f)
        np.divide(f, count, out=f)
        np.trunc(f, out=f)
        clamp_into(f, lo, hi)
        np.copyto(y, f, casting="unsafe")
    return run


def _average_by_table(total: Run, acc: np.ndarray, n: int, clamp, x_dtype, y: np.ndarray) -> Run:
    """TFLite's int8 average of ``n`` cells for every possible window sum (s - n * type min
    indexes it), made once: a call is the sum, an offset and one ``take``."""
    low = n * int(np.iinfo(x_dtype).min)
    sums = np.arange(low, n * int(np.iinfo(x_dtype).max) + 1, dtype=np.int64)
    rounded = np.where(sums > 0, sums + n // 2, sums - n // 2)
    table = np.clip(np.sign(rounded) * (np.abs(rounded) // n), *clamp).astype(y.dtype)  # C++ division
    index = np.empty(y.shape, np.intp)

    def run() -> None:
        total()
        np.subtract(acc, low, out=index, dtype=np.intp)
        table.take(index, out=y, mode="clip")
    return run


def _counts(shape, kernel, stride, padding, out_shape) -> np.ndarray:
    """Per output cell, the number of its window's cells inside the input, (1, OH, OW, 1)."""
    ones = np.ones((1,) + tuple(shape[1:3]) + (1,), np.int64)
    buf, inner = _padded(ones, padding, 0, np.int64)
    inner[...] = 1
    win = np.lib.stride_tricks.sliding_window_view(buf, kernel, axis=(1, 2))[:, ::stride[0], ::stride[1]]
    return win.sum(axis=(-2, -1))[:, :out_shape[1], :out_shape[2]]


def _window_reduce(ufunc: np.ufunc, x: np.ndarray, acc: np.ndarray, kernel, stride, padding, fill) -> Optional[Run]:
    """The function writing ``acc`` := ``ufunc`` (np.add, np.maximum) over each window of ``x``
    (padding cells ``fill``), in ``acc``'s dtype: tap by tap, or one reduction over a window
    view where the window has many cells."""
    dtype = acc.dtype
    buf, inner = (x, x) if not any(padding) else _padded(x, padding, fill, dtype)
    copy = buf is not x
    if kernel[0] * kernel[1] > _MANY_TAPS or acc.size <= _FEW_CELLS:
        win = np.lib.stride_tricks.sliding_window_view(buf, kernel, axis=(1, 2))[:, ::stride[0], ::stride[1]]
        win = win[:, :acc.shape[1], :acc.shape[2]]
        if win.shape[:4] != acc.shape:
            return None

        def reduced() -> None:
            if copy:
                np.copyto(inner, x)
            ufunc.reduce(win, axis=(4, 5), dtype=dtype, out=acc)
        return reduced
    views = _taps(buf, kernel, stride, acc.shape[1:3])
    if views is None:
        return None

    def looped() -> None:
        if copy:
            np.copyto(inner, x)
        np.copyto(acc, views[0])
        for v in views[1:]:
            ufunc(acc, v, out=acc, dtype=dtype)
    return looped


def _max_pool(x, y, kernel, stride, padding, fill, clamp, info) -> Optional[Run]:
    """``y`` := the maximum of ``x`` over each window (padding cells ``fill``), clamped."""
    work = _window_reduce(np.maximum, x, y, kernel, stride, padding, fill)
    if work is None or not (clamp[0] > info.min or clamp[1] < info.max):
        return work

    def clamped() -> None:
        work()
        clamp_into(y, clamp[0], clamp[1])
    return clamped


# ---- float32

_FLOAT_CLAMPS = {None: (None, None), "relu": (0.0, None)}


def _float_activation(p: dict) -> Optional[Tuple[Optional[float], Optional[float]]]:
    """The fused activation as a clamp (low, high; None: open), or None where it is no clamp."""
    act = p.get("activation")
    if act in _FLOAT_CLAMPS:
        return _FLOAT_CLAMPS[act]
    if act == "bounded_relu":
        return 0.0, float(p.get("act_a", 0.0))
    if act == "lu_bounded_relu":
        return float(p.get("act_b", 0.0)), float(p.get("act_a", 0.0))
    return None


def _then_clamp(work: Run, y: np.ndarray, bounds) -> Run:
    lo, hi = bounds
    if lo is None and hi is None:
        return work

    if lo == 0:
        top = None if hi is None else np.float32(hi)

        def relu() -> None:
            work()
            relu_into(y, y, top)
        return relu

    def run() -> None:
        work()
        if hi is None:
            np.maximum(y, np.float32(lo), out=y)
        else:
            clamp_into(y, np.float32(lo), np.float32(hi))
    return run


def _float_ok(x, y) -> bool:
    return x.dtype == np.float32 and y.dtype == np.float32


@_binder("convolution", False)
def _convolution(p, c, q, x, y):
    bounds = _float_activation(p)
    w = np.asarray(c["weights"], np.float32)  # OHWI
    o, kh, kw, cin = w.shape
    n, oh, ow, _ = y.shape
    if bounds is None or not _float_ok(x, y) or cin != x.shape[3]:
        return None
    rows, k = n * oh * ow, kh * kw * cin
    if rows * (k + 1) > _MOST_COLUMNS:
        return None
    cols = np.empty((rows, k + 1), np.float32)
    cols[:, k] = 1
    fill = _im2col(x, (kh, kw), p["stride"], p["padding"], (oh, ow), 0.0, cols[:, :k])
    if fill is None:
        return None
    bias = np.zeros(o, np.float32) if c.get("bias") is None else np.asarray(c["bias"], np.float32)
    wmat = np.concatenate([w.reshape(o, k).T, bias[None, :]])
    if y.flags.c_contiguous:
        product = product_into(cols, wmat, y.reshape(rows, o))

        def run() -> None:
            fill()
            product()
    else:  # a padded view: the product, then copied in
        out = np.empty((rows, o), np.float32)
        shaped, product = out.reshape(y.shape), product_into(cols, wmat, out)

        def run() -> None:
            fill()
            product()
            np.copyto(y, shaped)
    return _then_clamp(run, y, bounds)


@_binder("fully_connected", False)
def _fully_connected(p, c, q, x, y):
    bounds = _float_activation(p)
    w = np.asarray(c["weights"], np.float32)
    if bounds is None or not _float_ok(x, y) or w.ndim != 2 or x.shape[1] != w.shape[1] or \
            y.shape != (x.shape[0], w.shape[0]):
        return None
    wt = np.ascontiguousarray(w.T)
    bias = None if c.get("bias") is None else np.asarray(c["bias"], np.float32)
    product = product_into(x, wt, y)

    def run() -> None:
        product()
        if bias is not None:
            np.add(y, bias, out=y)
    return _then_clamp(run, y, bounds)


@_binder("depthwise", False)
def _depthwise(p, c, q, x, y):
    bounds = _float_activation(p)
    w = np.asarray(c["weights"], np.float32)  # (kh, kw, C * M)
    m = int(p.get("depth_multiplier", 1))
    kh, kw, cm = w.shape
    n, h, wd, cin = x.shape
    if bounds is None or not _float_ok(x, y) or cm != cin * m or y.shape[3] != cm:
        return None
    buf, inner = _padded(np.empty((n, h, wd, cm), np.float32), p["padding"], 0.0, np.float32)
    target = _split_channels(inner, cin, m)
    acc = y if y.flags.c_contiguous else np.empty(y.shape, np.float32)
    total = None if target is None else _depthwise_sum(buf, (kh, kw), p["stride"], w, acc)
    if total is None:
        return None
    source = x if m == 1 else x[..., None]
    bias = spread(np.zeros(cm, np.float32) if c.get("bias") is None else np.asarray(c["bias"], np.float32), y.shape)

    def run() -> None:
        np.copyto(target, source)
        total()
        np.add(acc, bias, out=y)
    return _then_clamp(run, y, bounds)


@_binder("pooling", False)
def _pooling(p, c, q, x, y):
    bounds = _float_activation(p)
    if bounds is None or not _float_ok(x, y) or p.get("global_mean") or p["pool_type"] not in ("max", "avg"):
        return None
    kernel, stride, padding = tuple(p["kernel"]), tuple(p["stride"]), tuple(p["padding"])
    if p["pool_type"] == "max":
        work = _max_pool(x, y, kernel, stride, padding, -np.inf, (-np.inf, np.inf), np.finfo(np.float32))
    else:
        count = spread(_counts(x.shape, kernel, stride, padding, y.shape).astype(np.float32), y.shape)
        total = _window_reduce(np.add, x, y, kernel, stride, padding, 0.0)
        work = None if total is None else (lambda: (total(), np.divide(y, count, out=y)))
    return None if work is None else _then_clamp(work, y, bounds)


__all__ = ["bind_step", "requantizer", "requantizer_of"]
