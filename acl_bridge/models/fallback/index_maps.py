"""Data movement bound at load as one ``take`` through a precomputed index map: the
operator's own numpy arithmetic run once on the input's element numbers (``np.arange``; a
padding cell -1) gives, per output element, the input element it copies, so a call is one
gather whatever reshapes, transposes, crops, tilings or reflections the operator makes (and
exact by construction: nothing but copies). A map with padding cells, or an output of
another dtype (im2col columns of a matrix product), reads from a staging copy of the input
with the fill value after it (two calls)."""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from .inplace import byte_copy

Run = Callable[[], None]
PAD = -1  # a map's cell that takes the fill value


def positions(shape) -> np.ndarray:
    """Each element's number (C order) in an array of ``shape``: what a map is made from."""
    return np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.intp).reshape(shape)


def _flat_source(x: np.ndarray):
    """(a 1-D view of ``x``'s memory from its first element, the offset of each of ``x``'s
    elements in it), or None (negative or odd strides)."""
    if x.flags.c_contiguous:
        return x.reshape(-1), None
    item = x.itemsize
    if any(s < 0 or s % item for s in x.strides):
        return None
    span = 1 + sum((n - 1) * s // item for n, s in zip(x.shape, x.strides))
    flat = np.lib.stride_tricks.as_strided(x, shape=(span,), strides=(item,), writeable=False)
    offsets = sum(np.arange(n, dtype=np.intp).reshape((n,) + (1,) * (x.ndim - 1 - d)) * (s // item)
                  for d, (n, s) in enumerate(zip(x.shape, x.strides)))
    return flat, np.broadcast_to(offsets, x.shape).reshape(-1)


def bind_map(x: np.ndarray, out: np.ndarray, index_map: np.ndarray, fill=0) -> Optional[Run]:
    """``out`` := ``x``'s elements at ``index_map`` (``out``'s shape, element numbers of ``x``
    in C order; PAD: ``fill``; converted to ``out``'s dtype as numpy casts), one ``take`` per
    call; None where the shapes disagree."""
    index_map = np.asarray(index_map)
    if index_map.shape != out.shape or x.size == 0 or \
            (index_map.size and (index_map.max() >= x.size or index_map.min() < PAD)):
        return None
    padded = bool(index_map.size) and index_map.min() == PAD
    source = None if padded or x.dtype != out.dtype else _flat_source(x)
    if source is None:  # a staging copy of the input in the output's dtype, the fill value after it
        stage = np.empty(x.size + 1, out.dtype)
        stage[-1] = fill
        inner = stage[:-1].reshape(x.shape)
        indices = np.where(index_map == PAD, x.size, index_map).astype(np.intp)
        take = stage.take
        copy = byte_copy(x, inner) or (lambda: np.copyto(inner, x, casting="unsafe"))

        def staged() -> None:
            copy()
            take(indices, out=out, mode="clip")
        return staged
    flat, offsets = source
    indices = np.ascontiguousarray(index_map if offsets is None else offsets[index_map], np.intp)
    take = flat.take
    return lambda: take(indices, out=out, mode="clip")


__all__ = ["PAD", "bind_map", "positions"]
