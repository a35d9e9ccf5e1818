"""ShapeDescriptor: one exact, checked description of where a tensor's elements live.

Vocabulary (units live in names, design guide habit 4):

* ``shape``: logical sizes, numpy order (outermost dimension first).
* ``strides``: distance between neighbours along each dimension, in ELEMENTS.
  ``strides_in_bytes`` is the same in bytes.
* ``offset``: elements from the start of the allocation to element ``(0, ..., 0)``.
* ``alloc_size``: elements in the whole allocation, padding included.

Two representations, one canonical value
----------------------------------------
Most layouts the project deals with are *padded buffers* in the sense of the libnd4j ADR
"NdArray strides and Arm Compute" (seeds/004): the logical array sits inside a bigger
array of shape ``padded_shape[i] = shape[i] + paddings[i]``, laid out densely in ``order``,
with element 0 at index ``padding_offsets`` of the big array. Strides then follow the ADR's
*strict* rule (for order 'c')::

    strides[i - 1] == strides[i] * padded_shape[i],   strides[-1] == 1

and everything else is derived::

    strides     = dense strides of padded_shape in `order`
    offset      = sum(padding_offsets[i] * strides[i])
    alloc_size  = prod(padded_shape)

Any other strided view (a transpose, a step slice, a stride-0 broadcast, negative strides)
cannot be written that way; it is stored as an :class:`ExplicitLayout` (strides, offset,
alloc_size). :meth:`ShapeDescriptor.create` is the one factory: it always tries the padded
form first (recovering paddings from strides exactly as the ADR's pseudo-code does), so one
memory layout has one descriptor, and equal layouts compare and hash equal.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterable, Optional, Sequence, Tuple

import numpy as np

from . import shape_info as _shape_info
from .dtypes import dtype_text
from .errors import InvalidLayoutError
from .layout_rules import (
    INT64_MAX,
    ExplicitLayout,
    check_bounds,
    check_dtype,
    check_inside,
    may_overlap,
    reach,
    recover_padding,
)
from .strides import as_int, as_int_tuple, check_index, context_text, dense_strides

ORDERS = ("c", "f")

_text = context_text
_as_int_tuple = as_int_tuple


_FIELDS = ("shape", "dtype", "order", "paddings", "padding_offsets", "explicit")


@dataclass(frozen=True, init=False)
class ShapeDescriptor:
    """Shape, dtype, order and padded-buffer fields of a tensor; see the module docstring.

    The natural call is the canonicalising factory (``create`` is the same call)::

        ShapeDescriptor((2, 2, 5, 5), "float32")                       # dense, order 'c'
        ShapeDescriptor((2, 3), "float32", paddings=(1, 2), padding_offsets=(0, 1))
        ShapeDescriptor((3, 2), "float32", strides=(1, 3))             # any strided view

    Whatever the call, one memory layout gives one value: equal layouts compare and hash
    equal. The stored fields are ``shape, dtype, order, paddings, padding_offsets`` and
    ``explicit`` (an :class:`ExplicitLayout`, or None for a padded buffer).
    """

    shape: Tuple[int, ...]
    dtype: np.dtype
    order: str
    paddings: Tuple[int, ...]
    padding_offsets: Tuple[int, ...]
    explicit: Optional[ExplicitLayout]

    # ------------------------------------------------------------------ construction
    def __init__(
        self,
        shape: Iterable[int],
        dtype: Any = "float32",
        order: Optional[str] = "c",
        *,
        strides: Optional[Iterable[int]] = None,
        offset: int = 0,
        alloc_size: Optional[int] = None,
        paddings: Optional[Iterable[int]] = None,
        padding_offsets: Optional[Iterable[int]] = None,
    ) -> None:
        """The one canonicalising factory (see :meth:`create` for the rules)."""
        fields = _canonical_fields(shape, dtype, order, strides, offset, alloc_size, paddings, padding_offsets)
        for name, value in zip(_FIELDS, fields):
            object.__setattr__(self, name, value)
        self._check()

    @classmethod
    def create(cls, shape: Iterable[int], dtype: Any = "float32", order: Optional[str] = "c",
               **layout: Any) -> "ShapeDescriptor":
        """The one canonicalising factory; ``ShapeDescriptor(...)`` is the same call.

        Either give ``paddings``/``padding_offsets`` (a libnd4j padded buffer), or
        ``strides``/``offset``/``alloc_size`` (any strided view, all in elements), not both.
        With strides, ``order`` is only a preference: the strides decide. A layout that is a
        padded buffer in the other order gets that order, so one layout has one descriptor.
        """
        return cls(shape, dtype, order, **layout)

    @classmethod
    def dense(cls, shape: Iterable[int], dtype: Any = "float32") -> "ShapeDescriptor":
        """A dense C-order buffer of ``shape`` and ``dtype``: the value ``create(shape, dtype)``
        gives, made without the general canonicalisation where ``shape`` is a tuple of plain
        ints >= 0 (a model load wraps every constant this way; anything else goes through
        :meth:`create`, whose checks say what is wrong)."""
        if type(shape) is tuple and set(map(type, shape)) <= _INT and min(shape, default=0) >= 0:
            dt = check_dtype(dtype, lambda: f"shape={shape!r}")
            if cls is ShapeDescriptor:
                return _dense(shape, dt)
            zeros = (0,) * len(shape)
            return cls._from_fields(shape, dt, "c", zeros, zeros)
        return cls.create(shape, dtype)

    @classmethod
    def _from_fields(cls, shape: Tuple[int, ...], dtype: np.dtype, order: str, paddings: Tuple[int, ...],
                     padding_offsets: Tuple[int, ...], explicit: Optional[ExplicitLayout] = None) -> "ShapeDescriptor":
        """A value from already canonical fields (checked, not canonicalised)."""
        self = cls.__new__(cls)
        for name, value in zip(_FIELDS, (shape, dtype, order, paddings, padding_offsets, explicit)):
            object.__setattr__(self, name, value)
        self._check()
        return self

    def _check(self) -> None:
        rank = len(self.shape)
        if self.order not in ORDERS:
            raise InvalidLayoutError(f"order must be 'c' or 'f', got {self.order!r}: {self._fields_text()}")
        for field in ("paddings", "padding_offsets"):
            values = getattr(self, field)
            if len(values) != rank:
                raise InvalidLayoutError(
                    f"{field} has {len(values)} entries but shape has rank {rank}: "
                    f"shape={self.shape}, {field}={values}"
                )
        for i, (p, o) in enumerate(zip(self.paddings, self.padding_offsets)):
            if p < 0:
                raise InvalidLayoutError(f"paddings[{i}] is {p}, expected >= 0: {self._fields_text()}")
            if not 0 <= o <= p:
                raise InvalidLayoutError(
                    f"padding_offsets[{i}] is {o}, expected 0 <= padding_offsets[{i}] <= paddings[{i}] = {p}: "
                    f"{self._fields_text()}"
                )
        if self.explicit is not None:
            if any(self.paddings) or any(self.padding_offsets):
                raise InvalidLayoutError(f"an explicit layout carries no paddings: {self._fields_text()}")
            if len(self.explicit.strides) != rank:
                raise InvalidLayoutError(
                    f"strides has {len(self.explicit.strides)} entries but shape has rank {rank}: "
                    f"shape={self.shape}, strides={self.explicit.strides}"
                )
            check_inside(self.shape, self.explicit, self._fields_text)
        check_bounds(self.shape, self.dtype.itemsize, self.strides, self.alloc_size, self._fields_text)

    def _fields_text(self) -> str:
        """The stored fields, for error messages (safe on a value that failed its checks)."""
        return (f"ShapeDescriptor(shape={self.shape}, dtype={self.dtype}, order={self.order!r}, "
                f"paddings={self.paddings}, padding_offsets={self.padding_offsets}, explicit={self.explicit})")

    # ------------------------------------------------------------------ derived facts
    # Computed once per value and kept beside its fields (a frozen value never changes; the
    # cache is not a field, so equality and hashing stay those of the layout): a model load
    # asks a buffer's strides and sizes thousands of times.
    @property
    def rank(self) -> int:
        return len(self.shape)

    @cached_property
    def size(self) -> int:
        """Number of logical elements."""
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @cached_property
    def padded_shape(self) -> Tuple[int, ...]:
        """shape + paddings; for an explicit layout, just the shape."""
        return tuple(n + p for n, p in zip(self.shape, self.paddings))

    @cached_property
    def strides(self) -> Tuple[int, ...]:
        if self.explicit is not None:
            return self.explicit.strides
        return dense_strides(self.padded_shape, self.order)

    @cached_property
    def strides_in_bytes(self) -> Tuple[int, ...]:
        return tuple(s * self.itemsize for s in self.strides)

    @cached_property
    def offset(self) -> int:
        if self.explicit is not None:
            return self.explicit.offset
        return sum(o * s for o, s in zip(self.padding_offsets, self.strides))

    @cached_property
    def offset_in_bytes(self) -> int:
        return self.offset * self.itemsize

    @cached_property
    def alloc_size(self) -> int:
        if self.explicit is not None:
            return self.explicit.alloc_size
        return math.prod(self.padded_shape)

    @cached_property
    def alloc_size_in_bytes(self) -> int:
        return self.alloc_size * self.itemsize

    @property
    def has_padded_buffer(self) -> bool:
        """libnd4j's ARRAY_HAS_PADDED_BUFFER: strides follow the strict rule over a bigger buffer."""
        return any(self.paddings)

    @property
    def ews(self) -> int:
        """libnd4j's element-wise stride: the constant distance between consecutive elements
        visited in ``order``, or 0 when there is none (a padded buffer, a transpose...).
        Dimensions of size 1 are ignored, as their stride never matters."""
        if self.size <= 1:
            return 1
        pairs = [(s, d) for n, s, d in zip(self.shape, self.strides, dense_strides(self.shape, self.order)) if n > 1]
        # The fastest-moving dimension of size > 1 has dense stride 1, so its stride is the candidate.
        candidate = min(pairs, key=lambda pair: pair[1])[0]
        if candidate > 0 and all(s == candidate * d for s, d in pairs):
            return candidate
        return 0

    def is_contiguous(self, order: Optional[str] = None) -> bool:
        """Dense in ``order`` (default: the descriptor's own), as numpy's flags judge it:
        strides of size-1 dimensions are ignored; offset and allocation size are not looked at."""
        order = self.order if order is None else order.lower()
        if order not in ORDERS:
            raise InvalidLayoutError(f"order must be 'c' or 'f', got {order!r}: {self!r}")
        if self.size == 0:
            return True
        dense = dense_strides(self.shape, order)
        return all(s == d for n, s, d in zip(self.shape, self.strides, dense) if n > 1)

    @cached_property
    def overlaps(self) -> bool:
        """True when two logical elements may share an address (stride-0 broadcasts,
        overlapping strides). Exact up to 2**20 elements, conservative above."""
        return may_overlap(self.shape, self.strides)

    def element_offset(self, index: Sequence[int]) -> int:
        """Elements from the start of the allocation to element ``index``."""
        index = check_index(index, self.shape, self.__repr__)
        return self.offset + sum(e * s for e, s in zip(index, self.strides))

    # ------------------------------------------------------------------ libnd4j shapeInfo
    def to_shape_info(self) -> Tuple[int, ...]:
        """libnd4j's ``[rank, shape..., strides..., extra, ews, order]`` (ndarray.shape_info)."""
        return _shape_info.encode(self.shape, self.strides, self.dtype, self.order,
                                  padded=self.has_padded_buffer, ews=self.ews, context=self.__repr__)

    @classmethod
    def from_shape_info(cls, info: Sequence[int], alloc_size: Optional[int] = None,
                        offset: int = 0) -> "ShapeDescriptor":
        """The descriptor of a libnd4j shapeInfo; ``alloc_size`` and ``offset`` live outside it
        (libnd4j keeps them in the NDArray), and the paddings are recovered from them.

        Without ``alloc_size``, a shapeInfo flagged ARRAY_HAS_PADDED_BUFFER is the smallest
        padded buffer holding its elements (:func:`ndarray.shape_info.padded_alloc_size`), so
        ``from_shape_info(d.to_shape_info(), d.alloc_size, d.offset) == d`` always, and
        without them for offset 0 and no padding after the outermost dimension; a flag its
        strides cannot explain raises InvalidLayoutError saying to give ``alloc_size``."""
        fields = _shape_info.decode(info)
        given = alloc_size is not None
        if not given and fields.padded:
            alloc_size = _shape_info.padded_alloc_size(fields, as_int(offset, "offset"))
        d = cls(fields.shape, fields.dtype, fields.order, strides=fields.strides, offset=offset,
                alloc_size=alloc_size)
        _shape_info.check_against(fields, d.has_padded_buffer, d.ews, alloc_size, repr(d), given)
        return d

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        # Compact, CuTe-like: dtype[shape]:(strides) +offset /alloc, then padding and order
        # (a dtype of the other byte order prints as numpy's code, '>f4').
        text = (
            f"ShapeDescriptor({dtype_text(self.dtype)}[{','.join(map(str, self.shape))}]"
            f":({','.join(map(str, self.strides))}) +{self.offset} /{self.alloc_size} {self.order}"
        )
        if self.has_padded_buffer:
            text += f" paddings=({','.join(map(str, self.paddings))})@({','.join(map(str, self.padding_offsets))})"
        return text + ")"




