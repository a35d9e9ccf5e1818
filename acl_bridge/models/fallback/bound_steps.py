"""The other layers' rule steps bound once per operator at load, for the fallback: transposed
convolution (float32 and int8 / uint8), 3-D convolution, L2 pooling, local response
normalization, batch matrix product, nearest and bilinear resizes, and the in-place clamp
activation step after them (float32). What :mod:`.nn_layers`' and :mod:`.nn`'s kernels run
where ACL refused the operator.

A window or a resize's source cells are an index map (:mod:`.index_maps`) made once from the
operator's geometry: a call gathers the input into im2col columns (or the output) with one
``take`` and does the arithmetic in one matrix product. A transposed convolution makes every
input cell's contribution to every tap in one product and gathers each output cell's; int8 /
uint8 as exact integers in float (bounded at load), the input zero point folded into a
per-cell bias, then :mod:`.bound_layers`' requantization: bit for bit with TFLite's reference
kernel. float32 is float32 arithmetic as TFLite's kernels do it. A binder answers None where
it has no fast path: then :func:`.bound_layers.bind_step` binds the step (its own binders,
else the step run each call).
"""

from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple

import numpy as np

from ..lowering.step import Step
from .bound_layers import (_clamp, _float_activation, _matmul_dtype, _then_clamp, _weights_and_real, bind_step,
                           registrar, requantizer)
from .index_maps import PAD, bind_map, positions
from .inplace import const, product_into, reshaped, spread
from .step_kernels import _resize_grid

Run = Callable[[], None]
# (params, constants, quantization or None, the step's arrays by role) -> the per-call work, or None
Binder = Callable[[dict, dict, Optional[dict], Dict[str, np.ndarray]], Optional[Run]]
_BINDERS: Dict[Tuple[str, bool], Binder] = {}
_binder = registrar(_BINDERS)
_MOST_COLUMNS = 1 << 24  # im2col elements kept per operator (64 MiB of float32), else unbound


def bind(s: Step, arrays: Dict[int, np.ndarray]) -> Run:
    """The per-call work of step ``s`` on ``arrays`` (its inputs and output), bound once."""
    p, c = dict(s.params), dict(s.constants)
    q = dict(p["quantization"]) if p.get("quantization") else None
    binder = _BINDERS.get((s.kind, q is not None))
    if binder is not None and "into" not in p and s.output in arrays and all(i in arrays for i in s.inputs):
        io = {"x": np.asarray(arrays[s.inputs[0]]) if s.inputs else None, "y": arrays[s.output],
              "live": [np.asarray(arrays[i]) for i in s.inputs], "in_place": s.inputs[:1] == (s.output,)}
        run = binder(p, c, q, io)
        if run is not None:
            return run
    return bind_step(s, arrays)


def _float32(io: dict, rank: int) -> bool:
    x, y = io["x"], io["y"]
    return x is not None and x.dtype == y.dtype == np.float32 and x.ndim == y.ndim == rank


def _rows(y: np.ndarray) -> Optional[np.ndarray]:
    """``y`` as a (cells, channels) view, or None."""
    return reshaped(y, (-1, y.shape[-1])) if y.ndim else None


def _columns_product(x: np.ndarray, y: np.ndarray, index_map: np.ndarray, wmat: np.ndarray, bias, p: dict
                     ) -> Optional[Run]:
    """float32 ``y`` := im2col(``x`` by ``index_map``, PAD: 0) @ ``wmat`` + ``bias``, then the
    fused activation: a ``take``, a matrix product and the bias."""
    bounds, out = _float_activation(p), _rows(y)
    rows, k = int(np.prod(index_map.shape[:y.ndim - 1])), int(np.prod(index_map.shape[y.ndim - 1:]))
    if bounds is None or out is None or rows * k > _MOST_COLUMNS or wmat.shape != (k, y.shape[-1]):
        return None
    cols = np.empty((rows, k), np.float32)
    fill = bind_map(x, cols.reshape(index_map.shape), index_map, 0)
    if fill is None:
        return None
    b = None if bias is None or not np.any(bias) else spread(np.asarray(bias, np.float32).reshape(-1), out.shape)
    product = product_into(cols, np.ascontiguousarray(wmat, np.float32), out)

    def run() -> None:
        fill()
        product()
        if b is not None:
            np.add(out, b, out=out)
    return _then_clamp(run, y, bounds)


