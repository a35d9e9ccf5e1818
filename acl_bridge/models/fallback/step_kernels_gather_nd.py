"""The numpy kernel of the ``gather_nd`` step kind (GATHER_ND with runtime indices,
:mod:`..lowering.rules.gather_nd`): the rows of the (K, C) table at the index rows' flat
positions, TFLite's check first (an IndexOutOfRangeError naming the row, nothing written);
int8 / uint8 move as stored (one quantization in and out), float32 likewise."""

from __future__ import annotations

import numpy as np

from ndarray.errors import IndexOutOfRangeError

from ..lowering.rules.gather_nd import flat_positions
from .step_kernels import step_kernel


def _rows(s, arrays) -> np.ndarray:
    """The table's rows the step's indices pick, or IndexOutOfRangeError before any write."""
    table, idx = arrays[s.inputs[0]], arrays[s.inputs[1]]
    try:
        flat, _, _ = flat_positions(idx, tuple(s.param("dims")) + table.shape[1:])
    except ValueError as e:
        raise IndexOutOfRangeError(f"operator #{s.op_index} {s.opcode}: {e}") from None
    return table[flat]


@step_kernel("gather_nd")
def _gather_nd(s, x, p, c, arrays):
    return _rows(s, arrays)


@step_kernel("gather_nd", quantized=True)
def _gather_nd_stored(s, x, p, c, q, dst, arrays):
    return _rows(s, arrays)
