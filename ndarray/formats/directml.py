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
from typing import Any, Dict, Iterable, Optional, Sequence, Tuple

import numpy as np

from ..array import NdArray
from ..descriptor import ShapeDescriptor
from ..errors import ArgumentTypeError, InvalidLayoutError, NotRepresentableError
from ..strides import as_int, dense_strides

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

_PREFIX = "DML_TENSOR_DATA_TYPE_"

#: Short DirectML data type name -> numpy dtype, i.e. every DML_TENSOR_DATA_TYPE with a
#: whole-byte element (DirectMLX.h's DMLCalcBufferTensorSize sizes exactly these).
DATA_TYPES: Dict[str, np.dtype] = {
    "FLOAT32": np.dtype(np.float32),
    "FLOAT16": np.dtype(np.float16),
    "UINT32": np.dtype(np.uint32),
    "UINT16": np.dtype(np.uint16),
    "UINT8": np.dtype(np.uint8),
    "INT32": np.dtype(np.int32),
    "INT16": np.dtype(np.int16),
    "INT8": np.dtype(np.int8),
    "FLOAT64": np.dtype(np.float64),
    "UINT64": np.dtype(np.uint64),
    "INT64": np.dtype(np.int64),
}
# Real DirectML types (DML_TARGET_VERSION >= 0x6300) with 4-bit elements: valid, but there
# is no numpy dtype and no element address for them, so this library cannot express them.
_SUB_BYTE_TYPES = ("UINT4", "INT4")

#: DML_TENSOR_DIMENSION_COUNT_MAX1: DimensionCount ranges from 1 to 8.
MAX_DIMENSION_COUNT = 8
_UINT32_MAX = 2**32 - 1


# --------------------------------------------------------------------------- data types


def data_type_name(data_type: Any) -> str:
    """Canonical ``DML_TENSOR_DATA_TYPE_*`` name for ``data_type``.

    Accepts the full DirectML name ("DML_TENSOR_DATA_TYPE_FLOAT32"), the short one
    ("FLOAT32", any case) and numpy dtypes (np.float32, np.dtype("f4"), "float32", "<f4").

    InvalidLayoutError: not a data type at all (names the value and the accepted names).
    NotRepresentableError: a real type DirectML or this library cannot express (numpy
    bool/complex/big-endian; DirectML's 4-bit UINT4/INT4).
    """
    accepted = f"one of {', '.join(DATA_TYPES)} (with or without the {_PREFIX} prefix) or the matching numpy dtype"
    if isinstance(data_type, str):
        key = data_type.upper()
        if key.startswith(_PREFIX):
            key = key[len(_PREFIX):]
        if key in DATA_TYPES:
            return _PREFIX + key
        if key in _SUB_BYTE_TYPES:
            raise NotRepresentableError(
                f"data_type is {data_type!r}, a 4-bit DirectML type: elements smaller than a byte "
                f"have no numpy dtype or element offset; expected {accepted}"
            )
    if data_type is None or isinstance(data_type, (bool, int, float)):
        # np.dtype(None) is float64 and np.dtype(int) works on the *type*: refuse values.
        raise ArgumentTypeError(f"data_type is {data_type!r} but expected {accepted}")
    try:
        dt = np.dtype(data_type)
    except (TypeError, ValueError):
        error = InvalidLayoutError if isinstance(data_type, str) else ArgumentTypeError
        raise error(f"data_type is {data_type!r} but expected {accepted}") from None
    for name, candidate in DATA_TYPES.items():
        if dt == candidate:  # native byte order only: '>f4' != '<f4' on a little-endian host
            return _PREFIX + name
    raise NotRepresentableError(
        f"data_type is numpy {dt!r} ({dt.str}), which has no DirectML equivalent; expected {accepted}"
    )


def _short(name: str) -> str:
    return name[len(_PREFIX):]


def _numpy_dtype(data_type: Any) -> np.dtype:
    dtype: np.dtype = DATA_TYPES[_short(data_type_name(data_type))]
    return dtype


