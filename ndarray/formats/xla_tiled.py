"""XLA's tiled layouts as strided views: the pad-reshape-transpose of docs/tiled_layout.md.

Linear index, with the physical bounds ``d = (d_n, ..., d_1)`` in major-to-minor order
(``d_1`` the most minor)::

    linear_index(e, d)              = e_n d_{n-1}...d_1 + e_{n-1} d_{n-2}...d_1 + ... + e_1
    linear_index_with_tile(e, d, t) = linear_index((e // t, e % t), (ceil(d / t), t))

A tile of rank k < n applies to the k most minor dimensions; a second tile applies to the
result of the first (rank n + k), and so on. ``*`` at tile position j merges that dimension
into the next more minor one before tiling (bound d_j * d_{j-1}, index e_j d_{j-1} + e_{j-1}).

:func:`tiled_view` turns a tiling into a :class:`TiledView` (a strided view of higher rank
over the buffer). This module knows tiles and bounds only, never XlaShape (ndarray.formats.xla
builds on it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, List, Sequence, Tuple

from ..errors import InvalidLayoutError, NotRepresentableError

__all__ = ["COMBINE", "TiledView", "apply_tile", "tile_text", "tiled_view"]

# A tile entry meaning "combine this dimension with the next more minor one" (printed '*').
COMBINE = -1
XLA_COMBINE_DIMENSION = -(2**63)  # Tile::kCombineDimension in XLA's C++


def tile_text(tile: Sequence[int]) -> str:
    """XLA's Tile::ToString: sizes as numbers, the combine marker as '*'."""
    return "(" + ",".join("*" if t in (COMBINE, XLA_COMBINE_DIMENSION) else str(t) for t in tile) + ")"