def _taps(size, taps, step, lead, out):
    """Per output index along one axis, the input index and kernel tap of each contribution
    (TFLite's TRANSPOSE_CONV: input i adds into the full output's i * step + tap, cropped by
    ``lead``), at most ceil(taps / step) of them, and whether each is one (the rest pad)."""
    full = np.arange(out)[:, None] + lead - np.arange(taps)[None, :]  # (out, taps)
    i = full // step
    valid = (full % step == 0) & (i >= 0) & (i < size)
    order = np.argsort(~valid, axis=1, kind="stable")[:, :-(-taps // step)]  # the valid taps first
    tap = np.take_along_axis(np.broadcast_to(np.arange(taps), full.shape), order, axis=1)
    return (np.clip(np.take_along_axis(i, order, axis=1), 0, size - 1), tap,
            np.take_along_axis(valid, order, axis=1))


def _deconvolution_sum(x: np.ndarray, wmat: np.ndarray, kernel, stride, padding, acc: np.ndarray, dtype
                       ) -> Optional[Tuple[Run, np.ndarray]]:
    """(the function writing ``acc`` (N, OH, OW, O) := TFLite's transposed convolution sum of
    ``x`` by ``wmat`` ((C, kh x kw x O): each input cell's contribution to every tap of every
    output channel) in ``dtype``, that sum for an input of ones): one product making every
    contribution, one ``take`` gathering each output cell's (at most ceil(kh / sh) x
    ceil(kw / sw), taps first), one sum over them."""
    n, h, w, cin = x.shape
    (kh, kw), (sh, sw), (top, _, left, _) = kernel, stride, padding
    _, oh, ow, cout = acc.shape
    k = kh * kw * cout
    if n * h * w * k > _MOST_COLUMNS or wmat.shape != (cin, k):
        return None
    iy, fy, vy = _taps(h, kh, sh, top, oh)
    ix, fx, vx = _taps(w, kw, sw, left, ow)
    ty, tx = iy.shape[1], ix.shape[1]
    cell = (np.arange(n)[:, None, None, None, None] * h + iy[None, :, None, :, None]) * w + ix[None, None, :, None, :]
    tap = fy[None, :, None, :, None] * kw + fx[None, None, :, None, :]  # (N, OH, OW, ty, tx)
    index = (cell * k + tap * cout)[..., None] + np.arange(cout)  # (N, OH, OW, ty, tx, O)
    valid = (vy[:, None, :, None] & vx[None, :, None, :])[None, ..., None]
    index = np.where(valid, index, n * h * w * k).reshape(n, oh, ow, ty * tx, cout)
    index = np.ascontiguousarray(np.moveaxis(index, 3, 0), np.intp)  # taps first: the sum adds whole arrays
    flat = np.zeros(n * h * w * k + 1, dtype)  # every contribution, then a zero for the pads
    contributions = flat[:-1].reshape(n * h * w, k)
    xs = np.empty((n * h * w, cin), dtype)
    x_cells, weights = xs.reshape(x.shape), np.ascontiguousarray(wmat, dtype)
    ones = np.concatenate([np.ones((n * h * w, cin)) @ np.asarray(wmat, np.float64), np.zeros((1, k))])
    ones_sum = ones.reshape(-1)[index].sum(axis=0)
    gathered = np.empty(index.shape, dtype) if ty * tx > 1 else None
    take, product = flat.take, product_into(xs, weights, contributions)

    def run() -> None:
        np.copyto(x_cells, x, casting="unsafe")
        product()
        if gathered is None:
            take(index[0], out=acc, mode="clip")
        else:
            take(index, out=gathered, mode="clip")
            np.add.reduce(gathered, axis=0, out=acc)
    return run, ones_sum


def _deconvolution_weights(p, c, io):
    """(weights OHWI, as (C, kh x kw x O)) where the shapes agree, else None."""
    x, y = io["x"], io["y"]
    w = np.asarray(c["weights"])
    if x.ndim != 4 or y.ndim != 4 or w.ndim != 4 or w.shape[3] != x.shape[3] or w.shape[0] != y.shape[3]:
        return None
    return w, w.transpose(3, 1, 2, 0).reshape(w.shape[3], -1)


@_binder("deconvolution", False)
def _deconvolution(p, c, q, io):
    made = _deconvolution_weights(p, c, io) if _float32(io, 4) else None
    bounds = _float_activation(p)
    if made is None or bounds is None:
        return None
    x, y = io["x"], io["y"]
    w, wmat = made
    made = _deconvolution_sum(x, wmat, w.shape[1:3], p["stride"], p["padding"], y, np.float32)
    if made is None:
        return None
    summed, _ = made
    bias = c.get("bias")
    if bias is None or not np.any(bias):
        return _then_clamp(summed, y, bounds)
    b = spread(np.asarray(bias, np.float32).reshape(-1), y.shape)

    def run() -> None:
        summed()
        np.add(y, b, out=y)
    return _then_clamp(run, y, bounds)


@_binder("deconvolution", True)
def _deconvolution_q(p, c, q, io):
    """Exact integers: the input as stored (its zero point folded, per output cell, into the
    bias: minus zero point x the weights its taps reach), every partial sum bounded at load
    below 2**24 (float32) or 2**31 (float64), TFLite's requantization
    (:func:`.bound_layers.requantizer`)."""
    made = _deconvolution_weights(p, c, io)
    x, y = io["x"], io["y"]
    if made is None or x.dtype.kind not in "iu":
        return None
    ws, bias, real = _weights_and_real(c, q, axis_first=True)  # OHWI, minus their zero point
    wmat = ws.transpose(3, 1, 2, 0).reshape(ws.shape[3], -1)
    requant = requantizer(real, q["dst"][1], _clamp(p, q, y), y)
    probe = _deconvolution_sum(x, wmat, ws.shape[1:3], p["stride"], p["padding"], np.empty(y.shape), np.float64)
    if requant is None or probe is None:
        return None
    folded = bias - int(q["src"][1]) * probe[1]  # exact: integers below 2**53
    info = np.iinfo(x.dtype)
    reach = max(abs(int(info.min)), abs(int(info.max)))
    dtype = _matmul_dtype(float((reach * np.abs(ws).sum(axis=(1, 2, 3)) + np.abs(folded)).max(initial=0)))
    if dtype is None:
        return None
    acc = np.empty(y.shape, dtype)
    summed, _ = _deconvolution_sum(x, wmat, ws.shape[1:3], p["stride"], p["padding"], acc, dtype)
    b = spread(folded.astype(dtype), y.shape)

    def run() -> None:
        summed()
        np.add(acc, b, out=acc)
        requant(acc)
    return run


@_binder("convolution_3d", False)
def _convolution_3d(p, c, q, io):
    x, y, w = io["x"], io["y"], np.asarray(c["weights"])  # (KD, KH, KW, C, OFM)
    if not _float32(io, 5) or w.ndim != 5 or w.shape[3] != x.shape[4] or w.shape[4] != y.shape[4]:
        return None
    padded = np.pad(positions(x.shape), ((0, 0),) + tuple(tuple(e) for e in p["padding"]) + ((0, 0),),
                    constant_values=PAD)
    (sd, sh, sw), kernel = p["stride"], w.shape[:3]
    win = np.lib.stride_tricks.sliding_window_view(padded, kernel, axis=(1, 2, 3))[:, ::sd, ::sh, ::sw]
    if win.shape[1:4] != y.shape[1:4]:
        return None
    index_map = win.transpose(0, 1, 2, 3, 5, 6, 7, 4)  # (N, OD, OH, OW, kd, kh, kw, C)
    return _columns_product(x, y, index_map, w.reshape(-1, w.shape[4]), c.get("bias"), p)


@_binder("pooling", False)
def _l2_pooling(p, c, q, io):
    """sqrt(sum of squares / cells inside the input) per window (TFLite's L2_POOL_2D)."""
    x, y = io["x"], io["y"]
    bounds = _float_activation(p)
    if p.get("pool_type") != "l2" or not _float32(io, 4) or bounds is None:
        return None
    top, bottom, left, right = p["padding"]
    padded = np.pad(positions(x.shape), ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=PAD)
    win = np.lib.stride_tricks.sliding_window_view(padded, p["kernel"], axis=(1, 2))[:, ::p["stride"][0], ::p["stride"][1]]
    if win.shape[:4] != y.shape:
        return None
    index_map = win.transpose(4, 5, 0, 1, 2, 3).reshape((-1,) + y.shape)  # (taps, N, OH, OW, C): taps first
    if index_map.size > _MOST_COLUMNS:
        return None
    cols = np.empty(index_map.shape, np.float32)
    fill = bind_map(x, cols, index_map, 0)
    counts = spread((index_map != PAD).sum(axis=0).astype(np.float32), y.shape)
    if fill is None:
        return None

    def run() -> None:
        fill()
        np.multiply(cols, cols, out=cols)
        np.add.reduce(cols, axis=0, out=y)
        np.divide(y, counts, out=y)
        np.sqrt(y, out=y)
    return _then_clamp(run, y, bounds)


@_binder("normalization", False)
def _local_response_normalization(p, c, q, io):
    """x * (bias + alpha * sum of squares over the channels within ``radius``) ** -beta: the
    window sum as one product with a band matrix."""
    x, y = io["x"], io["y"]
    bounds = _float_activation(p)
    if x.dtype != np.float32 or y.dtype != np.float32 or x.shape != y.shape or x.ndim < 1 or bounds is None:
        return None
    ch, r = x.shape[-1], int(p["radius"])
    band = (np.abs(np.arange(ch)[:, None] - np.arange(ch)[None, :]) <= r).astype(np.float32)
    sq, acc = np.empty(x.shape, np.float32), np.empty(x.shape, np.float32)
    sq2, acc2 = sq.reshape(-1, ch), acc.reshape(-1, ch)
    alpha, bias, beta = const(p["alpha"]), const(p["bias"]), const(-p["beta"])
    product = product_into(sq2, band, acc2)

    def run() -> None:
        np.multiply(x, x, out=sq)
        product()
        np.multiply(acc, alpha, out=acc)
        np.add(acc, bias, out=acc)
        np.power(acc, beta, out=acc)
        np.multiply(x, acc, out=y)
    return _then_clamp(run, y, bounds)


@_binder("matmul", False)
def _matmul(p, c, q, io):
    """``y`` := a @ b (adjoints as transposed views, constants float32 once), one product."""
    y, live = io["y"], iter(io["live"])
    bounds = _float_activation(p)
    a, b = (np.asarray(c[r]) if r in c else next(live, None) for r in ("a", "b"))
    if a is None or b is None or bounds is None or y.dtype != np.float32 or a.ndim < 2 or b.ndim < 2:
        return None
    a, b = (np.swapaxes(v, -1, -2) if p[adj] else v for v, adj in ((a, "adj_a"), (b, "adj_b")))
    a, b = (np.ascontiguousarray(v, np.float32) if r in c else v for v, r in ((a, "a"), (b, "b")))
    if a.dtype != np.float32 or b.dtype != np.float32:
        return None
    try:
        if np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]) != y.shape:
            return None
    except ValueError:
        return None
    if b.ndim == 2 and a.ndim > 2 and a.flags.c_contiguous and y.flags.c_contiguous:  # one matrix product
        return _then_clamp(product_into(a.reshape(-1, a.shape[-1]), b, y.reshape(-1, y.shape[-1])), y, bounds)
    return _then_clamp(product_into(a, b, y), y, bounds)


