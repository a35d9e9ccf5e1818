"""ndarray.formats.torch: PyTorch memory formats (seeds/003, "Understand Tensor Data Layout").

Oracles: numpy (np.arange buffers, transposes, as_strided) and real torch's answers, recorded
in tests/fixtures/torch_fixtures.json. Every worked example of the document is a test below.
"""

import json
import math
import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndarray import ArgumentTypeError, InvalidLayoutError, NdArray, UnsupportedOptionError
from ndarray.formats import torch as tf

# --------------------------------------------------------------------------- helpers

NHWC_FROM_NCHW = (0, 2, 3, 1)  # numpy axes: NCHW array -> NHWC array
NCHW_FROM_NHWC = (0, 3, 1, 2)
NDHWC_FROM_NCDHW = (0, 2, 3, 4, 1)
NCDHW_FROM_NDHWC = (0, 4, 1, 2, 3)


def element_strides(arr: np.ndarray) -> tuple:
    return tuple(s // arr.itemsize for s in arr.strides)


def numpy_layout(shape, memory_format):
    """Strides of a fresh numpy array that stores `shape` in `memory_format` (sizes >= 1)."""
    if memory_format == "contiguous":
        return element_strides(np.empty(shape, np.int8))
    if memory_format == "channels_last":
        n, c, h, w = shape
        return element_strides(np.empty((n, h, w, c), np.int8).transpose(NCHW_FROM_NHWC))
    n, c, d, h, w = shape
    return element_strides(np.empty((n, d, h, w, c), np.int8).transpose(NCDHW_FROM_NDHWC))


def view_of(base: np.ndarray, shape, strides) -> np.ndarray:
    """The oracle: numpy's own view of `base` with element strides."""
    return np.lib.stride_tricks.as_strided(
        base, shape=shape, strides=tuple(s * base.itemsize for s in strides), writeable=False
    )


shapes4 = st.tuples(*[st.integers(1, 5)] * 4)
shapes5 = st.tuples(*[st.integers(1, 4)] * 5)
any_shapes = st.lists(st.integers(1, 5), min_size=0, max_size=5).map(tuple)


# --------------------------------------------------------------------------- seeds/003 worked examples


def test_doc_nchw_1_64_5_4_is_contiguous_with_strides_1280_20_4_1():
    # x = torch.rand(1, 64, 5, 4); x.stride() == (1280, 20, 4, 1); x.is_contiguous()
    shape = (1, 64, 5, 4)
    assert tf.strides_for(shape) == (1280, 20, 4, 1)
    assert tf.strides_for(shape, "contiguous") == numpy_layout(shape, "contiguous")
    assert tf.is_contiguous(shape, (1280, 20, 4, 1))
    assert not tf.is_contiguous(shape, (1280, 20, 4, 1), "channels_last")


def test_doc_channels_last_1_64_5_4_strides_1280_1_256_64():
    # x.contiguous(memory_format=torch.channels_last): shape unchanged, stride
    # (1280, 1, 256, 64), x.is_contiguous() False
    shape = (1, 64, 5, 4)
    strides = tf.strides_for(shape, "channels_last")
    assert strides == (1280, 1, 256, 64)
    assert strides == numpy_layout(shape, "channels_last")
    assert tf.is_contiguous(shape, strides) is False
    assert tf.is_contiguous(shape, strides, "channels_last") is True
    assert tf.suggest_memory_format(shape, strides) == "channels_last"
    assert tf.suggest_memory_format(shape, (1280, 20, 4, 1)) == "contiguous"


def test_doc_channels_last_copy_keeps_shape_and_values():
    x = np.arange(1 * 64 * 5 * 4, dtype=np.float32).reshape(1, 64, 5, 4)
    before = x.copy()
    y = tf.to_memory_format(x, "channels_last")
    assert isinstance(y, NdArray)
    assert y.shape == (1, 64, 5, 4)
    assert y.descriptor.strides == (1280, 1, 256, 64)
    np.testing.assert_array_equal(y.numpy(), x)  # logically equal
    np.testing.assert_array_equal(x, before)  # the input is untouched
    assert not np.shares_memory(y.numpy(), x)  # an explicit copy
    # storage order is NHWC: offset = n*1280 + c*1 + h*256 + w*64
    np.testing.assert_array_equal(y.buffer(), x.transpose(NHWC_FROM_NCHW).ravel())


def test_doc_channels_last_offset_of_next_channel_is_1():
    # tensor_channel_last[0,1,0,0]: offset = 1280*0 + 1*1 + 256*0 + 64*0 = 1
    y = tf.to_memory_format(np.arange(1280, dtype=np.int32).reshape(1, 64, 5, 4), "channels_last")
    assert y.descriptor.element_offset((0, 1, 0, 0)) == 1
    assert y.buffer()[1] == y.numpy()[0, 1, 0, 0]


def test_doc_stride_loops():
    # The document's two stride loops, run literally, against strides_for.
    shape = [1, 64, 5, 4]
    contiguous = [0] * 4
    stride = 1
    for i in range(3, -1, -1):  # for (int i = ndim_ - 1; i >= 0; i--)
        contiguous[i] = stride
        stride *= shape[i]
    channels_last = [0] * 4
    stride = 1
    for k in (1, 3, 2, 0):  # for (auto k : {1, 3, 2, 0})
        channels_last[k] = stride
        stride *= shape[k]
    assert tf.strides_for(shape) == tuple(contiguous) == (1280, 20, 4, 1)
    assert tf.strides_for(shape, "channels_last") == tuple(channels_last) == (1280, 1, 256, 64)


@given(shapes4)
def test_doc_channels_last_loop_matches_for_any_shape(shape):
    strides = [0] * 4
    stride = 1
    for k in (1, 3, 2, 0):
        strides[k] = stride
        stride *= shape[k]
    assert tf.strides_for(shape, "channels_last") == tuple(strides)


def test_doc_simplified_is_contiguous_agrees_when_no_size_is_1():
    # The document's is_contiguous() does not skip size-1 dimensions; PyTorch does (see
    # test_size_one_strides_are_ignored). Without size-1 dimensions the two agree.
    def doc_is_contiguous(shape, strides):
        stride = 1
        for i in range(len(shape) - 1, -1, -1):
            if strides[i] != stride:
                return False
            stride *= shape[i]
        return True

    for shape, strides in [((2, 64, 5, 4), (1280, 20, 4, 1)), ((2, 64, 5, 4), (1280, 1, 256, 64)),
                           ((2, 3, 2, 2), (12, 4, 2, 1)), ((2, 3, 2, 2), (2, 4, 12, 1))]:
        assert tf.is_contiguous(shape, strides) == doc_is_contiguous(shape, strides)


STORAGE_A = [25, 29, 28, 6, 12, 25, 4, 20, 17, 21, 19, 5]


def test_doc_transpose_changes_only_shape_and_strides():
    # x: shape (1, 3, 2, 2), strides (12, 4, 2, 1), contiguous;
    # torch.transpose(x, 0, 2): shape (2, 3, 1, 2), strides (2, 4, 12, 1), not contiguous,
    # storage unchanged.
    shape, strides = (1, 3, 2, 2), (12, 4, 2, 1)
    assert tf.strides_for(shape) == strides and tf.is_contiguous(shape, strides)
    t_shape, t_strides = tf.transpose_layout(shape, strides, 0, 2)
    assert (t_shape, t_strides) == ((2, 3, 1, 2), (2, 4, 12, 1))
    assert not tf.is_contiguous(t_shape, t_strides)

    x = NdArray.from_numpy(np.array(STORAGE_A, dtype=np.int64).reshape(shape))
    y = tf.permute(x, (2, 1, 0, 3))  # transpose(0, 2) as a permutation
    assert y.shape == t_shape and y.descriptor.strides == t_strides
    assert y.base_ptr == x.base_ptr and np.shares_memory(y.allocation, x.allocation)
    assert y.buffer().tolist() == STORAGE_A  # x.storage() is the same before and after
    np.testing.assert_array_equal(y.numpy(), x.numpy().transpose(2, 1, 0, 3))
    assert not tf.is_contiguous(y.shape, y.descriptor.strides)


STORAGE_B = [14, 16, 20, 11, 8, 26, 15, 18, 29, 21, 10, 3]
STORAGE_B_CHANNELS_LAST = [14, 8, 29, 16, 26, 21, 20, 15, 10, 11, 18, 3]


def test_doc_channels_last_reorders_storage():
    # N, C, H, W = 1, 3, 2, 2; x.contiguous(memory_format=torch.channels_last) moves
    # 8 (c1 h0 w0) from storage index 4 to index 1.
    x = NdArray.from_numpy(np.array(STORAGE_B, dtype=np.int64).reshape(1, 3, 2, 2))
    y = tf.to_memory_format(x, "channels_last")
    assert y.buffer().tolist() == STORAGE_B_CHANNELS_LAST
    assert y.descriptor.strides == (12, 1, 6, 3)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert x.buffer().tolist() == STORAGE_B  # the copy left the source alone
    assert y.buffer().tolist().index(8) == 1 and x.buffer().tolist().index(8) == 4
    # and back: contiguous again, storage restored
    z = tf.to_memory_format(y, "contiguous")
    assert z.buffer().tolist() == STORAGE_B and z.descriptor.strides == (12, 4, 2, 1)
    # NdArray.contiguous(memory_format) delegates here
    assert x.contiguous("channels_last").buffer().tolist() == STORAGE_B_CHANNELS_LAST


def test_nchw_to_nhwc_view_only_changes_shape_and_strides():
    x = NdArray.from_numpy(np.array(STORAGE_B, dtype=np.int64).reshape(1, 3, 2, 2))
    v = tf.nchw_to_nhwc_view(x)
    assert v.shape == (1, 2, 2, 3) and v.descriptor.strides == (12, 2, 1, 4)
    assert v.base_ptr == x.base_ptr and v.buffer().tolist() == STORAGE_B  # zero-copy
    np.testing.assert_array_equal(v.numpy(), x.numpy().transpose(NHWC_FROM_NCHW))
    # whereas the channels_last copy of x, viewed as NHWC, is plain C-contiguous
    w = tf.nchw_to_nhwc_view(tf.to_memory_format(x, "channels_last"))
    assert w.descriptor.is_contiguous("c") and w.buffer().tolist() == STORAGE_B_CHANNELS_LAST


# --------------------------------------------------------------------------- strides_for vs numpy


@given(any_shapes)
def test_contiguous_strides_match_numpy(shape):
    assert tf.strides_for(shape) == numpy_layout(shape, "contiguous")
    assert tf.is_contiguous(shape, tf.strides_for(shape))


@given(shapes4)
def test_channels_last_strides_match_numpy_nhwc(shape):
    strides = tf.strides_for(shape, "channels_last")
    assert strides == numpy_layout(shape, "channels_last")
    assert tf.is_contiguous(shape, strides, "channels_last")


@given(shapes5)
def test_channels_last_3d_strides_match_numpy_ndhwc(shape):
    strides = tf.strides_for(shape, "channels_last_3d")
    assert strides == numpy_layout(shape, "channels_last_3d")
    assert tf.is_contiguous(shape, strides, "channels_last_3d")
    assert tf.suggest_memory_format(shape, strides, exact_match=True) in ("channels_last_3d", "contiguous")


def test_zero_size_strides_follow_pytorch():
    # contiguous: strides use max(size, 1) (TensorImpl::empty_tensor_restride); numpy
    # gives empty arrays other strides, so there is no numpy oracle here
    assert tf.strides_for((2, 0, 3)) == (3, 3, 1)
    # channels_last: get_channels_last_strides_2d multiplies by the raw size
    assert tf.strides_for((2, 3, 0, 4), "channels_last") == (0, 1, 12, 3)
    # an empty tensor is contiguous whatever its strides (numel == 0 shortcut) ...
    assert tf.is_contiguous((2, 0, 3), (7, 7, 7))
    # ... but channels_last contiguity has no such shortcut
    assert not tf.is_contiguous((2, 3, 0, 4), (7, 7, 7, 7), "channels_last")
    assert tf.is_contiguous((2, 3, 0, 4), (0, 1, 12, 3), "channels_last")


def test_memory_format_spellings():
    assert tf.normalize_memory_format("contiguous_format") == "contiguous"
    assert tf.normalize_memory_format("torch.channels_last") == "channels_last"
    assert tf.normalize_memory_format("torch.channels_last_3d") == "channels_last_3d"
    assert tf.strides_for((1, 2, 3), "torch.contiguous_format") == (6, 3, 1)


# --------------------------------------------------------------------------- is_contiguous vs numpy


def test_size_one_strides_are_ignored():
    # PyTorch skips size-1 dimensions: their stride never changes an address.
    assert tf.is_contiguous((1, 3, 1, 2), (999, 2, -5, 1))
    assert tf.is_contiguous((1, 3, 1, 2), (6, 2, 2, 1))
    assert tf.is_contiguous((2, 1, 3, 1), (3, 1, 1, 7), "channels_last") is True
    assert tf.is_contiguous((2, 3, 4, 1), (12, 4, 1, 1), "channels_last") is False
    # NHWC with C == 1: every format's rule holds at once
    shape = (2, 1, 3, 4)
    assert tf.is_contiguous(shape, (12, 1, 4, 1), "channels_last")
    assert tf.is_contiguous(shape, (12, 1, 4, 1), "contiguous")
    assert tf.is_contiguous(shape, (12, 12, 4, 1), "channels_last")


@st.composite
def strided_views(draw, rank_min=0, rank_max=5):
    """A shape and element strides obtained from numpy: permute a dense array, take
    positive-step slices, and sometimes broadcast a dimension (stride 0)."""
    rank = draw(st.integers(rank_min, rank_max))
    base_shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    arr = np.arange(max(1, math.prod(base_shape)), dtype=np.int32)[: math.prod(base_shape)].reshape(base_shape)
    perm = draw(st.permutations(range(rank)))
    arr = arr.transpose(perm)
    steps = tuple(draw(st.lists(st.integers(1, 2), min_size=rank, max_size=rank)))
    arr = arr[tuple(slice(None, None, s) for s in steps)]
    if rank and draw(st.booleans()):
        axis = draw(st.integers(0, rank - 1))
        shape = list(arr.shape)
        shape[axis] = draw(st.integers(1, 3))
        strides = list(element_strides(arr))
        strides[axis] = 0
        return tuple(shape), tuple(strides)
    return arr.shape, element_strides(arr)


@given(strided_views())
def test_is_contiguous_matches_numpy_c_contiguous_flag(view):
    shape, strides = view
    base = np.arange(1000, dtype=np.int32)
    arr = view_of(base, shape, strides)
    assert tf.is_contiguous(shape, strides) == arr.flags.c_contiguous


@given(strided_views(4, 4))
def test_is_contiguous_channels_last_matches_numpy_nhwc_flag(view):
    shape, strides = view
    arr = view_of(np.arange(1000, dtype=np.int32), shape, strides)
    assert tf.is_contiguous(shape, strides, "channels_last") == arr.transpose(NHWC_FROM_NCHW).flags.c_contiguous


@given(strided_views(5, 5))
def test_is_contiguous_channels_last_3d_matches_numpy_ndhwc_flag(view):
    shape, strides = view
    arr = view_of(np.arange(2000, dtype=np.int32), shape, strides)
    assert tf.is_contiguous(shape, strides, "channels_last_3d") == arr.transpose(NDHWC_FROM_NCDHW).flags.c_contiguous


@pytest.mark.parametrize("rank", [0, 1, 2, 3, 5, 6])
def test_channels_last_contiguity_is_false_for_other_ranks(rank):
    # As Tensor.is_contiguous(memory_format=torch.channels_last) on a non-4-D tensor: False.
    shape = (2,) * rank
    assert tf.is_contiguous(shape, tf.strides_for(shape), "channels_last") is False


# --------------------------------------------------------------------------- suggest_memory_format


def test_suggest_memory_format_ambiguous_cases_default_to_contiguous():
    # c10 MemoryFormat.h, Note [Ambiguous is_channels_last_strides_xd]
    assert tf.suggest_memory_format((4, 1, 1, 1), (1, 1, 1, 1)) == "contiguous"  # N111
    assert tf.suggest_memory_format((4, 1, 1, 1), (5, 5, 5, 5)) == "contiguous"  # N11W sliced
    assert tf.suggest_memory_format((2, 3, 4, 5), (60, 0, 5, 1)) == "contiguous"  # broadcast C
    assert tf.suggest_memory_format((2, 3, 0, 5), (0, 1, 15, 3)) == "contiguous"  # empty
    # N1H1: [H, 1, 1, 1] is channels_last, [H, H, 1, 1] is contiguous
    assert tf.suggest_memory_format((2, 1, 5, 1), (5, 1, 1, 1)) == "channels_last"
    assert tf.suggest_memory_format((2, 1, 5, 1), (5, 5, 1, 1)) == "contiguous"
    # 1C1W transposed(1, 3) must not look channels_last
    assert tf.suggest_memory_format((1, 4, 1, 3), (12, 1, 4, 4)) == "contiguous"
    # the heuristic looks at size-1 strides too (they must not decrease along C, W, H, N)
    assert tf.suggest_memory_format((2, 3, 1, 4), (12, 1, 12, 3)) == "channels_last"
    assert tf.suggest_memory_format((2, 3, 1, 4), (12, 1, 5, 3)) == "contiguous"
    # exact_match also requires get_channels_last_strides_2d's value for size-1 dims
    assert tf.suggest_memory_format((1, 3, 2, 4), (24, 1, 12, 3), exact_match=True) == "channels_last"
    assert tf.suggest_memory_format((1, 3, 2, 4), (100, 1, 12, 3)) == "channels_last"
    assert tf.suggest_memory_format((1, 3, 2, 4), (100, 1, 12, 3), exact_match=True) == "contiguous"
    # other ranks are always contiguous
    assert tf.suggest_memory_format((3, 2), (1, 3)) == "contiguous"


@given(st.tuples(*[st.integers(2, 5)] * 4), st.tuples(*[st.integers(2, 4)] * 5))
def test_suggest_memory_format_recognises_fresh_layouts(shape4, shape5):
    # Without size-1 dimensions nothing is ambiguous.
    assert tf.suggest_memory_format(shape4, tf.strides_for(shape4)) == "contiguous"
    assert tf.suggest_memory_format(shape4, tf.strides_for(shape4, "channels_last")) == "channels_last"
    assert tf.suggest_memory_format(shape5, tf.strides_for(shape5, "channels_last_3d")) == "channels_last_3d"
    assert tf.suggest_memory_format(shape5, tf.strides_for(shape5)) == "contiguous"


# --------------------------------------------------------------------------- conversions


@given(st.one_of(shapes4.map(lambda s: (s, "channels_last")), shapes5.map(lambda s: (s, "channels_last_3d"))),
       st.sampled_from(["float32", "int16", "uint8", "float64"]))
def test_to_memory_format_round_trip_element_by_element(case, dtype):
    shape, fmt = case
    x = np.arange(math.prod(shape)).astype(dtype).reshape(shape)
    y = tf.to_memory_format(x, fmt)
    assert y.shape == shape and y.dtype == np.dtype(dtype)
    assert y.descriptor.strides == tf.strides_for(shape, fmt)
    assert y.descriptor.offset == 0 and y.descriptor.alloc_size == x.size
    np.testing.assert_array_equal(y.numpy(), x)
    # the storage is x in N(D)HWC order: buffer[offset(i)] == x[i] for every element
    perm = NHWC_FROM_NCHW if fmt == "channels_last" else NDHWC_FROM_NCDHW
    np.testing.assert_array_equal(y.buffer(), x.transpose(perm).ravel())
    np.testing.assert_array_equal(view_of(y.buffer(), shape, y.descriptor.strides), x)
    assert tf.is_contiguous(shape, y.descriptor.strides, fmt)
    back = tf.to_memory_format(y, "contiguous")
    np.testing.assert_array_equal(back.buffer(), x.ravel())
    assert tf.is_contiguous(shape, back.descriptor.strides)


@given(strided_views(1, 4))
def test_to_memory_format_contiguous_copies_any_view(view):
    shape, strides = view
    src = view_of(np.arange(1000, dtype=np.int64), shape, strides)
    y = tf.to_memory_format(src, "contiguous")
    np.testing.assert_array_equal(y.numpy(), src)
    np.testing.assert_array_equal(y.buffer(), src.ravel())
    assert not y.readonly  # a broadcast source gives a fresh, writable copy


def test_to_memory_format_of_a_padded_ndarray():
    x = NdArray.zeros((1, 3, 2, 2), "int32", paddings=(0, 1, 2, 3), padding_offsets=(0, 1, 1, 2))
    x.numpy()[...] = np.array(STORAGE_B).reshape(1, 3, 2, 2)
    y = tf.to_memory_format(x, "channels_last")
    assert y.buffer().tolist() == STORAGE_B_CHANNELS_LAST
    assert not y.descriptor.has_padded_buffer


def test_to_memory_format_of_empty_arrays():
    y = tf.to_memory_format(NdArray.empty((2, 3, 0, 4), "float32"), "channels_last")
    assert y.shape == (2, 3, 0, 4) and y.descriptor.strides == (0, 1, 12, 3) and y.numpy().size == 0


@given(strided_views(1, 5), st.data())
def test_permute_is_zero_copy(view, data):
    shape, strides = view
    base = np.arange(1000, dtype=np.int64)
    src = view_of(base, shape, strides)
    x = NdArray.from_numpy(src)
    dims = data.draw(st.permutations(range(len(shape))))
    y = tf.permute(x, dims)
    assert y.base_ptr == x.base_ptr and y.descriptor.offset == x.descriptor.offset
    assert (y.shape, y.descriptor.strides) == tf.permute_layout(shape, x.descriptor.strides, dims)
    np.testing.assert_array_equal(y.numpy(), src.transpose(dims))
    assert np.shares_memory(y.numpy(), src) or src.size == 0


def test_permute_accepts_negative_dims():
    assert tf.permute_layout((1, 2, 3), (6, 3, 1), (0, -1, -2)) == ((1, 3, 2), (6, 1, 3))


# --------------------------------------------------------------------------- errors


def test_unknown_memory_format():
    with pytest.raises(UnsupportedOptionError, match=r"memory_format is 'preserve' but expected one of \('contiguous', 'channels_last', 'channels_last_3d'\)"):
        tf.strides_for((1, 2, 3, 4), "preserve")
    with pytest.raises(UnsupportedOptionError, match=r"memory_format is 'nhwc'"):
        tf.is_contiguous((1, 2, 3, 4), (24, 12, 4, 1), "nhwc")


@pytest.mark.parametrize(
    "shape, fmt, message",
    [
        ((2, 3, 4), "channels_last", r"shape has rank 3 but memory_format='channels_last' needs rank 4 \(NCHW\): shape=\(2, 3, 4\)"),
        ((1, 2, 3, 4, 5), "channels_last", r"shape has rank 5 but memory_format='channels_last' needs rank 4"),
        ((1, 2, 3, 4), "channels_last_3d", r"shape has rank 4 but memory_format='channels_last_3d' needs rank 5 \(NCDHW\): shape=\(1, 2, 3, 4\)"),
    ],
)
def test_strides_for_wrong_rank(shape, fmt, message):
    with pytest.raises(InvalidLayoutError, match=message):
        tf.strides_for(shape, fmt)


def test_to_memory_format_wrong_rank_allocates_nothing():
    with pytest.raises(InvalidLayoutError, match=r"shape has rank 3 but memory_format='channels_last' needs rank 4"):
        tf.to_memory_format(np.zeros((2, 3, 4)), "channels_last")


def test_bad_shapes_and_strides():
    with pytest.raises(InvalidLayoutError, match=r"strides has 3 entries but shape has rank 4: shape=\(2, 3, 4, 5\), strides=\(60, 20, 5\)"):
        tf.is_contiguous((2, 3, 4, 5), (60, 20, 5))
    with pytest.raises(InvalidLayoutError, match=r"shape\[1\] is -3 but expected a size >= 0: shape=\(2, -3\)"):
        tf.strides_for((2, -3))
    with pytest.raises(ArgumentTypeError, match=r"shape\[1\] is 2.5 of type float, expected an integer: shape=\(1, 2.5\)"):
        tf.strides_for((1, 2.5))
    with pytest.raises(ArgumentTypeError, match=r"shape\[0\] is True, a bool, expected an integer"):
        tf.strides_for((True, 2))
    with pytest.raises(ArgumentTypeError, match=r"shape is 7, expected a sequence of integers"):
        tf.strides_for(7)
    with pytest.raises(InvalidLayoutError, match=r"strides has 1 entries but shape has rank 2"):
        tf.suggest_memory_format((2, 3), (1,))


def test_bad_permutations():
    with pytest.raises(InvalidLayoutError, match=r"dims is \(0, 0, 1\) but expected a permutation of range\(3\): shape=\(1, 2, 3\), strides=\(6, 3, 1\)"):
        tf.permute_layout((1, 2, 3), (6, 3, 1), (0, 0, 1))
    with pytest.raises(InvalidLayoutError, match=r"dims is \(0, 1\) but expected a permutation of range\(3\)"):
        tf.permute(np.zeros((1, 2, 3)), (0, 1))
    with pytest.raises(InvalidLayoutError, match=r"dim1 is 4 but expected -4 <= dim1 < 4: shape=\(1, 3, 2, 2\)"):
        tf.transpose_layout((1, 3, 2, 2), (12, 4, 2, 1), 0, 4)
    with pytest.raises(InvalidLayoutError, match=r"array has rank 3 but NCHW -> NHWC needs rank 4"):
        tf.nchw_to_nhwc_view(np.zeros((1, 2, 3)))


def test_non_array_input():
    with pytest.raises(ArgumentTypeError, match=r"array is a list but expected an ndarray.NdArray, a numpy array or a DLPack producer"):
        tf.to_memory_format([[1, 2], [3, 4]], "contiguous")


# --------------------------------------------------------------------------- real torch, recorded
# PyTorch is never installed for the tests (the package index's build pulls gigabytes of GPU
# libraries): tests/fixtures/torch_fixtures.json holds what torch 2.13.0 answered for 400
# seeded shapes, memory formats and permutations; tests/fixtures/make_torch_fixtures.py remakes
# it (its docstring says how).
TORCH_LAYOUTS = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                                            "torch_fixtures.json")))["layouts"]


def test_cross_check_against_real_torch():
    assert len(TORCH_LAYOUTS) == 400
    seen = {"contiguous": 0, "channels_last": 0, "channels_last_3d": 0}
    for case in TORCH_LAYOUTS:
        shape = tuple(case["shape"])
        for fmt, strides in case["strides_for"].items():
            assert tf.strides_for(shape, fmt) == tuple(strides), (case, fmt)
        t_shape, t_stride = tuple(case["permuted_shape"]), tuple(case["permuted_stride"])
        for fmt, expected in case["is_contiguous"].items():
            assert tf.is_contiguous(t_shape, t_stride, fmt) == expected, (case, fmt)
            seen[fmt] += expected
        assert tf.suggest_memory_format(t_shape, t_stride) == case["suggested"], case
    assert all(seen.values()), seen  # each format's True answer met, not only False ones
