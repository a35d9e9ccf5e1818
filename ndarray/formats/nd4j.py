"""libnd4j's shapeInfo ``[rank, shape..., strides..., extra, ews, order]`` for ShapeDescriptors.

The encoding lives in :mod:`ndarray.shape_info` (plain integers, no descriptor) and the
descriptor's :meth:`~ndarray.ShapeDescriptor.to_shape_info` /
:meth:`~ndarray.ShapeDescriptor.from_shape_info` use it; this module is the format's
user-facing name, depending on the core and never the reverse.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

from ..descriptor import ShapeDescriptor
from ..shape_info import (
    ARRAY_BOOL,
    ARRAY_CHAR,
    ARRAY_DOUBLE,
    ARRAY_EMPTY,
    ARRAY_FLOAT,
    ARRAY_HALF,
    ARRAY_HAS_PADDED_BUFFER,
    ARRAY_INT,
    ARRAY_LONG,
    ARRAY_SHORT,
    ARRAY_UNSIGNED,
)

__all__ = ["ARRAY_BOOL", "ARRAY_CHAR", "ARRAY_DOUBLE", "ARRAY_EMPTY", "ARRAY_FLOAT", "ARRAY_HALF",
           "ARRAY_HAS_PADDED_BUFFER", "ARRAY_INT", "ARRAY_LONG", "ARRAY_SHORT", "ARRAY_UNSIGNED",
           "from_shape_info", "to_shape_info"]


def to_shape_info(d: ShapeDescriptor) -> Tuple[int, ...]:
    """``d.to_shape_info()``."""
    return d.to_shape_info()


def from_shape_info(info: Sequence[int], alloc_size: Optional[int] = None, offset: int = 0) -> ShapeDescriptor:
    """``ShapeDescriptor.from_shape_info(info, alloc_size, offset)``."""
    return ShapeDescriptor.from_shape_info(info, alloc_size=alloc_size, offset=offset)
