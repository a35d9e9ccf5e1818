"""int8 / uint8 operators as lookup tables made once at load: a unary operator's 256 outputs
indexed by the input's stored byte, a binary operator's 65536 indexed by both bytes (``a``'s
byte times 256 plus ``b``'s). A table is the operator's own arithmetic (:mod:`.int8_reference`,
TFLite's reference kernels) run once over every stored value, so it is exact by
construction; a call is then one ``take`` (unary) or three numpy calls (binary) whatever the
operator's arithmetic costs (byte to byte on contiguous tensors: ``bytes.translate``)."""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np

Run = Callable[[], None]
BYTES = np.arange(256, dtype=np.uint8)


def unary_table(f: Callable[[np.ndarray], np.ndarray], x_dtype, out_dtype) -> np.ndarray:
    """``f`` over every stored value of ``x_dtype`` (one byte), indexed by that byte."""
    table = np.ascontiguousarray(np.asarray(f(BYTES.view(np.dtype(x_dtype)))).astype(out_dtype))
    table.flags.writeable = False
    return table


def binary_table(f: Callable[[np.ndarray, np.ndarray], np.ndarray], a_dtype, b_dtype, out_dtype) -> np.ndarray:
    """``f(a, b)`` over every pair of stored values, indexed by ``a``'s byte * 256 + ``b``'s."""
    a = np.repeat(BYTES, 256).view(np.dtype(a_dtype))
    b = np.tile(BYTES, 256).view(np.dtype(b_dtype))
    table = np.ascontiguousarray(np.asarray(f(a, b)).astype(out_dtype))
    table.flags.writeable = False
    return table


def bind_unary(table: np.ndarray, x: np.ndarray, out: np.ndarray) -> Optional[Run]:
    """``out`` := ``table`` at ``x``'s bytes (same shape; None otherwise)."""
    if x.dtype.itemsize != 1 or x.shape != out.shape or out.dtype != table.dtype:
        return None
    if out.dtype.itemsize == 1 and x.flags.c_contiguous and out.flags.c_contiguous and x.size:
        # byte to byte: bytes.translate, a third of take's fixed cost on the small tensors
        into, source, by_byte = memoryview(out).cast("B"), memoryview(x).cast("B"), table.tobytes()

        def translate() -> None:
            into[:] = source.tobytes().translate(by_byte)
        return translate
    stored = x.view(np.uint8)
    take = table.take
    return lambda: take(stored, out=out, mode="clip")


def bind_binary(table: np.ndarray, a: np.ndarray, b: np.ndarray, out: np.ndarray,
                a_constant: bool = False, b_constant: bool = False) -> Optional[Run]:
    """``out`` := ``table`` at (``a``'s byte, ``b``'s byte), broadcasting (None where the
    broadcast shape is not ``out``'s). A constant scalar operand makes a unary table."""
    if a.dtype.itemsize != 1 or b.dtype.itemsize != 1 or out.dtype != table.dtype:
        return None
    try:
        if np.broadcast_shapes(a.shape, b.shape) != out.shape:
            return None
    except ValueError:
        return None
    grid = table.reshape(256, 256)
    if b_constant and b.size == 1 and a.shape == out.shape:
        return bind_unary(np.ascontiguousarray(grid[:, int(b.reshape(-1).view(np.uint8)[0])]), a, out)
    if a_constant and a.size == 1 and b.shape == out.shape:
        return bind_unary(np.ascontiguousarray(grid[int(a.reshape(-1).view(np.uint8)[0])]), b, out)
    au, bu = a.view(np.uint8), b.view(np.uint8)
    index = np.empty(out.shape, np.intp)
    take = table.take

    def run() -> None:
        np.left_shift(au, 8, out=index, dtype=np.intp)
        np.bitwise_or(index, bu, out=index)
        take(index, out=out, mode="clip")
    return run


__all__ = ["unary_table", "binary_table", "bind_unary", "bind_binary"]
