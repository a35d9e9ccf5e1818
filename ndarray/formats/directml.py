"""DirectML buffer tensors: ``DML_BUFFER_TENSOR_DESC`` (sizes + strides) and its size rule.

A DirectML buffer tensor is described by (seeds/000, the DirectML docs):

* ``DataType``: a ``DML_TENSOR_DATA_TYPE_*`` value;
* ``Sizes``: logical sizes, outermost first, always {N, C, H, W} (4-D) or {N, C, D, H, W}
  (5-D) for operators whose axes have meaning; lower-rank data gets leading 1s
  ("HW" -> {1, 1, H, W}); 1 to 8 dimensions; a size of 0 is invalid;
* ``Strides`` (optional): in ELEMENTS, not bytes, in the same order as ``Sizes``; omitted
  means packed NCHW ("implicit strides"); NHWC and other layouts are NCHW-ordered sizes
  with permuted strides; stride 0 broadcasts, strides larger than the packed ones pad;
* ``TotalTensorSizeInBytes``: at least ``DMLCalcBufferTensorSize`` (see
  :func:`calc_buffer_tensor_size`).

So DirectML's (sizes, strides) is numpy's (shape, element strides) with unsigned 32-bit
entries, no offset (the offset of a buffer lives in the binding, DML_BUFFER_BINDING) and
no size-0 dimensions. :meth:`BufferTensorDesc.to_shape_descriptor` and
:meth:`BufferTensorDesc.from_shape_descriptor` translate; the second raises
NotRepresentableError for numpy layouts DirectML cannot express.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from ..array import NdArray
from ..descriptor import ShapeDescriptor
from ..errors import ArgumentTypeError, InvalidLayoutError, NotRepresentableError
from ..strides import as_int
from .directml_rules import (
    _UINT32_MAX,
    DATA_TYPES,
    MAX_DIMENSION_COUNT,
    _check_sizes_strides,
    _numpy_dtype,
    _as_tuple,
    _short,
    calc_buffer_tensor_size,
    calculate_strides,
    data_type_name,
    element_size_in_bytes,
    index_of_last_element,
    nhwc_strides,
    packed_strides,
)

__all__ = [
    "DATA_TYPES",
    "MAX_DIMENSION_COUNT",
    "BufferTensorDesc",
    "data_type_name",
    "element_size_in_bytes",
    "packed_strides",
    "nhwc_strides",
    "calculate_strides",
    "index_of_last_element",
    "calc_buffer_tensor_size",
]

# --------------------------------------------------------------------------- descriptor


@dataclass(frozen=True)
class BufferTensorDesc:
    """``DML_BUFFER_TENSOR_DESC`` as a value: data type, sizes and optional element strides
    (both outermost first, DirectML order), and ``TotalTensorSizeInBytes``.

    ``BufferTensorDesc("FLOAT32", (1, 1, 3, 5))`` is packed NCHW with implicit strides;
    ``strides=(15, 1, 5, 1)`` on the same sizes is NHWC. ``data_type`` is stored as the full
    DirectML name. ``total_tensor_size_in_bytes`` defaults to the minimum
    (:func:`calc_buffer_tensor_size`) and may be larger, never smaller.

    Unlike ShapeDescriptor there is no separate ``create``: the constructor mirrors the C
    struct field by field, so ``__post_init__`` canonicalises (tuples of ints, the full
    data type name, the default total size) and then checks.
    """

    data_type: str
    sizes: tuple[int, ...]
    strides: Optional[tuple[int, ...]] = None  # in ELEMENTS; None = packed (nullptr)
    total_tensor_size_in_bytes: Optional[int] = None

    def __post_init__(self) -> None:
        name = data_type_name(self.data_type)
        sizes, strides = _check_sizes_strides(self.sizes, self.strides)
        minimum = calc_buffer_tensor_size(name, sizes, strides)
        total = self.total_tensor_size_in_bytes
        if total is None:
            total = minimum
        else:
            context = (
                f"data_type={_short(name)}, sizes={sizes}, strides={strides}, "
                f"total_tensor_size_in_bytes={total!r}"
            )
            total = as_int(total, "total_tensor_size_in_bytes", context)
            if total < minimum:
                raise InvalidLayoutError(
                    f"total_tensor_size_in_bytes is {total} but expected >= {minimum} "
                    f"(DMLCalcBufferTensorSize): {context}"
                )
        object.__setattr__(self, "data_type", name)
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "strides", strides)
        object.__setattr__(self, "total_tensor_size_in_bytes", total)

    # ------------------------------------------------------------------ derived facts
    @property
    def _total(self) -> int:
        """total_tensor_size_in_bytes, never None after __post_init__."""
        assert self.total_tensor_size_in_bytes is not None, f"unset total size: {self!r}"
        return self.total_tensor_size_in_bytes

    @property
    def dimension_count(self) -> int:
        return len(self.sizes)

    rank = dimension_count

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype of the elements."""
        return _numpy_dtype(self.data_type)

    @property
    def element_size_in_bytes(self) -> int:
        return self.dtype.itemsize

    @property
    def effective_strides(self) -> tuple[int, ...]:
        """``strides``, or the packed strides they default to when omitted."""
        return self.strides if self.strides is not None else packed_strides(self.sizes)

    @property
    def element_count(self) -> int:
        """Logical elements: prod(sizes)."""
        return math.prod(self.sizes)

    @property
    def index_of_last_element(self) -> int:
        return index_of_last_element(self.sizes, self.strides)

    @property
    def minimum_size_in_bytes(self) -> int:
        """DMLCalcBufferTensorSize for this description."""
        return calc_buffer_tensor_size(self.data_type, self.sizes, self.strides)

    @property
    def is_packed(self) -> bool:
        """Every element has its own offset and there is no gap: the strides of all
        dimensions of size > 1 are the packed ones (size-1 strides never matter)."""
        return all(
            s == p for n, s, p in zip(self.sizes, self.effective_strides, packed_strides(self.sizes)) if n > 1
        )

    @property
    def is_broadcast(self) -> bool:
        """Some dimension of size > 1 has stride 0 (its elements repeat)."""
        return any(s == 0 and n > 1 for n, s in zip(self.sizes, self.effective_strides))

    def element_offset(self, index: Sequence[int]) -> int:
        """Offset in elements of element ``index``: ``dot(index, strides)``.

        DHW {2, 2, 3} with strides {6, 3, 1}: element H at (1, 0, 1) is at 7.
        """
        index = _as_tuple(index, "index")
        if len(index) != self.rank:
            raise InvalidLayoutError(
                f"index has {len(index)} entries but sizes has rank {self.rank}: index={index}, {self!r}"
            )
        for i, (e, n) in enumerate(zip(index, self.sizes)):
            if not 0 <= e < n:
                raise InvalidLayoutError(f"index[{i}] is {e} but expected 0 <= index[{i}] < {n}: index={index}, {self!r}")
        return sum(e * s for e, s in zip(index, self.effective_strides))

    def element_offsets(self) -> np.ndarray:
        """int64 array of shape ``sizes``: the element offset of every element."""
        offsets = np.zeros(self.sizes, dtype=np.int64)
        for axis, (n, s) in enumerate(zip(self.sizes, self.effective_strides)):
            shape = [1] * self.rank
            shape[axis] = n
            offsets += (np.arange(n, dtype=np.int64) * s).reshape(shape)
        return offsets

    # ------------------------------------------------------------------ transformations
    def expand_to_rank(self, rank: int) -> "BufferTensorDesc":
        """Pad ``sizes`` with leading 1s up to ``rank`` ("HW" -> {1, 1, H, W}).

        Implicit strides stay implicit. Explicit strides get, for each new size-1
        dimension, the extent of the tensor ``index_of_last_element + 1``: the value a packed
        layout would have there ({3, 5}:{5, 1} -> {1, 1, 3, 5}:{15, 15, 5, 1}); a size-1
        dimension never moves, so any value would address the same elements.
        """
        if rank < self.rank:
            raise InvalidLayoutError(f"rank is {rank} but expected >= the current rank {self.rank}: {self!r}")
        if rank > MAX_DIMENSION_COUNT:
            raise NotRepresentableError(
                f"rank is {rank} but DirectML tensors have at most {MAX_DIMENSION_COUNT} dimensions: {self!r}"
            )
        extra = rank - self.rank
        strides = None
        if self.strides is not None:
            strides = (self.index_of_last_element + 1,) * extra + self.strides
        return BufferTensorDesc(self.data_type, (1,) * extra + self.sizes, strides, self.total_tensor_size_in_bytes)

    def to_4d_or_5d(self) -> "BufferTensorDesc":
        """The 4-D or 5-D description most DirectML operators require: ranks 1-4 are padded
        with leading 1s to 4-D (NCHW), 5-D is kept (NCDHW). Rank 6-8 is a valid DirectML
        tensor that such operators cannot take: NotRepresentableError."""
        if self.rank > 5:
            raise NotRepresentableError(
                f"sizes has rank {self.rank} but DirectML operators need 4-D or 5-D tensors "
                f"(lower ranks are padded with leading 1s; higher ranks cannot be): {self!r}"
            )
        return self if self.rank >= 4 else self.expand_to_rank(4)

    # ------------------------------------------------------------------ ShapeDescriptor
    def to_shape_descriptor(self, alloc_size_in_bytes: Optional[int] = None) -> ShapeDescriptor:
        """The same layout as an ``ndarray.ShapeDescriptor``: shape = sizes, strides =
        effective strides (elements), offset 0, alloc_size = total_tensor_size_in_bytes
        (or ``alloc_size_in_bytes``) // element size. Stride 0 gives a broadcast
        (overlapping, hence read-only) view; NHWC strides on NCHW sizes give the permuted
        view of an NHWC buffer."""
        if alloc_size_in_bytes is None:
            alloc_size_in_bytes = self._total
        return ShapeDescriptor.create(
            self.sizes,
            self.dtype,
            "c",
            strides=self.effective_strides,
            offset=0,
            alloc_size=alloc_size_in_bytes // self.element_size_in_bytes,
        )

    @classmethod
    def from_shape_descriptor(cls, descriptor: Any) -> "BufferTensorDesc":
        """DirectML description of an ``ndarray.ShapeDescriptor`` (or of an NdArray's or a
        numpy array's, wrapped without copying).

        Sizes and strides keep numpy's order and rank (a 0-d array becomes sizes (1,)); use
        :meth:`to_4d_or_5d` for operators. Packed layouts get implicit strides (None), so one
        layout has one description. TotalTensorSizeInBytes is the larger of the allocation
        and DirectML's minimum (DirectML rounds up to 4 bytes; the real buffer may need it).

        NotRepresentableError for valid numpy layouts DirectML cannot express: an offset
        (element 0 not at the start of the allocation: DirectML puts that offset in the
        binding, DML_BUFFER_BINDING::Offset, not in the tensor description), negative
        strides, size-0 dimensions, more than 8 dimensions, values above 2**32 - 1, and
        dtypes without a DirectML type.
        """
        if isinstance(descriptor, np.ndarray):
            descriptor = NdArray.from_numpy(descriptor)
        d = descriptor.descriptor if isinstance(descriptor, NdArray) else descriptor
        if not isinstance(d, ShapeDescriptor):
            raise ArgumentTypeError(
                f"descriptor is a {type(descriptor).__name__} but expected an ndarray.ShapeDescriptor, "
                f"an NdArray or a numpy array"
            )
        try:
            name = data_type_name(d.dtype)
        except NotRepresentableError as e:
            raise NotRepresentableError(f"{e}: {d!r}") from None
        if d.rank > MAX_DIMENSION_COUNT:
            raise NotRepresentableError(
                f"shape has rank {d.rank} but DirectML tensors have at most {MAX_DIMENSION_COUNT} dimensions: {d!r}"
            )
        for field, values, minimum in (("shape", d.shape, 1), ("strides", d.strides, 0)):
            for i, v in enumerate(values):
                if not minimum <= v <= _UINT32_MAX:
                    raise NotRepresentableError(
                        f"{field}[{i}] is {v} but DirectML {'sizes' if field == 'shape' else 'strides'} "
                        f"must be {minimum}..{_UINT32_MAX} (unsigned 32-bit"
                        f"{', no size-0 dimensions' if minimum else ''}): {d!r}"
                    )
        if d.offset != 0:
            raise NotRepresentableError(
                f"offset is {d.offset} elements ({d.offset_in_bytes} bytes) but DML_BUFFER_TENSOR_DESC has no "
                f"offset (expected 0; bind the buffer at DML_BUFFER_BINDING::Offset = {d.offset_in_bytes} "
                f"bytes instead): {d!r}"
            )
        sizes = d.shape if d.rank else (1,)
        strides: Optional[tuple[int, ...]] = d.strides if d.rank else (1,)
        if all(s == p for n, s, p in zip(sizes, strides or (), packed_strides(sizes)) if n > 1):
            strides = None
        minimum = calc_buffer_tensor_size(name, sizes, strides)
        return cls(name, sizes, strides, max(minimum, d.alloc_size_in_bytes))

    def wrap(self, buffer: np.ndarray) -> NdArray:
        """An ``ndarray.NdArray`` over ``buffer`` (a C-contiguous numpy array of any dtype)
        described by this tensor, without copying; its allocation is the first
        min(buffer bytes, total_tensor_size_in_bytes) bytes. Broadcast (overlapping)
        descriptions give a read-only NdArray.

        Only the elements must fit: ``(index_of_last_element + 1) * element size`` bytes.
        DirectML itself wants a bound buffer of at least total_tensor_size_in_bytes
        (rounded up to 4 bytes); a numpy view does not need that slack.
        """
        if not isinstance(buffer, np.ndarray):
            raise ArgumentTypeError(f"buffer must be a C-contiguous numpy array, got {type(buffer).__name__}: {self!r}")
        if not buffer.flags.c_contiguous:
            raise InvalidLayoutError(
                f"buffer must be a C-contiguous numpy array, got {type(buffer).__name__}"
                f"{'' if not isinstance(buffer, np.ndarray) else ' with strides ' + str(buffer.strides)}: {self!r}"
            )
        raw = buffer.reshape(-1).view(np.uint8)
        needed = (self.index_of_last_element + 1) * self.element_size_in_bytes
        if raw.nbytes < needed:
            raise InvalidLayoutError(
                f"buffer has {raw.nbytes} bytes but the elements reach byte {needed} "
                f"(index_of_last_element + 1 = {self.index_of_last_element + 1} elements of "
                f"{self.element_size_in_bytes} bytes; expected at least that many): {self!r}"
            )
        alloc = min(raw.nbytes, self._total)
        alloc -= alloc % self.element_size_in_bytes
        return NdArray(raw, self.to_shape_descriptor(alloc), readonly=not buffer.flags.writeable)

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        # DirectML's own brace notation: FLOAT32{1,1,3,5}:{15,1,5,1}, or "packed" for nullptr.
        sizes = "{" + ",".join(map(str, self.sizes)) + "}"
        strides = "packed" if self.strides is None else "{" + ",".join(map(str, self.strides)) + "}"
        return f"BufferTensorDesc({_short(self.data_type)}{sizes}:{strides} {self.total_tensor_size_in_bytes}B)"
