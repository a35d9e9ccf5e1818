"""In-place numpy helpers of the kernels bound at load: clamps written into their array, and
the ReLU's zeros operand. A leaf module (numpy only), so every kernel family can use it."""

from __future__ import annotations

import functools
from typing import Callable, Optional, Tuple

import numpy as np


@functools.lru_cache(maxsize=64)
def filled(shape: Tuple[int, ...], dtype: str = "float32", value: float = 0.0) -> np.ndarray:
    """A read-only array of ``value`` (zeros: calloc'd pages, never written, that cost no
    memory), the operand of np.maximum / np.minimum for a float ReLU: with an array numpy
    takes its vectorised loop, with a scalar (numpy 2.4, x86-64) one two to five times slower."""
    a = np.zeros(shape, dtype) if value == 0 else np.full(shape, value, dtype)
    a.flags.writeable = False
    return a


def const(value, dtype="float32") -> np.ndarray:
    """``value`` as a read-only 0-d array of ``dtype``: a ufunc's constant operand made once at
    load. numpy 2.4 (x86-64) converts a scalar operand on every call: 0.6-1.0 us against 0.35
    us for a 0-d array on a small tensor, as fast as a scalar on a large one."""
    a = np.array(value, dtype)
    a.flags.writeable = False
    return a


def byte_copy(x: np.ndarray, out: np.ndarray) -> Optional[Callable[[], None]]:
    """``out`` := ``x``'s bytes as one memory copy (both C-contiguous, one dtype and size;
    None otherwise): a tenth of an array assignment's fixed cost."""
    if not (isinstance(x, np.ndarray) and x.dtype == out.dtype and x.size == out.size and x.size
            and x.flags.c_contiguous and out.flags.c_contiguous):
        return None
    into, source = memoryview(out.reshape(-1)).cast("B"), memoryview(x.reshape(-1)).cast("B")

    def copy() -> None:
        into[:] = source
    return copy


def reshaped(a: np.ndarray, shape) -> Optional[np.ndarray]:
    """``a`` seen in ``shape`` without a copy, or None where that needs one (numpy before 2.1
    has no ``reshape(copy=False)``: bookworm's numpy 1.24)."""
    try:
        view = a.reshape(shape)
    except ValueError:
        return None
    return view if view.size == 0 or np.may_share_memory(view, a) else None


def dot_last_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> Callable[[], None]:
    """The function writing ``out`` := the dot products of ``a``'s and ``b``'s last axes
    (``np.vecdot``, one gufunc call; before numpy 2.0 ``np.einsum``)."""
    vecdot = getattr(np, "vecdot", None)
    if vecdot is not None:
        return lambda: vecdot(a, b, out=out)
    return lambda: np.einsum("...i,...i->...", a, b, out=out)


def product_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> Callable[[], None]:
    """The function writing ``out`` := a @ b: ``np.dot`` where both are matrices of ``out``'s
    dtype and ``out`` is C-contiguous (numpy 2.4: a third of ``np.matmul``'s fixed cost, 0.5
    against 1.5 us on small matrices, the same BLAS product), else ``np.matmul``."""
    if a.ndim == b.ndim == out.ndim == 2 and a.dtype == b.dtype == out.dtype and out.flags.c_contiguous:
        dot = np.dot
        return lambda: dot(a, b, out=out)
    matmul = np.matmul
    return lambda: matmul(a, b, out=out)


def relu_into(x: np.ndarray, out: np.ndarray, hi=None) -> None:
    """``out`` := max(x, 0) (then min(., hi) where ``hi`` is given), float."""
    np.maximum(x, filled(out.shape, out.dtype.str), out=out)
    if hi is not None:
        np.minimum(out, filled(out.shape, out.dtype.str, float(hi)), out=out)


SPREAD_LIMIT = 1 << 18  # elements: a spread int64 operand costs at most 2 MiB


def spread(a, shape: Tuple[int, ...]):
    """A constant operand ``a`` broadcast to ``shape`` as its own read-only array where that
    shape has at most SPREAD_LIMIT elements, else ``a``: numpy's loops over an operand
    broadcast along a short channel axis run two to three times slower than over a whole
    array (numpy 2.4, x86-64; a per-channel int64 multiplier over 48 x 48 x 8: 95 us
    against 52 us)."""
    a = np.asarray(a)
    if a.shape == tuple(shape) or a.ndim == 0 or int(np.prod(shape)) > SPREAD_LIMIT:
        return a
    full = np.ascontiguousarray(np.broadcast_to(a, shape))
    full.flags.writeable = False
    return full


def clamp_into(a: np.ndarray, lo, hi) -> None:
    """``a`` clamped to [lo, hi] in place (two ufunc calls: np.clip's wrapper costs more)."""
    np.maximum(a, lo, out=a)
    np.minimum(a, hi, out=a)


__all__ = ["SPREAD_LIMIT", "byte_copy", "clamp_into", "const", "dot_last_into", "reshaped", "product_into", "filled", "relu_into", "spread"]
