"""XLA's element types and the checks every XlaShape passes (``Shape`` / ``Layout`` validation).

Kept apart from the value class (:mod:`ndarray.formats.xla_shape`) so the text reader
(:mod:`ndarray.formats.xla_text`) can check fields against the whole text it read. Messages
name the field, the value, the expectation and the whole notation, as XLA's
``ValidateLayoutForShape`` does.
"""

from __future__ import annotations

from typing import Iterable, Optional, Tuple

import numpy as np

from ..dtypes import NUMPY_NAMES, is_ml_dtype
from ..errors import InvalidLayoutError
from .xla_tiled import COMBINE, tile_text

__all__ = ["ELEMENT_TYPES", "PADDING_VALUES", "element_type_of", "join", "validate"]

# XLA PrimitiveType (lower case, as printed) -> (bits per element, numpy dtype name, or the
# ml_dtypes name for the types numpy lacks, or None when no array dtype exists).
ELEMENT_TYPES = {
    "pred": (8, "bool"),
    "s1": (1, None), "s2": (2, "int2"), "s4": (4, "int4"),
    "s8": (8, "int8"), "s16": (16, "int16"), "s32": (32, "int32"), "s64": (64, "int64"),
    "u1": (1, None), "u2": (2, "uint2"), "u4": (4, "uint4"),
    "u8": (8, "uint8"), "u16": (16, "uint16"), "u32": (32, "uint32"), "u64": (64, "uint64"),
    "f16": (16, "float16"), "bf16": (16, "bfloat16"), "f32": (32, "float32"), "f64": (64, "float64"),
    "f8e5m2": (8, "float8_e5m2"), "f8e4m3": (8, "float8_e4m3"), "f8e4m3fn": (8, "float8_e4m3fn"),
    "f8e4m3b11fnuz": (8, "float8_e4m3b11fnuz"), "f8e5m2fnuz": (8, "float8_e5m2fnuz"),
    "f8e4m3fnuz": (8, "float8_e4m3fnuz"), "f8e3m4": (8, "float8_e3m4"), "f8e8m0fnu": (8, "float8_e8m0fnu"),
    "f4e2m1fn": (4, "float4_e2m1fn"),
    "c64": (64, "complex64"), "c128": (128, "complex128"),
    "token": (0, None), "opaque": (0, None),
}


def element_type_of(dtype: np.dtype) -> Optional[str]:
    """XLA's element type of a numpy (or ml_dtypes) dtype, or None."""
    for et, (_, name) in ELEMENT_TYPES.items():
        if name in NUMPY_NAMES and np.dtype(name) == dtype:
            return et
    if is_ml_dtype(dtype):
        return next((et for et, (_, name) in ELEMENT_TYPES.items() if name == dtype.name), None)
    return None

# XLA's PaddingValue enum (ZERO_PAD, ONE_PAD, ...) without the _PAD suffix.
PADDING_VALUES = ("ZERO", "ONE", "LOWEST", "HIGHEST", "UNKNOWN")


def join(values: Iterable[int]) -> str:
    """'1,0' for (1, 0): XLA's comma-separated integers."""
    return ",".join(str(v) for v in values)





def validate(element_type: str, dimensions: Tuple[int, ...], minor_to_major: Tuple[int, ...],
              tiles: Tuple[Tuple[int, ...], ...], padded_dimensions: Tuple[int, ...],
              padding_value: Optional[str], whole: str) -> None:
    """Raise InvalidLayoutError naming field, value, expectation and ``whole`` (the text)."""
    where = f" in '{whole}'"
    if element_type not in ELEMENT_TYPES:
        raise InvalidLayoutError(
            f"element_type {element_type!r} is not one of {', '.join(ELEMENT_TYPES)} (in any case){where}"
        )
    rank = len(dimensions)
    for i, n in enumerate(dimensions):
        if n < 0:
            raise InvalidLayoutError(
                f"dimensions [{join(dimensions)}] has {n} at dimension {i}, expected sizes >= 0{where}"
            )
    m2m = "{" + join(minor_to_major) + "}"
    if len(minor_to_major) != rank:
        raise InvalidLayoutError(
            f"minor_to_major {m2m} has {len(minor_to_major)} entries but the shape has rank {rank}, "
            f"expected one entry per dimension{where}"
        )
    if sorted(minor_to_major) != list(range(rank)):
        raise InvalidLayoutError(f"minor_to_major {m2m} is not a permutation of 0..{rank - 1}{where}")
    if padded_dimensions:
        pads = f"({join(padded_dimensions)})"
        if len(padded_dimensions) != rank:
            raise InvalidLayoutError(
                f"padded_dimensions {pads} has {len(padded_dimensions)} entries but the shape has rank "
                f"{rank}, expected one entry per dimension{where}"
            )
        for i, (p, n) in enumerate(zip(padded_dimensions, dimensions)):
            if p < n:
                raise InvalidLayoutError(
                    f"padded_dimensions {pads} is smaller than dimensions [{join(dimensions)}] at "
                    f"dimension {i} ({p} < {n}), expected padded_dimensions >= dimensions{where}"
                )
        if tiles:
            raise InvalidLayoutError(
                f"padded_dimensions {pads} together with tiles {''.join(tile_text(t) for t in tiles)}: "
                f"expected one or the other (XLA's layouts never combined them){where}"
            )
    if padding_value is not None:
        if padding_value not in PADDING_VALUES:
            raise InvalidLayoutError(
                f"padding_value {padding_value!r} is not one of {', '.join(PADDING_VALUES)}{where}"
            )
        if not padded_dimensions:
            raise InvalidLayoutError(
                f"padding_value {padding_value} without padded_dimensions, expected padded_dimensions "
                f"to go with it{where}"
            )
    tiled_rank = rank  # rank of the array each successive tile applies to
    for level, tile in enumerate(tiles):
        text = tile_text(tile)
        if not tile:
            raise InvalidLayoutError(f"tiles[{level}] {text} is empty, expected at least one size{where}")
        for j, t in enumerate(tile):
            if t <= 0 and t != COMBINE:
                raise InvalidLayoutError(
                    f"tiles[{level}] {text} has {t} at position {j}, expected a size > 0 or * "
                    f"(-1: combine with the next minor dimension){where}"
                )
        if tile[-1] == COMBINE:
            raise InvalidLayoutError(
                f"tiles[{level}] {text} ends with *, expected a size after the last * "
                f"(* combines a dimension with the next more minor one){where}"
            )
        if len(tile) > tiled_rank:
            raise InvalidLayoutError(
                f"tiles[{level}] {text} has {len(tile)} entries but the array it tiles has rank "
                f"{tiled_rank}, expected at most {tiled_rank}{where}"
            )
        # the k tiled dimensions become m outer + m inner ones (m = entries that are not '*')
        tiled_rank += 2 * sum(1 for t in tile if t != COMBINE) - len(tile)
