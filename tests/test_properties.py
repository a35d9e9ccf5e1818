"""Hypothesis properties against numpy.

Buffers are ``np.arange`` so every value is its own linear index; numpy's
``ravel_multi_index`` over the padded shape and ``as_strided`` are the oracles.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acl_bridge import descriptor_from_tensor_info, tensor_info
from ndarray import InvalidLayoutError, NdArray, NotRepresentableError, ShapeDescriptor
from ndarray.formats.dlpack import from_dlpack

DTYPES = ["float32", "float64", "int8", "uint8", "int16", "int32", "float16"]


@st.composite
def padded_descriptors(draw, max_rank=4):
    rank = draw(st.integers(0, max_rank))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    paddings = tuple(draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank)))
    offsets = tuple(draw(st.integers(0, p)) for p in paddings)
    order = draw(st.sampled_from(["c", "f"]))
    dtype = draw(st.sampled_from(DTYPES))
    return ShapeDescriptor.create(shape, dtype, order, paddings=paddings, padding_offsets=offsets)


def all_indices(shape):
    return list(np.ndindex(*shape))


@given(padded_descriptors())
def test_element_offsets_match_ravel_multi_index(d):
    for idx in all_indices(d.shape):
        padded_idx = tuple(i + o for i, o in zip(idx, d.padding_offsets))
        expected = int(np.ravel_multi_index(padded_idx, d.padded_shape, order=d.order.upper())) if d.rank else 0
        assert d.element_offset(idx) == expected


@given(padded_descriptors())
def test_logical_view_matches_as_strided(d):
    buf = np.arange(d.alloc_size, dtype=np.int64)
    oracle = np.lib.stride_tricks.as_strided(buf[d.offset:], shape=d.shape, strides=tuple(s * 8 for s in d.strides))
    a = NdArray.empty(d.shape, d.dtype, d.order, paddings=d.paddings, padding_offsets=d.padding_offsets)
    a.buffer()[...] = np.arange(d.alloc_size).astype(d.dtype)  # every value is its index
    expected = oracle.astype(d.dtype)
    np.testing.assert_array_equal(a.numpy(), expected)
    assert a.padding_mask().sum() == d.alloc_size - d.size


@given(padded_descriptors())
def test_padding_recovery_round_trip(d):
    again = ShapeDescriptor.create(d.shape, d.dtype, d.order, strides=d.strides, offset=d.offset, alloc_size=d.alloc_size)
    assert again.strides == d.strides and again.offset == d.offset and again.alloc_size == d.alloc_size
    if d.rank and all(n > 1 for n in d.shape):
        # with no size-1 dimension the layout fixes the order too, so the values are equal
        assert again == d


@given(padded_descriptors())
def test_shape_info_round_trip(d):
    info = d.to_shape_info()
    assert info[0] == d.rank and info[-1] == ord(d.order)
    back = ShapeDescriptor.from_shape_info(info, alloc_size=d.alloc_size, offset=d.offset)
    assert (back.shape, back.strides, back.offset, back.alloc_size, back.dtype) == (
        d.shape, d.strides, d.offset, d.alloc_size, d.dtype)


@given(padded_descriptors())
def test_shape_info_with_offset_and_alloc_size_gives_the_same_value(d):
    """What libnd4j keeps beside a shapeInfo (the NDArray's offset and length) gives back d itself."""
    assert ShapeDescriptor.from_shape_info(d.to_shape_info(), alloc_size=d.alloc_size, offset=d.offset) == d


@given(padded_descriptors())
def test_shape_info_alone_round_trips_unless_padding_follows_the_outermost_rows(d):
    """shapeInfo carries no allocation size: without one, a padded shapeInfo is the smallest
    padded buffer holding its elements. That is d itself unless d has padding after its
    outermost rows, which only alloc_size can say (then: an error naming alloc_size, or the
    same elements in a buffer without that trailing padding, never other strides)."""
    info = d.to_shape_info()
    outer = 0 if d.order == "c" else d.rank - 1
    if d.rank == 0 or d.paddings[outer] == d.padding_offsets[outer]:
        assert ShapeDescriptor.from_shape_info(info, offset=d.offset) == d
        if d.offset == 0:
            assert ShapeDescriptor.from_shape_info(info) == d
        return
    try:
        back = ShapeDescriptor.from_shape_info(info, offset=d.offset)
    except InvalidLayoutError as e:
        assert "give alloc_size, which libnd4j keeps in the NDArray" in str(e)
        inner = [p for i, p in enumerate(d.paddings) if i != outer]
        assert not any(inner)  # only the outermost dimension was padded: nothing left to flag
    else:
        assert (back.shape, back.strides, back.offset, back.dtype, back.order) == (
            d.shape, d.strides, d.offset, d.dtype, d.order)
        assert back.paddings[outer] == d.padding_offsets[outer] and back.alloc_size < d.alloc_size


@st.composite
def numpy_views(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank)))
    base = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    key = []
    for n in shape:
        start = draw(st.integers(0, n - 1))
        stop = draw(st.integers(start + 1, n))
        step = draw(st.sampled_from([1, 2, -1, -2]))
        key.append(slice(start, stop, step) if step > 0 else slice(stop - 1, start - 1 if start else None, step))
    view = base[tuple(key)]
    perm = draw(st.permutations(range(rank)))
    return base, view.transpose(perm)


@given(numpy_views())
def test_from_numpy_any_view_is_zero_copy(pair):
    base, view = pair
    a = NdArray.from_numpy(view)
    np.testing.assert_array_equal(a.numpy(), view)
    assert a.data_ptr == view.__array_interface__["data"][0]
    for idx in all_indices(view.shape):
        # every value is its linear index in `base`, the allocation starts at the lowest element
        low = view.__array_interface__["data"][0] - a.descriptor.offset_in_bytes
        expected = (low - base.__array_interface__["data"][0]) // 4 + a.descriptor.element_offset(idx)
        assert view[idx] == expected


@given(numpy_views())
def test_dlpack_round_trip(pair):
    _, view = pair
    a = NdArray.from_numpy(view)
    if any(s < 0 and n > 1 for n, s in zip(view.shape, view.strides)):
        # refused (PyTorch's importer crashes on negative strides); numpy's own export works
        with pytest.raises(BufferError, match=r"strides\[\d\] is -\d+, a negative stride"):
            from_dlpack(a)
        return
    back = from_dlpack(a)
    np.testing.assert_array_equal(back.numpy(), view)
    assert back.data_ptr == view.__array_interface__["data"][0]


@given(padded_descriptors(max_rank=6))
def test_acl_mapping_round_trip(d):
    try:
        info = tensor_info(d)
    except NotRepresentableError:
        assert d.order == "f" and d.rank > 1 and d.shape[-1] > 1 or str(d.dtype) not in (
            "float32", "float16", "int32", "int8", "uint8", "int16")
        return
    assert info.tensor_shape == tuple(reversed(d.shape or (1,)))
    assert info.offset_first_element_in_bytes == d.offset_in_bytes
    assert info.total_size_in_bytes == d.alloc_size_in_bytes
    back = descriptor_from_tensor_info(info)
    # a rank-0 tensor travels to ACL as shape [1]
    assert (back.shape, back.offset, back.alloc_size) == (d.shape or (1,), d.offset, d.alloc_size)
    assert all(s == t for n, s, t in zip(d.shape, back.strides, d.strides) if n > 1)
