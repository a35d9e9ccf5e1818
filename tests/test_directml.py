"""ndarray.formats.directml: DML_BUFFER_TENSOR_DESC and DMLCalcBufferTensorSize
(seeds/000, "Usar strides para expressar padding e layout de memória").

Oracle: numpy's as_strided over np.arange / character buffers. Every worked example of the
document is a test below.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndarray import ArgumentTypeError, InvalidLayoutError, NdArray, NotRepresentableError, ShapeDescriptor
from ndarray.formats import directml as dml
from ndarray.formats.directml import BufferTensorDesc


def chars(text: str) -> np.ndarray:
    """A writable UINT8 buffer holding the document's letters."""
    return np.frombuffer(text.encode(), dtype=np.uint8).copy()


def letters(arr: np.ndarray) -> list:
    """Rows of a 2-D (or deeper) uint8 array as strings."""
    return ["".join(map(chr, row)) for row in arr.reshape(-1, arr.shape[-1])]


def oracle(buffer: np.ndarray, sizes, strides) -> np.ndarray:
    return np.lib.stride_tricks.as_strided(
        buffer, shape=tuple(sizes), strides=tuple(s * buffer.itemsize for s in strides), writeable=False
    )


def roundup4(n: int) -> int:
    return -(-n // 4) * 4


# --------------------------------------------------------------------------- seeds/000 worked examples


def test_doc_2x3_row_major():
    # A B C / D E F stored as offsets 0..5 "ABCDEF": height stride = width = 3, width stride 1
    desc = BufferTensorDesc("UINT8", (2, 3))
    assert desc.strides is None and desc.effective_strides == (3, 1) == dml.packed_strides((2, 3))
    assert desc.element_offsets().tolist() == [[0, 1, 2], [3, 4, 5]]
    assert letters(desc.wrap(chars("ABCDEF")).numpy()) == ["ABC", "DEF"]
    assert desc.is_packed and not desc.is_broadcast


def test_doc_2x3_column_major():
    # offsets 0..5 hold "A D B E C F": height stride 1, width stride 2 (the height)
    desc = BufferTensorDesc("UINT8", (2, 3), (1, 2))
    assert desc.element_offsets().tolist() == [[0, 2, 4], [1, 3, 5]]
    assert letters(desc.wrap(chars("ADBECF")).numpy()) == ["ABC", "DEF"]
    assert desc.to_shape_descriptor().order == "f"  # numpy calls this layout Fortran order
    assert not desc.is_packed  # DirectML's "packed" means NCHW-ordered (row-major)


def test_doc_dhw_2x2x3_element_h_at_offset_7():
    # D stride = H*W = 6, H stride = W = 3, W stride = 1; H is (d=1, h=0, w=1):
    # {1, 0, 1} . {6, 3, 1} = 1*6 + 0*3 + 1*1 = 7
    assert dml.packed_strides((2, 2, 3)) == (6, 3, 1)
    desc = BufferTensorDesc("UINT8", (2, 2, 3), (6, 3, 1))
    assert desc.element_offset((1, 0, 1)) == 7
    view = desc.wrap(chars("ABCDEFGHIJKL")).numpy()
    assert chr(view[1, 0, 1]) == "H"
    assert letters(view) == ["ABC", "DEF", "GHI", "JKL"]
    assert desc.is_packed and desc.element_count == 12 and desc.index_of_last_element + 1 == 12


def test_doc_broadcast_2x3_with_height_stride_0():
    # logically A B C / A B C, stored as only 3 elements A B C, height stride 0
    assert dml.calculate_strides((2, 3), broadcast=(0,)) == (0, 1)
    desc = BufferTensorDesc("UINT8", (2, 3), (0, 1))
    assert desc.is_broadcast and not desc.is_packed
    assert desc.element_count == 6 and desc.index_of_last_element + 1 == 3  # 3 physical elements
    # DirectML rounds the 3 bytes up to a DWORD: the bound buffer is 4 bytes
    assert desc.total_tensor_size_in_bytes == dml.calc_buffer_tensor_size("UINT8", (2, 3), (0, 1)) == 4
    a = desc.wrap(chars("ABC"))  # numpy needs only the 3 elements
    assert letters(a.numpy()) == ["ABC", "ABC"]
    d = desc.to_shape_descriptor()
    assert d.strides == (0, 1) and d.overlaps  # a broadcast, overlapping view ...
    assert a.readonly and not a.numpy().flags.writeable  # ... hence read-only
    with pytest.raises(ValueError, match="read-only"):
        a.numpy()[0, 0] = 0


def test_doc_broadcast_float32_is_3_elements_12_bytes():
    desc = BufferTensorDesc("FLOAT32", (2, 3), dml.calculate_strides((2, 3), broadcast=(0,)))
    assert desc.total_tensor_size_in_bytes == 12
    np.testing.assert_array_equal(desc.wrap(np.arange(3, dtype=np.float32)).numpy(), [[0, 1, 2], [0, 1, 2]])


def test_doc_broadcast_channel_stride_0_repeats_every_channel():
    # "if the tensor is NCHW and the C stride is 0, every channel has the same values along H and W"
    sizes = (2, 3, 4, 5)
    strides = dml.calculate_strides(sizes, "NCHW", broadcast=(1,))
    assert strides == (20, 0, 5, 1)
    view = BufferTensorDesc("INT32", sizes, strides).wrap(np.arange(40, dtype=np.int32)).numpy()
    for c in range(3):
        np.testing.assert_array_equal(view[:, c], view[:, 0])
    np.testing.assert_array_equal(view, oracle(np.arange(40, dtype=np.int32), sizes, strides))


def test_doc_padded_2x3_height_stride_5():
    # buffer "A B C x x D E F x x" (10 elements): height stride 5 instead of 3
    buffer = chars("ABCxxDEFxx")
    desc = BufferTensorDesc("UINT8", (2, 3), (5, 1), total_tensor_size_in_bytes=10)
    assert letters(desc.wrap(buffer).numpy()) == ["ABC", "DEF"]
    assert desc.element_offsets().tolist() == [[0, 1, 2], [5, 6, 7]]
    assert not desc.is_packed and not desc.is_broadcast
    # DMLCalcBufferTensorSize: IndexOfLastElement = (2-1)*5 + (3-1)*1 = 7,
    # roundup((7 + 1) * ElementSize, 4): the trailing "xx" is not required
    assert desc.index_of_last_element == 7
    assert dml.calc_buffer_tensor_size("UINT8", (2, 3), (5, 1)) == 8
    assert dml.calc_buffer_tensor_size("DML_TENSOR_DATA_TYPE_FLOAT16", (2, 3), (5, 1)) == 16
    assert dml.calc_buffer_tensor_size("FLOAT32", (2, 3), (5, 1)) == 32
    assert dml.calc_buffer_tensor_size(np.float64, (2, 3), (5, 1)) == 64
    # with the whole 10-element buffer, this is exactly a libnd4j padded buffer: rows padded by 2
    d = desc.to_shape_descriptor()
    assert d == ShapeDescriptor.create((2, 3), "uint8", paddings=(0, 2))
    assert BufferTensorDesc.from_shape_descriptor(d) == desc


def test_doc_nchw_1_1_3_5_implicit_and_explicit_strides():
    # "HW" 3x5 is {1, 1, 3, 5}; packed NCHW with Strides = nullptr, or explicitly
    # N = C*H*W = 15, C = H*W = 15, H = W = 5, W = 1
    implicit = BufferTensorDesc("FLOAT32", (1, 1, 3, 5))
    explicit = BufferTensorDesc("FLOAT32", (1, 1, 3, 5), (15, 15, 5, 1))
    assert implicit.strides is None and implicit.effective_strides == (15, 15, 5, 1)
    assert dml.packed_strides((1, 1, 3, 5)) == (15, 15, 5, 1)
    assert dml.calculate_strides((1, 1, 3, 5), "NCHW") == (15, 15, 5, 1)
    assert implicit.total_tensor_size_in_bytes == explicit.total_tensor_size_in_bytes == 60
    assert implicit.to_shape_descriptor() == explicit.to_shape_descriptor()
    assert implicit.is_packed and explicit.is_packed
    # leading 1s for the lower-rank "HW" tensor
    assert BufferTensorDesc("FLOAT32", (3, 5)).to_4d_or_5d() == implicit
    assert BufferTensorDesc("FLOAT32", (3, 5), (5, 1)).to_4d_or_5d() == explicit
    # from numpy: a packed layout gets implicit strides (one layout, one description)
    assert BufferTensorDesc.from_shape_descriptor(np.zeros((3, 5), np.float32)).to_4d_or_5d() == implicit


def test_doc_nhwc_1_1_3_5_strides_15_1_5_1():
    # N = H*W*C = 15, H = W*C = 5, W = C = 1, C = 1
    sizes = (1, 1, 3, 5)
    assert dml.nhwc_strides(sizes) == (15, 1, 5, 1)
    assert dml.calculate_strides(sizes, "NHWC") == (15, 1, 5, 1)
    desc = BufferTensorDesc("FLOAT32", sizes, (15, 1, 5, 1))
    assert desc.total_tensor_size_in_bytes == 60
    # with a single channel NHWC and NCHW address the same memory
    np.testing.assert_array_equal(desc.element_offsets(), BufferTensorDesc("FLOAT32", sizes).element_offsets())
    assert desc.is_packed


def test_doc_formula_is_dot_of_sizes_minus_1_with_strides():
    # IndexOfLastElement = dot(Sizes - 1, Strides)
    # MinimumImpliedSizeInBytes = roundup((IndexOfLastElement + 1) * ElementSizeInBytes, 4)
    sizes, strides = (2, 3, 4), (40, 12, 2)
    last = 1 * 40 + 2 * 12 + 3 * 2
    assert dml.index_of_last_element(sizes, strides) == last == 70
    assert dml.calc_buffer_tensor_size("FLOAT16", sizes, strides) == roundup4((last + 1) * 2) == 144
    assert dml.calc_buffer_tensor_size("INT8", sizes, strides) == 72  # 71 rounded up
    # no strides: prod(Sizes) * ElementSizeInBytes, rounded up
    assert dml.calc_buffer_tensor_size("UINT8", (3, 5)) == 16
    assert dml.calc_buffer_tensor_size("UINT16", (1, 1, 3, 5)) == 32
    assert dml.calc_buffer_tensor_size("INT64", (3,)) == 24


# --------------------------------------------------------------------------- data types


@pytest.mark.parametrize(
    "name, dtype, size",
    [("FLOAT32", np.float32, 4), ("FLOAT16", np.float16, 2), ("UINT32", np.uint32, 4),
     ("UINT16", np.uint16, 2), ("UINT8", np.uint8, 1), ("INT32", np.int32, 4),
     ("INT16", np.int16, 2), ("INT8", np.int8, 1), ("FLOAT64", np.float64, 8),
     ("UINT64", np.uint64, 8), ("INT64", np.int64, 8)],
)
def test_data_type_spellings(name, dtype, size):
    full = "DML_TENSOR_DATA_TYPE_" + name
    for spelling in (full, name, name.lower(), dtype, np.dtype(dtype), np.dtype(dtype).name, np.dtype(dtype).str):
        assert dml.data_type_name(spelling) == full
        assert dml.element_size_in_bytes(spelling) == size
    desc = BufferTensorDesc(dtype, (2, 3))
    assert desc.data_type == full and desc.dtype == np.dtype(dtype) and desc.element_size_in_bytes == size
    assert desc.total_tensor_size_in_bytes == roundup4(6 * size)


# --------------------------------------------------------------------------- properties vs numpy


@st.composite
def sizes_and_strides(draw, max_rank=8):
    rank = draw(st.integers(1, max_rank))
    sizes = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    strides = tuple(draw(st.lists(st.integers(0, 30), min_size=rank, max_size=rank)))
    return sizes, strides


DTYPES = st.sampled_from(["FLOAT32", "FLOAT16", "UINT8", "INT16", "INT64", "FLOAT64"])


@given(sizes_and_strides(), DTYPES)
def test_calc_buffer_tensor_size_matches_numpy(case, data_type):
    sizes, strides = case
    itemsize = dml.element_size_in_bytes(data_type)
    view = oracle(np.arange(4000, dtype=np.int64), sizes, strides)
    highest = int(view.max())  # the offset of the farthest element, by numpy
    size = dml.calc_buffer_tensor_size(data_type, sizes, strides)
    assert size == roundup4((highest + 1) * itemsize)
    assert size % 4 == 0 and size >= (highest + 1) * itemsize > size - 4
    # without strides: packed, prod(sizes) elements
    assert dml.calc_buffer_tensor_size(data_type, sizes) == roundup4(math.prod(sizes) * itemsize)
    assert dml.calc_buffer_tensor_size(data_type, sizes, dml.packed_strides(sizes)) == dml.calc_buffer_tensor_size(data_type, sizes)


@given(sizes_and_strides(), DTYPES)
def test_wrap_matches_as_strided_element_by_element(case, data_type):
    sizes, strides = case
    desc = BufferTensorDesc(data_type, sizes, strides)
    count = desc.total_tensor_size_in_bytes // desc.element_size_in_bytes
    buffer = np.arange(count).astype(desc.dtype)
    a = desc.wrap(buffer)
    np.testing.assert_array_equal(a.numpy(), oracle(buffer, sizes, strides))
    np.testing.assert_array_equal(desc.element_offsets(), oracle(np.arange(count), sizes, strides))
    assert a.readonly == desc.to_shape_descriptor().overlaps
    if desc.is_broadcast:
        assert a.readonly


@given(sizes_and_strides(max_rank=5))
def test_packed_and_nhwc_strides_match_numpy(case):
    sizes, _ = case
    assert dml.packed_strides(sizes) == tuple(s // 2 for s in np.empty(sizes, np.int16).strides)
    if len(sizes) >= 3:
        # NHWC: a C-contiguous (N, spatial..., C) array transposed back to (N, C, spatial...)
        channels_last = (sizes[0],) + sizes[2:] + (sizes[1],)
        back = (0, len(sizes) - 1) + tuple(range(1, len(sizes) - 1))
        expected = np.empty(channels_last, np.int16).transpose(back).strides
        assert dml.nhwc_strides(sizes) == tuple(s // 2 for s in expected)


@given(st.tuples(*[st.integers(1, 4)] * 4), st.sampled_from(["NCHW", "NHWC"]),
       st.sets(st.integers(0, 3)))
def test_calculate_strides_broadcast_stores_only_distinct_elements(sizes, layout, broadcast):
    strides = dml.calculate_strides(sizes, layout, broadcast)
    physical = tuple(1 if i in broadcast else n for i, n in enumerate(sizes))
    for i, s in enumerate(strides):
        if i in broadcast:
            assert s == 0
    # the buffer holds exactly the distinct elements, each once
    assert dml.index_of_last_element(sizes, strides) + 1 == math.prod(physical)
    offsets = BufferTensorDesc("FLOAT32", sizes, strides).element_offsets()
    assert sorted(set(offsets.ravel().tolist())) == list(range(math.prod(physical)))


@st.composite
def numpy_views(draw):
    """numpy arrays with non-negative strides whose element 0 is at the buffer start:
    permuted, step-sliced or broadcast views of an arange buffer."""
    rank = draw(st.integers(1, 6))  # 0-d: see test_scalar_becomes_sizes_1
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    base = np.arange(max(1, math.prod(shape)) * 4, dtype=draw(st.sampled_from([np.float32, np.int16, np.uint8])))
    arr = base[: math.prod(shape)].reshape(shape).transpose(draw(st.permutations(range(rank))))
    if rank:
        arr = arr[tuple(slice(None, None, draw(st.integers(1, 2))) for _ in range(rank))]
    if rank and draw(st.booleans()):
        arr = np.broadcast_to(arr[:1], (draw(st.integers(1, 3)),) + arr.shape[1:])
    return base, arr


@given(numpy_views())
def test_from_shape_descriptor_round_trip(case):
    base, arr = case
    desc = BufferTensorDesc.from_shape_descriptor(arr)
    assert desc.sizes == (arr.shape or (1,))
    assert desc.dtype == arr.dtype
    # the description addresses the same elements of the same buffer
    np.testing.assert_array_equal(desc.wrap(base).numpy().reshape(arr.shape), arr)
    d = desc.to_shape_descriptor()
    if arr.ndim:
        np.testing.assert_array_equal(oracle(base, d.shape, d.strides), arr)
    # total size covers the numpy allocation and DirectML's minimum
    nd = NdArray.from_numpy(arr).descriptor
    assert desc.total_tensor_size_in_bytes == max(nd.alloc_size_in_bytes, desc.minimum_size_in_bytes)
    assert desc.strides is None or not desc.is_packed
    # and back again gives the same description
    assert BufferTensorDesc.from_shape_descriptor(d) == desc


def test_nhwc_numpy_array_is_a_permuted_view():
    # an NHWC numpy buffer, looked at as NCHW, is NCHW-ordered sizes with NHWC strides
    n, h, w, c = 2, 3, 4, 5
    nhwc = np.arange(n * h * w * c, dtype=np.float32).reshape(n, h, w, c)
    nchw_view = nhwc.transpose(0, 3, 1, 2)
    desc = BufferTensorDesc.from_shape_descriptor(nchw_view)
    assert desc.sizes == (n, c, h, w)
    assert desc.strides == dml.nhwc_strides((n, c, h, w)) == (h * w * c, 1, w * c, c)
    assert desc.total_tensor_size_in_bytes == nhwc.nbytes
    # going back: a ShapeDescriptor that is the (0, 3, 1, 2) permutation of a C-contiguous array
    d = desc.to_shape_descriptor()
    assert d.shape == (n, c, h, w) and d.strides == (60, 1, 20, 5) and not d.is_contiguous()
    a = desc.wrap(nhwc)
    np.testing.assert_array_equal(a.numpy(), nchw_view)
    assert a.base_ptr == nhwc.ctypes.data  # no copy
    assert a.numpy().transpose(0, 2, 3, 1).flags.c_contiguous


def test_five_d_ndhwc():
    sizes = (2, 3, 2, 4, 5)  # N C D H W
    strides = dml.calculate_strides(sizes, "NDHWC")
    assert strides == dml.nhwc_strides(sizes) == (120, 1, 60, 15, 3)
    ndhwc = np.arange(240, dtype=np.int32).reshape(2, 2, 4, 5, 3)
    desc = BufferTensorDesc("INT32", sizes, strides)
    np.testing.assert_array_equal(desc.wrap(ndhwc).numpy(), ndhwc.transpose(0, 4, 1, 2, 3))
    assert desc.to_4d_or_5d() is desc


def test_expand_to_rank_keeps_every_address():
    desc = BufferTensorDesc("UINT8", (2, 3), (5, 1), 10)
    wide = desc.expand_to_rank(6)
    assert wide.sizes == (1, 1, 1, 1, 2, 3) and wide.strides == (8, 8, 8, 8, 5, 1)
    assert wide.total_tensor_size_in_bytes == 10
    np.testing.assert_array_equal(wide.element_offsets().reshape(2, 3), desc.element_offsets())
    assert desc.expand_to_rank(2) == desc
    assert BufferTensorDesc("UINT8", (7,)).to_4d_or_5d().sizes == (1, 1, 1, 7)


def test_scalar_becomes_sizes_1():
    desc = BufferTensorDesc.from_shape_descriptor(ShapeDescriptor.create((), "float32"))
    assert desc == BufferTensorDesc("FLOAT32", (1,)) and desc.total_tensor_size_in_bytes == 4


def test_repr_is_compact():
    assert repr(BufferTensorDesc("FLOAT32", (1, 1, 3, 5))) == "BufferTensorDesc(FLOAT32{1,1,3,5}:packed 60B)"
    assert repr(BufferTensorDesc("UINT8", (2, 3), (5, 1), 10)) == "BufferTensorDesc(UINT8{2,3}:{5,1} 10B)"


def test_descriptions_are_frozen_hashable_values():
    a = BufferTensorDesc("FLOAT32", [1, 1, 3, 5], [15, 1, 5, 1])
    b = BufferTensorDesc(np.float32, (np.int64(1), 1, 3, 5), (15, 1, 5, 1), 60)
    assert a == b and hash(a) == hash(b) and isinstance(a.sizes, tuple)
    with pytest.raises(AttributeError):
        a.sizes = (1,)


# --------------------------------------------------------------------------- errors


def test_rank_mismatch_message():
    with pytest.raises(InvalidLayoutError, match=r"^strides has 3 entries but sizes has rank 4: sizes=\(1, 1, 3, 5\), strides=\(15, 5, 1\)$"):
        BufferTensorDesc("FLOAT32", (1, 1, 3, 5), (15, 5, 1))
    with pytest.raises(InvalidLayoutError, match=r"strides has 3 entries but sizes has rank 4: sizes=\(1, 1, 3, 5\), strides=\(15, 5, 1\)"):
        dml.calc_buffer_tensor_size("FLOAT32", (1, 1, 3, 5), (15, 5, 1))


@pytest.mark.parametrize("bad, error", [("BOGUS", InvalidLayoutError), ("DML_TENSOR_DATA_TYPE_UNKNOWN", InvalidLayoutError),
                                        ("float8", InvalidLayoutError), (None, ArgumentTypeError),
                                        (3, ArgumentTypeError), (object(), ArgumentTypeError)])
def test_unknown_data_type_is_invalid(bad, error):
    with pytest.raises(error, match=r"data_type is .* but expected one of FLOAT32, FLOAT16, UINT32, UINT16, UINT8, INT32, INT16, INT8, FLOAT64, UINT64, INT64"):
        dml.calc_buffer_tensor_size(bad, (1, 1, 3, 5))


def test_unknown_data_type_message_names_the_value():
    with pytest.raises(InvalidLayoutError, match=r"^data_type is 'BOGUS' but expected one of FLOAT32, .* \(with or without the DML_TENSOR_DATA_TYPE_ prefix\) or the matching numpy dtype$"):
        BufferTensorDesc("BOGUS", (2, 3))


@pytest.mark.parametrize("dtype", [np.bool_, np.complex64])
def test_numpy_dtypes_without_directml_type_are_not_representable(dtype):
    with pytest.raises(NotRepresentableError, match=r"data_type is numpy dtype\(.*\) \(.*\), which has no DirectML equivalent"):
        dml.element_size_in_bytes(dtype)


def test_a_dtype_of_the_other_byte_order_is_refused_naming_it():
    other = np.dtype(">f4") if np.little_endian else np.dtype("<f4")
    with pytest.raises(NotRepresentableError, match=rf"dtype is {other.str} \(.*-endian\), expected the machine's "
                       r".*DirectML's data type has no byte order field"):
        dml.element_size_in_bytes(other)


def test_four_bit_types_are_not_representable():
    with pytest.raises(NotRepresentableError, match=r"data_type is 'DML_TENSOR_DATA_TYPE_UINT4', a 4-bit DirectML type"):
        dml.calc_buffer_tensor_size("DML_TENSOR_DATA_TYPE_UINT4", (8,))


@pytest.mark.parametrize(
    "sizes, strides, message",
    [
        ((2, 0, 3), None, r"sizes\[1\] is 0 but expected 1 <= sizes\[1\] <= 4294967295 \(a DirectML UINT, and a size of 0 is invalid\): sizes=\(2, 0, 3\)"),
        ((2, 3), (-3, 1), r"strides\[0\] is -3 but expected 0 <= strides\[0\] <= 4294967295 \(a DirectML UINT\): sizes=\(2, 3\), strides=\(-3, 1\)"),
        ((2, 3), (2**32, 1), r"strides\[0\] is 4294967296 but expected 0 <= strides\[0\]"),
        ((), None, r"sizes is empty but DirectML's DimensionCount must be 1..8 \(a scalar is sizes=\(1,\)\): sizes=\(\)"),
        ("23", None, r"sizes is '23' but expected a sequence of integers"),
    ],
)
def test_invalid_sizes_and_strides(sizes, strides, message):
    with pytest.raises(InvalidLayoutError, match=message):
        BufferTensorDesc("FLOAT32", sizes, strides)


@pytest.mark.parametrize(
    "sizes, strides, total, message",
    [
        ((2, 3.0), None, None, r"sizes\[1\] is 3.0 of type float, expected an integer: sizes=\(2, 3.0\)"),
        ((2, True), None, None, r"sizes\[1\] is True, a bool, expected an integer"),
        ((2, 3), (3, False), None, r"strides\[1\] is False, a bool, expected an integer"),
        ((2, 3), None, True, r"total_tensor_size_in_bytes is True, a bool, expected an integer"),
        ((2, 3), None, 24.0, r"total_tensor_size_in_bytes is 24.0 of type float, expected an integer"),
    ],
)
def test_wrong_types_are_argument_type_errors(sizes, strides, total, message):
    with pytest.raises(ArgumentTypeError, match=message):
        BufferTensorDesc("FLOAT32", sizes, strides, total)


def test_more_than_8_dimensions_is_not_representable():
    with pytest.raises(NotRepresentableError, match=r"sizes has rank 9 but DirectML tensors have at most 8 dimensions: sizes=\(1, 1, 1, 1, 1, 1, 1, 1, 2\)"):
        BufferTensorDesc("FLOAT32", (1,) * 8 + (2,))
    with pytest.raises(NotRepresentableError, match=r"shape has rank 9 but DirectML tensors have at most 8 dimensions: ShapeDescriptor\(float32\[1,1,1,1,1,1,1,1,2\]"):
        BufferTensorDesc.from_shape_descriptor(np.zeros((1,) * 8 + (2,), np.float32))
    with pytest.raises(NotRepresentableError, match=r"rank is 9 but DirectML tensors have at most 8 dimensions: BufferTensorDesc\(FLOAT32\{2,3\}:packed 24B\)"):
        BufferTensorDesc("FLOAT32", (2, 3)).expand_to_rank(9)


def test_operators_need_4d_or_5d():
    with pytest.raises(NotRepresentableError, match=r"sizes has rank 6 but DirectML operators need 4-D or 5-D tensors \(lower ranks are padded with leading 1s; higher ranks cannot be\): BufferTensorDesc\(FLOAT32\{1,2,1,2,1,2\}:packed 32B\)"):
        BufferTensorDesc("FLOAT32", (1, 2, 1, 2, 1, 2)).to_4d_or_5d()
    with pytest.raises(InvalidLayoutError, match=r"rank is 1 but expected >= the current rank 2: BufferTensorDesc\(FLOAT32\{2,3\}:packed 24B\)"):
        BufferTensorDesc("FLOAT32", (2, 3)).expand_to_rank(1)


def test_total_size_below_the_minimum():
    with pytest.raises(InvalidLayoutError, match=r"total_tensor_size_in_bytes is 7 but expected >= 8 \(DMLCalcBufferTensorSize\): data_type=UINT8, sizes=\(2, 3\), strides=\(5, 1\), total_tensor_size_in_bytes=7"):
        BufferTensorDesc("UINT8", (2, 3), (5, 1), 7)
    with pytest.raises(ArgumentTypeError, match=r"total_tensor_size_in_bytes is 60.0 of type float, expected an integer"):
        BufferTensorDesc("FLOAT32", (1, 1, 3, 5), None, 60.0)


def test_not_representable_numpy_layouts():
    padded = NdArray.zeros((2, 3), "float32", paddings=(1, 2), padding_offsets=(1, 1))
    with pytest.raises(NotRepresentableError, match=r"offset is 6 elements \(24 bytes\) but DML_BUFFER_TENSOR_DESC has no offset \(expected 0; bind the buffer at DML_BUFFER_BINDING::Offset = 24 bytes instead\): ShapeDescriptor\(float32\[2,3\]"):
        BufferTensorDesc.from_shape_descriptor(padded)
    with pytest.raises(NotRepresentableError, match=r"strides\[0\] is -3 but DirectML strides must be 0..4294967295 \(unsigned 32-bit\)"):
        BufferTensorDesc.from_shape_descriptor(ShapeDescriptor.create((2, 3), strides=(-3, 1), offset=3))
    with pytest.raises(NotRepresentableError, match=r"shape\[1\] is 0 but DirectML sizes must be 1..4294967295 \(unsigned 32-bit, no size-0 dimensions\)"):
        BufferTensorDesc.from_shape_descriptor(ShapeDescriptor.create((2, 0)))
    with pytest.raises(NotRepresentableError, match=r"data_type is numpy dtype\('bool'\) .* no DirectML equivalent.*: ShapeDescriptor\(bool\[2\]"):
        BufferTensorDesc.from_shape_descriptor(ShapeDescriptor.create((2,), "bool"))
    with pytest.raises(ArgumentTypeError, match=r"descriptor is a list but expected an ndarray.ShapeDescriptor, an NdArray or a numpy array"):
        BufferTensorDesc.from_shape_descriptor([1, 2])


def test_index_and_buffer_errors():
    desc = BufferTensorDesc("UINT8", (2, 2, 3))
    with pytest.raises(InvalidLayoutError, match=r"index has 2 entries but sizes has rank 3: index=\(1, 0\), BufferTensorDesc\(UINT8\{2,2,3\}:packed 12B\)"):
        desc.element_offset((1, 0))
    with pytest.raises(InvalidLayoutError, match=r"index\[2\] is 3 but expected 0 <= index\[2\] < 3: index=\(1, 0, 3\)"):
        desc.element_offset((1, 0, 3))
    with pytest.raises(InvalidLayoutError, match=r"buffer has 11 bytes but the elements reach byte 12 \(index_of_last_element \+ 1 = 12 elements of 1 bytes; expected at least that many\): BufferTensorDesc\(UINT8\{2,2,3\}:packed 12B\)"):
        desc.wrap(chars("ABCDEFGHIJK"))
    with pytest.raises(InvalidLayoutError, match=r"buffer must be a C-contiguous numpy array, got ndarray with strides \(2,\)"):
        desc.wrap(chars("ABCDEFGHIJKLABCDEFGHIJKL")[::2])
    with pytest.raises(ArgumentTypeError, match=r"buffer must be a C-contiguous numpy array, got bytes"):
        desc.wrap(b"ABCDEFGHIJKL")


def test_calculate_strides_errors():
    with pytest.raises(InvalidLayoutError, match=r"layout is 'CHWN' but expected 'NCHW' or 'NHWC' \('NCDHW'/'NDHWC' for 5-D\): sizes=\(1, 2, 3, 4\)"):
        dml.calculate_strides((1, 2, 3, 4), "CHWN")
    with pytest.raises(InvalidLayoutError, match=r"broadcast has entry 4 but expected dimension indices 0 <= axis < 4: sizes=\(1, 2, 3, 4\), broadcast=\(4,\)"):
        dml.calculate_strides((1, 2, 3, 4), broadcast=(4,))
