"""GATHER_ND on numpy, as TFLite's kernel (gather_nd.cc): each index row of ``indices`` (its
last axis ``nd`` long) picks the slice of params at the flat position sum_j index[j] *
prod(params.shape[j + 1:nd]); a component outside its axis stops the run with the library's
IndexOutOfRangeError before anything is written (TensorFlow's check, TFLite 2.x's kernel's;
ai-edge-litert 1.4's checked only the flat position). On ACL: the ``gather_nd`` kind (int32 / int64 indices); here: the rest. Any
element type, the indices int32 or int64."""

from __future__ import annotations

import numpy as np

from ndarray.errors import IndexOutOfRangeError

from ..lowering.rules.gather_nd import flat_positions
from .registry import ANY, Call, kernel


@kernel("GATHER_ND", dtypes=ANY)
def gather_nd(c: Call) -> None:
    x, idx = np.asarray(c.inputs[0]), np.asarray(c.inputs[1])
    try:
        flat, k, n = flat_positions(idx, x.shape)
    except ValueError as e:
        raise IndexOutOfRangeError(f"operator #{c.op.index} GATHER_ND: {e}") from None
    c.write(x.reshape(k, n)[flat])


__all__ = ["gather_nd"]
