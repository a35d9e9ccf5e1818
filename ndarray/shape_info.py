"""libnd4j's shapeInfo: ``[rank, shape..., strides..., extra, ews, order]``, as plain values.

The ADR's example for a C-order float array of shape (2, 2, 5, 5)::

    [4, 2,2,5,5, 50,25,5,1, 8192,1,99]

``extra`` carries the data type (8192 = ARRAY_FLOAT) and property flags such as
ARRAY_HAS_PADDED_BUFFER; ``order`` is the character code of 'c' (99) or 'f' (102).
Strides are in elements. shapeInfo does not carry the offset of the first element nor the
allocation size: libnd4j keeps those in the NDArray, so ``ShapeDescriptor.from_shape_info``
takes them as arguments and recovers the paddings from them (ADR pseudo-code, see
``ndarray.layout_rules.recover_padding``). Without ``alloc_size``, a shapeInfo flagged
ARRAY_HAS_PADDED_BUFFER gets :func:`padded_alloc_size`: the smallest padded buffer that
holds its elements (whole rows of the outermost stride), so ``from_shape_info(d.to_shape_info())
== d`` for every descriptor with offset 0 whose outermost dimension has no padding after its
elements (the README's, ACL's: ACL pads only x and y).

This module only encodes and decodes the integers; it knows nothing of ShapeDescriptor, so
the descriptor can use it without an import circle (``ndarray.formats.nd4j`` is the
user-facing module and depends on both).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from .dtypes import require_native_byte_order
from .errors import InvalidLayoutError, NotRepresentableError
from .strides import as_int_tuple

# Flags from libnd4j's ArrayOptions.h.
ARRAY_EMPTY = 8
ARRAY_HALF = 4096
ARRAY_FLOAT = 8192
ARRAY_DOUBLE = 16384
ARRAY_CHAR = 32768
ARRAY_SHORT = 65536
ARRAY_INT = 131072
ARRAY_LONG = 262144
ARRAY_BOOL = 524288
ARRAY_UNSIGNED = 8388608
ARRAY_HAS_PADDED_BUFFER = 1 << 25

TYPE_FLAGS: Dict[np.dtype, int] = {
    np.dtype("float16"): ARRAY_HALF,
    np.dtype("float32"): ARRAY_FLOAT,
    np.dtype("float64"): ARRAY_DOUBLE,
    np.dtype("int8"): ARRAY_CHAR,
    np.dtype("uint8"): ARRAY_CHAR | ARRAY_UNSIGNED,
    np.dtype("int16"): ARRAY_SHORT,
    np.dtype("uint16"): ARRAY_SHORT | ARRAY_UNSIGNED,
    np.dtype("int32"): ARRAY_INT,
    np.dtype("uint32"): ARRAY_INT | ARRAY_UNSIGNED,
    np.dtype("int64"): ARRAY_LONG,
    np.dtype("uint64"): ARRAY_LONG | ARRAY_UNSIGNED,
    np.dtype("bool"): ARRAY_BOOL,
}
TYPE_MASK = (ARRAY_HALF | ARRAY_FLOAT | ARRAY_DOUBLE | ARRAY_CHAR | ARRAY_SHORT | ARRAY_INT | ARRAY_LONG
             | ARRAY_BOOL | ARRAY_UNSIGNED)
ORDER_CODES = {"c": ord("c"), "f": ord("f")}


@dataclass(frozen=True)
class ShapeInfoFields:
    """What a shapeInfo says, decoded (strides in elements, numpy order)."""

    info: Tuple[int, ...]
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    dtype: np.dtype
    order: str
    padded: bool
    ews: int


def encode(shape: Sequence[int], strides: Sequence[int], dtype: np.dtype, order: str, *, padded: bool,
           ews: int, context: Callable[[], str]) -> Tuple[int, ...]:
    """``[rank, shape..., strides..., extra, ews, order]`` of these values."""
    if dtype.isnative and dtype not in TYPE_FLAGS:
        raise NotRepresentableError(
            f"dtype {dtype} has no libnd4j data type flag (expected one of "
            f"{sorted(t.name for t in TYPE_FLAGS)}): {context()}"
        )
    require_native_byte_order(dtype, "libnd4j's shapeInfo", context())
    extra = TYPE_FLAGS[dtype]
    if padded:
        extra |= ARRAY_HAS_PADDED_BUFFER
    if 0 in shape:
        extra |= ARRAY_EMPTY
    return (len(shape), *shape, *strides, extra, ews, ORDER_CODES[order])


def decode(info: Any) -> ShapeInfoFields:
    """The fields of a shapeInfo, checked for form (length, order code, data type bits)."""
    values = as_int_tuple(info, "shapeInfo")
    if not values:
        raise InvalidLayoutError("shapeInfo is empty, expected [rank, shape..., strides..., extra, ews, order]")
    rank = values[0]
    if rank < 0 or len(values) != 2 * rank + 4:
        raise InvalidLayoutError(
            f"shapeInfo has {len(values)} entries, expected 2 * rank + 4 = {2 * rank + 4} for rank {rank}: "
            f"shapeInfo={list(values)}"
        )
    shape, strides = values[1 : 1 + rank], values[1 + rank : 1 + 2 * rank]
    extra, ews, order_code = values[1 + 2 * rank :]
    orders = {code: name for name, code in ORDER_CODES.items()}
    if order_code not in orders:
        raise InvalidLayoutError(
            f"shapeInfo order is {order_code}, expected 99 ('c') or 102 ('f'): shapeInfo={list(values)}"
        )
    type_bits = extra & TYPE_MASK
    dtypes = [dt for dt, flag in TYPE_FLAGS.items() if flag == type_bits]
    if not dtypes:
        raise InvalidLayoutError(
            f"shapeInfo extra {extra} has data type bits {type_bits}, expected one of "
            f"{sorted(TYPE_FLAGS.values())}: shapeInfo={list(values)}"
        )
    return ShapeInfoFields(values, shape, strides, dtypes[0], orders[order_code],
                           bool(extra & ARRAY_HAS_PADDED_BUFFER), ews)


def padded_alloc_size(fields: ShapeInfoFields, offset: int) -> Optional[int]:
    """The elements of the smallest padded buffer (strict stride rule) holding every element
    of ``fields`` from ``offset``: the outermost stride times the outer rows the elements
    reach. None when there is no outermost stride to count rows of (rank 0, no element, a
    stride <= 0: no padded buffer, the descriptor's own default applies)."""
    if not fields.shape or 0 in fields.shape:
        return None
    outer = 0 if fields.order == "c" else len(fields.shape) - 1
    row = fields.strides[outer]
    if row <= 0:
        return None
    high = offset + sum((n - 1) * s for n, s in zip(fields.shape, fields.strides) if s > 0)
    return row * -(-(high + 1) // row)


def check_against(fields: ShapeInfoFields, padded: bool, ews: int, alloc_size: Optional[int], described: str,
                  given: bool = True) -> None:
    """The flags a shapeInfo stores must agree with what its strides describe (``given``:
    whether ``alloc_size`` came from the caller or was :func:`padded_alloc_size`'s)."""
    info = list(fields.info)
    if fields.padded != padded:
        hint = "" if given or not fields.padded else (
            " (shapeInfo carries no allocation size, and the smallest padded buffer holding the elements has "
            "no padding: the padding is after the outermost dimension; give alloc_size, which libnd4j keeps "
            "in the NDArray)")
        raise InvalidLayoutError(
            f"shapeInfo extra {'has' if fields.padded else 'lacks'} ARRAY_HAS_PADDED_BUFFER but strides "
            f"{fields.strides} with alloc_size {alloc_size} describe {'a padded' if padded else 'an unpadded'} "
            f"buffer{hint}: shapeInfo={info}, {described}"
        )
    if fields.ews != ews:
        raise InvalidLayoutError(
            f"shapeInfo ews is {fields.ews} but strides {fields.strides} give ews {ews}: shapeInfo={info}, {described}"
        )