def element_size_in_bytes(data_type: Any) -> int:
    """Bytes per element: 8 for *64, 4 for FLOAT32/UINT32/INT32, 2 for *16, 1 for *8."""
    return _numpy_dtype(data_type).itemsize


# --------------------------------------------------------------------------- validation


def _uints(values: Iterable[Any], field: str, context: str, *, minimum: int) -> tuple[int, ...]:
    """Tuple of ints in [minimum, 2**32 - 1] (DirectML's UINT arrays)."""
    try:
        items = tuple(values)
    except TypeError:
        raise InvalidLayoutError(f"{field} is {values!r} but expected a sequence of integers: {context}") from None
    out = []
    for i, v in enumerate(items):
        n = as_int(v, f"{field}[{i}]", context)
        if not minimum <= n <= _UINT32_MAX:
            raise InvalidLayoutError(
                f"{field}[{i}] is {n} but expected {minimum} <= {field}[{i}] <= {_UINT32_MAX} "
                f"(a DirectML UINT{', and a size of 0 is invalid' if minimum else ''}): {context}"
            )
        out.append(n)
    return tuple(out)


def _check_sizes_strides(
    sizes: Iterable[Any], strides: Optional[Iterable[Any]]
) -> tuple[tuple[int, ...], Optional[tuple[int, ...]]]:
    sizes_t = _as_tuple(sizes, "sizes")
    strides_t = None if strides is None else _as_tuple(strides, "strides")
    context = f"sizes={_plain(sizes_t)}" + ("" if strides_t is None else f", strides={_plain(strides_t)}")
    sizes_t = _uints(sizes_t, "sizes", context, minimum=1)
    if not sizes_t:
        raise InvalidLayoutError(
            f"sizes is empty but DirectML's DimensionCount must be 1..{MAX_DIMENSION_COUNT} "
            f"(a scalar is sizes=(1,)): {context}"
        )
    if len(sizes_t) > MAX_DIMENSION_COUNT:
        raise NotRepresentableError(
            f"sizes has rank {len(sizes_t)} but DirectML tensors have at most "
            f"{MAX_DIMENSION_COUNT} dimensions: {context}"
        )
    if strides_t is not None:
        if len(strides_t) != len(sizes_t):
            raise InvalidLayoutError(
                f"strides has {len(strides_t)} entries but sizes has rank {len(sizes_t)}: {context}"
            )
        strides_t = _uints(strides_t, "strides", context, minimum=0)
    return sizes_t, strides_t


def _plain(values: Tuple[Any, ...]) -> Tuple[Any, ...]:
    """For messages: numpy integers shown as plain ints ((1, 2) rather than (np.int64(1), ...))."""
    return tuple(int(v) if isinstance(v, np.integer) else v for v in values)


def _as_tuple(values: Any, field: str) -> Tuple[Any, ...]:
    if isinstance(values, (str, bytes)):
        raise InvalidLayoutError(f"{field} is {values!r} but expected a sequence of integers")
    try:
        return tuple(values)
    except TypeError:
        raise InvalidLayoutError(f"{field} is {values!r} but expected a sequence of integers") from None


# --------------------------------------------------------------------------- strides


def packed_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    """Packed (row-major, "NCHW") strides in elements: each stride is the product of the
    sizes of the lower-order dimensions, ``strides[i] = prod(sizes[i+1:])``.

    DHW {2, 2, 3} -> {6, 3, 1}; NCHW {1, 1, 3, 5} -> {15, 15, 5, 1}.
    """
    sizes, _ = _check_sizes_strides(sizes, None)
    return dense_strides(sizes, "c")


def nhwc_strides(sizes: Sequence[int]) -> tuple[int, ...]:
    """Interleaved-channel strides for NCHW-ORDERED sizes (NCW -> NWC, NCHW -> NHWC,
    NCDHW -> NDHWC), as DirectMLX's InterleavedChannel tensor policy computes them::

        C-stride = 1
        spatial strides, innermost first: stride = C-size; for i = last .. 2:
            strides[i] = stride; stride *= sizes[i]
        N-stride = product of all other sizes

    NCHW {1, 1, 3, 5} -> {15, 1, 5, 1} (seeds/000, "NHWC empacotado").
    Rank 1 is just {1}; rank 2 (N, C) is the same as packed.
    """
    sizes, _ = _check_sizes_strides(sizes, None)
    rank = len(sizes)
    if rank <= 2:
        return packed_strides(sizes)
    # innermost first: C, then the spatial dimensions from the last, then N
    return dense_strides(sizes, (1, *range(rank - 1, 1, -1), 0))


