"""Pure-Python mapping between ShapeDescriptors and ACL's tensor description.

Nothing here needs ACL: it is the arithmetic ACL's ``TensorInfo`` would do, checked on any
machine. ACL's conventions (arm_compute/core/TensorInfo.h, Dimensions.h):

* ``TensorShape`` and ``Strides`` list dimension 0 first, and dimension 0 is the innermost
  one (x): numpy's order reversed (:func:`acl_bridge.layout.to_acl_order` is the ONE place in
  the project that reverses dimension order).
* Strides are unsigned 32-bit byte counts; at most 6 dimensions; no dimension of size 0.
* A tensor with custom strides is ``TensorInfo::init(shape, 1, data_type,
  strides_in_bytes, offset_first_element_in_bytes, total_size_in_bytes)``.
* Kernels read consecutive elements along x: an x stride other than the element size is
  silently ignored by them, so it is refused here.
* ``PaddingSize`` is (top, right, bottom, left) around the x-y plane. ACL lays a padded
  tensor out as (TensorInfo::init_auto_padding / extend_padding)::

      stride_x = element_size
      stride_y = (left + x + right) * stride_x
      stride_z = (top + y + bottom) * stride_y        (higher dimensions dense on top)
      offset_first_element_in_bytes = left * stride_x + top * stride_y
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from ndarray import InvalidLayoutError, LayoutError, NdArray, NotRepresentableError, ShapeDescriptor
from ndarray.dtypes import require_native_byte_order
from ndarray.strides import as_int
from ndarray.errors import UnsupportedOptionError

from .layout import DATA_LAYOUTS, NO_PADDING, PaddingSize, to_acl_order

MAX_DIMS = 6
MAX_U32 = 2**32  # strides and sizes must stay below this many bytes

# numpy dtype -> ACL DataType name, and the quantized ACL types by numpy storage type.
_DATA_TYPES: Dict[np.dtype[Any], str] = {
    np.dtype("float32"): "F32",
    np.dtype("float16"): "F16",
    np.dtype("int32"): "S32",
    np.dtype("uint32"): "U32",
    np.dtype("int16"): "S16",
    np.dtype("uint16"): "U16",
    np.dtype("int64"): "S64",
    np.dtype("int8"): "S8",
    np.dtype("bool"): "U8",  # one byte, 0 or 1 (the logic family writes 0 / 1)
    np.dtype("uint8"): "U8",  # after bool: ACL's U8 reads back as uint8
}
_QUANTIZED_TYPES: Dict[np.dtype[Any], str] = {np.dtype("uint8"): "QASYMM8", np.dtype("int8"): "QASYMM8_SIGNED"}
# Per-channel quantization: int8 weights (symmetric, one scale per output channel) and the
# int32 bias beside them, whose scales (input scale x weight scale) ACL ignores (S32).
PER_CHANNEL_TYPE = "QSYMM8_PER_CHANNEL"
_BIAS_TYPE = "S32"
# Symmetric quantization with one scale (SymmetricQuantization): int8 is QSYMM8, int16 QSYMM16
# (the quantized LSTM's weights, cell state, peepholes and layer-norm weights)
SYMMETRIC_TYPES: Dict[np.dtype[Any], str] = {np.dtype("int8"): "QSYMM8", np.dtype("int16"): "QSYMM16"}
# bytes of one element of each ACL data type above (its numpy storage type's itemsize)
ELEMENT_BYTES: Dict[str, int] = {name: dt.itemsize for table in (_DATA_TYPES, _QUANTIZED_TYPES)
                                 for dt, name in table.items()}
ELEMENT_BYTES[PER_CHANNEL_TYPE] = 1  # int8 weights
ELEMENT_BYTES.update({name: dt.itemsize for dt, name in SYMMETRIC_TYPES.items()})

# ACL's auto_padding (TensorInfo::auto_padding): some kernels process 32 elements at a time
# and may read 32 values past the last element, hence the extra 32 on the right.
AUTO_PAD_X = 4
AUTO_PAD_EXTRA_X = 32
AUTO_PAD_Y = 4


@dataclass(frozen=True)
class AclTensorInfo:
    """What ACL's TensorInfo holds for one tensor, in ACL's order (x first)."""

    tensor_shape: Tuple[int, ...]
    strides_in_bytes: Tuple[int, ...]
    offset_first_element_in_bytes: int
    total_size_in_bytes: int
    padding: PaddingSize
    data_type: str
    data_layout: str = "NCHW"
    quantization_scale: float = 0.0
    quantization_offset: int = 0
    quantization_scales: Tuple[float, ...] = ()  # QSYMM8_PER_CHANNEL: one per output channel

    def __repr__(self) -> str:
        q = f" q=({self.quantization_scale},{self.quantization_offset})" \
            if self.data_type.startswith("QASYMM") or self.data_type in ("QSYMM8", "QSYMM16") else ""
        if self.quantization_scales:
            q = (f" q=({len(self.quantization_scales)} scales {min(self.quantization_scales):.6g}.."
                 f"{max(self.quantization_scales):.6g},0)")
        return (
            f"AclTensorInfo({self.data_type}[{','.join(map(str, self.tensor_shape))}]"
            f":({','.join(map(str, self.strides_in_bytes))})B +{self.offset_first_element_in_bytes}B"
            f" /{self.total_size_in_bytes}B {self.data_layout} {self.padding!r}{q})"
        )


@dataclass(frozen=True)
class PerChannelQuantization:
    """Symmetric quantization with one scale per output channel along numpy ``axis``: int8
    weights (ACL's QSYMM8_PER_CHANNEL) or the int32 bias beside them (ACL's S32, whose
    scales ACL ignores). The zero point is 0. Made by :func:`per_channel` (checked)."""

    scales: Tuple[float, ...]
    axis: int

    def __repr__(self) -> str:
        return (f"PerChannelQuantization({len(self.scales)} scales {min(self.scales):.6g}..{max(self.scales):.6g}, "
                f"axis={self.axis})")

    def __hash__(self) -> int:
        """The dataclass's hash of (scales, axis), made once per object: a load keys its
        descriptions by quantization, hundreds of scales hashed a dozen times otherwise."""
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash((self.scales, self.axis))
            object.__setattr__(self, "_hash", h)
        return h


@dataclass(frozen=True)
class SymmetricQuantization:
    """Symmetric quantization with one scale, zero point 0: int8 is ACL's QSYMM8, int16 its
    QSYMM16 (where ``(scale, 0)`` would be QASYMM8_SIGNED, or no type for int16). Checked
    (finite and > 0) when the tensor is described."""

    scale: float


Quantization = Union[None, Tuple[float, int], PerChannelQuantization, SymmetricQuantization]


def is_per_channel(quantization: Any) -> bool:
    """Whether ``quantization`` is per channel: a PerChannelQuantization, or ``(scales, 0)``
    whose first item is a sequence of scales."""
    if isinstance(quantization, PerChannelQuantization):
        return True
    if not isinstance(quantization, (tuple, list)) or len(quantization) != 2:
        return False
    return isinstance(quantization[0], (tuple, list, np.ndarray))


def per_channel(quantization: Any, axis: int) -> PerChannelQuantization:
    """``(scales, 0)`` checked (at least one scale, each finite and > 0; zero point 0) and tied
    to the output channel ``axis`` (numpy axis of the tensor it describes). The answer is a
    function of the values alone, so a tuple's is kept by content (a model load asks for
    each of its weights' twice: :func:`clear_description_caches` drops them)."""
    if isinstance(quantization, PerChannelQuantization):
        return PerChannelQuantization(quantization.scales, int(axis))
    if type(quantization) is tuple and type(axis) is int:
        try:
            return _per_channel_of(quantization, axis)
        except TypeError:  # unhashable content (a list, an array of scales): checked afresh below
            pass
    return _per_channel_checked(quantization, axis)


