"""TFLite's int8 requantization as a lookup table over the accumulator values it does not
saturate: requantizing (a positive multiplier, two monotonic roundings, the zero point, the
clamp) never decreases as the accumulator grows, so below the first value that reaches the
clamp's low end and above the first that reaches its high end every output is that end. The
table holds the exact arithmetic's output (:func:`.bound_layers.requantizer_of`, run once at
load) for every value in between, one block per channel; a call clips the accumulator into
its channel's block and looks it up: four numpy calls, against the arithmetic's eight to
eleven over int64. A leaf module beside the requantizer that builds it."""

from __future__ import annotations

from typing import Callable, Optional, Tuple

import numpy as np

from .inplace import spread

Requant = Callable[[np.ndarray], None]
MOST_ENTRIES = 1 << 20  # table entries (bytes of int8) per operator; wider ranges keep the arithmetic


def table_requantizer(arithmetic: Callable[[np.ndarray], Optional[Requant]], qm: np.ndarray, shift: np.ndarray,
                      zero_point: int, clamp: Tuple[int, int], out: np.ndarray) -> Optional[Requant]:
    """The function writing ``out`` := the requantized accumulator by table, or None (a range
    wider than MOST_ENTRIES, a multiplier not positive, an output of more than one byte).
    ``arithmetic(probe)``: the exact requantizer writing ``probe`` (its channels last)."""
    qm, shift = np.atleast_1d(qm).astype(np.float64), np.atleast_1d(shift).astype(np.float64)
    if out.dtype.itemsize != 1 or out.ndim == 0 or (qm <= 0).any() or qm.size not in (1, out.shape[-1]):
        return None
    real = qm * np.exp2(shift - 31)
    lo = np.floor((clamp[0] - zero_point - 1) / real).astype(np.int64) - 2
    hi = np.ceil((clamp[1] - zero_point + 1) / real).astype(np.int64) + 2
    width = int((hi - lo).max()) + 1
    if qm.size * width > MOST_ENTRIES:
        return None
    probe = np.empty((width, qm.size), out.dtype)
    exact = arithmetic(probe)
    if exact is None:
        return None
    exact(lo[None, :] + np.arange(width, dtype=np.int64)[:, None])
    if (probe[0] != clamp[0]).any() or (probe[-1] != clamp[1]).any():  # not saturated at both ends
        return None
    table = np.ascontiguousarray(probe.T).reshape(-1)
    first = np.arange(qm.size, dtype=np.intp) * width
    base, last = (first - lo).astype(np.intp), first + width - 1
    # per tensor: 0-d operands; per channel: spread over the output where it is small
    first, base, last = (np.array(v[0]) if qm.size == 1 else spread(v, out.shape) for v in (first, base, last))
    index = np.empty(out.shape, np.intp)
    take = table.take

    def run(acc: np.ndarray) -> None:
        np.add(acc, base, out=index, dtype=np.intp, casting="unsafe")
        np.maximum(index, first, out=index)
        np.minimum(index, last, out=index)
        take(index, out=out, mode="clip")
    return run


__all__ = ["MOST_ENTRIES", "table_requantizer"]
