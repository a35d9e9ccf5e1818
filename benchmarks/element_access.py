"""Element access on an NdArray against the same access on the numpy array it wraps.

Used by benchmarks/bench.py (section ``elements``, which runs on any machine, no ACL needed)::

    python benchmarks/bench.py --sections elements

Each case is a pair of statements, numpy's and the NdArray's, timed by ``timeit`` (the
statement compiled into the timing loop, so no Python call is added to either side); the
pairs' batches alternate within each round and the ratio is the median of the per-round
ratios (``bench.paired_ratio``).
"""

from __future__ import annotations

import timeit
from typing import Callable, Dict, List, NamedTuple

import numpy as np


class ElementCase(NamedTuple):
    name: str
    numpy_statement: str
    ndarray_statement: str
    iterations: int


CASES: List[ElementCase] = [
    ElementCase("read x[1, 2]", "x[1, 2]", "a[1, 2]", 20000),
    ElementCase("read x[1, 2] (padded)", "x[1, 2]", "p[1, 2]", 20000),
    ElementCase("read float(x[1, 2])", "float(x[1, 2])", "float(a[1, 2])", 20000),
    ElementCase("write x[1, 2] = 5", "x[1, 2] = 5", "a[1, 2] = 5", 20000),
    ElementCase("view x[1] (a row)", "x[1]", "a[1]", 500),
]


def namespace() -> Dict[str, object]:
    """x: a float32 numpy array; a: NdArray.from_numpy(x) (the same memory); p: an NdArray
    the library allocated with padding (paddings (2, 2)) holding the same values."""
    from ndarray import NdArray

    x = np.arange(48, dtype=np.float32).reshape(6, 8)
    p = NdArray.zeros(x.shape, "float32", paddings=(2, 2), padding_offsets=(1, 1))
    p[...] = x
    return dict(x=x, a=NdArray.from_numpy(x), p=p)


def batch_ns(statement: str, names: Dict[str, object]) -> Callable[[int], float]:
    """``batch_ns(iterations)``: ns per execution of ``statement`` over one batch."""
    timer = timeit.Timer(statement, globals=names)
    return lambda iterations: timer.timeit(iterations) * 1e9 / iterations