@functools.lru_cache(maxsize=1024)
def _per_channel_of(quantization: Tuple[Any, ...], axis: int) -> PerChannelQuantization:
    return _per_channel_checked(quantization, axis)


def _per_channel_checked(quantization: Any, axis: int) -> PerChannelQuantization:
    if type(quantization) is tuple and len(quantization) == 2 and type(quantization[1]) is int \
            and quantization[1] == 0 and type(quantization[0]) is tuple and quantization[0] \
            and _positive_floats(quantization[0]):
        # a reader's (floats, 0): what the checks below accept and make, without numpy's calls
        q = PerChannelQuantization(quantization[0], int(axis))
        object.__setattr__(q, "_exact", True)  # its scales' types just seen (_exact_per_channel)
        return q
    try:
        scales, offset = quantization
        values = np.asarray(scales, dtype=np.float64).reshape(-1)
        offset = int(offset)
    except (TypeError, ValueError):
        raise InvalidLayoutError(
            f"per-channel quantization must be (tuple of scales, 0), got {quantization!r}") from None
    if not values.size:
        raise InvalidLayoutError("per-channel quantization has no scales, expected one per output channel")
    bad = ~(np.isfinite(values) & (values > 0))  # one pass over hundreds of scales, not a loop
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidLayoutError(f"per-channel quantization scale [{i}] is {float(values[i])}, expected a finite number > 0")
    scales = tuple(values.tolist())
    if offset != 0:
        raise InvalidLayoutError(
            f"per-channel quantization offset is {offset}, expected 0 (symmetric, as ACL's QSYMM8_PER_CHANNEL)")
    return PerChannelQuantization(scales, int(axis))