def calculate_strides(
    sizes: Sequence[int], layout: str = "NCHW", broadcast: Iterable[int] = ()
) -> tuple[int, ...]:
    """Strides for NCHW-ordered ``sizes`` in ``layout`` ("NCHW" packed, or "NHWC"
    interleaved channels; "NCDHW"/"NDHWC" are accepted as the same two layouts for 5-D),
    with the dimensions listed in ``broadcast`` given stride 0.

    As in DirectML's CalculateStrides helper, a broadcast dimension counts as size 1 when
    the other strides are computed, so the buffer holds only the distinct elements:
    2x3 broadcast along H: ``calculate_strides((2, 3), broadcast=(0,))`` -> (0, 1).
    """
    sizes, _ = _check_sizes_strides(sizes, None)
    rank = len(sizes)
    bcast = tuple(_as_tuple(broadcast, "broadcast"))
    for i, axis in enumerate(bcast):
        axis = as_int(axis, f"broadcast[{i}]", f"sizes={sizes}, broadcast={bcast}")
        if not 0 <= axis < rank:
            raise InvalidLayoutError(
                f"broadcast has entry {axis!r} but expected dimension indices 0 <= axis < {rank}: "
                f"sizes={sizes}, broadcast={bcast}"
            )
    physical = tuple(1 if i in bcast else n for i, n in enumerate(sizes))
    key = str(layout).upper()
    if key in ("NCHW", "NCDHW"):
        strides = packed_strides(physical)
    elif key in ("NHWC", "NDHWC"):
        strides = nhwc_strides(physical)
    else:
        raise InvalidLayoutError(
            f"layout is {layout!r} but expected 'NCHW' or 'NHWC' ('NCDHW'/'NDHWC' for 5-D): "
            f"sizes={sizes}"
        )
    return tuple(0 if i in bcast else s for i, s in enumerate(strides))


# --------------------------------------------------------------------------- sizes


def index_of_last_element(sizes: Sequence[int], strides: Optional[Sequence[int]] = None) -> int:
    """``dot(sizes - 1, strides)``: element offset of the last element (packed if no strides)."""
    sizes, strides = _check_sizes_strides(sizes, strides)
    if strides is None:
        return math.prod(sizes) - 1
    return sum((n - 1) * s for n, s in zip(sizes, strides))


def calc_buffer_tensor_size(
    data_type: Any, sizes: Sequence[int], strides: Optional[Sequence[int]] = None
) -> int:
    """``DMLCalcBufferTensorSize``: minimum BYTES of a buffer holding this tensor::

        IndexOfLastElement = dot(Sizes - 1, Strides)
        MinimumImpliedSizeInBytes = roundup((IndexOfLastElement + 1) * ElementSizeInBytes, 4)

    Without strides, DirectML's helper uses prod(Sizes) * ElementSizeInBytes, which is the
    same number for packed strides. The rounding to 4 is there because every buffer bound
    to DirectML must have a DWORD-aligned size: ``(bytes + 3) & ~3``.

    Differences from the C++ helper: an unknown data type raises InvalidLayoutError instead
    of returning 0, and the arithmetic is exact (the helper sums the index in a 32-bit UINT).
    Trailing padding after the last element is not counted: the padded 2x3 "ABCxxDEFxx"
    with strides {5, 1} needs (5 + 2 + 1) elements, 8 bytes as UINT8, 32 as FLOAT32.
    """
    element_size = element_size_in_bytes(data_type)
    last = index_of_last_element(sizes, strides)
    size_in_bytes = (last + 1) * element_size
    return (size_in_bytes + 3) & ~3


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