@_binder("activation", False)
def _clamp_in_place(p, c, q, io):
    """The fused activation step after a layer (in place): a clamp."""
    bounds = _float_activation({"activation": p.get("function"), "act_a": p.get("a", 0.0), "act_b": p.get("b", 0.0)})
    if not io["in_place"] or io["y"].dtype != np.float32 or bounds is None:
        return None
    return _then_clamp(lambda: None, io["y"], bounds)


def _resize(p, io) -> Optional[Run]:
    x, y = io["x"], io["y"]
    if x.ndim != 4 or y.ndim != 4 or x.shape[::3] != y.shape[::3] or p.get("activation"):
        return None
    ac, hpc = bool(p.get("align_corners")), bool(p.get("half_pixel_centers"))
    if p.get("interpolation") == "nearest":  # a copy of one source cell each: an index map
        from .nn_layers import resize_nearest

        return bind_map(x, y, resize_nearest(positions(x.shape), y.shape[1:3], ac, hpc))
    if x.dtype != np.float32 or y.dtype != np.float32:
        return None
    return _bilinear(x, y, ac, hpc)


def _bilinear(x: np.ndarray, y: np.ndarray, align_corners: bool, half_pixel_centers: bool) -> Run:
    """TFLite's RESIZE_BILINEAR in float32, separably: the two source rows gathered and
    blended by dy, then their two source columns by dx (lerp: a + (b - a) d)."""
    sy, y0, y1 = _resize_grid(x.shape[1], y.shape[1], align_corners, half_pixel_centers)
    sx, x0, x1 = _resize_grid(x.shape[2], y.shape[2], align_corners, half_pixel_centers)
    n, _, w, ch = x.shape
    rows, other, cols = (np.empty((n, y.shape[1], w, ch), np.float32), np.empty((n, y.shape[1], w, ch), np.float32),
                         np.empty(y.shape, np.float32))
    dy = spread((sy - y0).astype(np.float32)[None, :, None, None], rows.shape)
    dx = spread((sx - x0).astype(np.float32)[None, None, :, None], y.shape)
    y0, y1, x0, x1 = (v.astype(np.intp) for v in (y0, y1, x0, x1))
    take_x, take_rows = x.take, rows.take

    def run() -> None:
        take_x(y0, axis=1, out=rows, mode="clip")
        take_x(y1, axis=1, out=other, mode="clip")
        np.subtract(other, rows, out=other)
        np.multiply(other, dy, out=other)
        np.add(rows, other, out=rows)
        take_rows(x0, axis=2, out=y, mode="clip")
        take_rows(x1, axis=2, out=cols, mode="clip")
        np.subtract(cols, y, out=cols)
        np.multiply(cols, dx, out=cols)
        np.add(y, cols, out=y)
    return run


@_binder("resize", False)
def _resize_float(p, c, q, io):
    return _resize(p, io)


@_binder("resize", True)
def _resize_stored(p, c, q, io):
    return _resize(p, io) if p.get("interpolation") == "nearest" else None


__all__ = ["bind"]