def _positive_floats(values: Tuple[Any, ...]) -> bool:
    """Whether every value of a non-empty tuple is a float (the type itself) with 0 < value < inf:
    the test ``all(type(s) is float and 0.0 < s < math.inf for s in values)`` in builtins' own
    loops (no Python frame per scale: an int8 model's weights have hundreds). Without a NaN,
    ``min`` and ``max`` bound every value."""
    return (set(map(type, values)) == _FLOAT and not any(map(math.isnan, values))
            and min(values) > 0.0 and max(values) < math.inf)


_FLOAT = {float}


_INT8, _INT32 = np.dtype("int8"), np.dtype("int32")  # (made once: a load describes hundreds of tensors)
_PER_CHANNEL_DTYPES = (_INT8, _INT32)


def _check_per_channel_shape(q: PerChannelQuantization, shape: Sequence[int], dtype: np.dtype[Any]) -> None:
    rank = len(shape)
    if not -rank <= q.axis < rank:
        raise InvalidLayoutError(f"per-channel quantization axis is {q.axis}, expected an axis of shape {tuple(shape)}")
    extent = shape[q.axis]
    if len(q.scales) != extent:
        raise InvalidLayoutError(
            f"per-channel quantization has {len(q.scales)} scales, expected {extent} (the output-channel extent, "
            f"axis {q.axis} of shape {tuple(shape)})")
    if dtype not in _PER_CHANNEL_DTYPES:
        raise NotRepresentableError(
            f"per-channel quantization on dtype {dtype}, expected int8 weights (QSYMM8_PER_CHANNEL) or an int32 bias")


def _descriptor(obj: Union[NdArray, ShapeDescriptor]) -> ShapeDescriptor:
    if isinstance(obj, NdArray):
        return obj.descriptor
    if isinstance(obj, ShapeDescriptor):
        return obj
    raise InvalidLayoutError(f"expected an NdArray or a ShapeDescriptor, got {type(obj).__name__}")


def data_type_for(dtype: npt.DTypeLike, quantization: Any = None) -> str:
    """ACL DataType name for a numpy dtype (quantized types need (scale, offset); int8 with
    per-channel scales is QSYMM8_PER_CHANNEL; a quantized int32 (a bias) is S32)."""
    dt = np.dtype(dtype)
    require_native_byte_order(dt, "ACL's DataType")
    if quantization is not None and dt == _INT32:
        return _BIAS_TYPE
    if isinstance(quantization, SymmetricQuantization):
        if dt not in SYMMETRIC_TYPES:
            raise NotRepresentableError(f"dtype {dt} with symmetric quantization, expected int8 (QSYMM8) or int16 "
                                        f"(QSYMM16)")
        return SYMMETRIC_TYPES[dt]
    if is_per_channel(quantization):
        if dt != _INT8:
            raise NotRepresentableError(
                f"dtype {dt} with per-channel quantization, expected int8 (QSYMM8_PER_CHANNEL) or int32 (a bias)")
        return PER_CHANNEL_TYPE
    table = _QUANTIZED_TYPES if quantization is not None else _DATA_TYPES
    if dt not in table:
        expected = sorted(t.name for t in table)
        what = "quantized " if quantization is not None else ""
        raise NotRepresentableError(f"dtype {dt} has no {what}ACL data type, expected one of {expected}")
    return table[dt]


def check_quantization(quantization: Any, dtype: np.dtype[Any]) -> Tuple[float, int]:
    """(scale, offset) checked against the storage dtype's range (ACL and Arm NN alike); the
    offset by the integer rule (a bool or a float is an ArgumentTypeError, never rounded)."""
    try:
        scale, offset = quantization
        scale = float(scale)
    except (TypeError, ValueError):
        raise InvalidLayoutError(f"quantization must be (scale, offset), got {quantization!r}") from None
    offset = as_int(offset, "quantization offset", lambda: f"quantization={quantization!r}")
    if not (math.isfinite(scale) and scale > 0):
        raise InvalidLayoutError(f"quantization scale is {scale}, expected a finite number > 0")
    low, high = _integer_range(dtype)
    if not low <= offset <= high:
        raise InvalidLayoutError(
            f"quantization offset is {offset}, expected {low} <= offset <= {high} for {dtype}"
        )
    return scale, offset


