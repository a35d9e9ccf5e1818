"""XLA shapes and layouts: ``F32[3,5]{1,0:T(2,2)}``.

An XLA array shape is an element type, logical ``dimensions`` (numpy order: dimension 0
first) and a ``Layout``. This module models the layout fields that decide where elements
live in the linear buffer:

* ``minor_to_major``: the physical order of the logical dimensions, most minor (fastest
  varying) first. This is the one place XLA's order appears; everything else here is in
  numpy order. ``{1,0}`` is row-major, the default; ``{0,1}`` is column-major.
* ``padded_dimensions`` (+ ``padding_value``): each logical dimension ``i`` is laid out as
  if it had size ``padded_dimensions[i]``; element 0 sits at the start of the buffer. This
  field comes from XLA's early ``Layout`` proto (docs/shapes.md); XLA never printed it, so
  the notation here spells it ``{0,1:pad(3,5)}`` or ``{0,1:pad(3,5;ZERO)}`` (this module's
  own extension, not XLA text).
* ``tiles``: XLA's tiled layout (docs/tiled_layout.md), ``T(2,2)``, repeated tiling
  ``T(2,4)(2,1)``, and combined dimensions ``*`` (-1 in a tile; XLA's C++ uses the minimum
  int64 for it, which :meth:`XlaShape.create` also accepts).

Linear index (docs/tiled_layout.md), with the physical bounds ``d = (d_n, ..., d_1)`` in
major-to-minor order (``d_1`` the most minor)::

    linear_index(e, d)              = e_n d_{n-1}...d_1 + e_{n-1} d_{n-2}...d_1 + ... + e_1
    linear_index_with_tile(e, d, t) = linear_index((e // t, e % t), (ceil(d / t), t))

A tile of rank k < n applies to the k most minor dimensions; a second tile applies to the
result of the first (rank n + k), and so on. ``*`` at tile position j merges that dimension
into the next more minor one before tiling (bound d_j * d_{j-1}, index e_j d_{j-1} + e_{j-1}).

Conversions: :meth:`XlaShape.to_tiled_view` gives the pad-reshape-transpose as a strided
view of higher rank over the buffer (:class:`TiledView`), :meth:`XlaShape.from_tiled_view`
goes back; :meth:`XlaShape.to_shape_descriptor` / :meth:`XlaShape.from_shape_descriptor`
convert untiled layouts to and from :class:`ndarray.ShapeDescriptor`.
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ..descriptor import ShapeDescriptor
from ..errors import InvalidLayoutError, NotRepresentableError

__all__ = ["COMBINE", "ELEMENT_TYPES", "PADDING_VALUES", "TiledView", "XlaShape", "parse"]

# A tile entry meaning "combine this dimension with the next more minor one" (printed '*').
COMBINE = -1
_XLA_COMBINE_DIMENSION = -(2**63)  # Tile::kCombineDimension in XLA's C++

# XLA PrimitiveType -> (bits per element, numpy dtype name or None when numpy has none).
ELEMENT_TYPES = {
    "PRED": (8, "bool"),
    "S8": (8, "int8"),
    "S16": (16, "int16"),
    "S32": (32, "int32"),
    "S64": (64, "int64"),
    "U8": (8, "uint8"),
    "U16": (16, "uint16"),
    "U32": (32, "uint32"),
    "U64": (64, "uint64"),
    "F16": (16, "float16"),
    "BF16": (16, None),
    "F32": (32, "float32"),
    "F64": (64, "float64"),
    "C64": (64, "complex64"),
    "C128": (128, "complex128"),
}
_ELEMENT_TYPE_OF_DTYPE = {np.dtype(name): et for et, (_, name) in ELEMENT_TYPES.items() if name}

# XLA's PaddingValue enum (ZERO_PAD, ONE_PAD, ...) without the _PAD suffix.
PADDING_VALUES = ("ZERO", "ONE", "LOWEST", "HIGHEST", "UNKNOWN")


# ---------------------------------------------------------------------------- notation
def _join(values: Iterable[int]) -> str:
    return ",".join(str(v) for v in values)


def _tile_text(tile: Sequence[int]) -> str:
    # XLA's Tile::ToString: sizes as numbers, the combine marker as '*'.
    return "(" + ",".join("*" if t in (COMBINE, _XLA_COMBINE_DIMENSION) else str(t) for t in tile) + ")"


def _render(element_type, dimensions, minor_to_major, tiles, padded_dimensions, padding_value) -> str:
    """The notation of the given fields, valid or not (error messages quote it)."""
    text = f"{element_type}[{_join(dimensions)}]"
    attrs = ""
    if tiles:
        attrs += "T" + "".join(_tile_text(t) for t in tiles)
    if padded_dimensions:
        attrs += f"pad({_join(padded_dimensions)}" + (f";{padding_value}" if padding_value else "") + ")"
    if not dimensions and not minor_to_major and not attrs:
        return text  # a scalar: F32[]
    return text + "{" + _join(minor_to_major) + (":" + attrs if attrs else "") + "}"


# ---------------------------------------------------------------------------- validation
def _validate(element_type, dimensions, minor_to_major, tiles, padded_dimensions, padding_value, whole) -> None:
    """Raise InvalidLayoutError naming field, value, expectation and ``whole`` (the text)."""
    where = f" in '{whole}'"
    if element_type not in ELEMENT_TYPES:
        raise InvalidLayoutError(
            f"element_type {element_type!r} is not one of {', '.join(ELEMENT_TYPES)}{where}"
        )
    rank = len(dimensions)
    for i, n in enumerate(dimensions):
        if n < 0:
            raise InvalidLayoutError(
                f"dimensions [{_join(dimensions)}] has {n} at dimension {i}, expected sizes >= 0{where}"
            )
    m2m = "{" + _join(minor_to_major) + "}"
    if len(minor_to_major) != rank:
        raise InvalidLayoutError(
            f"minor_to_major {m2m} has {len(minor_to_major)} entries but the shape has rank {rank}, "
            f"expected one entry per dimension{where}"
        )
    if sorted(minor_to_major) != list(range(rank)):
        raise InvalidLayoutError(f"minor_to_major {m2m} is not a permutation of 0..{rank - 1}{where}")
    if padded_dimensions:
        pads = f"({_join(padded_dimensions)})"
        if len(padded_dimensions) != rank:
            raise InvalidLayoutError(
                f"padded_dimensions {pads} has {len(padded_dimensions)} entries but the shape has rank "
                f"{rank}, expected one entry per dimension{where}"
            )
        for i, (p, n) in enumerate(zip(padded_dimensions, dimensions)):
            if p < n:
                raise InvalidLayoutError(
                    f"padded_dimensions {pads} is smaller than dimensions [{_join(dimensions)}] at "
                    f"dimension {i} ({p} < {n}), expected padded_dimensions >= dimensions{where}"
                )
        if tiles:
            raise InvalidLayoutError(
                f"padded_dimensions {pads} together with tiles {''.join(_tile_text(t) for t in tiles)}: "
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
        text = _tile_text(tile)
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


def _ints(values, field: str, context: str) -> Tuple[int, ...]:
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        raise InvalidLayoutError(f"{field} {values!r} is not a sequence of integers: {context}") from None


# ---------------------------------------------------------------------------- tiling arithmetic
def _apply_tile(index: list, bounds: list, tile: Sequence[int]) -> Tuple[list, list]:
    """One level of tiling on the ``len(tile)`` most minor dimensions.

    ``index`` entries may be ints or numpy integer arrays (the arithmetic is the same)::

        (e, d) -> ((e // t, e % t), (ceil(d / t), t))   after merging every '*' dimension
        into the next minor one: d' = d_j d_{j-1}, e' = e_j d_{j-1} + e_{j-1}.
    """
    k = len(tile)
    head_e, head_d = index[: len(index) - k], bounds[: len(bounds) - k]
    merged_t, merged_e, merged_d = [], [], []
    carry_e, carry_d = 0, 1
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


def _split_axis(subs: List[_Sub], t: int, tile_text: str, whole: str) -> Tuple[List[_Sub], List[_Sub]]:
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
            f"tile {tile_text} splits an axis of sizes {tuple(s.size for s in subs + inner)} by {t}, "
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
@dataclass(frozen=True)
class XlaShape:
    """An XLA array shape with its layout; ``repr`` is XLA's notation. Build with :meth:`create`
    or :func:`parse`; ``__post_init__`` only checks."""

    element_type: str  # XLA's PrimitiveType name, upper case: 'F32', 'BF16', 'PRED'...
    dimensions: Tuple[int, ...]  # logical sizes, numpy order (dimension 0 first)
    # XLA-only order: logical dimension numbers from the most minor (fastest varying in
    # memory) to the most major. (1, 0) is row-major (numpy 'C'), (0, 1) column-major.
    # Nothing else in this project uses this order; numpy order is everywhere else.
    minor_to_major: Tuple[int, ...]
    tiles: Tuple[Tuple[int, ...], ...] = ()  # applied in turn; COMBINE (-1) is XLA's '*'
    padded_dimensions: Tuple[int, ...] = ()  # () = not padded; else per logical dimension
    padding_value: Optional[str] = None  # one of PADDING_VALUES, only with padded_dimensions

    @classmethod
    def create(
        cls,
        element_type: str,
        dimensions: Iterable[int],
        minor_to_major: Optional[Iterable[int]] = None,
        tiles: Iterable[Iterable[int]] = (),
        padded_dimensions: Optional[Iterable[int]] = None,
        padding_value: Optional[str] = None,
    ) -> "XlaShape":
        """The one canonicalising factory.

        ``element_type`` in any case ('f32' or 'F32'); ``minor_to_major`` defaults to XLA's
        default major-to-minor (rank-1, ..., 0); a tile entry of -1 or XLA's int64 minimum
        means '*'; ``padded_dimensions`` equal to ``dimensions`` is no padding.
        """
        context = (
            f"element_type={element_type!r}, dimensions={dimensions!r}, minor_to_major={minor_to_major!r}, "
            f"tiles={tiles!r}, padded_dimensions={padded_dimensions!r}, padding_value={padding_value!r}"
        )
        if not isinstance(element_type, str):
            raise InvalidLayoutError(f"element_type {element_type!r} is not a string: {context}")
        dims = _ints(dimensions, "dimensions", context)
        m2m = tuple(range(len(dims) - 1, -1, -1)) if minor_to_major is None else _ints(minor_to_major, "minor_to_major", context)
        tile_t = tuple(
            tuple(COMBINE if t == _XLA_COMBINE_DIMENSION else t for t in _ints(tile, "tiles", context)) for tile in tiles
        )
        padded = () if padded_dimensions is None else _ints(padded_dimensions, "padded_dimensions", context)
        if isinstance(padding_value, str):
            padding_value = padding_value.upper()
            if padding_value.endswith("_PAD"):
                padding_value = padding_value[: -len("_PAD")]
        if padded == dims:
            padded, padding_value = (), None
        return cls(element_type.upper(), dims, m2m, tile_t, padded, padding_value)

    def __post_init__(self) -> None:
        _validate(
            self.element_type, self.dimensions, self.minor_to_major, self.tiles, self.padded_dimensions,
            self.padding_value, repr(self),
        )

    def __repr__(self) -> str:
        return _render(
            self.element_type, self.dimensions, self.minor_to_major, self.tiles, self.padded_dimensions,
            self.padding_value,
        )

    __str__ = __repr__

    # ------------------------------------------------------------------ derived facts
    @property
    def rank(self) -> int:
        return len(self.dimensions)

    @property
    def size(self) -> int:
        """Number of logical elements."""
        return math.prod(self.dimensions)

    @property
    def is_tiled(self) -> bool:
        return bool(self.tiles)

    @property
    def dtype(self) -> np.dtype:
        name = ELEMENT_TYPES[self.element_type][1]
        if name is None:
            raise NotRepresentableError(
                f"element_type {self.element_type} has no numpy dtype, expected one of "
                f"{', '.join(et for et, (_, n) in ELEMENT_TYPES.items() if n)}: {self!r}"
            )
        return np.dtype(name)

    @property
    def itemsize(self) -> int:
        """Bytes per element (known for BF16 too, which numpy lacks)."""
        return ELEMENT_TYPES[self.element_type][0] // 8

    @property
    def bounds(self) -> Tuple[int, ...]:
        """Sizes each logical dimension is laid out with: padded_dimensions or dimensions."""
        return self.padded_dimensions or self.dimensions

    @property
    def physical_dimensions(self) -> Tuple[int, ...]:
        """``bounds`` in physical order, most major first: bounds[m2m[-1]], ..., bounds[m2m[0]]."""
        return tuple(self.bounds[d] for d in reversed(self.minor_to_major))

    @property
    def tiled_shape(self) -> Tuple[int, ...]:
        """Bounds of the array after every tiling level, most major first (row-major in memory)."""
        bounds = list(self.physical_dimensions)
        index = [0] * len(bounds)
        for tile in self.tiles:
            index, bounds = _apply_tile(index, bounds, tile)
        return tuple(bounds)

    @property
    def buffer_size(self) -> int:
        """Elements in the buffer, padding included: prod(tiled_shape)."""
        return math.prod(self.tiled_shape)

    @property
    def buffer_size_in_bytes(self) -> int:
        return self.buffer_size * self.itemsize

    # ------------------------------------------------------------------ indexing
    def _linear(self, index: list):
        bounds = list(self.physical_dimensions)
        e = [index[d] for d in reversed(self.minor_to_major)]
        for tile in self.tiles:
            e, bounds = _apply_tile(e, bounds, tile)
        # Row-major over the tiled shape (Horner form of e_n d_{n-1}...d_1 + ... + e_1).
        linear = 0
        for ei, di in zip(e, bounds):
            linear = linear * di + ei
        return linear

    def linear_index(self, index: Sequence[int]) -> int:
        """Position in the buffer (in elements) of the element at logical ``index``."""
        index = tuple(operator.index(i) for i in index)
        if len(index) != self.rank:
            raise IndexError(f"index has {len(index)} entries but the shape has rank {self.rank}: index={index}, {self!r}")
        for i, (e, n) in enumerate(zip(index, self.dimensions)):
            if not 0 <= e < n:
                raise IndexError(f"index[{i}] is {e}, expected 0 <= index[{i}] < {n}: index={index}, {self!r}")
        return int(self._linear(list(index)))

    def linear_indices(self) -> np.ndarray:
        """int64 array of shape ``dimensions``: the linear index of every element."""
        if self.rank == 0:
            return np.zeros((), dtype=np.int64)
        return np.asarray(self._linear(list(np.indices(self.dimensions, dtype=np.int64))), dtype=np.int64)

    # ------------------------------------------------------------------ tiled view
    def to_tiled_view(self) -> TiledView:
        """The pad-reshape-transpose of the tiling as a strided view over the buffer.

        Each tiling level splits axes into (x // t, x % t); '*' merges an axis into the next
        minor one. A split must land on whole digits of the logical indices, so a later tile
        that does not divide the axis it splits (XLA pads inside the tile) raises
        NotRepresentableError, as does a merged axis split across an uneven boundary.
        """
        whole = repr(self)
        axes: List[List[_Sub]] = [[_Sub(d, 1, self.bounds[d], True)] for d in reversed(self.minor_to_major)]
        for tile in self.tiles:
            text = _tile_text(tile)
            k = len(tile)
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
        tiled = self.tiled_shape
        sizes = [math.prod(s.size for s in axis) for axis in axes]
        assert tuple(sizes) == tiled, f"view axes {sizes} disagree with tiled_shape {tiled} of {whole}"
        shape, strides, dims, divisors = [], [], [], []
        stride = self.buffer_size
        for axis, n in zip(axes, sizes):
            stride = stride // n if n else 0
            sub_stride = stride * n
            for s in axis:
                sub_stride = sub_stride // s.size if s.size else 0
                shape.append(s.size)
                strides.append(sub_stride)
                dims.append(s.dim)
                divisors.append(s.divisor)
        if self.buffer_size == 0:
            strides = [0] * len(shape)
        return TiledView(self.dimensions, tuple(shape), tuple(strides), tuple(dims), tuple(divisors))

    @classmethod
    def from_tiled_view(cls, view: TiledView, element_type: str = "F32") -> "XlaShape":
        """The untiled or single-level tiled layout whose :meth:`to_tiled_view` is ``view``.

        The first ``rank`` axes give minor_to_major (and padded_dimensions when untiled),
        the remaining axes the tile. Views of repeated or combined tilings are ambiguous and
        raise NotRepresentableError, as does any view XLA cannot produce (strides that are
        not row-major over the axes, axes out of order...).
        """
        rank = len(view.dimensions)
        first = view.axis_dims[:rank]
        if len(view.shape) < rank or sorted(first) != list(range(rank)):
            raise NotRepresentableError(
                f"the first {rank} axes of the view read dimensions {first}, expected each logical "
                f"dimension once (the tile counts, most major first): {view!r}"
            )
        m2m = tuple(reversed(first))
        tile = tuple(view.shape[rank:])
        try:
            if tile:
                candidate = cls.create(element_type, view.dimensions, m2m, (tile,))
            else:
                padded = [0] * rank
                for d, n in zip(first, view.shape):
                    padded[d] = n
                candidate = cls.create(element_type, view.dimensions, m2m, padded_dimensions=padded)
            back = candidate.to_tiled_view()
        except (InvalidLayoutError, NotRepresentableError) as err:
            raise NotRepresentableError(
                f"view is not a single-level XLA tiling, expected {rank} tile-count axes then at most "
                f"{rank} tile axes ({err}): {view!r}"
            ) from None
        if back != view:
            raise NotRepresentableError(
                f"view differs from {candidate!r}, whose view is {back!r}; expected an untiled or "
                f"single-level tiled XLA layout: {view!r}"
            )
        return candidate

    # ------------------------------------------------------------------ ShapeDescriptor
    def to_shape_descriptor(self) -> ShapeDescriptor:
        """The same layout as a ShapeDescriptor of the same rank.

        Untiled: strides follow minor_to_major over the padded bounds,
        ``strides[m2m[0]] = 1, strides[m2m[k]] = strides[m2m[k-1]] * bounds[m2m[k-1]]``,
        offset 0, alloc_size = prod(bounds); the descriptor finds the libnd4j paddings.
        Tiled: only when every dimension's view axes collapse into one stride (tiles that
        change nothing); otherwise NotRepresentableError.
        """
        if not self.tiles:
            strides, step = [0] * self.rank, 1
            for d in self.minor_to_major:
                strides[d], step = step, step * self.bounds[d]
            return ShapeDescriptor.create(self.dimensions, self.dtype, strides=strides, offset=0, alloc_size=step)
        view = self.to_tiled_view()
        strides = [0] * self.rank
        for dim in range(self.rank):
            axes = sorted(
                (w, n, s) for d, w, n, s in zip(view.axis_dims, view.axis_divisors, view.shape, view.strides)
                if d == dim and n > 1
            )
            if not axes:  # size 1: any stride works; take its first undivided axis's
                strides[dim] = next((s for d, w, s in zip(view.axis_dims, view.axis_divisors, view.strides) if d == dim and w == 1), 0)
                continue
            unit = axes[0][2] if axes[0][0] == 1 else None
            expected_w, expected_s = 1, unit
            for w, n, s in axes:
                if unit is None or w != expected_w or s != expected_s:
                    raise NotRepresentableError(
                        f"dimension {dim} is spread over view axes (divisor, size, stride) {axes} by the "
                        f"tiling, expected one stride per dimension for a ShapeDescriptor of rank "
                        f"{self.rank}; use to_tiled_view() for the higher-rank view: {self!r}"
                    )
                expected_w, expected_s = w * n, s * n
                strides[dim] = unit
        return ShapeDescriptor.create(self.dimensions, self.dtype, strides=strides, offset=0, alloc_size=self.buffer_size)

    @classmethod
    def from_shape_descriptor(cls, descriptor: ShapeDescriptor) -> "XlaShape":
        """The untiled XLA layout of a descriptor: its strides sorted ascending give
        minor_to_major, their ratios the padded_dimensions::

            bounds[m2m[k]] = strides[m2m[k+1]] / strides[m2m[k]],  bounds[m2m[-1]] = alloc_size / strides[m2m[-1]]

        XLA has no offset and no free strides: element 0 must open the buffer and the
        strides must nest (innermost 1, each a multiple of the last), else NotRepresentableError.
        """
        et = _ELEMENT_TYPE_OF_DTYPE.get(descriptor.dtype)
        if et is None:
            raise NotRepresentableError(
                f"dtype {descriptor.dtype} has no XLA element type, expected one of "
                f"{', '.join(str(d) for d in _ELEMENT_TYPE_OF_DTYPE)}: {descriptor!r}"
            )
        if descriptor.offset != 0:
            raise NotRepresentableError(
                f"offset is {descriptor.offset}, expected 0: an XLA buffer starts at element 0 "
                f"(padding only after it): {descriptor!r}"
            )
        rank, shape, strides = descriptor.rank, descriptor.shape, descriptor.strides
        # Most minor first. Equal strides only nest when the more minor one has size 1, so
        # size-1 dimensions go first; among them, XLA's default (higher dimension more minor).
        m2m = tuple(sorted(range(rank), key=lambda d: (strides[d], shape[d] != 1, -d)))
        bounds = [0] * rank
        for k, d in enumerate(m2m):
            inner = strides[m2m[k - 1]] * bounds[m2m[k - 1]] if k else 1
            outer = strides[m2m[k + 1]] if k + 1 < rank else descriptor.alloc_size
            if strides[d] != inner or (strides[d] and outer % strides[d]) or (
                strides[d] and outer // strides[d] < shape[d]
            ):
                raise NotRepresentableError(
                    f"strides {strides} (alloc_size {descriptor.alloc_size}) do not nest along "
                    f"minor_to_major {{{_join(m2m)}}}: dimension {d} has stride {strides[d]}, expected "
                    f"{inner} with the next stride ({outer}) a multiple of it covering its size "
                    f"{shape[d]}: {descriptor!r}"
                )
            bounds[d] = outer // strides[d] if strides[d] else shape[d]
        if rank == 0 and descriptor.alloc_size != 1:
            raise NotRepresentableError(f"alloc_size is {descriptor.alloc_size}, expected 1 for a scalar: {descriptor!r}")
        return cls.create(et, shape, m2m, padded_dimensions=bounds)


# ---------------------------------------------------------------------------- parser
_SHAPE_RE = re.compile(r"([A-Za-z][A-Za-z0-9]*)\[([^\]]*)\](.*)", re.S)
_INT_RE = re.compile(r"-?\d+")
_TILE_RE = re.compile(r"\(([^()]*)\)")
_PAD_RE = re.compile(r"pad\(([^();]*)(?:;([A-Za-z_]+))?\)")


def _int_list(text: str, field: str, shown: str, whole: str, allow_star: bool = False) -> Tuple[int, ...]:
    if text == "":
        return ()
    values = []
    for item in text.split(","):
        if allow_star and item == "*":
            values.append(COMBINE)
        elif _INT_RE.fullmatch(item):
            values.append(int(item))
        else:
            expected = "integers or *" if allow_star else "integers"
            raise InvalidLayoutError(
                f"{field} {shown} has {item!r}, expected comma-separated {expected} in '{whole}'"
            )
    return tuple(values)


def parse(text: str) -> XlaShape:
    """Parse XLA's shape notation, e.g. ``F32[3,5]{1,0:T(2,2)}``, ``F32[3,5]`` (default
    layout), ``f32[2,3]{0,1:pad(3,5)}``. Raises InvalidLayoutError naming the field, the
    value, the expectation and the whole text."""
    whole = text.strip() if isinstance(text, str) else text
    if not isinstance(whole, str):
        raise InvalidLayoutError(f"text {text!r} is not a string, expected XLA notation such as 'F32[3,5]{{1,0}}'")
    match = _SHAPE_RE.fullmatch(whole)
    if match is None:
        raise InvalidLayoutError(
            f"shape {whole!r} is not an element type followed by [dimensions], expected e.g. "
            f"'F32[3,5]' or 'F32[3,5]{{1,0:T(2,2)}}' in '{whole}'"
        )
    element_type, dims_text, layout_text = match.group(1).upper(), match.group(2), match.group(3)
    dims = _int_list(dims_text, "dimensions", f"[{dims_text}]", whole)
    m2m: Optional[Tuple[int, ...]] = None
    tiles: List[Tuple[int, ...]] = []
    padded: Optional[Tuple[int, ...]] = None
    padding_value: Optional[str] = None
    if layout_text:
        if not layout_text.startswith("{"):
            raise InvalidLayoutError(f"layout {layout_text!r} does not start with '{{', expected '{{minor_to_major...}}' in '{whole}'")
        if not layout_text.endswith("}"):
            raise InvalidLayoutError(f"layout {layout_text!r} is missing its closing '}}', expected '{{...}}' in '{whole}'")
        body = layout_text[1:-1]
        m2m_text, _, attrs = body.partition(":")
        m2m = _int_list(m2m_text, "minor_to_major", "{" + m2m_text + "}", whole)
        if ":" in body and not attrs:
            raise InvalidLayoutError(f"layout {layout_text} has an empty attribute list after ':', expected T(...) or pad(...) in '{whole}'")
        pos = 0
        while pos < len(attrs):
            rest = attrs[pos:]
            if rest.startswith("T(") and not tiles:
                pos += 1
                while attrs.startswith("(", pos):
                    tile_match = _TILE_RE.match(attrs, pos)
                    if tile_match is None:
                        raise InvalidLayoutError(
                            f"tile {attrs[pos:]!r} is missing its closing ')', expected '(size,...)' in '{whole}'"
                        )
                    tiles.append(_int_list(tile_match.group(1), "tile", tile_match.group(0), whole, allow_star=True))
                    pos = tile_match.end()
            elif rest.startswith("pad(") and padded is None:
                pad_match = _PAD_RE.match(attrs, pos)
                if pad_match is None:
                    raise InvalidLayoutError(
                        f"padded_dimensions {rest!r} is malformed, expected 'pad(size,...)' or "
                        f"'pad(size,...;ZERO)' in '{whole}'"
                    )
                padded = _int_list(pad_match.group(1), "padded_dimensions", f"({pad_match.group(1)})", whole)
                padding_value = pad_match.group(2).upper() if pad_match.group(2) else None
                pos = pad_match.end()
            else:
                raise InvalidLayoutError(
                    f"layout attribute {rest!r} is not supported, expected T(...) tiles or pad(...) once each "
                    f"in '{whole}'"
                )
    if m2m is None:
        m2m = tuple(range(len(dims) - 1, -1, -1))
    tiles_t = tuple(tiles)
    padded_t = padded or ()
    if padding_value is not None and padding_value.endswith("_PAD"):
        padding_value = padding_value[: -len("_PAD")]
    _validate(element_type, dims, m2m, tiles_t, padded_t, padding_value, whole)
    return XlaShape.create(element_type, dims, m2m, tiles_t, padded, padding_value)