@functools.lru_cache(maxsize=1024)
def _dense(shape: Tuple[int, ...], dtype: np.dtype) -> "ShapeDescriptor":
    """ShapeDescriptor.dense's value, one per (shape, dtype): a frozen value is safe to share,
    and a model's constants repeat a few shapes (its blocks) many times."""
    zeros = (0,) * len(shape)
    size = math.prod(shape)
    if not size or size > INT64_MAX or size * dtype.itemsize > INT64_MAX:  # _check's general path says what is wrong
        return ShapeDescriptor._from_fields(shape, dtype, "c", zeros, zeros)
    # what _check finds of these fields: order "c", no padding, and (each dense stride and the
    # allocation at most ``size`` elements) bounds within int64 once the bytes are
    self = ShapeDescriptor.__new__(ShapeDescriptor)
    for name, value in zip(_FIELDS, (shape, dtype, "c", zeros, zeros, None)):
        object.__setattr__(self, name, value)
    self.__dict__["size"] = size  # (the cached property's value, known here)
    return self


_INT = frozenset((int,))


def padded_view(shape: Tuple[int, ...], dtype: np.dtype, order: str, strides: Tuple[int, ...], offset: int,
                alloc_size: int) -> Optional["ShapeDescriptor"]:
    """``create(shape, dtype, order, strides=strides, offset=offset, alloc_size=alloc_size)``
    for a view with at least one element whose layout is a padded buffer in ``order`` (its
    fields read off by :func:`recover_padding`, the factory's first candidate, without its
    general checks: such a layout lies inside its allocation by construction), else None
    (the factory decides). ``shape``, ``strides`` (elements), ``offset`` and ``alloc_size``:
    Python ints as a numpy view of an allocation gives them, ``order`` 'c' or 'f'."""
    size = math.prod(shape)
    padded = recover_padding(shape, strides, offset, alloc_size, order) if size else None
    if padded is None:
        return None
    dt = check_dtype(dtype, lambda: f"shape={shape!r}")
    if order not in ORDERS or offset < 0 or alloc_size * dt.itemsize > INT64_MAX:  # _check says what is wrong
        return ShapeDescriptor._from_fields(shape, dt, order, *padded)
    # what _check finds of recover_padding's fields (rank entries, 0 <= offset <= padding, and
    # every size, stride and the allocation within ``alloc_size`` elements), and the derived
    # facts they give back: the strides, offset and allocation size the view was read off
    # (the padded box's dense strides, the offset's mixed-radix digits), no overlap (a padded
    # buffer's strides clear every inner extent); tests/test_descriptor.py holds it equal
    self = ShapeDescriptor.__new__(ShapeDescriptor)
    for name, value in zip(_FIELDS, (shape, dt, order, *padded, None)):
        object.__setattr__(self, name, value)
    self.__dict__.update(size=size, strides=tuple(strides), offset=offset, alloc_size=alloc_size, overlaps=False)
    return self