@functools.lru_cache(maxsize=64)
def _integer_range(dtype: np.dtype[Any]) -> Tuple[int, int]:
    """(min, max) of ``np.iinfo(dtype)``, asked of numpy once per dtype (a quantized model's
    every tensor checks its zero point against it)."""
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def size1_strides(d: ShapeDescriptor, shape: Sequence[int], strides: List[int]) -> List[int]:
    """``strides`` (numpy order, bytes) with each dimension of size 1 given the stride a dense
    layout would, so that harmless numpy quirks (negative or odd strides on size-1 axes) do not
    block ACL; except in a C-order padded buffer (``explicit`` None: the bridge's own), whose
    size-1 strides follow ACL's layout rule and say its padding: a (1, 2, 1, 40) int8 buffer with
    8 elements of right padding has rows of 48 bytes even where a row is all of y (20.08's int8
    pooling asks for them: issue 36)."""
    if d.explicit is None and d.order == "c":
        return strides
    inner_extent = d.itemsize
    for i in range(len(shape) - 1, -1, -1):
        if shape[i] == 1:
            strides[i] = inner_extent
        inner_extent = max(inner_extent, strides[i] * shape[i])
    return strides


def acl_shape_and_strides(d: ShapeDescriptor) -> Tuple[Tuple[int, ...], Tuple[int, ...]]:
    """(tensor_shape, strides_in_bytes) in ACL order, or NotRepresentableError with the reason."""
    if d.rank > MAX_DIMS:
        raise NotRepresentableError(f"rank is {d.rank}, ACL tensors have at most {MAX_DIMS} dimensions: {d!r}")
    for i, n in enumerate(d.shape):
        if n == 0:
            raise NotRepresentableError(f"shape[{i}] is 0, ACL cannot represent a dimension of size 0: {d!r}")
    shape = d.shape or (1,)
    strides = size1_strides(d, shape, list(d.strides_in_bytes or (d.itemsize,)))
    for i, (n, s) in enumerate(zip(shape, strides)):
        if s < 0:
            raise NotRepresentableError(f"strides_in_bytes[{i}] is {s}, ACL strides are unsigned: {d!r}")
        if s == 0:
            raise NotRepresentableError(
                f"strides_in_bytes[{i}] is 0 for a dimension of size {n}: ACL broadcasts through "
                f"dimensions of size 1, not stride-0 views: {d!r}"
            )
        if s >= MAX_U32:
            raise NotRepresentableError(f"strides_in_bytes[{i}] is {s}, expected < 2**32 for ACL: {d!r}")
    if strides[-1] != d.itemsize:
        raise NotRepresentableError(
            f"the innermost stride is {strides[-1]} bytes, expected the element size {d.itemsize}: "
            f"ACL kernels read consecutive elements along x and would ignore it: {d!r}"
        )
    return to_acl_order(shape), to_acl_order(strides)


def _nested(itemsize: int, acl_shape: Sequence[int], acl_strides: Sequence[int]) -> bool:
    """Whether every dimension steps over the whole extent of the ones inside it, so that no
    element of the array sits between two rows (a permuted view interleaves them)."""
    extent = itemsize
    for n, s in zip(acl_shape, acl_strides):
        if n == 1:
            continue
        if s < extent:
            return False
        extent = s * (n - 1) + extent
    return True


# Right padding (elements) of each row of a 1-D tensor that has bottom rows: more than any ACL
# kernel's x steps ask for (auto_padding's 36 included).
ROW_1D_RIGHT = 64


