"""libnd4j's shapeInfo: ``[rank, shape..., strides..., extra, ews, order]``.

The ADR's example for a C-order float array of shape (2, 2, 5, 5)::

    [4, 2,2,5,5, 50,25,5,1, 8192,1,99]

``extra`` carries the data type (8192 = ARRAY_FLOAT) and property flags such as
ARRAY_HAS_PADDED_BUFFER; ``order`` is the character code of 'c' (99) or 'f' (102).
Strides are in elements. shapeInfo does not carry the offset of the first element nor the
allocation size: libnd4j keeps those in the NDArray, so :func:`from_shape_info` takes them
as arguments and recovers the paddings from them (ADR pseudo-code, see
``ndarray.descriptor.recover_padding``).
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

import numpy as np

from ..descriptor import ShapeDescriptor
from ..errors import InvalidLayoutError, NotRepresentableError

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

_TYPE_FLAGS = {
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
_TYPE_MASK = ARRAY_HALF | ARRAY_FLOAT | ARRAY_DOUBLE | ARRAY_CHAR | ARRAY_SHORT | ARRAY_INT | ARRAY_LONG | ARRAY_BOOL | ARRAY_UNSIGNED
_ORDER_CODES = {"c": ord("c"), "f": ord("f")}


def to_shape_info(d: ShapeDescriptor) -> Tuple[int, ...]:
    native = d.dtype.newbyteorder("=")
    if native not in _TYPE_FLAGS or d.dtype.byteorder == (">" if np.little_endian else "<"):
        raise NotRepresentableError(
            f"dtype {d.dtype} has no libnd4j data type flag (expected one of "
            f"{sorted(t.name for t in _TYPE_FLAGS)} in native byte order): {d!r}"
        )
    extra = _TYPE_FLAGS[native]
    if d.has_padded_buffer:
        extra |= ARRAY_HAS_PADDED_BUFFER
    if d.size == 0:
        extra |= ARRAY_EMPTY
    return (d.rank, *d.shape, *d.strides, extra, d.ews, _ORDER_CODES[d.order])


def from_shape_info(info: Sequence[int], alloc_size: Optional[int] = None, offset: int = 0) -> ShapeDescriptor:
    info = tuple(int(v) for v in info)
    if not info:
        raise InvalidLayoutError("shapeInfo is empty, expected [rank, shape..., strides..., extra, ews, order]")
    rank = info[0]
    if rank < 0 or len(info) != 2 * rank + 4:
        raise InvalidLayoutError(
            f"shapeInfo has {len(info)} entries, expected 2 * rank + 4 = {2 * rank + 4} for rank {rank}: shapeInfo={list(info)}"
        )
    shape, strides = info[1 : 1 + rank], info[1 + rank : 1 + 2 * rank]
    extra, ews, order_code = info[1 + 2 * rank :]
    orders = {code: name for name, code in _ORDER_CODES.items()}
    if order_code not in orders:
        raise InvalidLayoutError(f"shapeInfo order is {order_code}, expected 99 ('c') or 102 ('f'): shapeInfo={list(info)}")
    type_bits = extra & _TYPE_MASK
    dtypes = [dt for dt, flag in _TYPE_FLAGS.items() if flag == type_bits]
    if not dtypes:
        raise InvalidLayoutError(
            f"shapeInfo extra {extra} has data type bits {type_bits}, expected one of "
            f"{sorted(_TYPE_FLAGS.values())}: shapeInfo={list(info)}"
        )
    d = ShapeDescriptor.create(
        shape, dtypes[0], orders[order_code], strides=strides, offset=offset, alloc_size=alloc_size
    )
    flagged = bool(extra & ARRAY_HAS_PADDED_BUFFER)
    if flagged != d.has_padded_buffer:
        raise InvalidLayoutError(
            f"shapeInfo extra {'has' if flagged else 'lacks'} ARRAY_HAS_PADDED_BUFFER but strides {strides} "
            f"with alloc_size {alloc_size} describe {'a padded' if d.has_padded_buffer else 'an unpadded'} buffer: "
            f"shapeInfo={list(info)}, {d!r}"
        )
    if ews != d.ews:
        raise InvalidLayoutError(
            f"shapeInfo ews is {ews} but strides {strides} give ews {d.ews}: shapeInfo={list(info)}, {d!r}"
        )
    return d
