"""XLA shapes and layouts as XLA prints them: ``f32[3,5]{1,0:T(2,2)}`` (the values).

An XLA array shape is an element type, logical ``dimensions`` (numpy order: dimension 0
first) and, optionally, a ``Layout``. This module models the layout fields that decide where
elements live in the linear buffer, and keeps every other field XLA prints:

* ``minor_to_major``: the physical order of the logical dimensions, most minor (fastest
  varying) first. This is the one place XLA's order appears; everything else here is in
  numpy order. ``{1,0}`` is row-major, the default; ``{0,1}`` is column-major.
* ``tiles``: XLA's tiled layout (docs/tiled_layout.md), ``T(2,2)``, repeated tiling
  ``T(2,4)(2,1)``, and combined dimensions ``*``; see :mod:`ndarray.formats.xla_tiled`.
* ``L(n)`` tail padding alignment (elements), ``#(type)`` / ``*(type)`` the index and pointer
  types of sparse layouts, ``E(n)`` element size in bits (``s4[8]{0:E(4)}`` packs two per
  byte), ``S(n)`` memory space, ``M(n)`` dynamic-shape metadata prefix (bytes): parsed,
  kept, printed back in XLA's order (``Layout::Print``).
* dynamic dimensions ``f32[<=4,5]``: the layout addresses the bound.
* ``padded_dimensions`` (+ ``padding_value``), from XLA's early ``Layout`` proto: XLA never
  printed it; this module spells it ``{0,1:pad(3,5)}`` or ``{0,1:pad(3,5;ZERO)}`` (its own
  extension, not XLA text).

Refused, with a message naming the field: sparse layouts ``D(...)``, split configs
``SC(...)``, physical shapes ``P(...)``, unbounded dynamic dimensions ``?``.

Text: :func:`ndarray.formats.xla.parse` (module ``xla_text``) reads XLA's notation in any case (``F32[3,5]`` too) and a shape prints
exactly as XLA prints it (lower-case element type, ``{...}`` only when the input had a
layout), so XLA's own text round-trips byte for byte; tuples ``(f32[2]{0}, s32[])`` parse to
:class:`XlaTuple`. :meth:`XlaShape.to_shape_descriptor` / :meth:`XlaShape.from_shape_descriptor`
convert untiled layouts to and from :class:`ndarray.ShapeDescriptor`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ..descriptor import ShapeDescriptor
from ..dtypes import dtype_named, require_native_byte_order
from ..errors import ArgumentTypeError, InvalidLayoutError, NotRepresentableError
from ..strides import as_int_tuple, check_index, dense_strides
from .xla_fields import ELEMENT_TYPES, PADDING_VALUES, element_type_of, join, validate
from .xla_tiled import COMBINE, XLA_COMBINE_DIMENSION, TiledView, apply_tile, tile_text, tiled_view

__all__ = ["COMBINE", "ELEMENT_TYPES", "PADDING_VALUES", "TiledView", "XlaShape", "XlaTuple"]

# ---------------------------------------------------------------------------- the shape
@dataclass(frozen=True)
class XlaShape:
    """An XLA array shape with its layout; ``repr`` is XLA's notation. Build with :meth:`create`
    or :func:`parse`; ``__post_init__`` only checks."""

    element_type: str  # XLA's PrimitiveType name as XLA prints it: 'f32', 'bf16', 'pred'...
    dimensions: Tuple[int, ...]  # logical sizes (bounds of dynamic ones), numpy order
    # XLA-only order: logical dimension numbers from the most minor (fastest varying in
    # memory) to the most major. (1, 0) is row-major (numpy 'C'), (0, 1) column-major.
    # Nothing else in this project uses this order; numpy order is everywhere else.
    minor_to_major: Tuple[int, ...]
    tiles: Tuple[Tuple[int, ...], ...] = ()  # applied in turn; COMBINE (-1) is XLA's '*'
    padded_dimensions: Tuple[int, ...] = ()  # () = not padded; else per logical dimension
    padding_value: Optional[str] = None  # one of PADDING_VALUES, only with padded_dimensions
    has_layout: bool = True  # False: the text had no {...}; the layout is XLA's default
    dynamic_dimensions: Tuple[bool, ...] = ()  # () = all static; else True where '<=' bounded
    tail_padding_alignment_in_elements: int = 1  # L(n)
    index_primitive_type: Optional[str] = None  # #(s32)
    pointer_primitive_type: Optional[str] = None  # *(s32)
    element_size_in_bits: int = 0  # E(n); 0 = the element type's own size
    memory_space: int = 0  # S(n)
    dynamic_shape_metadata_prefix_bytes: int = 0  # M(n)

    @classmethod
    def create(
        cls,
        element_type: str,
        dimensions: Iterable[int],
        minor_to_major: Optional[Iterable[int]] = None,
        tiles: Iterable[Iterable[int]] = (),
        padded_dimensions: Optional[Iterable[int]] = None,
        padding_value: Optional[str] = None,
        **layout_fields: Any,
    ) -> "XlaShape":
        """The one canonicalising factory.

        ``element_type`` in any case ('f32' or 'F32'); ``minor_to_major`` defaults to XLA's
        default major-to-minor (rank-1, ..., 0); a tile entry of -1 or XLA's int64 minimum
        means '*'; ``padded_dimensions`` equal to ``dimensions`` is no padding. Other layout
        fields (``has_layout``, ``dynamic_dimensions``, ``element_size_in_bits``...) by name.
        """
        context = (
            f"element_type={element_type!r}, dimensions={dimensions!r}, minor_to_major={minor_to_major!r}, "
            f"tiles={tiles!r}, padded_dimensions={padded_dimensions!r}, padding_value={padding_value!r}"
        )
        if not isinstance(element_type, str):
            raise ArgumentTypeError(f"element_type {element_type!r} is not a string: {context}")
        dims = as_int_tuple(dimensions, "dimensions", context)
        m2m = tuple(range(len(dims) - 1, -1, -1)) if minor_to_major is None else as_int_tuple(minor_to_major, "minor_to_major", context)
        tile_t = tuple(
            tuple(COMBINE if t == XLA_COMBINE_DIMENSION else t for t in as_int_tuple(tile, "tiles", context)) for tile in tiles
        )
        padded = () if padded_dimensions is None else as_int_tuple(padded_dimensions, "padded_dimensions", context)
        if isinstance(padding_value, str):
            padding_value = padding_value.upper()
            if padding_value.endswith("_PAD"):
                padding_value = padding_value[: -len("_PAD")]
        if padded == dims:
            padded, padding_value = (), None
        dynamic = tuple(bool(d) for d in layout_fields.pop("dynamic_dimensions", ()))
        if not any(dynamic):
            dynamic = ()
        for name in ("index_primitive_type", "pointer_primitive_type"):
            if isinstance(layout_fields.get(name), str):
                layout_fields[name] = layout_fields[name].lower()
        if not dims and not tile_t and not padded and not any(
                v for k, v in layout_fields.items() if k not in ("has_layout", "tail_padding_alignment_in_elements")):
            layout_fields["has_layout"] = True  # a scalar prints f32[] either way: one value
        unknown = sorted(set(layout_fields) - _LAYOUT_FIELDS)
        if unknown:
            raise ArgumentTypeError(f"unknown XlaShape fields {unknown}, expected some of {sorted(_LAYOUT_FIELDS)}: {context}")
        return cls(element_type.lower(), dims, m2m, tile_t, padded, padding_value,
                   dynamic_dimensions=dynamic, **layout_fields)

    def __post_init__(self) -> None:
        whole = repr(self)
        validate(self.element_type, self.dimensions, self.minor_to_major, self.tiles, self.padded_dimensions,
                  self.padding_value, whole)
        if self.dynamic_dimensions and len(self.dynamic_dimensions) != self.rank:
            raise InvalidLayoutError(
                f"dynamic_dimensions has {len(self.dynamic_dimensions)} entries but the shape has rank "
                f"{self.rank}, expected one per dimension in '{whole}'"
            )
        for name, low in (("tail_padding_alignment_in_elements", 1), ("element_size_in_bits", 0),
                          ("memory_space", 0), ("dynamic_shape_metadata_prefix_bytes", 0)):
            if getattr(self, name) < low:
                raise InvalidLayoutError(f"{name} is {getattr(self, name)}, expected >= {low} in '{whole}'")
        for name in ("index_primitive_type", "pointer_primitive_type"):
            value = getattr(self, name)
            if value is not None and value not in ELEMENT_TYPES:
                raise InvalidLayoutError(f"{name} {value!r} is not one of {', '.join(ELEMENT_TYPES)} in '{whole}'")
        if not self.has_layout and self.layout_text():
            raise InvalidLayoutError(f"has_layout is False but layout fields are set: {self.layout_text()!r}")

    def layout_text(self) -> str:
        """The ``{...}`` part as XLA's Layout::Print writes it ('' without a layout)."""
        attrs = ""
        if self.tiles:
            attrs += "T" + "".join(tile_text(t) for t in self.tiles)
        if self.tail_padding_alignment_in_elements != 1:
            attrs += f"L({self.tail_padding_alignment_in_elements})"
        if self.index_primitive_type:
            attrs += f"#({self.index_primitive_type})"
        if self.pointer_primitive_type:
            attrs += f"*({self.pointer_primitive_type})"
        if self.element_size_in_bits:
            attrs += f"E({self.element_size_in_bits})"
        if self.memory_space:
            attrs += f"S({self.memory_space})"
        if self.dynamic_shape_metadata_prefix_bytes:
            attrs += f"M({self.dynamic_shape_metadata_prefix_bytes})"
        if self.padded_dimensions:  # this module's extension, never printed by XLA
            attrs += f"pad({join(self.padded_dimensions)}" + (f";{self.padding_value}" if self.padding_value else "") + ")"
        default = self.minor_to_major == tuple(range(self.rank - 1, -1, -1))
        if not self.has_layout and default and not attrs:
            return ""
        if not self.dimensions and not attrs:
            return ""  # XLA prints a scalar's empty layout as nothing: f32[]
        return "{" + join(self.minor_to_major) + (":" + attrs if attrs else "") + "}"

    def __repr__(self) -> str:
        dims = ",".join(("<=" if self.dynamic_dimensions and self.dynamic_dimensions[i] else "") + str(n)
                        for i, n in enumerate(self.dimensions))
        return f"{self.element_type}[{dims}]{self.layout_text()}"

    __str__ = __repr__

    # ------------------------------------------------------------------ derived facts
    @property
    def rank(self) -> int:
        return len(self.dimensions)

    @property
    def size(self) -> int:
        """Number of logical elements (of the bounds, for dynamic dimensions)."""
        return math.prod(self.dimensions)

    @property
    def is_tiled(self) -> bool:
        return bool(self.tiles)

    @property
    def element_bits(self) -> int:
        """Bits one element takes in the buffer: E(n) when given, else the type's own size
        (rounded up to a byte: XLA stores sub-byte types one per byte unless E(n) packs them)."""
        if self.element_size_in_bits:
            return self.element_size_in_bits
        return max(8, ELEMENT_TYPES[self.element_type][0]) if ELEMENT_TYPES[self.element_type][0] else 0

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype (through ml_dtypes for bf16, f8*, s4...; NotRepresentableError
        without it, or for types with no array dtype: token, opaque, s1, u1)."""
        name = ELEMENT_TYPES[self.element_type][1]
        if name is None:
            raise NotRepresentableError(
                f"element_type {self.element_type} has no numpy dtype, expected one of "
                f"{', '.join(et for et, (_, n) in ELEMENT_TYPES.items() if n)}: {self!r}"
            )
        return dtype_named(name, f"element_type {self.element_type}")

    @property
    def itemsize(self) -> int:
        """Bytes per element in the buffer (known for BF16 too, which numpy lacks)."""
        bits = self.element_bits
        if bits % 8:
            raise NotRepresentableError(
                f"element_size_in_bits is {bits}: elements smaller than a byte have no byte size, "
                f"expected a multiple of 8: {self!r}"
            )
        return bits // 8

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
        bounds: List[Any] = list(self.physical_dimensions)
        index: List[Any] = [0] * len(bounds)
        for tile in self.tiles:
            index, bounds = apply_tile(index, bounds, tile)
        return tuple(bounds)

    @property
    def buffer_size(self) -> int:
        """Elements in the buffer, padding included: prod(tiled_shape), rounded up to L(n)."""
        n, align = math.prod(self.tiled_shape), self.tail_padding_alignment_in_elements
        return -(-n // align) * align

    @property
    def buffer_size_in_bytes(self) -> int:
        """Bytes of the buffer (packed sub-byte elements rounded up to a byte)."""
        return -(-self.buffer_size * self.element_bits // 8)

    # ------------------------------------------------------------------ indexing
    def _linear(self, index: List[Any]) -> Any:
        bounds: List[Any] = list(self.physical_dimensions)
        e = [index[d] for d in reversed(self.minor_to_major)]
        for tile in self.tiles:
            e, bounds = apply_tile(e, bounds, tile)
        # Row-major over the tiled shape (Horner form of e_n d_{n-1}...d_1 + ... + e_1).
        linear: Any = 0
        for ei, di in zip(e, bounds):
            linear = linear * di + ei
        return linear

    def linear_index(self, index: Sequence[int]) -> int:
        """Position in the buffer (in elements) of the element at logical ``index``."""
        index = check_index(index, self.dimensions, self.__repr__)
        return int(self._linear(list(index)))

    def linear_indices(self) -> np.ndarray:
        """int64 array of shape ``dimensions``: the linear index of every element."""
        if self.rank == 0:
            return np.zeros((), dtype=np.int64)
        return np.asarray(self._linear(list(np.indices(self.dimensions, dtype=np.int64))), dtype=np.int64)

    # ------------------------------------------------------------------ tiled view
    def to_tiled_view(self) -> TiledView:
        """The pad-reshape-transpose of the tiling as a strided view over the buffer
        (:func:`ndarray.formats.xla_tiled.tiled_view`)."""
        return tiled_view(self.dimensions, self.minor_to_major, self.bounds, self.tiles, repr(self))


    @classmethod
    def from_tiled_view(cls, view: TiledView, element_type: str = "f32") -> "XlaShape":
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
        change nothing); otherwise NotRepresentableError. Dynamic dimensions give their
        bounds (the buffer XLA allocates). Packed sub-byte elements (``E(4)``) and a metadata
        prefix (``M(n)``) have no descriptor: NotRepresentableError naming them.
        """
        if self.element_bits % 8 or (self.element_size_in_bits and self.element_size_in_bits != 8 * self.dtype.itemsize):
            raise NotRepresentableError(
                f"element_size_in_bits E({self.element_bits}) differs from the numpy itemsize "
                f"{self.dtype.itemsize} bytes: packed elements have no element strides: {self!r}"
            )
        if self.dynamic_shape_metadata_prefix_bytes:
            raise NotRepresentableError(
                f"dynamic_shape_metadata_prefix_bytes M({self.dynamic_shape_metadata_prefix_bytes}) puts "
                f"metadata before the elements, expected none for a ShapeDescriptor: {self!r}"
            )
        if not self.tiles:  # minor_to_major is the dense order, innermost first
            dense = dense_strides(self.bounds, self.minor_to_major)
            return ShapeDescriptor.create(self.dimensions, self.dtype, strides=dense, offset=0,
                                          alloc_size=math.prod(self.bounds))
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
        require_native_byte_order(descriptor.dtype, "XLA's element type", repr(descriptor))
        et = element_type_of(descriptor.dtype)
        if et is None:
            raise NotRepresentableError(
                f"dtype {descriptor.dtype} has no XLA element type, expected one of "
                f"{', '.join(n for _, n in ELEMENT_TYPES.values() if n)}: {descriptor!r}"
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
                    f"minor_to_major {{{join(m2m)}}}: dimension {d} has stride {strides[d]}, expected "
                    f"{inner} with the next stride ({outer}) a multiple of it covering its size "
                    f"{shape[d]}: {descriptor!r}"
                )
            bounds[d] = outer // strides[d] if strides[d] else shape[d]
        if rank == 0 and descriptor.alloc_size != 1:
            raise NotRepresentableError(f"alloc_size is {descriptor.alloc_size}, expected 1 for a scalar: {descriptor!r}")
        return cls.create(et, shape, m2m, padded_dimensions=bounds)



_LAYOUT_FIELDS = {"has_layout", "tail_padding_alignment_in_elements", "index_primitive_type", "pointer_primitive_type",
                  "element_size_in_bits", "memory_space", "dynamic_shape_metadata_prefix_bytes"}


@dataclass(frozen=True)
class XlaTuple:
    """An XLA tuple shape, ``(f32[2]{0}, s32[])``: its element shapes (arrays or tuples)."""

    elements: Tuple[Any, ...]

    def __repr__(self) -> str:
        return "(" + ", ".join(repr(e) for e in self.elements) + ")"

    __str__ = __repr__