def apply_tile(index: List[Any], bounds: List[Any], tile: Sequence[int]) -> Tuple[List[Any], List[Any]]:
    """One level of tiling on the ``len(tile)`` most minor dimensions.

    ``index`` entries may be ints or numpy integer arrays (the arithmetic is the same)::

        (e, d) -> ((e // t, e % t), (ceil(d / t), t))   after merging every '*' dimension
        into the next minor one: d' = d_j d_{j-1}, e' = e_j d_{j-1} + e_{j-1}.
    """
    k = len(tile)
    head_e, head_d = index[: len(index) - k], bounds[: len(bounds) - k]
    merged_t: List[int] = []
    merged_e: List[Any] = []
    merged_d: List[Any] = []
    carry_e: Any = 0
    carry_d: Any = 1
    for t, e, d in zip(tile, index[len(index) - k :], bounds[len(bounds) - k :]):
        carry_e, carry_d = carry_e * d + e, carry_d * d
        if t != COMBINE:
            merged_t.append(t)
            merged_e.append(carry_e)
            merged_d.append(carry_d)
            carry_e, carry_d = 0, 1
    outer_e = [e // t for e, t in zip(merged_e, merged_t)]
    inner_e = [e % t for e, t in zip(merged_e, merged_t)]
    outer_d = [-(-d // t) for d, t in zip(merged_d, merged_t)]  # ceil(d / t)
    return head_e + outer_e + inner_e, head_d + outer_d + merged_t


# A tiled-view axis is a row-major merge of sub-axes; a sub-axis reads one logical dimension:
#     coordinate = (index[dim] // divisor) % size       (the modulo is a no-op when `top`)
@dataclass(frozen=True)
class _Sub:
    dim: int
    divisor: int
    size: int
    top: bool  # the most significant digit of its dimension: no modulo needed


def _split_axis(subs: List[_Sub], t: int, shown: str, whole: str) -> Tuple[List[_Sub], List[_Sub]]:
    """Split a merged axis into (x // t, x % t) as sub-axes, or raise NotRepresentableError."""
    subs = list(subs)
    if any(s.size == 0 for s in subs):  # an empty dimension: no element to place
        return [_Sub(subs[0].dim, subs[0].divisor, 0, True)], [_Sub(subs[-1].dim, 1, t, False)]
    inner: List[_Sub] = []
    rest = t
    # Peel whole sub-axes (or an exact factor of one) off the minor end.
    while rest > 1 and len(subs) > 1:
        s = subs[-1]
        if rest % s.size == 0:
            inner.insert(0, subs.pop())
            rest //= s.size
        elif s.size % rest == 0:
            subs[-1] = _Sub(s.dim, s.divisor * rest, s.size // rest, s.top)
            inner.insert(0, _Sub(s.dim, s.divisor, rest, False))
            rest = 1
        else:
            break
    if rest > 1 and len(subs) == 1:
        s = subs[0]
        if s.size % rest == 0 or s.top:
            # ceil(size / rest) outer, rest inner; padding allowed only on a top digit.
            subs[0] = _Sub(s.dim, s.divisor * rest, -(-s.size // rest), s.top)
            inner.insert(0, _Sub(s.dim, s.divisor, rest, False))
            rest = 1
    if rest > 1:
        raise NotRepresentableError(
            f"tile {shown} splits an axis of sizes {tuple(s.size for s in subs + inner)} by {t}, "
            f"which does not divide them: XLA pads inside the tile, expected tile sizes that divide "
            f"the axes they split for a strided view in '{whole}'"
        )
    return subs, inner


# ---------------------------------------------------------------------------- tiled view
@dataclass(frozen=True)
class TiledView:
    """The tiled buffer as a strided view of higher rank (pad-reshape-transpose).

    For ``F32[d0,d1]{1,0:T(t0,t1)}`` the axes are ``(ceil(d0/t0), ceil(d1/t1), t0, t1)``.
    Axes are in memory order (most major first); ``strides`` are in elements. Axis ``a``
    reads logical dimension ``axis_dims[a]``::

        coordinate[a] = (index[axis_dims[a]] // axis_divisors[a]) % shape[a]
        element_offset(index) = sum(coordinate[a] * strides[a])

    so ``np.lib.stride_tricks.as_strided(buffer, shape, strides_in_bytes)`` indexed at the
    coordinates of a logical index is that element.
    """

    dimensions: Tuple[int, ...]  # logical dimensions (numpy order)
    shape: Tuple[int, ...]
    strides: Tuple[int, ...]
    axis_dims: Tuple[int, ...]
    axis_divisors: Tuple[int, ...]

    def __post_init__(self) -> None:
        n = len(self.shape)
        for field in ("strides", "axis_dims", "axis_divisors"):
            if len(getattr(self, field)) != n:
                raise InvalidLayoutError(
                    f"{field} has {len(getattr(self, field))} entries but shape has {n}, expected "
                    f"one per axis: {self!r}"
                )
        for a, (dim, div) in enumerate(zip(self.axis_dims, self.axis_divisors)):
            if not 0 <= dim < len(self.dimensions) or div <= 0:
                raise InvalidLayoutError(
                    f"axis {a} reads dimension {dim} with divisor {div}, expected 0 <= dimension < "
                    f"{len(self.dimensions)} and divisor > 0: {self!r}"
                )

    def strides_in_bytes(self, itemsize: int) -> Tuple[int, ...]:
        return tuple(s * itemsize for s in self.strides)

    def coordinates(self, index: Sequence[int]) -> Tuple[int, ...]:
        return tuple((index[d] // w) % n for d, w, n in zip(self.axis_dims, self.axis_divisors, self.shape))

    def element_offset(self, index: Sequence[int]) -> int:
        return sum(c * s for c, s in zip(self.coordinates(index), self.strides))


# ---------------------------------------------------------------------------- the shape


def tiled_view(dimensions: Tuple[int, ...], minor_to_major: Tuple[int, ...], bounds: Tuple[int, ...],
               tiles: Tuple[Tuple[int, ...], ...], whole: str) -> TiledView:
    """The pad-reshape-transpose of a tiling as a strided view over the buffer.

    Each tiling level splits axes into (x // t, x % t); '*' merges an axis into the next
    minor one. A split must land on whole digits of the logical indices, so a later tile
    that does not divide the axis it splits (XLA pads inside the tile) raises
    NotRepresentableError, as does a merged axis split across an uneven boundary.
    """
    axes: List[List[_Sub]] = [[_Sub(d, 1, bounds[d], True)] for d in reversed(minor_to_major)]
    physical: List[Any] = [bounds[d] for d in reversed(minor_to_major)]
    for tile in tiles:
        text = tile_text(tile)
        k = len(tile)
        _, physical = apply_tile([0] * len(physical), physical, tile)
        head, tail = axes[: len(axes) - k], axes[len(axes) - k :]
        merged: List[List[_Sub]] = []
        carry: List[_Sub] = []
        for t, axis in zip(tile, tail):
            carry = carry + axis
            if t != COMBINE:
                merged.append(carry)
                carry = []
        outer, inner = [], []
        for t, axis in zip((t for t in tile if t != COMBINE), merged):
            o, i = _split_axis(axis, t, text, whole)
            # keep size-1 axes (a tile of 1, a count of 1) so the view has every axis
            outer.append(o if o else [_Sub(axis[0].dim, 1, 1, False)])
            inner.append(i if i else [_Sub(axis[-1].dim, 1, 1, False)])
        axes = head + outer + inner
    tiled = tuple(physical)
    buffer_size = math.prod(tiled)
    sizes = [math.prod(s.size for s in axis) for axis in axes]
    assert tuple(sizes) == tiled, f"view axes {sizes} disagree with tiled_shape {tiled} of {whole}"
    shape, strides, dims, divisors = [], [], [], []
    stride = buffer_size
    for axis, n in zip(axes, sizes):
        stride = stride // n if n else 0
        sub_stride = stride * n
        for s in axis:
            sub_stride = sub_stride // s.size if s.size else 0
            shape.append(s.size)
            strides.append(sub_stride)
            dims.append(s.dim)
            divisors.append(s.divisor)
    if buffer_size == 0:
        strides = [0] * len(shape)
    return TiledView(dimensions, tuple(shape), tuple(strides), tuple(dims), tuple(divisors))