def _available_padding(d: ShapeDescriptor, acl_shape: Sequence[int], acl_strides: Sequence[int]) -> PaddingSize:
    """Padding the buffer offers around the x-y plane, read from strides and offset the way
    ACL's layout rule (module docstring) writes them; 0 where the strides do not say, and 0
    where bytes between rows may hold other elements of the array (padding is only ever
    bytes that belong to no element)."""
    es = d.itemsize
    if d.explicit is not None and not _nested(es, acl_shape, acl_strides):
        return PaddingSize()
    offset, total = d.offset_in_bytes, d.alloc_size_in_bytes
    x = acl_shape[0]
    if len(acl_shape) == 1:
        # the tail is right padding, or past ROW_1D_RIGHT elements whole rows below (padded_descriptor)
        left, tail = offset // es, max(0, (total - offset) // es - x)
        if tail <= ROW_1D_RIGHT:
            return PaddingSize(left=left, right=tail)
        return PaddingSize(left=left, right=ROW_1D_RIGHT, bottom=(total // es) // (left + x + ROW_1D_RIGHT) - 1)
    sy = acl_strides[1]
    left = (offset % sy) // es
    right = max(0, sy // es - left - x)
    y = acl_shape[1]
    plane = total
    if len(acl_shape) > 2:
        # A padded-buffer descriptor's own z stride is meaningful even where z has size 1
        # (acl_shape_and_strides replaced it by a dense one, which hides bottom padding).
        plane = d.strides_in_bytes[-3] if d.explicit is None else acl_strides[2]
    if plane % sy:
        return PaddingSize(right=right, left=left)
    rows = plane // sy
    top = (offset // sy) % rows if len(acl_shape) > 2 else offset // sy
    return PaddingSize(top=top, right=right, bottom=max(0, rows - top - y), left=left)


def _padding_is_free(obj: object) -> bool:
    """False for an NdArray whose non-element bytes may be other elements of the memory it
    views (a slice of the user's numpy array): those bytes are never reported as padding."""
    return not isinstance(obj, NdArray) or bool(getattr(obj, "padding_is_free", True))


def tensor_info(
    array_or_descriptor: Union[NdArray, ShapeDescriptor],
    data_layout: str = "NCHW",
    quantization: Quantization = None,
) -> AclTensorInfo:
    """ACL's description of an NdArray's memory, or NotRepresentableError saying why not.

    ``data_layout`` only labels the tensor: numpy's (N, C, H, W) becomes ACL's (W, H, C, N)
    and numpy's (N, H, W, C) becomes (C, W, H, N); for NHWC the channel is x.

    The answer depends only on the descriptor, the labels and whether the non-element bytes
    are free, all values: it is computed once per content (:func:`_tensor_info_of`, a bounded
    cache; a model load describes each buffer a dozen times). Refusals are not cached.
    """
    d = _descriptor(array_or_descriptor)
    free = _padding_is_free(array_or_descriptor)
    q = quantization
    if type(data_layout) is str:  # a float model's tensors, a quantized one's (scale, offset): the cache's key at once
        if q is None:
            return _tensor_info_of(d, data_layout, None, free, _NONE_TYPE)
        if type(q) is tuple and len(q) == 2 and type(q[0]) is float and type(q[1]) is int:
            return _tensor_info_of(d, data_layout, q, free, _SCALE_OFFSET_TYPES)
    key = (d, data_layout, quantization, free)
    if not _cacheable(quantization, data_layout):  # a list of scales...
        if type(quantization) is PerChannelQuantization and _exact_per_channel(quantization) \
                and type(data_layout) is str:  # an int8 model's weights: described a dozen times each
            return _tensor_info_of(*key, PerChannelQuantization)
        return _tensor_info_uncached(*key)
    return _tensor_info_of(*key, _types(quantization))  # (0.5, 3.0) never finds the entry of (0.5, 3)


_NONE_TYPE: Any = type(None)  # _types(None)
_SCALE_OFFSET_TYPES: Any = (float, int)  # _types((0.5, 3))


def _cacheable(*values: Any) -> bool:
    """Whether values may key a cache by content: hashable, and made only of exact ints, floats,
    strings, None and tuples of those (numpy's integer and floating scalars count as ints and
    floats), so that ``2.0`` or ``True`` never finds the entry of ``2`` (equal and of equal
    hash, but refused or described differently when not cached)."""
    for value in values:
        if isinstance(value, tuple):
            if not _cacheable(*value):
                return False
        elif not (value is None or type(value) in (int, float, str)
                  or isinstance(value, (np.integer, np.floating))):
            return False
    return True


def _exact_per_channel(q: PerChannelQuantization) -> bool:
    """Whether a per-channel quantization may key a cache by content: a tuple of floats and
    an int axis (as :func:`per_channel` makes them); the scales' types looked at once per
    object (a frozen tuple's)."""
    if type(q.scales) is not tuple or type(q.axis) is not int:
        return False
    exact = q.__dict__.get("_exact")
    if exact is None:
        exact = not q.scales or set(map(type, q.scales)) == _FLOAT
        object.__setattr__(q, "_exact", exact)
    return exact


def scales_hex(q: PerChannelQuantization) -> Optional[str]:
    """Its scales as ``float.hex`` texts joined by commas, or None where they are not all
    Python floats (:func:`_exact_per_channel`): the part of a per-channel quantization's text
    that names every scale exactly, made once per object (a load's layout keys and ACL's
    question ids both spell every weight's scales, hundreds of them)."""
    if not _exact_per_channel(q):
        return None
    text = q.__dict__.get("_scales_hex")
    if text is None:
        text = ",".join(map(float.hex, q.scales))
        object.__setattr__(q, "_scales_hex", text)
    return text


def clear_description_caches() -> None:
    """Drop what :func:`tensor_info` and :func:`padded_descriptor` keep by content (a model's
    runner does after its load: the reuse is within a load, and the entries are about 0.5 MiB
    of Python objects for a model of 70 functions)."""
    _tensor_info_of.cache_clear()
    _padded_descriptor_of.cache_clear()
    _per_channel_of.cache_clear()


def _types(value: Any) -> Any:
    """The types inside ``value`` (a tuple's, entry by entry): part of a cache key, so that
    equal values of other types (3.0, True for 3) are described afresh, and refused."""
    return tuple(_types(v) for v in value) if isinstance(value, tuple) else type(value)


@functools.lru_cache(maxsize=4096)
def _tensor_info_of(d: ShapeDescriptor, data_layout: str, quantization: Quantization,
                    padding_is_free: bool, _quantization_types: Any) -> AclTensorInfo:
    return _tensor_info_uncached(d, data_layout, quantization, padding_is_free)


def _tensor_info_uncached(d: ShapeDescriptor, data_layout: str, quantization: Quantization,
                          padding_is_free: bool) -> AclTensorInfo:
    return AclTensorInfo(*_tensor_fields(d, data_layout, quantization, padding_is_free))


# AclTensorInfo's fields in its constructor's order (tensor_info_fields)
InfoFields = Tuple[Tuple[int, ...], Tuple[int, ...], int, int, PaddingSize, str, str, float, int, Tuple[float, ...]]


def tensor_info_fields(array_or_descriptor: Union[NdArray, ShapeDescriptor], data_layout: str = "NCHW",
                       quantization: Quantization = None) -> InfoFields:
    """:func:`tensor_info`'s answer as the tuple of :class:`AclTensorInfo`'s fields (in its
    constructor's order), computed afresh, without the object or the cache by content: what a
    first start's decision pass needs of a tensor it describes once (the object and the cache's
    key cost more than the computation there). Refuses as tensor_info."""
    return _tensor_fields(_descriptor(array_or_descriptor), data_layout, quantization,
                          _padding_is_free(array_or_descriptor))


def _tensor_fields(d: ShapeDescriptor, data_layout: str, quantization: Quantization,
                   padding_is_free: bool) -> InfoFields:
    if data_layout not in DATA_LAYOUTS:
        raise UnsupportedOptionError(f"data_layout is {data_layout!r}, expected one of {DATA_LAYOUTS}: {d!r}")
    data_type = data_type_for(d.dtype, quantization)
    scales: Tuple[float, ...] = ()
    if quantization is None:
        scale, qoffset = 0.0, 0
    elif is_per_channel(quantization):
        if not isinstance(quantization, PerChannelQuantization):
            raise InvalidLayoutError(
                f"per-channel quantization {quantization!r} needs its output-channel axis: give it to a function "
                f"role that has one (weights, bias) or as PerChannelQuantization(scales, axis): {d!r}")
        _check_per_channel_shape(quantization, d.shape, d.dtype)
        scale, qoffset, scales = 0.0, 0, quantization.scales
    elif isinstance(quantization, SymmetricQuantization):
        scale, qoffset = quantization.scale, 0
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale) or scale <= 0:
            raise InvalidLayoutError(f"symmetric quantization scale is {scale!r}, expected a finite number > 0: {d!r}")
        scale = float(scale)
    elif data_type == _BIAS_TYPE:
        scale, qoffset = check_quantization(quantization, _INT8)
        if qoffset != 0:
            raise InvalidLayoutError(f"quantization offset of an int32 bias is {qoffset}, expected 0: {d!r}")
    else:
        scale, qoffset = check_quantization(quantization, d.dtype)
    acl_shape, acl_strides, padding = _acl_layout(d, padding_is_free)
    total = d.alloc_size_in_bytes
    if total >= MAX_U32:
        raise NotRepresentableError(f"total_size_in_bytes is {total}, expected < 2**32 for ACL: {d!r}")
    return acl_shape, acl_strides, d.offset_in_bytes, total, padding, data_type, data_layout, scale, qoffset, scales


def _acl_layout(d: ShapeDescriptor, padding_is_free: bool) -> Tuple[Tuple[int, ...], Tuple[int, ...], PaddingSize]:
    """(tensor_shape, strides_in_bytes, padding) of ``d`` in ACL order, or NotRepresentableError:
    :func:`_acl_layout_general`'s answer. A dense C-order buffer (no explicit strides, no
    padding: every buffer of a NEON first start on 24.11 and every constant of a model) is read
    off at once: its strides are positive, the innermost one is the element size, the outermost
    the largest, size-1 dimensions keep them (:func:`size1_strides`) and it offers no padding
    (:func:`_available_padding` of such a layout; tests/test_describe.py holds the two equal)."""
    if d.explicit is not None or d.order != "c" or any(d.paddings):
        return _acl_layout_general(d, padding_is_free)
    shape = d.shape or (1,)
    strides = d.strides_in_bytes or (d.itemsize,)
    if len(shape) > MAX_DIMS or 0 in shape or strides[0] >= MAX_U32:
        return _acl_layout_general(d, padding_is_free)  # refused there, with the reason
    return to_acl_order(shape), to_acl_order(strides), NO_PADDING


def _acl_layout_general(d: ShapeDescriptor, padding_is_free: bool
                        ) -> Tuple[Tuple[int, ...], Tuple[int, ...], PaddingSize]:
    acl_shape, acl_strides = acl_shape_and_strides(d)
    return acl_shape, acl_strides, _available_padding(d, acl_shape, acl_strides) if padding_is_free else NO_PADDING


_NUMPY_TYPES: Dict[str, np.dtype[Any]] = {name: dt for dt, name in _DATA_TYPES.items()}
_NUMPY_TYPES.update({name: dt for dt, name in _QUANTIZED_TYPES.items()})
_NUMPY_TYPES[PER_CHANNEL_TYPE] = np.dtype("int8")
_NUMPY_TYPES.update({name: dt for dt, name in SYMMETRIC_TYPES.items()})


def descriptor_from_tensor_info(info: AclTensorInfo) -> ShapeDescriptor:
    """The inverse mapping: ACL's description back to a ShapeDescriptor (paddings recovered)."""
    if info.data_type not in _NUMPY_TYPES:
        raise InvalidLayoutError(f"data_type is {info.data_type!r}, expected one of {sorted(_NUMPY_TYPES)}: {info!r}")
    dtype = _NUMPY_TYPES[info.data_type]
    es = dtype.itemsize
    if len(info.strides_in_bytes) != len(info.tensor_shape):
        raise InvalidLayoutError(
            f"strides_in_bytes has {len(info.strides_in_bytes)} entries but tensor_shape has "
            f"{len(info.tensor_shape)}: {info!r}"
        )
    for field, value in (("strides_in_bytes", info.strides_in_bytes),
                         ("offset_first_element_in_bytes", (info.offset_first_element_in_bytes,)),
                         ("total_size_in_bytes", (info.total_size_in_bytes,))):
        if any(v % es for v in value):
            raise InvalidLayoutError(f"{field} is {value}, expected multiples of the element size {es}: {info!r}")
    return ShapeDescriptor.create(
        to_acl_order(info.tensor_shape), dtype, "c",
        strides=tuple(s // es for s in to_acl_order(info.strides_in_bytes)),
        offset=info.offset_first_element_in_bytes // es,
        alloc_size=info.total_size_in_bytes // es,
    )


def _acl_num_dimensions(shape: Sequence[int]) -> int:
    """ACL's TensorShape::num_dimensions(): trailing (ACL order) dimensions of size 1 don't count."""
    acl = list(to_acl_order(shape))
    while len(acl) > 1 and acl[-1] == 1:
        acl.pop()
    return len(acl) if shape else 0


def padded_descriptor(shape: Sequence[int], dtype: npt.DTypeLike, padding: PaddingSize) -> ShapeDescriptor:
    """A C-order padded buffer with ACL ``padding`` around its x-y plane (numpy's last two dims)."""
    shape = tuple(shape)
    types = set(map(type, shape))  # (a model's shapes are Python ints: one look at their types)
    exact_ints = types <= _INT or all(t is int or issubclass(t, np.integer) for t in types)  # not 2.0 nor True
    if not (exact_ints and isinstance(padding, PaddingSize) and isinstance(dtype, (str, np.dtype, type))):
        return _padded_descriptor_uncached(shape, dtype, padding)  # the descriptor's checks say what is wrong
    return _padded_descriptor_of(shape, np.dtype(dtype), padding)


_INT = frozenset((int,))


@functools.lru_cache(maxsize=4096)
def _padded_descriptor_of(shape: Tuple[int, ...], dtype: np.dtype, padding: PaddingSize) -> ShapeDescriptor:
    if not padding and min(shape, default=0) >= 0:  # no padding: the dense value (ShapeDescriptor.dense's quick path)
        return ShapeDescriptor.dense(shape, dtype)
    return _padded_descriptor_uncached(shape, dtype, padding)


def _padded_descriptor_uncached(shape: Tuple[int, ...], dtype: npt.DTypeLike, padding: PaddingSize) -> ShapeDescriptor:
    rank = len(shape)
    paddings, offsets = [0] * rank, [0] * rank
    if rank >= 1:
        paddings[-1], offsets[-1] = padding.left + padding.right, padding.left
    if rank >= 2:
        paddings[-2], offsets[-2] = padding.top + padding.bottom, padding.top
    elif padding.top:
        raise NotRepresentableError(f"a 1-D tensor has no rows before it for top padding {padding!r}: shape={shape}")
    elif padding.bottom:
        # ACL's bottom rows of a 1-D tensor (extend_padding), each ROW_1D_RIGHT longer than the
        # elements, so that _available_padding reads the same padding back from the buffer
        if padding.right > ROW_1D_RIGHT:
            raise NotRepresentableError(f"a 1-D tensor with bottom rows has at most {ROW_1D_RIGHT} elements of "
                                        f"right padding, not {padding.right}: {padding!r}, shape={shape}")
        row = padding.left + shape[0] + ROW_1D_RIGHT
        return ShapeDescriptor.create(shape, dtype, "c", paddings=((1 + padding.bottom) * row - shape[0],),
                                      padding_offsets=(padding.left,))
    return ShapeDescriptor.create(shape, dtype, "c", paddings=paddings, padding_offsets=offsets)


def auto_padding(shape: Sequence[int], dtype: npt.DTypeLike = "float32") -> ShapeDescriptor:
    """The padded descriptor ACL's ``TensorInfo::auto_padding()`` produces.

    PaddingSize(top=4, right=4 + 32, bottom=4, left=4); a tensor with one dimension (as ACL
    counts them, ignoring outer dimensions of size 1) gets no top/bottom.
    """
    ndims = _acl_num_dimensions(shape)
    pad_x = AUTO_PAD_X if ndims >= 1 else 0
    extra_x = AUTO_PAD_EXTRA_X if ndims >= 1 else 0
    pad_y = AUTO_PAD_Y if ndims >= 2 else 0
    return padded_descriptor(shape, dtype, PaddingSize(top=pad_y, right=pad_x + extra_x, bottom=pad_y, left=pad_x))


def extend_padding(d: Union[NdArray, ShapeDescriptor], padding: PaddingSize) -> ShapeDescriptor:
    """ACL's ``extend_padding``: the larger of the current and the requested padding per side,
    strides recomputed from the compact shape plus padding (custom strides are discarded)."""
    d = _descriptor(d)
    current = tensor_info(d).padding
    return padded_descriptor(d.shape, d.dtype, current.union(padding))


def acl_layout_padding(array: Union[NdArray, ShapeDescriptor], info: AclTensorInfo) -> Optional[PaddingSize]:
    """``info.padding`` when the buffer is laid out exactly as ACL pads a tensor
    (TensorInfo::extend_padding: padding around x and y, everything above dense), else None.
    Only then can the padding be declared to ACL (padding() reports it)."""
    try:
        ref_layout = padded_descriptor(array.shape or (1,), array.dtype, info.padding)
        if ref_layout is array:  # a buffer made as ACL pads (the same descriptor, kept by content)
            return info.padding
        ref = tensor_info(ref_layout, info.data_layout)
    except LayoutError:
        return None
    same = (ref.offset_first_element_in_bytes == info.offset_first_element_in_bytes
            and ref.total_size_in_bytes <= info.total_size_in_bytes
            and all(n == 1 or a == b for n, a, b in zip(info.tensor_shape, ref.strides_in_bytes, info.strides_in_bytes)))
    return info.padding if same else None


def alignment_problem(array: NdArray) -> Optional[str]:
    """Why ACL cannot address ``array``'s elements in place (misaligned memory), or None.

    ACL's kernels load whole elements (and vectors of them) from naturally aligned addresses;
    numpy can describe memory that is not (``flags.aligned`` False). Strides are whole
    elements, so the base address decides for every element.
    """
    es = array.dtype.itemsize
    if array.base_ptr % es:
        return (f"base address {array.base_ptr:#x} is not aligned to the element size {es}: "
                f"ACL needs naturally aligned elements: {array.descriptor!r}")
    return None