def _canonical_fields(shape: Any, dtype: Any, order: Any, strides: Any, offset: Any, alloc_size: Any,
                      paddings: Any, padding_offsets: Any) -> Tuple[Any, ...]:
    """The stored fields of the one descriptor of a layout (ShapeDescriptor's factory)."""
    def context() -> str:
        return (f"shape={shape!r}, strides={strides!r}, offset={offset!r}, alloc_size={alloc_size!r}, "
                f"paddings={paddings!r}, padding_offsets={padding_offsets!r}")

    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        shape = (shape,)  # as numpy: ShapeDescriptor(5) is shape (5,)
    shape_t = _as_int_tuple(shape, "shape", context)
    dtype_n = check_dtype(dtype, context)
    if order is not None and (not isinstance(order, str) or order.lower() not in ORDERS):
        raise InvalidLayoutError(f"order must be 'c' or 'f', got {order!r}: {_text(context)}")
    preferred = "c" if order is None else order.lower()
    orders = (preferred, "f" if preferred == "c" else "c")
    for i, n in enumerate(shape_t):
        if n < 0:
            raise InvalidLayoutError(f"shape[{i}] is {n}, expected a size >= 0: {_text(context)}")
    check_bounds(shape_t, dtype_n.itemsize, (), None, context)

    if strides is None and offset == 0 and alloc_size is None:
        rank = len(shape_t)
        pads = (0,) * rank if paddings is None else _as_int_tuple(paddings, "paddings", context)
        offs = (0,) * rank if padding_offsets is None else _as_int_tuple(padding_offsets, "padding_offsets", context)
        return shape_t, dtype_n, orders[0], pads, offs, None

    if paddings is not None or padding_offsets is not None:
        raise InvalidLayoutError(
            f"give either paddings/padding_offsets or strides/offset/alloc_size, not both: {_text(context)}"
        )
    if strides is None:
        strides_t = dense_strides(shape_t, orders[0])
    else:
        strides_t = _as_int_tuple(strides, "strides", context)
        if len(strides_t) != len(shape_t):
            raise InvalidLayoutError(
                f"strides has {len(strides_t)} entries but shape has rank {len(shape_t)}: "
                f"shape={shape_t}, strides={strides_t}"
            )
    offset = as_int(offset, "offset", context)
    _, high = reach(shape_t, strides_t)
    if alloc_size is None:
        alloc_size = 0 if math.prod(shape_t) == 0 else offset + high + 1
    alloc_size = as_int(alloc_size, "alloc_size", context)
    layout = ExplicitLayout(strides_t, offset, alloc_size)
    check_inside(shape_t, layout, context)
    check_bounds(shape_t, dtype_n.itemsize, strides_t, alloc_size, context)
    for candidate in orders:
        padded = recover_padding(shape_t, strides_t, offset, alloc_size, candidate)
        if padded is not None:
            return shape_t, dtype_n, candidate, padded[0], padded[1], None
    zeros = (0,) * len(shape_t)
    return shape_t, dtype_n, orders[0], zeros, zeros, layout
